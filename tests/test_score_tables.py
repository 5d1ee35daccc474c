"""Score tables in code (`core.score_table`): each score's constants are rows beside its code, the docs'
tables are rendered from the rows, and every module-level number of the score's modules is a row.
The mutation run (`python -m tests.benchmarks.mutations --area text`) changes each row's constant and
expects the row's own test to fail; this file only holds the table to the code, so it is not among
those tests (it would kill every mutant by reading the number)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tablebench.core.score_table import render
from tablebench.metrics.text.table import ROWS
from tests.benchmarks.readme_blocks import read_block

ROOT = Path(__file__).resolve().parents[1]


def numbers_of(path: Path) -> set[str]:
    """The module-level numbers of a source file (`NAME = 3`), by name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {t.id for node in tree.body if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, (int, float)) and not isinstance(node.value.value, bool)
            for t in node.targets if isinstance(t, ast.Name) and t.id.lstrip("_").isupper()}


def test_the_text_alignment_constants_are_rows_and_the_docs_show_them() -> None:
    """Every module-level number of the alignment is a row (the rest of the text metrics read it), each
    row's test exists, and docs/text.md holds the table rendered from the rows."""
    numbers = numbers_of(ROOT / "harness/metrics/text/alignment.py")
    assert numbers == {row.name for row in ROWS if row.module.endswith(".alignment")}
    for row in ROWS:
        path, name = row.test.split("::")
        assert re.search(rf"^def {name}\(", (ROOT / path).read_text(encoding="utf-8"), re.M), row.test
    assert read_block("score-table-text") == render(ROWS)


def test_the_formula_score_constants_are_rows_and_the_docs_show_them() -> None:
    """Every module-level number of the formula score's modules and every field of its fitted weights is a
    row, each row's test exists, and docs/metrics.md holds the table rendered from the rows."""
    from tablebench.metrics.formulas.score import Weights
    from tablebench.metrics.formulas.table import ROWS as FORMULA_ROWS

    named = {(row.module.rsplit(".", 1)[-1], row.name) for row in FORMULA_ROWS}
    for module in ("score", "edits", "glyph_match"):
        numbers = numbers_of(ROOT / "harness/metrics/formulas" / f"{module}.py")
        assert {(module, n) for n in numbers} <= named, module
    assert {("score", f"WEIGHTS.{f}") for f in Weights.__dataclass_fields__} <= named
    for row in FORMULA_ROWS:
        path, name = row.test.split("::")
        assert re.search(rf"^def {name}\(", (ROOT / path).read_text(encoding="utf-8"), re.M), row.test
    assert read_block("score-table-formula") == render(FORMULA_ROWS)
