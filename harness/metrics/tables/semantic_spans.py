"""Spans that lines of text cannot show: a label written once over several columns or rows.

A table's markup says how far a spanning label reaches (`\\multicolumn{3}{c}{Accuracy}` over
`Full Verb Noun`, `\\multirow{2}{*}{Tying Knots}` beside `Random` and `Task-Level`). Written as
lines of text, the label stands once, on its own line or at the start of one row, and nothing says
where it ends: a reader of the lines guesses from order and spacing which columns the group label
heads and which rows the row label still names. Our reading of lines guesses too (`semantic_lines`),
and when it guesses right nothing else is charged; the judge still takes points off ("span only
implied", "row-group structure only implicit"), because the reader could not be sure.

So for a grid rebuilt from lines (`semantic_read.Reading.undelimited`) the comparison counts the
share of the ground truth's columns under a header label that spans columns, plus the share of its
body rows whose label (or any cell) was written in a row above and spans down into them (`RULE`,
ablatable), as the feature `spans`, one cause. A label over the whole width (a title, a section
row) shows its extent on a line of its own and is not counted. A grid read as written shows its
spans in markup, or writes them by a convention a reader follows (a Markdown label followed by
blank cells): nothing is counted there.
"""

from __future__ import annotations

from tablebench.metrics.tables.semantic_align import FEATURES, Differences
from tablebench.metrics.tables.semantic_causes import Cause
from tablebench.metrics.tables.semantic_struct import Grid

RULE = "spans"  # the comparison's rule (`semantic.RULES`; `tablebench meta-eval --ablation` removes it)


def spanned(grid: Grid, header_rows: int) -> tuple[int, int]:
    """How many of `grid`'s columns stand under a header label spanning columns (narrower than the
    table), and how many of its body rows a cell written in a row above spans into."""
    ids = grid.ids
    n_rows, n_cols = grid.shape
    if not ids or n_cols == 0:
        return 0, 0
    columns = set()
    for r in range(min(header_rows, n_rows)):
        row = ids[r]
        for c in range(n_cols):
            if row[c] < 0 or row.count(row[c]) == n_cols:
                continue  # a hole, or one label over the whole width: a title shows its extent
            if (c > 0 and row[c - 1] == row[c]) or (c + 1 < n_cols and row[c + 1] == row[c]):
                columns.add(c)
    rows = sum(1 for r in range(max(header_rows, 1), n_rows)
               if r - 1 >= header_rows and any(ids[r][c] >= 0 and ids[r][c] == ids[r - 1][c]
                                                and ids[r].count(ids[r][c]) < n_cols for c in range(n_cols)))
    return len(columns), rows


def with_implied_spans(differences: Differences, grid: Grid, header_rows: int) -> Differences:
    """`differences` of a reading rebuilt from lines with the share of the ground truth's (`grid`,
    `header_rows`) columns and body rows under spanning labels counted (see the module docstring);
    unchanged when the truth spans nothing."""
    columns, rows = spanned(grid, header_rows)
    if not columns and not rows:
        return differences
    n_rows, n_cols = grid.shape
    share = columns / n_cols + rows / max(1, n_rows - header_rows)
    features = differences.features.copy()
    features[FEATURES.index("spans")] += share
    parts = [f"{columns} of {n_cols} columns under a label spanning columns"] if columns else []
    parts += [f"{rows} of {n_rows - header_rows} rows under a label spanning rows"] if rows else []
    cause = Cause("spans", share, f"spans only implied by the lines' order: {' and '.join(parts)}")
    return Differences(features, [*differences.causes, cause], differences.f1, differences.recall,
                       differences.precision, differences.n_gt, differences.n_pred, differences.alignment)
