"""The one table model every step speaks: rows of cells with spans, as HTML has them.

A `Table` is a list of rows; a row is the list of cells that *start* in it (the HTML
table model). Grid positions are derived, not stored, so ragged rows and holes — which
real parsers emit — stay representable: a slot no cell covers is a hole (-1 in `grid()`).

Canonical HTML (`to_html()`) is the interchange form: `<table><tr><td colspan="2"
rowspan="3">text</td></tr></table>`, spans only when > 1, text HTML-escaped, no
thead/th. It reads back losslessly through `tablebench.readers.html.table_from_html`; HTML is
parsed only there, so this model imports no reader (readers depend on it, not the reverse).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

import numpy as np

MAX_SPAN = 1000  # a span larger than this is a parser bug, not a table
# Metrics whose cost grows with the product of the two tables' cells (tree edit distance, cell
# alignments, similarity matrices): 1,000 x 5 cells cost ~11 s and < 700 MB each, 5,000 x 5 ~150 s
# and 11 GB in all. Above this many cells in the ground truth or the prediction (as read, or as a
# metric re-reads it) they are not computed: the result records why, never a 0.
MAX_SCORED_CELLS = 5_000
# The same for the text the cells hold: a parser may write a whole page into two cells (2 x 300 KB
# against a 2,000-row table cost ~10 s); real tables hold a few KB.
MAX_SCORED_CHARS = 200_000
# Slots (rows x columns after spans) a grid may have for `layout()` to build it. Spans are bounded
# one by one (`MAX_SPAN`), but 20 cells of rowspan=colspan=1000 make a 20-million-slot grid (3.3 GB
# and 111 s to lay out); a real table has a few thousand slots. Past this bound `shape` raises
# `TableTooLarge` from a sweep that never builds the grid (`grid_shape`), and `layout()` before a
# cell that would pass it claims its slots.
MAX_GRID_SLOTS = 1_000_000


@dataclass(slots=True)
class Cell:
    """One cell: what a reader of the page sees (`text`), its spans, and its source."""

    text: str = ""
    rowspan: int = 1
    colspan: int = 1
    header: bool = False
    raw: str | None = None  # the cell as written in the source (LaTeX, HTML, ...)


@dataclass(slots=True)
class Layout:
    """Where cells sit: `grid[r, c]` is the index of the cell covering slot (r, c), or -1."""

    grid: np.ndarray
    origins: list[tuple[int, int]]  # top-left slot of each cell, by cell index

    @property
    def shape(self) -> tuple[int, int]:
        return self.grid.shape  # type: ignore[return-value]


@dataclass
class Table:
    """A table as rows of cells. `fmt` names the reader; `span` is (start, end) in its input."""

    rows: list[list[Cell]] = field(default_factory=list)
    fmt: str = ""
    span: tuple[int, int] | None = None

    # -- construction -------------------------------------------------------------
    @classmethod
    def from_rows(cls, rows: list[list[str]], header_rows: int = 0) -> Table:
        """A span-free table from rows of strings; the first `header_rows` are headers."""
        return cls([[Cell(str(t), header=i < header_rows) for t in row] for i, row in enumerate(rows)])

    # -- derived views ------------------------------------------------------------
    def cells(self) -> list[Cell]:
        """All cells in reading order; the index here is the cell id used by `layout()`."""
        return [cell for row in self.rows for cell in row]

    def layout(self) -> Layout:
        """Place cells on a grid by the HTML rule: each cell takes the first free slot of its row.

        Rows are extended by rowspans that reach past the last row; overlapping spans keep
        the first cell that claimed a slot. A grid of more than `MAX_GRID_SLOTS` slots raises
        `TableTooLarge` before a cell that would pass it claims its slots.
        """
        if all(cell.rowspan == 1 and cell.colspan == 1 for row in self.rows for cell in row):
            return self._unspanned_layout()
        origins: list[tuple[int, int]] = []
        occupied: dict[tuple[int, int], int] = {}
        n_rows = len(self.rows)
        n_cols = 0
        cell_id = 0
        for r, row in enumerate(self.rows):
            c = 0
            for cell in row:
                while (r, c) in occupied:
                    c += 1
                origins.append((r, c))
                if cell.rowspan == 1 and cell.colspan == 1:  # most cells: one slot, nothing to clamp
                    occupied.setdefault((r, c), cell_id)
                    c += 1
                    n_cols = max(n_cols, c)
                else:
                    rs, cs = _clamp(cell.rowspan), _clamp(cell.colspan)
                    n_rows = max(n_rows, r + rs)
                    n_cols = max(n_cols, c + cs)
                    if n_rows * n_cols > MAX_GRID_SLOTS:
                        raise TableTooLarge(f"grid of more than {MAX_GRID_SLOTS} slots")
                    for dr in range(rs):
                        for dc in range(cs):
                            occupied.setdefault((r + dr, c + dc), cell_id)
                    c += cs
                cell_id += 1
        if n_rows * n_cols > MAX_GRID_SLOTS:  # ragged rows alone: 1,000 rows under one of 10,000 cells
            raise TableTooLarge(f"grid of more than {MAX_GRID_SLOTS} slots")
        slots = [[-1] * n_cols for _ in range(n_rows)]  # filled as lists: a numpy store per slot costs more
        for (r, c), i in occupied.items():
            slots[r][c] = i
        return Layout(np.array(slots, dtype=np.int32).reshape(n_rows, n_cols), origins)

    def _unspanned_layout(self) -> Layout:
        """`layout()` of a table without spans (most tables): each row's cells side by side from
        its first slot, short rows ending in holes."""
        n_rows, n_cols = len(self.rows), max(map(len, self.rows), default=0)
        if n_rows * n_cols > MAX_GRID_SLOTS:
            raise TableTooLarge(f"grid of more than {MAX_GRID_SLOTS} slots")
        slots, origins, start = [], [], 0
        for r, row in enumerate(self.rows):
            slots.append([*range(start, start + len(row)), *[-1] * (n_cols - len(row))])
            origins += [(r, c) for c in range(len(row))]
            start += len(row)
        return Layout(np.array(slots, dtype=np.int32).reshape(n_rows, n_cols), origins)

    def grid_shape(self, limit: int = MAX_GRID_SLOTS) -> tuple[int, int]:
        """(rows, columns) of `layout()`'s grid, found without building it; `TableTooLarge` when it
        has more than `limit` slots.

        Rows are swept in order with the rowspans still reaching down from rows above, each as one
        column interval: a cell is placed past the intervals covering its column, as `layout()`
        places it past claimed slots. No two live intervals start in the same column (a cell cannot
        start on a slot an earlier rowspan covers), so a row costs at most the grid's width, and the
        sweep stops as soon as rows x columns passes `limit`: about cells + `limit` steps whatever
        the spans.
        """
        n_rows, n_cols = len(self.rows), 0
        live: list[tuple[int, int, int]] = []  # (first column, end column, end row) of rowspans from above
        for r, row in enumerate(self.rows):
            if not row:
                continue
            live = sorted(s for s in live if s[2] > r)
            below: list[tuple[int, int, int]] = []
            c, k = 0, 0
            for cell in row:
                while k < len(live) and live[k][0] <= c:  # sorted by first column: skip those covering c
                    c = max(c, live[k][1])
                    k += 1
                rs = 1 if cell.rowspan == 1 else _clamp(cell.rowspan)
                cs = 1 if cell.colspan == 1 else _clamp(cell.colspan)
                if rs > 1:
                    below.append((c, c + cs, r + rs))
                n_rows, n_cols = max(n_rows, r + rs), max(n_cols, c + cs)
                if n_rows * n_cols > limit:
                    raise TableTooLarge(f"grid of more than {limit} slots")
                c += cs
            live += below
        return n_rows, n_cols

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, columns) of the grid (`grid_shape`: `TableTooLarge` past `MAX_GRID_SLOTS`)."""
        return self.grid_shape()

    def text_grid(self, fill: str | None = None) -> list[list[str | None]]:
        """Each slot's text (a spanning cell repeats in every slot it covers); holes get `fill`."""
        cells = self.cells()
        return [[cells[i].text if i >= 0 else fill for i in row] for row in self.layout().grid.tolist()]

    @property
    def header_rows(self) -> int:
        """How many leading grid rows are all-header (the column-header block)."""
        lay = self.layout()
        cells = self.cells()
        n = 0
        for row in lay.grid:
            ids = [i for i in row if i >= 0]
            if ids and all(cells[i].header for i in ids):
                n += 1
            else:
                break
        return n

    def is_empty(self) -> bool:
        return not any(self.rows)

    # -- output -------------------------------------------------------------------
    def to_html(self, headers: bool = False) -> str:
        """Canonical HTML; with `headers=True` header cells become `<th>` (for reports)."""
        parts = ["<table>"]
        for row in self.rows:
            parts.append("<tr>")
            for cell in row:
                tag = "th" if headers and cell.header else "td"
                attrs = ""
                if cell.colspan != 1 and _clamp(cell.colspan) > 1:
                    attrs += f' colspan="{_clamp(cell.colspan)}"'
                if cell.rowspan != 1 and _clamp(cell.rowspan) > 1:
                    attrs += f' rowspan="{_clamp(cell.rowspan)}"'
                parts.append(f"<{tag}{attrs}>{html.escape(cell.text, quote=False)}</{tag}>")
            parts.append("</tr>")
        parts.append("</table>")
        return "".join(parts)

    def __str__(self) -> str:
        return self.to_html()


def clamp_span(span: int) -> int:
    """A span bounded to [1, MAX_SPAN]: the one bound every reader, the layout and the metrics share,
    so a parser's `colspan="99999999"` or `\\multicolumn{99999999}` costs what a wide table costs."""
    return min(max(int(span), 1), MAX_SPAN)


_clamp = clamp_span


class NoTableError(ValueError):
    """The input holds no table of the format asked for."""


class TableTooLarge(ValueError):
    """The table's grid has more slots than the caller's bound (`Table.grid_shape`)."""


TableLike = Table | str  # what the metrics accept: `tablebench.readers.html.as_table` makes it a Table
