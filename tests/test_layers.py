"""The package's layers hold: no module imports a later stage, no import cycle, no module too long.

The import graph is read from the source (every `import`, also inside functions), so a lazy
import cannot hide an upward dependency or a cycle. The order is the data flow of docs/design.md's
pipeline: each layer may import only the layers before it.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# low -> high; a module may import its own layer and the ones before it
LAYERS = ("core", "tex", "readers", "cases", "parse", "locate", "metrics", "evaluate", "gating", "report",
          "kinds", "plugin", "cli")
# side tools: what they may import besides themselves
SIDE = {
    "generate": {"core", "tex", "readers", "cases"},  # writes case sets, checks tables read back
    "parsers": {"core", "tex", "readers", "parse"},  # adapters: the protocol and the table model
}
MAX_LINES = 450
# What the restructure has not reached yet: each entry must still be a violation (so the list
# only shrinks), and the goal is three empty sets.
KNOWN_UPWARD: set[str] = set()
KNOWN_CYCLES: set[tuple[str, ...]] = set()
KNOWN_LONG: set[str] = set()


def _layer(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "parsers":
        return "parsers"
    return parts[1] if len(parts) > 1 else "harness"


def _modules() -> dict[str, Path]:
    out = {}
    for path in [*ROOT.glob("harness/**/*.py"), *ROOT.glob("parsers/**/*.py")]:
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(path: Path, known: set[str]) -> set[str]:
    """Our modules `path` imports (a `from pkg import sub` names the submodule)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{a.name}" for a in node.names] + [node.module]
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name:
                found.add(name)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {m: _imports(p, known) - {m} for m, p in modules.items()}


def _allowed(src: str, dst: str) -> bool:
    a, b = _layer(src), _layer(dst)
    if a == b or b == "harness":  # harness/__init__ holds only the version
        return True
    if a in SIDE:
        return b in SIDE[a]
    if b in SIDE:
        return a == "cli" and b == "generate"  # `tablebench generate|harvest|cases` drive the side tool
    if a == "harness":
        return False
    return LAYERS.index(b) < LAYERS.index(a)


def test_every_module_belongs_to_a_known_layer():
    strays = [m for m in _modules() if _layer(m) not in (*LAYERS, *SIDE, "harness")]
    assert not strays, f"modules outside the layers: {strays}"


def test_no_module_imports_a_later_layer():
    upward = {f"{src} -> {dst}" for src, dsts in _graph().items() for dst in dsts if not _allowed(src, dst)}
    assert not upward - KNOWN_UPWARD, "upward imports:\n" + "\n".join(sorted(upward - KNOWN_UPWARD))
    assert not KNOWN_UPWARD - upward, f"fixed, drop from KNOWN_UPWARD: {sorted(KNOWN_UPWARD - upward)}"


def test_no_import_cycle():
    graph = _graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    found = {tuple(c) for c in cycles}
    assert not found - KNOWN_CYCLES, f"import cycles: {sorted(found - KNOWN_CYCLES)}"
    assert not KNOWN_CYCLES - found, f"fixed, drop from KNOWN_CYCLES: {sorted(KNOWN_CYCLES - found)}"


def test_no_module_is_too_long():
    long = {m: n for m, p in _modules().items() if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long.keys() - KNOWN_LONG, f"modules over {MAX_LINES} lines: {long}"
    assert not KNOWN_LONG - long.keys(), f"fixed, drop from KNOWN_LONG: {sorted(KNOWN_LONG - long.keys())}"


def test_the_check_sees_an_upward_import():
    assert not _allowed("harness.core.table", "harness.readers.html")
    assert not _allowed("harness.generate.page", "harness.metrics.tables.teds")
    assert not _allowed("harness.parse.runner", "parsers.pypdf_parser")
    assert _allowed("harness.report.html", "harness.core.results")
    assert _allowed("parsers.layout", "harness.core.table")


def test_the_graph_sees_lazy_imports():
    graph = _graph()
    # imported only inside pytest_configure: a walk of the module body alone would miss it
    assert "harness.plugin.session" in graph["harness.plugin.hooks"]
    edges = defaultdict(set)
    for src, dsts in graph.items():
        for dst in dsts:
            edges[_layer(src)].add(_layer(dst))
    assert "core" in edges["plugin"]


def _loaded_after(code: str) -> list[str]:
    """The harness modules a fresh interpreter holds after running `code` (imports included)."""
    import subprocess
    import sys

    probe = code + "\nimport sys\nprint('\\n'.join(sorted(m for m in sys.modules if m.startswith('harness.'))))"
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_computing_a_case_id_imports_nothing_above_core():
    """Ids are computed everywhere (baselines, reports, the plugin): a kind's id prefix must not
    pull in the kinds, which compose every stage (`core.kinds.prefix_of`)."""
    loaded = _loaded_after("from harness.core.results import case_id\n"
                           "assert case_id('s', 'p1', 3, 'x', 'table') == 's/p1::t3[x]'\n"
                           "assert case_id('s', 'p1', 3, 'x', 'formula') == 's/p1::f3[x]'")
    assert loaded and all(m == "harness.core" or m.startswith("harness.core.") for m in loaded), loaded


def test_importing_the_evaluator_starts_nothing():
    """No parse pool and no exit hook of ours until a page is parsed (the plugin and the CLI
    import every stage: importing must not start workers' bookkeeping)."""
    assert "harness.evaluate.page" in _loaded_after(
        "import atexit\nregistered = []\natexit.register = lambda f, *a, **k: registered.append(f) or f\n"
        "import harness.plugin, harness.cli\nimport harness.evaluate.page as page\n"
        "ours = [f for f in registered if getattr(f, '__module__', '').startswith('harness')]\n"
        "assert page._DEFAULT_POOL is None and not ours, ours")
