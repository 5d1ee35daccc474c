"""A table as the facts a reader takes from it: each cell with the headers it sits under.

A data cell means something only together with its row header (the stub columns at the
left) and its column header path (the header rows above). Keying every cell by the two
makes representation free: a multi-level header flattened into one row ("Task 1 Score")
gives the same path as two rows "Task 1" / "Score"; a row span resolved by repeating the
value or by empty padding gives the same row key (stub cells are filled downwards).
A group header written once over blank header cells is *not* spread right: a reader cannot
tell which columns it covers, and the study's raters mark such tables down (when tried,
spreading lowered the dev Pearson from 0.920 to 0.907); the blank columns keep a partial key.
Blank rows and columns are dropped, but counted: each is one thing a reader sees that the
table does not have.

Header rows are the larger of the reader's header marks and a count inferred from the
content (leading rows before the first row of numbers), by the same rule for both sides;
the caller may try other readings for the prediction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from harness.metrics.semantic_text import NULL, normalize, numbers, residue
from harness.table import Table

_LEADING_NUMBER = re.compile(r"[^\w]{0,2}[-+±~≈<>≤≥]?\.?\d")


@dataclass(slots=True)
class Grid:
    """A table's visible slots, normalised, with empty rows/columns dropped."""

    cells: list[list[str]]  # normalised text per slot (a spanning cell repeats)
    shown: list[list[str]]  # the text as written, for error messages
    flagged_rows: int  # leading rows the reader marked as headers
    blank_lines: int = 0  # empty rows and columns dropped: each is one thing a reader sees that is not there

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.cells), len(self.cells[0]) if self.cells else 0


@dataclass(slots=True)
class View:
    """A table read as a reader reads it: column header paths, row keys, and the body cells."""

    col_keys: list[str]  # per column: its header path, normalised, levels joined by spaces
    col_shown: list[str]  # the same as written, levels joined by " / "
    row_keys: list[str]  # per body row: its stub cells, normalised
    row_shown: list[str]
    body: list[list[str]]  # body rows x columns, normalised
    body_shown: list[list[str]]
    header_rows: int
    stub_cols: int

    @property
    def n_facts(self) -> int:
        """Facts a reader takes away: each named column header and each body cell."""
        return sum(1 for k in self.col_keys if k) + sum(len(r) for r in self.body)


def to_grid(table: Table) -> Grid:
    """Normalised slot texts; rows and columns holding nothing are dropped (they show nothing)."""
    cells = table.cells()
    ids = table.layout().grid
    if ids.size == 0:
        return Grid([], [], 0)
    # A span over slots no other cell splits makes columns (rows) a reader cannot tell apart: one.
    ids = ids[:, np.r_[True, (ids[:, 1:] != ids[:, :-1]).any(axis=0)]]
    ids = ids[np.r_[True, (ids[1:] != ids[:-1]).any(axis=1)]]
    raw = [[cells[i].text if i >= 0 else "" for i in row] for row in ids.tolist()]
    norm = [[normalize(t) for t in row] for row in raw]
    filled = np.array([[t != NULL for t in row] for row in norm], dtype=bool)
    keep_r = np.flatnonzero(filled.any(axis=1))
    keep_c = np.flatnonzero(filled.any(axis=0))
    header_row = [bool(len(r)) and all(cells[i].header for i in r if i >= 0) and any(i >= 0 for i in r)
                  for r in ids.tolist()]
    flagged = 0
    for r in keep_r:
        if not header_row[r]:
            break
        flagged += 1
    blank = (filled.shape[0] - len(keep_r)) + (filled.shape[1] - len(keep_c))
    return Grid([[norm[r][c] for c in keep_c] for r in keep_r], [[raw[r][c] for c in keep_c] for r in keep_r],
                flagged if flagged < len(keep_r) else 0, blank)


def is_numeric(norm: str) -> bool:
    """A cell that is data, not a label: it starts with a number and is mostly numbers
    (91.2, -3.1±0.2, 45%, 1M, (1/8, 1/4)); R@20 or ResNet-50 are labels."""
    return bool(_LEADING_NUMBER.match(norm)) and len(residue(norm)) <= 3 * len(numbers(norm))


def is_section(row: list[str]) -> bool:
    """A row holding one label from the first column on, spanned or padded ("Dataset A"): it
    groups the rows below it, it labels no column."""
    filled = {t for t in row if t != NULL}
    return len(row) > 1 and len(filled) == 1 and row[0] != NULL and not is_numeric(row[0])


def inferred_header_rows(grid: Grid) -> int:
    """Leading rows before the first row whose cells right of the stub are mostly numbers, or
    before the first section row; 1 if there is no such row."""
    n_rows, _ = grid.shape
    for r, row in enumerate(grid.cells):
        if r > 0 and is_section(row):
            return r
        vals = [t for t in row[1:] if t != NULL]
        if vals and sum(map(is_numeric, vals)) * 2 >= len(vals):
            return min(r, max(n_rows - 1, 0))
    return 1 if n_rows > 1 else 0


def header_rows(grid: Grid) -> int:
    """The reader's header marks or the inferred count, whichever is larger: readers often mark
    only the first of several header rows (a `<th>` row over a `<td>` row of sub-headers)."""
    return max(grid.flagged_rows, inferred_header_rows(grid))


def stub_columns(grid: Grid, h: int) -> int:
    """The first column, plus following label columns when numbers come later (e.g. Dataset | Metric | ...)."""
    n_rows, n_cols = grid.shape
    if n_cols <= 1:
        return n_cols
    numeric = []
    for c in range(n_cols):
        vals = [grid.cells[r][c] for r in range(h, n_rows) if grid.cells[r][c] != NULL]
        numeric.append(not vals or sum(map(is_numeric, vals)) * 2 >= len(vals))  # empty: not a label
    k = 1
    while k < n_cols - 1 and not numeric[k] and any(numeric[k + 1:]):
        k += 1
    return k


def view(grid: Grid, h: int) -> View:
    """The table under `h` header rows: header paths per column, row keys, body cells."""
    n_rows, n_cols = grid.shape
    h = min(h, n_rows)
    k = stub_columns(grid, h)
    cells = [row[:] for row in grid.cells]
    shown = [row[:] for row in grid.shown]
    for r in range(h, n_rows):  # a section row ("Dataset A" across the table): one label, however spanned
        if is_section(cells[r]):
            cells[r] = [cells[r][0]] + [NULL] * (n_cols - 1)
            shown[r] = [shown[r][0]] + [""] * (n_cols - 1)
    for c in range(1, k):  # a stub header written once over blank stub columns: spread it right
        if all(cells[r][c] == NULL for r in range(h)):
            for r in range(h):
                cells[r][c], shown[r][c] = cells[r][c - 1], shown[r][c - 1]
    for r in range(h + 1, n_rows):  # row labels written once over padding: spread them down
        for c in range(k):
            if cells[r][c] == NULL and cells[r - 1][c] != NULL and any(t != NULL for t in cells[r][k:]) \
                    and not is_section(cells[r - 1]):
                cells[r][c], shown[r][c] = cells[r - 1][c], shown[r - 1][c]
    col_keys, col_shown = [], []
    for c in range(n_cols):
        key, show = _path([cells[r][c] for r in range(h)], [shown[r][c] for r in range(h)])
        col_keys.append(key)
        col_shown.append(show)
    row_keys, row_shown = [], []
    section: tuple[str, str] | None = None
    for r in range(h, n_rows):
        if is_section(cells[r]):
            section = (cells[r][0], shown[r][0].strip())
            row_keys.append(section[0])
            row_shown.append(section[1])
            continue
        key, show = _path(cells[r][:k], shown[r][:k])
        if section is not None:  # rows under a section are read with its label
            key, show = f"{section[0]} {key}", f"{section[1]} / {show}"
        row_keys.append(key)
        row_shown.append(show)
    return View(col_keys, col_shown, row_keys, row_shown, cells[h:], [[t.strip() for t in row] for row in shown[h:]],
                h, k)


def _path(norm: list[str], shown: list[str]) -> tuple[str, str]:
    """Header levels without blanks and without a span's repeats, as a key and for display."""
    keys: list[str] = []
    show: list[str] = []
    for t, s in zip(norm, shown):
        if t != NULL and (not keys or keys[-1] != t):
            keys.append(t)
            show.append(s.strip())
    return " ".join(keys), " / ".join(show)
