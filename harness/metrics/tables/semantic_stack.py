"""A prediction whose cells stack several rows, read as those rows.

Some parsers write a whole column of a table into one cell, one value per line
(`Al<br>Ti<br>Au | 0.03<br>0.08<br>0.18`). A reader pairs the lines: the i-th label with the
i-th value, or with the i-th group of values when a cell holds several per row (two columns
fused into one). This is one more reading of the prediction (the score takes the best), so a
cell whose lines are one value written over several lines keeps its ordinary reading.
"""

from __future__ import annotations

from dataclasses import replace

from harness.core.table import MAX_SCORED_CELLS, Cell, Table
from harness.readers.cell_lines import cell_lines


def unstacked(table: Table) -> Table | None:
    """The table with each stacked body row read as the rows it stacks, or None when none is.

    A body row stacks k >= 2 rows when its first written cell (the row's label) has k lines and
    another of its cells has at least k. A cell of n lines gives each row n // k of them, side by
    side, when k divides n (so its column widens, and the cells above and below span the
    widened column); else one line per row from the top, the last row taking the rest. A cell of
    one line spans the k rows. Tables with spans of their own keep their reading."""
    if any(cell.rowspan > 1 or cell.colspan > 1 for row in table.rows for cell in row):
        return None
    stacks = [None if any(cell.header for cell in row) else _stacked(row) for row in table.rows]
    if not any(stacks):
        return None
    n_cols = max(len(row) for row in table.rows)
    width = [1] * n_cols
    for stack in filter(None, stacks):
        for c, parts in enumerate(stack[1]):
            if parts is not _SPANNING:
                width[c] = max(width[c], len(parts[0]))
    n_rows = sum(stack[0] if stack is not None else 1 for stack in stacks)
    if n_rows * sum(width) > MAX_SCORED_CELLS:  # a few cells may stack more lines than a metric can afford
        return None
    out: list[list[Cell]] = []
    for row, stack in zip(table.rows, stacks):
        if stack is None:
            out.append([replace(cell, colspan=width[c]) for c, cell in enumerate(row)])
            continue
        k, cells = stack
        for j in range(k):
            new: list[Cell] = []
            for c, parts in enumerate(cells):
                if parts is _SPANNING:
                    if j == 0:
                        new.append(Cell(row[c].text, rowspan=k, colspan=width[c]))
                    continue
                values = parts[j]
                new += [Cell(v) for v in values] + [Cell("") for _ in range(width[c] - len(values))]
            out.append(new)
    return Table(out, fmt=table.fmt, span=table.span)


_SPANNING: list = []  # a one-line cell of a stacked row: it spans the rows the row stacks


def _stacked(row: list[Cell]) -> tuple[int, list] | None:
    """(k, per cell: its lines per stacked row, or `_SPANNING`) of a row stacking k rows; None: not stacked."""
    lines = [cell_lines(cell) for cell in row]
    label = next((i for i, ls in enumerate(lines) if ls), None)
    if label is None:
        return None
    k = len(lines[label])
    if k < 2 or not any(len(ls) >= k for i, ls in enumerate(lines) if i != label):
        return None
    return k, [_SPANNING if len(ls) == 1 else _share(ls, k) for ls in lines]


def _share(lines: list[str], k: int) -> list[list[str]]:
    """`lines` dealt to k rows (see `unstacked`); rows beyond the lines get none."""
    n = len(lines)
    if n and n % k == 0:
        step = n // k
        return [lines[j * step:(j + 1) * step] for j in range(k)]
    parts = [[line] for line in lines[:k - 1]] + [[" ".join(lines[k - 1:])] if n >= k else []]
    return parts + [[] for _ in range(k - len(parts))]
