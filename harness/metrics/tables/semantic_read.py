"""The prediction read as a reader who never saw the ground truth reads it.

`read_prediction` takes the extraction's table alone: no ground-truth argument reaches anything
here or in what it calls (`tests/test_semantic_blind.py` holds that). The score then compares
this one reading with the ground truth (`semantic_align`): the ground truth aligns and counts, it
never chooses how the prediction is read. Where a reader could not tell what the text means, the
reading is what the text shows, and the comparison charges what it gets wrong.

- A grid is read as written: its header rows and stub columns as its own text shows them
  (`semantic_struct.header_rows`, `stub_columns`). A cell that stacks several rows' values, a
  line each, is one cell: only the order of its lines would say which value goes where, so what
  it tells a reader is what a cell of joined text tells (damage, not another layout). A blank
  cell is blank, also where a format without spans (Markdown) wrote a label once over it.
- A table of one column and several rows is lines of text whose grid was lost: it is read back
  into cells from the lines' own regularity (`lines`, `semantic_lines.read_lines`). What that
  reading gets wrong costs what it costs in the comparison, at the costs a reader of lines
  charges (`semantic.Params.lines_weights`); the lost grid itself is named, not charged.

Each rule is one a reader follows and earns its place on data it was not designed on:
`tablebench meta-eval --ablation` cross-validates the score without each in turn. Readings that
did not (several readings weighed by how plausible each is: rows broken over lines joined, a
label written once read as spanning, stacked cells dealt into rows) were removed.
"""

from __future__ import annotations

from dataclasses import dataclass

from tablebench.core.table import Table
from tablebench.metrics.tables.semantic_lines import LINE_RULES, read_lines
from tablebench.metrics.tables.semantic_struct import Grid, View, header_rows, to_grid, view

# The readings of a grid, each a rule a reader follows (`tablebench meta-eval --ablation` removes
# each in turn); with the lines reader's own rules (`semantic_lines.LINE_RULES`), every rule the
# score reads by. The default reads by all of them.
GRID_RULES = ("lines",)
READ_RULES = frozenset(GRID_RULES + LINE_RULES)


@dataclass(frozen=True, slots=True)
class Reading:
    """The prediction as a reader reads it, from the extraction alone."""

    grid: Grid
    view: View
    how: str  # in words, for the report
    undelimited: bool = False  # the grid was rebuilt from lines of text


def read_prediction(table: Table, rules: frozenset[str] = READ_RULES) -> Reading | None:
    """The extracted table as a reader reads it (see the module docstring); None when it holds no
    cell. `rules` names the rules read by (all of them but for an ablation)."""
    grid = to_grid(table)
    if not grid.cells:
        return None
    if "lines" in rules and grid.shape[1] == 1 and grid.shape[0] >= 2:
        split = read_lines([row[0] for row in grid.shown], rules)
        lines = to_grid(split) if split is not None else None
        if lines is not None and lines.shape[1] > 1:  # the lines hold cells: the grid a reader rebuilds from them
            return Reading(lines, view(lines, header_rows(lines)), "lines of text split into cells", undelimited=True)
    return Reading(grid, view(grid, header_rows(grid)), "as written")
