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

_ALNUM = re.compile(r"\w")
MAX_MARK = 4  # a mark cell: a few symbols, no letter or digit (✓, ×, ◯, **, †)

Rows = Sequence[Sequence[str]]
Ids = Sequence[Sequence[int]] | None
IsValue = Callable[[str], bool]


def is_mark(text: str, blank: str = "") -> bool:
    """A cell of marks only (✓, ×, ◯, *): data, as a number is, never a label."""
    t = "".join(text.split())
    return t != blank and 0 < len(t) <= MAX_MARK and not _ALNUM.search(t)


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
               if is_spanning_label(rows[r], ids[r] if ids else None, blank=blank, is_value=is_value)}
    for r in range(titles, n):
        if r in section:
            continue
        if is_value_row(rows[r], is_value, blank):
            below = next((q for q in range(r + 1, n) if q not in section), None)
            if below is not None and is_label_row(rows[below], ids[below] if ids else None, is_value, blank):
                continue  # values over a row of labels: a header level (10% | 30% over P | R)
            return min([r, *(s for s in section if s < r)])
    return min(titles + 1, max(n - 1, 0)) if n > 1 else 0


def repeats_header(row: Sequence[str], header: Rows, stub: int, *, blank: str = "") -> bool:
    """A body row that says again what a header row says: its labels right of the stub are
    that row's, its stub the same or blank."""
    if not any(t != blank for t in row[stub:]):
        return False
    for h in header:
        if list(row[stub:]) == list(h[stub:]) and all(a in (b, blank) for a, b in zip(row[:stub], h[:stub])):
            return True
    return False
