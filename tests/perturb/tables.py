"""Row and cell edits on a `Table` that keep its spans consistent (the transformations' tools)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tablebench.core.table import Cell, Table


@dataclass(slots=True)
class Placed:
    """A cell and the slots it covers: top-left (row, column) and its spans."""

    cell: Cell
    row: int
    col: int
    rows: int
    cols: int


def placed(table: Table) -> tuple[list[Placed], int, int]:
    """Every cell with its slots (a cell that lost all its slots to an overlap is left out),
    and the grid's shape."""
    lay = table.layout()
    cells = table.cells()
    out = []
    for i, (r, c) in enumerate(lay.origins):
        if lay.grid[r, c] != i:
            continue
        rows = int((lay.grid[r:, c] == i).sum())
        cols = int((lay.grid[r, c:] == i).sum())
        out.append(Placed(_copy(cells[i]), r, c, rows, cols))
    n_rows, n_cols = lay.shape
    return out, n_rows, n_cols


def _copy(cell: Cell) -> Cell:
    return Cell(cell.text, cell.rowspan, cell.colspan, cell.header)


def build(cells: list[Placed], n_rows: int, n_cols: int) -> Table:
    """A table of `cells` at their slots; a slot no cell covers gets an empty cell, so that the
    HTML placement rule puts every cell back where it was."""
    taken = {(p.row + dr, p.col + dc) for p in cells for dr in range(p.rows) for dc in range(p.cols)}
    fill = [Placed(Cell(""), r, c, 1, 1) for r in range(n_rows) for c in range(n_cols) if (r, c) not in taken]
    rows: list[list[Cell]] = [[] for _ in range(n_rows)]
    for p in sorted(cells + fill, key=lambda p: (p.row, p.col)):
        rows[p.row].append(Cell(p.cell.text, p.rows, p.cols, p.cell.header))
    return Table(rows)


def drop_rows(table: Table, drop: set[int]) -> Table:
    """`table` without the grid rows in `drop`; a span over a dropped row shrinks."""
    cells, n_rows, n_cols = placed(table)
    kept = [r for r in range(n_rows) if r not in drop]
    new_index = {r: k for k, r in enumerate(kept)}
    out = []
    for p in cells:
        inside = [r for r in range(p.row, p.row + p.rows) if r in new_index]
        if inside:
            out.append(Placed(p.cell, new_index[inside[0]], p.col, len(inside), p.cols))
    return build(out, len(kept), n_cols)


def take_rows(table: Table, start: int, end: int) -> Table:
    """Grid rows `start` to `end` (exclusive) as a table of their own."""
    n_rows = table.layout().shape[0]
    return drop_rows(table, set(range(start)) | set(range(end, n_rows)))


def edit_cells(table: Table, edit: Callable[[Placed], str | None]) -> Table:
    """`table` with each cell's text replaced by `edit(cell)` where that is not None."""
    cells, n_rows, n_cols = placed(table)
    for p in cells:
        new = edit(p)
        if new is not None:
            p.cell.text = new
    return build(cells, n_rows, n_cols)


def single_cell_rows(table: Table) -> list[int]:
    """Grid rows that show one label and nothing else (a title or section row), with >= 2 columns."""
    cells, n_rows, n_cols = placed(table)
    if n_cols < 2:
        return []
    filled: dict[int, list[Placed]] = {}
    for p in cells:
        if p.cell.text.strip():
            for r in range(p.row, p.row + p.rows):
                filled.setdefault(r, []).append(p)
    return [r for r in range(n_rows) if len(filled.get(r, [])) == 1 and filled[r][0].col == 0
            and filled[r][0].rows == 1]


def column_paths(table: Table, h: int) -> list[tuple[str, ...]]:
    """Per grid column: the texts of the first `h` rows above it (spans repeated), blanks left out."""
    grid = table.text_grid(fill="")
    n_cols = len(grid[0]) if grid else 0
    return [tuple(" ".join((grid[r][c] or "").split()) for r in range(h) if (grid[r][c] or "").strip())
            for c in range(n_cols)]
