"""The score tables' docs blocks, rendered from the rows in code (`tablebench.core.score_table`).

Each score keeps its constants as rows beside its code; this writes each table into its block
(`readme_blocks.BLOCKS`), and tests/test_readme.py holds every block to what this renders now, so
a constant changed in the code without rerunning this fails there.

    python -m tests.benchmarks.score_tables   # from the repo root; no measurement, instant
"""

from __future__ import annotations

import sys

from tablebench.core.score_table import render
from tablebench.metrics.formulas.table import ROWS as FORMULA_ROWS
from tablebench.metrics.tables.semantic_table import ROWS as SEMANTIC_ROWS
from tablebench.metrics.text.table import ROWS as TEXT_ROWS
from tests.benchmarks.readme_blocks import write_block

TABLES = {"score-table-semantic": SEMANTIC_ROWS, "score-table-text": TEXT_ROWS, "score-table-formula": FORMULA_ROWS}


def written_blocks() -> dict[str, str]:
    """What this script writes, by block (rendered from the code as it is)."""
    return {name: render(rows) for name, rows in TABLES.items()}


def main() -> int:
    for name, text in written_blocks().items():
        write_block(name, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
