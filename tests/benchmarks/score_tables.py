"""The score tables' docs blocks, rendered from the rows in code (`tablebench.core.score_table`).

Each score keeps its constants as rows beside its code (and the semantic score its features, rules
and fixed behaviours too); this writes each table into its block (`readme_blocks.BLOCKS`), and tests/test_readme.py holds every block to what this renders now, so
a constant, weight or row's text changed in the code without rerunning this fails there.

    python -m tests.benchmarks.score_tables   # from the repo root; no measurement, instant
"""

from __future__ import annotations

import sys

from tablebench.core.score_table import render, render_parts
from tablebench.metrics.formulas.table import ROWS as FORMULA_ROWS
from tablebench.metrics.tables import semantic_table
from tablebench.metrics.text.table import ROWS as TEXT_ROWS
from tests.benchmarks.readme_blocks import write_block

TABLES = {"score-table-semantic": semantic_table.CONSTANT_ROWS, "score-table-text": TEXT_ROWS,
          "score-table-formula": FORMULA_ROWS}
RULE = ("rule", "what a reader does", "test")
PARTS = {"score-table-semantic-reading": (RULE, semantic_table.READING_RULE_ROWS),
         "score-table-semantic-comparison": (RULE, semantic_table.COMPARISON_RULE_ROWS),
         "score-table-semantic-behaviour": (("behaviour", "test"), semantic_table.BEHAVIOUR_ROWS)}


def written_blocks() -> dict[str, str]:
    """What this script writes, by block (rendered from the code as it is)."""
    return {**{name: render(rows) for name, rows in TABLES.items()},
            **{name: render_parts(head, rows) for name, (head, rows) in PARTS.items()},
            "score-table-semantic-features": semantic_table.render_features()}


def main() -> int:
    for name, text in written_blocks().items():
        write_block(name, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
