"""What each row of a table is to a reader: a title, a header, a section, a repeated header, or data.

One model, used wherever a table is read for meaning (the semantic score, the locator's
joining of fragments): it works on a grid of cell texts plus the id of the cell covering each
slot (a span covers several slots), so that a label written once over blank slots and a
`\\multicolumn` read alike.

- A *spanning label* row holds one label from the first column on, spanned or written once
  over blank slots, or repeated in every slot (a span a parser resolved by repeating it).
- *Title* rows are the spanning-label rows at the very top ("Sensors" over the whole table):
  they name the table, not a column, so they never count as the header row that makes
  the rows below data.
- The *header* ends where the data starts: at the first row whose cells right of the stub are
  mostly values (numbers, or marks such as ✓ × ◯ *) — unless the row below it is a row of
  labels, which makes that value-looking row part of the header (`10% | 30%` over
  `P | R | P | R`) — or at an earlier section row (a section row ends the header only
  above data: in a text-only table a note row across it closes the body).
- *Section* rows are spanning-label rows below the header: they group the rows under them.
- A *repeated header* is a body row that says again what a header row says (a table split
  over pages or into fragments repeats its header): it adds no fact.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

_UNIT = re.compile(r"[%‰‱°$€£¥]")  # unit signs: a cell of them is a unit label, not a mark
_ALNUM = re.compile(r"\w")
MAX_MARK = 4  # a mark cell: a few symbols, no letter or digit (✓, ×, ◯, **, †)

Rows = Sequence[Sequence[str]]
Ids = Sequence[Sequence[int]] | None
IsValue = Callable[[str], bool]


def is_mark(text: str, blank: str = "") -> bool:
    """A cell of marks only (✓, ×, ◯, *): data, as a number is, never a label. A unit sign alone or
    in brackets (`%`, `(%)`, `[°C]`) names what a column holds: a label, as a reader reads it under
    `F1` (`_UNIT`)."""
    t = "".join(text.split())
    return t != blank and 0 < len(t) <= MAX_MARK and not _ALNUM.search(t) and not _UNIT.search(t)


def is_spanning_label(row: Sequence[str], ids: Sequence[int] | None = None, *, blank: str = "",
                      is_value: IsValue | None = None) -> bool:
    """A row holding one label from the first column on, spanned or padded ("Dataset A").

    Filled *cells* are counted (`ids` tells a span's slots apart from separate cells): one cell,
    or one label repeated in every slot (a span resolved by repeating its text). Two cells that
    happen to read alike in a wider row are two things."""
    if len(row) < 2 or row[0] == blank or (is_value is not None and is_value(row[0])):
        return False
    ids = ids if ids is not None else list(range(len(row)))
    return len({i for t, i in zip(row, ids) if t != blank}) == 1 or all(t == row[0] for t in row)


def is_set_off_label(row: Sequence[str], ids: Sequence[int] | None, *, blank: str = "",
                     is_value: IsValue | None = None) -> bool:
    """A row whose first slot is blank and whose other slots (two or more) are one spanned cell, or
    one label repeated in each of three or more (a span resolved by repeating it): a label set right of the stub over
    every other column (`& \\multicolumn{4}{c}{λ = 1}`). Above a
    row of labels it groups their columns (a group header); above data, or among data, it groups the
    rows below it, as a section row does."""
    if len(row) < 3 or row[0] != blank or row[1] == blank or (is_value is not None and is_value(row[1])):
        return False
    if len(row) >= 4 and all(t == row[1] for t in row[2:]):
        return True  # a span resolved by repeating its text (in two cells only, as likely two cells alike)
    return ids is not None and len(set(ids[1:])) == 1


def title_rows(rows: Rows, ids: Ids = None, *, blank: str = "", is_value: IsValue | None = None) -> int:
    """How many rows at the top are titles (spanning labels), leaving at least one row below."""
    n = 0
    while n < len(rows) - 1 and is_spanning_label(rows[n], ids[n] if ids else None, blank=blank, is_value=is_value):
        n += 1
    return n


def is_value_row(row: Sequence[str], is_value: IsValue, blank: str = "") -> bool:
    """Cells right of the stub mostly values. The stub is the first column and the labels that
    follow it before the first value (Category | Size | Method | 12.1 | 3.4): a row's labels
    never outvote its values."""
    vals = [t for t in row[1:] if t != blank]
    first = next((i for i, t in enumerate(vals) if is_value(t)), len(vals))
    vals = vals[first:]
    return bool(vals) and sum(map(is_value, vals)) * 2 >= len(vals)


def is_label_row(row: Sequence[str], ids: Sequence[int] | None, is_value: IsValue, blank: str = "") -> bool:
    """At least two label cells right of the stub (a span counts once) and no value: a row of
    column labels."""
    ids = ids if ids is not None else list(range(len(row)))
    cells = {i: t for t, i in zip(row[1:], ids[1:]) if t != blank}
    return len(cells) >= 2 and not any(map(is_value, cells.values()))


def header_end(rows: Rows, ids: Ids, is_value: IsValue, *, blank: str = "") -> int:
    """Rows before the data starts (titles included): see the module docstring. Without any
    row of values, the titles and one row of labels (a text-only table: a label or note row
    across it groups or closes the body, it does not end a header)."""
    n = len(rows)
    titles = title_rows(rows, ids, blank=blank, is_value=is_value)
    section = {r for r in range(titles + 1, n)
               if is_spanning_label(rows[r], ids[r] if ids else None, blank=blank, is_value=is_value)
               or (is_set_off_label(rows[r], ids[r] if ids else None, blank=blank, is_value=is_value)
                   and not (r + 1 < n and is_label_row(rows[r + 1], ids[r + 1] if ids else None, is_value, blank)))}
    for r in range(titles, n):
        if r in section:
            continue
        if is_value_row(rows[r], is_value, blank):
            below = next((q for q in range(r + 1, n) if q not in section), None)
            if below is not None and _groups(rows[r], ids[r] if ids else None, blank) \
                    and is_label_row(rows[below], ids[below] if ids else None, is_value, blank):
                continue  # values that group the columns of a row of labels below: a header level (10% | 30% over P | R)
            if r > titles and (_spans_down(rows, ids, r, blank) or (ids and _splits_group(rows, ids, r, blank))):
                continue  # still the header: its labels span into this row, or it splits a group header's columns
            if r == titles and _labels_a_value_column(rows, r, is_value, blank):
                continue  # a label where every row below holds a value: it names that column
            if r == titles and _unlike_the_values_below(rows, r, is_value, blank):
                continue  # numbers of another form than every column's values below: column names (years over prices)
            if r == titles and _names_the_rows_too(rows, r, blank):
                continue  # the labels the rows below are named by, across: a matrix's column names (0 1 2 3 over 0, 1, 2, 3)
            return min([r, *(s for s in section if s < r)])
    return min(titles + 1, max(n - 1, 0)) if n > 1 else 0


def _groups(row: Sequence[str], ids: Sequence[int] | None, blank: str) -> bool:
    """A row that reads as group labels rather than a row of data: no label of its own (its first
    cell blank), or a cell over several columns, or blank cells between its cells (labels
    written once over the columns they group)."""
    if row[0] == blank:
        return True
    if ids is not None and any(i >= 0 and ids.count(i) > 1 for i in ids[1:]):
        return True
    filled = [c for c, t in enumerate(row) if t != blank]
    return any(b - a > 1 for a, b in zip(filled, filled[1:]))


def _labels_a_value_column(rows: Rows, r: int, is_value: IsValue, blank: str) -> bool:
    """Row `r` holds a label (not in the first column) over a column whose cells below are all
    values, at least two of them (`Target Model | 0% | 100% | Ratio` over rows of percentages)."""
    below = rows[r + 1:]
    for c, t in enumerate(rows[r]):
        if c == 0 or t == blank or is_value(t):
            continue
        column = [row[c] for row in below if c < len(row) and row[c] != blank]
        if len(column) >= 2 and all(map(is_value, column)):
            return True
    return False


def _names_the_rows_too(rows: Rows, r: int, blank: str) -> bool:
    """Row `r`'s cells right of the first (two or more) are, in order, the first cells of the rows
    below it: a matrix (a confusion or transition matrix) names its columns as it names its rows, so
    its first row is a header however numeric."""
    across = [t for t in rows[r][1:] if t != blank]
    down = [row[0] for row in rows[r + 1:] if row and row[0] != blank]
    return len(across) >= 2 and across == down[:len(across)] and len(down) == len(across)


_DIGITS = re.compile(r"\d+")


def _unlike_the_values_below(rows: Rows, r: int, is_value: IsValue, blank: str) -> bool:
    """Every value right of the first column in row `r` (two or more) is written in a form (digits
    aside: `2022` against `475,76`, `16` against `1.36`, `35%` against `6.57`) that none of the
    values below it in its column has (at least two, all values): numbers that name the
    columns, not values of them."""
    seen = 0
    for c, t in enumerate(rows[r]):
        if c == 0 or t == blank or not is_value(t):
            continue
        below = [row[c] for row in rows[r + 1:] if c < len(row) and row[c] != blank]
        if len(below) < 2 or not all(map(is_value, below)) or _DIGITS.sub("9", t) in {_DIGITS.sub("9", b) for b in below}:
            return False
        seen += 1
    return seen >= 2


def _spans_down(rows: Rows, ids: Ids, r: int, blank: str) -> bool:
    """Row `r`'s first cell is the header's above it: a header label spans down into the row
    (`\\multirow{2}{*}{Metric}` over `1 | 5 | 10`), or its text is repeated there (the span resolved
    by repeating it), so the row belongs to the header."""
    if ids is not None and 0 <= ids[r][0] == ids[r - 1][0]:
        return True
    return rows[r][0] != blank and rows[r][0] == rows[r - 1][0]


def _splits_group(rows: Rows, ids: Sequence[Sequence[int]], r: int, blank: str) -> bool:
    """Row `r` holds text only under header labels of the row above that cover several columns
    (spanned, or written once over the blank cells right of them), and not under every column: it
    names the columns a group header covers (`Thread switches` over `2 | 50`), beside columns
    whose header is one row high."""
    above, text = ids[r - 1], rows[r - 1]
    covered: set[int] = set()
    c = 0
    while c < len(above):
        if above[c] < 0 or text[c] == blank:
            c += 1
            continue
        end = c + 1
        while end < len(above) and (above[end] == above[c] or above[end] < 0 or text[end] == blank):
            end += 1
        if end - c > 1:
            covered.update(range(c, end))
        c = end
    filled = {c for c, t in enumerate(rows[r]) if t != blank}
    return bool(filled) and filled <= covered and len(covered) < len(above)


def repeats_header(row: Sequence[str], header: Rows, stub: int, *, blank: str = "") -> bool:
    """A body row that says again what a header row says: its labels right of the stub are
    that row's, its stub the same or blank."""
    if not any(t != blank for t in row[stub:]):
        return False
    for h in header:
        if list(row[stub:]) == list(h[stub:]) and all(a in (b, blank) for a, b in zip(row[:stub], h[:stub])):
            return True
    return False
