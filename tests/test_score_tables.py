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

ROOT = Path(__file__).resolve().parents[1]


def test_the_text_alignment_constants_are_rows_and_the_docs_show_them() -> None:
    """Every module-level number of the alignment is a row (the rest of the text metrics read it), each
    row's test exists, and docs/text.md holds the table rendered from the rows."""
    source = (ROOT / "harness/metrics/text/alignment.py").read_text(encoding="utf-8")
    numbers = {t.id for node in ast.parse(source).body if isinstance(node, ast.Assign)
               and isinstance(node.value, ast.Constant) and isinstance(node.value.value, (int, float))
               for t in node.targets if isinstance(t, ast.Name) and t.id.isupper()}
    assert numbers == {row.name for row in ROWS if row.module.endswith(".alignment")}
    for row in ROWS:
        path, name = row.test.split("::")
        assert re.search(rf"^def {name}\(", (ROOT / path).read_text(encoding="utf-8"), re.M), row.test
    docs = (ROOT / "docs/text.md").read_text(encoding="utf-8")
    block = docs.split("<!-- score-table:text -->\n", 1)[1].split("\n<!-- /score-table:text -->", 1)[0]
    assert block == render(ROWS)
