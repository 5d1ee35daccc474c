"""The package's layers hold: no module imports a later stage, no import cycle, no module too long,
and the house is at most `MAX_FLOOR` floors high (a folder stands one above the highest it imports).

The import graph is read from the source (every `import`, also inside functions), so a lazy
import cannot hide an upward dependency or a cycle. Modules named as text and imported at run
time count too: a string constant that names one of our modules ("tablebench.kinds.tables:KIND",
"tablebench.parsers.pypdf_parser"), the imports of a string that is Python code (a `-c` program), and the
entry points of pyproject.toml, which belong to the module that reads their group. The order is
the data flow of docs/design.md's pipeline: each layer may import only the layers before it.
"""

from __future__ import annotations

import ast
import re
import tomllib
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
# Plug-in registries: a lower layer serves what a higher one implements, naming it as text and
# importing it on first use. Each (module, layer it may name that way) is allowed here and only
# here, with its reason; an import statement across the same line is still an error. Such a name
# is resolved after both ends have loaded, so it is left out of the cycle check.
LATE_BOUND = {
    ("tablebench.core.named_builtins", "kinds"):
        "every stage serves item kinds through core.kinds; the built-in kinds compose every stage",
    ("tablebench.core.named_builtins", "metrics"):
        "a metric's spec (scale, headline) is read everywhere; its scorer (numba, TeX) only when scoring",
    ("tablebench.parse.registry", "parsers"):
        "the built-in adapters are entry points of tablebench.parsers, loaded as a third party's are",
}
MAX_LINES = 450
# How tall the house may stand: a folder stands one floor above the highest folder it imports
# (`core` is floor 1), so the top floor counts the folders a change at the bottom passes through.
MAX_FLOOR = 7
# What the restructure has not reached yet: each entry must still be a violation (so the list
# only shrinks), and the goal is three empty sets.
KNOWN_UPWARD: set[str] = set()
KNOWN_CYCLES: set[tuple[str, ...]] = set()
KNOWN_LONG: set[str] = set()
# a whole string that names one of our modules, optionally with an attribute: "pkg.mod:attr"
_NAMED = re.compile(r"tablebench(?:\.[A-Za-z_]\w*)+(?::[A-Za-z_][\w.]*)?")


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "tablebench"


def _modules() -> dict[str, Path]:
    out = {}
    # the folders as the build maps them: harness/ is `tablebench`, parsers/ is `tablebench.parsers`
    for folder, package in (("harness", ("tablebench",)), ("parsers", ("tablebench", "parsers"))):
        for path in (ROOT / folder).glob("**/*.py"):
            parts = package + path.relative_to(ROOT / folder).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


def _resolve(name: str, known: set[str]) -> str | None:
    """The module of ours `name` is or lies in (`pkg.mod.attr` -> `pkg.mod`), None for another package's."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def _imports(tree: ast.AST, known: set[str]) -> set[str]:
    """Our modules the import statements of `tree` name (a `from pkg import sub` names the submodule)."""
    found = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{a.name}" for a in node.names] + [node.module]
        found.update(m for name in names if (m := _resolve(name, known)))
    return found


def _named(tree: ast.AST, known: set[str]) -> set[str]:
    """Our modules the string constants of `tree` name: a whole string "tablebench.x.y[:attr]", or
    the imports of a string that parses as Python code (a program run with `python -c`)."""
    found = set()
    groups = _entry_point_groups(tree)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)) or id(node) in groups:
            continue
        text = node.value.strip()
        if _NAMED.fullmatch(text):
            found.update(m for m in [_resolve(text.partition(":")[0], known)] if m)
        elif "import " in text:
            try:
                code = ast.parse(text)
            except (SyntaxError, ValueError):
                continue
            found |= _imports(code, known)
    return found


def _entry_point_groups(tree: ast.AST) -> set[int]:
    """The string nodes that name an entry-point group (`ENTRY_POINT_GROUP = "tablebench.kinds"`):
    a group shares its dotted name with our package but names no module."""
    return {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "ENTRY_POINT_GROUP" for t in node.targets)
            and isinstance(node.value, ast.Constant)}


def _constants(tree: ast.AST) -> set[str]:
    return {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)}


def _entry_points(trees: dict[str, ast.AST], known: set[str]) -> dict[str, set[str]]:
    """pyproject.toml's entry points as edges {reader: targets}: a group belongs to the module of
    ours that names it (`ENTRY_POINT_GROUP = "tablebench.parsers"`); a group no module of ours
    reads (pytest11, the console script) is loaded by another tool, so its target is a root."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    constants = {m: _constants(tree) for m, tree in trees.items()}
    edges: dict[str, set[str]] = defaultdict(set)
    for group, points in project.get("entry-points", {}).items():
        targets = {m for value in points.values() if (m := _resolve(value.partition(":")[0], known))}
        for reader in (m for m, found in constants.items() if group in found):
            edges[reader] |= targets
    return edges


def _sources() -> dict[str, str]:
    return {m: p.read_text(encoding="utf-8") for m, p in _modules().items()}


def _edges(sources: dict[str, str]) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(imports, names) of every module in `sources` ({module: its source text}): the modules of
    ours each one imports by statement, and those it names as text (string constants, entry points)."""
    known = set(_modules()) | set(sources)
    trees = {module: ast.parse(text) for module, text in sources.items()}
    imports = {module: _imports(tree, known) - {module} for module, tree in trees.items()}
    names = {module: _named(tree, known) - {module} for module, tree in trees.items()}
    for reader, targets in _entry_points(trees, known).items():
        names[reader] |= targets - {reader}
    return imports, names


def _late_bound(imports: dict[str, set[str]], names: dict[str, set[str]]) -> set[tuple[str, str]]:
    """The edges that are names only, on a line `LATE_BOUND` allows."""
    return {(src, dst) for src, dsts in names.items() for dst in dsts - imports[src]
            if (src, _layer(dst)) in LATE_BOUND}


def _graph(sources: dict[str, str] | None = None) -> dict[str, set[str]]:
    """Every edge: imported or named."""
    imports, names = _edges(_sources() if sources is None else sources)
    return {m: imports[m] | names[m] for m in imports}


def _upward(sources: dict[str, str]) -> set[str]:
    imports, names = _edges(sources)
    late = _late_bound(imports, names)
    return {f"{src} -> {dst}" for src in imports for dst in imports[src] | names[src]
            if not _allowed(src, dst) and (src, dst) not in late}


def _allowed(src: str, dst: str) -> bool:
    a, b = _layer(src), _layer(dst)
    if a == b or b == "tablebench":  # harness/__init__ (the package `tablebench`) holds only the version
        return True
    if a in SIDE:
        return b in SIDE[a]
    if b in SIDE:
        return a == "cli" and b == "generate"  # `tablebench generate|harvest|cases` drive the side tool
    if a == "tablebench":
        return False
    return LAYERS.index(b) < LAYERS.index(a)


def test_every_module_belongs_to_a_known_layer():
    strays = [m for m in _modules() if _layer(m) not in (*LAYERS, *SIDE, "tablebench")]
    assert not strays, f"modules outside the layers: {strays}"


def test_no_module_imports_a_later_layer():
    upward = _upward(_sources())
    assert not upward - KNOWN_UPWARD, "upward imports:\n" + "\n".join(sorted(upward - KNOWN_UPWARD))
    assert not KNOWN_UPWARD - upward, f"fixed, drop from KNOWN_UPWARD: {sorted(KNOWN_UPWARD - upward)}"


def _cycles(sources: dict[str, str]) -> set[tuple[str, ...]]:
    """The import cycles among `sources` (late-bound names left out), each as its sorted modules."""
    imports, names = _edges(sources)
    late = _late_bound(imports, names)
    graph = {m: {d for d in imports[m] | names[m] if (m, d) not in late} for m in imports}
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
    return {tuple(c) for c in cycles}


def test_no_import_cycle():
    found = _cycles(_sources())
    assert not found - KNOWN_CYCLES, f"import cycles: {sorted(found - KNOWN_CYCLES)}"
    assert not KNOWN_CYCLES - found, f"fixed, drop from KNOWN_CYCLES: {sorted(KNOWN_CYCLES - found)}"


def test_every_late_bound_line_is_used():
    """An allowance nothing uses any more goes (so the list only shrinks)."""
    used = {(src, _layer(dst)) for src, dst in _late_bound(*_edges(_sources()))}
    assert not LATE_BOUND.keys() - used, f"drop from LATE_BOUND: {sorted(LATE_BOUND.keys() - used)}"


def test_no_module_is_too_long():
    long = {m: n for m, p in _modules().items() if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long.keys() - KNOWN_LONG, f"modules over {MAX_LINES} lines: {long}"
    assert not KNOWN_LONG - long.keys(), f"fixed, drop from KNOWN_LONG: {sorted(KNOWN_LONG - long.keys())}"


def test_the_check_sees_an_upward_import():
    assert not _allowed("tablebench.core.table", "tablebench.readers.html")
    assert not _allowed("tablebench.generate.page", "tablebench.metrics.tables.teds")
    assert not _allowed("tablebench.parse.runner", "tablebench.parsers.pypdf_parser")
    assert _allowed("tablebench.report.html", "tablebench.core.results")
    assert _allowed("tablebench.parsers.layout", "tablebench.core.table")


def test_the_graph_sees_lazy_imports():
    graph = _graph()
    # imported only inside pytest_configure: a walk of the module body alone would miss it
    assert "tablebench.plugin.session" in graph["tablebench.plugin.hooks"]
    edges = defaultdict(set)
    for src, dsts in graph.items():
        for dst in dsts:
            edges[_layer(src)].add(_layer(dst))
    assert "core" in edges["plugin"]


def test_the_graph_sees_modules_named_as_text():
    """A module named in a string and imported at run time is an edge like an import statement:
    "module:attr" and dotted names, and the imports of a string of Python code; a docstring that
    mentions a module is not."""
    source = ('"""Mentions `tablebench.report.html` in passing."""\n'
              'KIND = "tablebench.kinds.tables:KIND"\n'
              'STEP = ("-m", "tablebench.evaluate.page")\n'
              'CODE = "import sys; from tablebench.report.write import read_results"\n')
    imports, names = _edges({"tablebench.core.example": source})
    assert not imports["tablebench.core.example"]
    assert names["tablebench.core.example"] == {"tablebench.kinds.tables", "tablebench.evaluate.page", "tablebench.report.write"}


def test_the_check_fails_on_an_upward_name_and_its_cycle():
    """The hidden cycle the kinds registry once held (core -> kinds -> ... -> core, through a name
    in `core`): an upward edge and a cycle, unless `LATE_BOUND` allows that module to name it."""
    kind = "from tablebench.core.example import BUILTIN\n"
    sources = {"tablebench.core.example": 'BUILTIN = {"table": "tablebench.kinds.example:KIND"}\n',
               "tablebench.kinds.example": kind}
    assert _upward(sources) == {"tablebench.core.example -> tablebench.kinds.example"}
    assert _cycles(sources) == {("tablebench.core.example", "tablebench.kinds.example")}
    allowed = {"tablebench.core.named_builtins": sources["tablebench.core.example"],
               "tablebench.kinds.example": kind.replace("example", "named_builtins")}
    assert not _upward(allowed) and not _cycles(allowed)
    # an import statement along an allowed line is still an upward import
    assert _upward({"tablebench.core.named_builtins": "import tablebench.kinds.tables\n"})


def test_entry_points_belong_to_the_module_reading_their_group():
    graph = _graph()
    assert {"tablebench.parsers.pypdf_parser", "tablebench.parsers.camelot_parser"} <= graph["tablebench.parse.registry"]
    assert not any("tablebench.plugin.hooks" in dsts for src, dsts in graph.items() if src != "tablebench.plugin.hooks")


def _loaded_after(code: str) -> list[str]:
    """The harness modules a fresh interpreter holds after running `code` (imports included)."""
    import subprocess
    import sys

    probe = code + "\nimport sys\nprint('\\n'.join(sorted(m for m in sys.modules if m.startswith('tablebench.'))))"
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_computing_a_case_id_imports_nothing_above_core():
    """Ids are computed everywhere (baselines, reports, the plugin): a kind's id prefix must not
    pull in the kinds, which compose every stage (`core.kinds.prefix_of`)."""
    loaded = _loaded_after("from tablebench.core.results import case_id\n"
                           "assert case_id('s', 'p1', 3, 'x', 'table') == 's/p1::t3[x]'\n"
                           "assert case_id('s', 'p1', 3, 'x', 'formula') == 's/p1::f3[x]'")
    assert loaded and all(m == "tablebench.core" or m.startswith("tablebench.core.") for m in loaded), loaded


def test_importing_the_evaluator_starts_nothing():
    """No parse pool and no exit hook of ours until a page is parsed (the plugin and the CLI
    import every stage: importing must not start workers' bookkeeping)."""
    assert "tablebench.evaluate.page" in _loaded_after(
        "import atexit\nregistered = []\natexit.register = lambda f, *a, **k: registered.append(f) or f\n"
        "import tablebench.plugin, tablebench.cli\nimport tablebench.evaluate.page as page\n"
        "ours = [f for f in registered if getattr(f, '__module__', '').startswith('tablebench')]\n"
        "assert page._DEFAULT_POOL is None and not ours, ours")


def _reached(start: set[str], edges: dict[str, set[str]]) -> set[str]:
    """Every module `start` reaches along `edges`, `start` included."""
    seen, todo = set(start), list(start)
    while todo:
        for nxt in edges.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_no_run_time_loop_between_the_report_and_the_kinds():
    """The report asks the kinds at run time (titles, groups, which renderer draws a card:
    `core.kinds.get`), so no kind may import the report, even inside a function: report -> kinds ->
    report was a loop (`kinds.get("table")` imported 13 report modules). A kind names its card's
    renderer as text, and the report loads it (`tablebench.report.cards`)."""
    imports, _ = _edges(_sources())
    kinds = {m for m in imports if _layer(m) == "kinds"}
    reached = _reached(kinds, imports)
    assert not sorted(m for m in reached if _layer(m) == "report"), "a kind imports the report"
    loaded = _loaded_after("from tablebench.core import kinds\nfor name in kinds.names():\n    kinds.get(name)")
    assert "tablebench.kinds.tables" in loaded and not [m for m in loaded if _layer(m) == "report"], loaded


def test_the_loop_check_sees_a_kind_that_imports_the_report():
    sources = {"tablebench.kinds.example": "def card():\n    from tablebench.report.helper import draw\n",
               "tablebench.report.helper": "from tablebench.core.kinds import get\n"}
    imports, _ = _edges(sources)
    assert "tablebench.report.helper" in _reached({"tablebench.kinds.example"}, imports)


def _floors(graph: dict[str, set[str]]) -> dict[str, tuple[int, str | None]]:
    """{folder: (floor, the folder below it that sets it)}: one above the highest folder it
    imports, a folder that imports none of ours on floor 1. Folder edges only (a module may
    import its own folder); the graph has no cycles between folders that hold (see above)."""
    below: dict[str, set[str]] = defaultdict(set)
    for src, dsts in graph.items():
        below[_layer(src)] |= {_layer(d) for d in dsts} - {_layer(src), "tablebench"}
    floors: dict[str, tuple[int, str | None]] = {}

    def floor(folder: str) -> int:
        if folder not in floors:
            floors[folder] = (0, None)  # a folder cycle stops here instead of recursing forever
            top = max(sorted(below[folder]), key=floor, default=None)
            floors[folder] = (1 + (floor(top) if top else 0), top)
        return floors[folder][0]

    for folder in sorted(below):
        floor(folder)
    return floors


def _chain(floors: dict[str, tuple[int, str | None]], folder: str) -> list[str]:
    """`folder` and the folders under it that set its floor, down to floor 1."""
    out = [folder]
    while (below := floors[out[-1]][1]) is not None:
        out.append(below)
    return out


def test_the_house_is_at_most_max_floor_floors_high():
    """A stage imported for a one-line helper lifts every folder above it a floor: the gate once
    stood on evaluate/ for `completeness`, metrics/ on locate/ for the text aligner (9 floors)."""
    imports, names = _edges(_sources())
    late = _late_bound(imports, names)
    floors = _floors({m: {d for d in imports[m] | names[m] if (m, d) not in late} for m in imports})
    assert floors["core"][0] == 1
    top = max(floors, key=lambda f: floors[f][0])
    assert floors[top][0] <= MAX_FLOOR, f"{floors[top][0]} floors: " + " -> ".join(_chain(floors, top))


def test_the_floor_check_counts_the_highest_folder_imported():
    graph = {"tablebench.core.a": set(), "tablebench.readers.r": {"tablebench.core.a"},
             "tablebench.metrics.m": {"tablebench.readers.r", "tablebench.core.a", "tablebench.metrics.n"},
             "tablebench.metrics.n": set(), "tablebench.gating.g": {"tablebench.core.a"},
             "tablebench.report.p": {"tablebench.gating.g", "tablebench.metrics.m"}}
    floors = _floors(graph)
    assert {f: n for f, (n, _) in floors.items()} == {"core": 1, "readers": 2, "metrics": 3, "gating": 2, "report": 4}
    assert _chain(floors, "report") == ["report", "metrics", "readers", "core"]
