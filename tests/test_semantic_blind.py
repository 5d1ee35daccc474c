"""The semantic score reads the prediction as a reader who never saw the ground truth (issue: blind
reading): no function that reads a prediction takes the ground truth, and none of the modules it
reads with imports anything that holds one. The ground truth enters only at the comparison.

Checked over the code (AST), so a new parameter or import that would let the ground truth steer
the reading fails here before it can change a score.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import tablebench
from tablebench.locate import tables as locate_tables_module
from tablebench.metrics.tables import semantic

ROOT = Path(tablebench.__file__).parent
# Every module a prediction is read with: the reader of the score, what it calls to read a table
# (grid, header and stub, cell text, glyphs, row roles) and the readers of every output format.
READING = ["tablebench.metrics.tables.semantic_read", "tablebench.metrics.tables.semantic_lines",
           "tablebench.metrics.tables.semantic_struct", "tablebench.metrics.tables.semantic_text",
           "tablebench.metrics.tables.semantic_glyphs", "tablebench.readers"]
# What holds or compares against a ground truth: none of it may be imported, directly or not.
HOLDS_TRUTH = ["tablebench.metrics.tables.semantic_align", "tablebench.metrics.tables.semantic_causes",
               "tablebench.metrics.tables.semantic_diff", "tablebench.metrics.tables.semantic_size",
               "tablebench.metrics.tables.semantic_fit", "tablebench.metrics.tables.semantic", "tablebench.cases",
               "tablebench.locate", "tablebench.evaluate", "tablebench.gating", "tablebench.core.kinds",
               "tablebench.core.results", "tablebench.locate.table_profile"]
TRUTH_NAMES = {"gt", "g", "gv", "truth", "ground_truth", "reference", "gt_table", "gt_view", "expected", "target",
               "labels", "gt_grid", "profile"}


def _files(module: str) -> list[Path]:
    path = ROOT.joinpath(*module.split(".")[1:])  # `tablebench.X.Y` is harness/X/Y
    return sorted(path.rglob("*.py")) if path.is_dir() else [path.with_suffix(".py")]


def _imports(path: Path) -> set[str]:
    """Every harness module `path` imports (at any depth of its body), as dotted names."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("harness"):
            out.add(node.module)
            out |= {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("harness")}
    return out


def _module_file(name: str) -> Path | None:
    base = ROOT.parent / name.replace(".", "/")
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    return None


def _closure(modules: list[str]) -> set[str]:
    """The harness modules the reading modules import, transitively."""
    seen: set[str] = set()
    todo = [str(p.relative_to(ROOT.parent).with_suffix("")).replace("/", ".") for m in modules for p in _files(m)]
    while todo:
        name = todo.pop().removesuffix(".__init__")
        if name in seen:
            continue
        seen.add(name)
        path = _module_file(name)
        if path is not None:
            todo += [m for m in _imports(path) if _module_file(m) is not None]
    return seen


def test_no_reading_module_imports_what_holds_a_ground_truth() -> None:
    reached = _closure(READING)
    bad = sorted(m for m in reached for held in HOLDS_TRUTH if m == held or m.startswith(held + "."))
    assert not bad, f"the reading of a prediction reaches {bad}"


@pytest.mark.parametrize("module", READING)
def test_no_function_that_reads_a_prediction_takes_the_ground_truth(module: str) -> None:
    for path in _files(module):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                names = {a.arg for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]}
                assert not names & TRUTH_NAMES, f"{path.name}:{node.lineno} {node.name}({', '.join(sorted(names))})"


def test_the_locator_decides_which_text_and_reads_it_without_the_ground_truth() -> None:
    """`attached_lines` may use the ground truth (which lines beside the pieces are the table's);
    `join_fragments`, which turns that text into the table that is scored, does not see it."""
    params = set(inspect.signature(locate_tables_module.join_fragments).parameters)
    assert params == {"tables", "output", "lines"}
    assert "gt" in inspect.signature(locate_tables_module.attached_lines).parameters


def test_the_score_reads_the_prediction_from_the_prediction_alone() -> None:
    """In `semantic.read_and_count`, `read_prediction` is called with the prediction and the rules only."""
    tree = ast.parse(inspect.getsource(semantic.read_and_count))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "read_prediction"]
    assert len(calls) == 1
    used = {n.id for arg in calls[0].args for n in ast.walk(arg) if isinstance(n, ast.Name)}
    assert used == {"pred_table", "rules"}
    # and the table it reads is the prediction's, as given
    assigned = [n for n in ast.walk(tree) if isinstance(n, ast.Assign)
                and "pred_table" in {t.id for target in n.targets for t in ast.walk(target) if isinstance(t, ast.Name)}]
    assert len(assigned) == 1
    assert "as_table(pred)" in ast.unparse(assigned[0].value) and "gt" not in ast.unparse(assigned[0].value).replace(
        "gt_table", "")


def test_a_prediction_reads_the_same_whatever_it_is_compared_with() -> None:
    from tablebench.core.table import Table
    from tablebench.metrics.tables.semantic import read_and_count

    pred = Table.from_rows([["Model", "Acc"], ["A", "1.5"], ["B", "2.5"]], header_rows=1)
    one = Table.from_rows([["Model", "Acc"], ["A", "1.5"], ["B", "2.5"]], header_rows=1)
    other = Table.from_rows([["x"], ["Model"], ["Acc"], ["A 1.5"], ["B 2.5"]], header_rows=2)
    a, b = read_and_count(one, pred), read_and_count(other, pred)
    assert a.how == b.how and a.differences.n_pred == b.differences.n_pred
    assert a.differences.alignment is not None and b.differences.alignment is not None
    assert a.differences.alignment.p == b.differences.alignment.p  # the same view of the prediction
