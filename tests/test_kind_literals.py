"""No stage names a built-in kind: a kind literal ("table", "formula", "text", or a kind's title,
"tables") compared or dispatched on lives only in the kind's own modules and the registry.

Why: a stage that branches on "table" serves tables and silently skips every other kind (crops,
the gate's breakdown and a run's counts once did), and a kind added beside the built-ins must
work without an edit there. Read from the source, so a new branch fails here before it ships.

What counts as a kind literal (a kind's name or title as a string constant):
- compared: `r.kind == "text"`, `kind != "table"`, `k in ("tables", "formulas")` (a title anywhere
  in a comparison; a name where the other side speaks of a kind);
- passed as a kind: `kind="table"`, a default of a parameter or field called `kind`, an argument of
  a kind lookup (`items_of("table")`, `kinds.get("formula")`, `prefix_of`, `chosen`, ...).
A kind's own modules are those named for it (`locate/tables.py`, `metrics/formulas/`,
`report/text_card.py`, `evaluate/metaeval_tables.py`: a part of the dotted name, split on "_",
is the kind's name or the first word of its title); the registry is `core/kinds.py` and
`core/named_builtins.py`. Left out: `tex/` (a token's "kind" there is "text" or "cmd") and
`generate/` (a side tool that writes case files, whose block types are "table" and "text").
"""

from __future__ import annotations

import ast
import re

from tablebench.core import kinds
from tests.test_layers import _modules

REGISTRY = {"tablebench.core.kinds", "tablebench.core.named_builtins"}
OTHER_MEANINGS = {"tex": "a token's kind is text, cmd, ...", "generate": "a case file's block types"}
LOOKUPS = {"items_of", "count", "prefix_of", "chosen", "parse_names", "metric_names", "case_id", "specs_of",
           "defaults_of", "metric_selection", "item_name", "titled"}


def _words() -> tuple[set[str], set[str]]:
    """(names, titles) of the built-in kinds."""
    built = [kinds.get(name) for name in kinds.BUILTIN]
    return {k.name for k in built}, {k.title for k in built}


def _own(module: str, names: set[str], titles: set[str]) -> bool:
    """Is `module` a kind's own, by its name (see the module docstring)?"""
    words = {w for part in module.split(".")[1:] for w in re.split(r"_", part)}
    return bool(words & (names | {t.split()[0] for t in titles}))


def _strings(node: ast.AST) -> list[ast.Constant]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [c for element in node.elts for c in _strings(element)]
    return []


def _speaks_of_kind(node: ast.AST) -> bool:
    return "kind" in ast.unparse(node).lower()


def kind_literals(source: str, names: set[str], titles: set[str]) -> list[tuple[int, str]]:
    """(line, literal) of every kind literal in `source` compared or dispatched on."""
    found: list[ast.Constant] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            for i, side in enumerate(sides):
                others = sides[:i] + sides[i + 1:]
                found += [c for c in _strings(side)
                          if c.value in titles or (c.value in names and any(map(_speaks_of_kind, others)))]
        elif isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            lookup = called in LOOKUPS or "kind" in called.lower() or (
                called == "get" and isinstance(func, ast.Attribute) and _speaks_of_kind(func.value))
            if lookup:
                found += [c for arg in node.args for c in _strings(arg) if c.value in names]
            found += [c for kw in node.keywords if kw.arg and "kind" in kw.arg.lower()
                      for c in _strings(kw.value) if c.value in names]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            positional = args.posonlyargs + args.args
            pairs = [*zip(positional[len(positional) - len(args.defaults):], args.defaults),
                     *((a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)]
            found += [c for arg, default in pairs if "kind" in arg.arg.lower()
                      for c in _strings(default) if c.value in names]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            if "kind" in node.target.id.lower():
                found += [c for c in _strings(node.value) if c.value in names]
    return sorted({(c.lineno, c.value) for c in found})


def test_no_stage_names_a_built_in_kind():
    names, titles = _words()
    shared = {m: p for m, p in _modules().items() if m not in REGISTRY and not _own(m, names, titles)
              and m.split(".")[1:2] != ["parsers"] and (m.split(".") + [""])[1] not in OTHER_MEANINGS}
    assert "tablebench.report.html" in shared and "tablebench.locate.tables" not in shared
    found = {f"{m}:{line}: {value!r}" for m, path in shared.items()
             for line, value in kind_literals(path.read_text(encoding="utf-8"), names, titles)}
    assert not found, "kind literals outside the kinds' own modules:\n" + "\n".join(sorted(found))


def test_the_check_sees_each_form_of_a_kind_literal():
    names, titles = _words()
    source = '''
if r.kind == "text": pass
if kind != "table": pass
counts = {k: v for k, v in c.items() if k in ("tables", "cases")}
items = page.items_of("formula")
kind = item_kinds.get("table")
chosen(results, primary, kind="text")
def crops(results, kind: str = "table"): pass
class Board:
    kind: str = "formula"
'''
    assert [line for line, _ in kind_literals(source, names, titles)] == [2, 3, 4, 5, 6, 7, 8, 10]
    other = '''
if token_kind == "cmd": pass
entry.get("text")
Table(rows, fmt="text")
if tag != "table": pass
'''
    assert kind_literals(other, names, titles) == []


def test_every_built_in_ground_truth_type_is_a_ground_truth() -> None:
    """`core.kinds.GroundTruth` types every kind's stages: what they may read of any item."""
    from tablebench.cases import load_case_set
    from tablebench.core import kinds

    for name, case_set in (("table", "synth-v1"), ("formula", "formulas-v1"), ("text", "prose-v1")):
        items = load_case_set(case_set, only={"p001"}, kinds=name).pages[0].items_of(name)
        assert items and all(isinstance(item, kinds.GroundTruth) for item in items), name
