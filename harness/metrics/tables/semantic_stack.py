"""A prediction whose cells stack several rows, read as those rows.

Some parsers write a whole column of a table into one cell, one value per line
(`Al<br>Ti<br>Au | 0.03<br>0.08<br>0.18`). A reader pairs the lines: the i-th label with the
i-th value, or with the i-th group of values when a cell holds several per row (two columns
fused into one). Some write two column pairs of a long list that way, label and value in turn
(`Parameter Value | Parameter Value` over `A<br>80<br>B<br>1.8 | C<br>0.1<br>...`): a reader
takes the header's two names as two columns and deals the lines to them (`interleaved`). Each is
one more reading of the prediction (the score takes the best), so a cell whose lines are one
value written over several lines keeps its ordinary reading.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace

from harness.core.table import MAX_SCORED_CELLS, Cell, Table
from harness.metrics.tables.semantic_struct import View
from harness.metrics.tables.semantic_text import normalize
from harness.readers.cell_lines import cell_lines


def unstacked(table: Table) -> Table | None:
    """The table with each stacked body row read as the rows it stacks, or None when none is.

    A body row stacks k >= 2 rows when its first written cell (the row's label) has k lines and
    another of its cells has at least k. A cell of n lines gives each row n // k of them, side by
    side, when k divides n (so its column widens, and the cells above and below span the
    widened column); else one line per row from the top, the last row taking the rest. A cell of
    one line spans the k rows. A title row over the whole width stays (it spans the widened
    columns); tables with other spans of their own keep their reading."""
    full = max((sum(c.colspan for c in row) for row in table.rows), default=0)
    titles = {r for r, row in enumerate(table.rows) if _title(row, full)}
    if any(cell.rowspan > 1 or cell.colspan > 1 for r, row in enumerate(table.rows) if r not in titles for cell in row):
        return None
    stacks = [None if r in titles or any(cell.header for cell in row) else _stacked(row)
              for r, row in enumerate(table.rows)]
    if not any(stacks):
        return None
    n_cols = max(len(row) for r, row in enumerate(table.rows) if r not in titles)
    width = [1] * n_cols
    for stack in filter(None, stacks):
        for c, parts in enumerate(stack[1]):
            if parts is not _SPANNING:
                width[c] = max(width[c], len(parts[0]))
    n_rows = sum(stack[0] if stack is not None else 1 for stack in stacks)
    if n_rows * sum(width) > MAX_SCORED_CELLS:  # a few cells may stack more lines than a metric can afford
        return None
    out: list[list[Cell]] = []
    for r, (row, stack) in enumerate(zip(table.rows, stacks)):
        if r in titles:
            out.append([replace(row[0], colspan=sum(width))])
            continue
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


@dataclass(frozen=True, slots=True)
class Woven:
    """A table read with interleaved columns, and per column the header cell as the prediction wrote
    it when that cell named several columns ("" for a column whose header stands as written)."""

    table: Table
    written: list[str]


def as_written(v: View, written: list[str]) -> View:
    """`v` with each column read from a cell of several names compared under that cell's text: the
    values stay attributed by the names, and names merged into one cell cost one header misreading
    (`semantic_align`), as a reader counts it. Columns the view reads under other headers stay."""
    if len(written) != len(v.col_keys) or not v.header_rows:
        return v
    keys = list(v.col_written or v.col_keys)
    shown = list(v.col_shown)
    for c, text in enumerate(written):
        if text and v.col_keys[c] and v.col_levels and len(v.col_levels[c]) == 1:
            keys[c], shown[c] = normalize(text), " ".join(text.split())
    return replace(v, col_written=keys, col_shown=shown)


def interleaved(table: Table, labels: Collection[str]) -> Woven | None:
    """The table with stacked cells read as several columns in turn, or None when none is.

    A column whose header cell names m >= 2 of the ground truth's column labels, one after the
    other (`Parameter Value`), and whose body cells stack lines, reads as m columns: its lines
    are dealt m per row in turn (label, value, label, value ...), as a reader pairs them under
    the header's names. Whether the lines interleave is the header's word, not the cells' look:
    the reading comes from what the prediction's header says and what the ground truth names
    (`labels`, normalised). Other columns keep one line per row (one line alone spans the
    rows). A title row over the whole width stays; other spans keep the ordinary reading. The
    names' cell as written comes along (`Woven.written`): merging them is still a misreading."""
    width = max((sum(c.colspan for c in row) for row in table.rows), default=0)
    heads = [r for r, row in enumerate(table.rows) if row and all(c.header for c in row) and not _title(row, width)]
    if not heads or not labels:
        return None
    head = heads[-1]
    body = [r for r in range(head + 1, len(table.rows)) if not _title(table.rows[r], width)]
    if any(c.rowspan > 1 or c.colspan > 1 for r in [head, *body] for c in table.rows[r]):
        return None
    longest = max(len(label.split()) for label in labels) + 2  # words of a label as written; normalising may join some
    names = [_names(cell.text, labels, longest) for cell in table.rows[head]]
    parts = [len(n) or 1 for n in names]
    if max(parts, default=1) < 2 or len(names) != width:
        return None
    stacks = {r: [cell_lines(cell) for cell in table.rows[r]] for r in body}
    if not any(len(lines) > 1 for row in stacks.values() for m, lines in zip(parts, row) if m > 1):
        return None
    heights = {r: max([1, *(-(-len(lines) // m) for m, lines in zip(parts, row))]) for r, row in stacks.items()}
    if (sum(heights.values()) + head + 1) * sum(parts) > MAX_SCORED_CELLS:
        return None
    out: list[list[Cell]] = []
    for r, row in enumerate(table.rows):
        if _title(row, width):
            out.append([replace(row[0], colspan=sum(parts))])
        elif r < head:
            return None  # a header row above the named one: its spans over the widened columns are unknown
        elif r == head:
            out.append([Cell(n, header=True) for cell, ns in zip(row, names) for n in (ns or [cell.text])])
            written = [cell.text if ns else "" for cell, ns in zip(row, names) for _ in (ns or [cell.text])]
        else:
            out += _dealt(row, stacks[r], parts, heights[r])
    return Woven(Table(out, fmt=table.fmt, span=table.span), written)


def _title(row: list[Cell], width: int) -> bool:
    """A row of one cell over the whole width of a table of several columns (a title or section row)."""
    return len(row) == 1 and width > 1 and row[0].colspan == width


def _names(text: str, labels: Collection[str], longest: int) -> list[str]:
    """`text` as the most labels (each one of `labels` once normalised, of at most `longest`
    words) it is written of, word by word in order; [] when it is not such a sequence of two or more."""
    words = text.split()
    if len(words) < 2 or len(words) > _MAX_HEADER_WORDS:
        return []
    best: list[list[str] | None] = [[]] + [None] * len(words)  # best[i]: the longest split of words[:i]
    for i in range(1, len(words) + 1):
        pieces = [(j, " ".join(words[j:i])) for j in range(max(0, i - longest), i) if best[j] is not None]
        best[i] = max(([*best[j], piece] for j, piece in pieces if normalize(piece) in labels),  # type: ignore[misc]
                      key=len, default=None)
    split = best[-1]
    return split if split is not None and len(split) >= 2 else []


_MAX_HEADER_WORDS = 24  # a header cell longer than this is prose, not a row of column names


def _dealt(row: list[Cell], stacks: list[list[str]], parts: list[int], height: int) -> list[list[Cell]]:
    """A body row's cells dealt into `height` rows: m lines per row to a column read as m columns."""
    out: list[list[Cell]] = [[] for _ in range(height)]
    for cell, lines, m in zip(row, stacks, parts):
        if m == 1 and len(lines) <= 1:
            out[0].append(Cell(cell.text, rowspan=height))
            continue
        share = _share(lines, height) if m == 1 else [lines[j * m:(j + 1) * m] for j in range(height)]
        for j in range(height):
            values = share[j][:m] if m > 1 else [" ".join(share[j])]
            out[j] += [Cell(v) for v in values] + [Cell("") for _ in range(m - len(values))]
    return out
