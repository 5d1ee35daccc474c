"""Terminal tables that never cut a number: every column at least as wide as its longest word.

Why: rich fits a table into the console by shrinking columns and, when that is not enough,
cutting cells with an ellipsis ("0.…", "delta B…"): at 80 columns, in a pipe or a CI log, that
hid the very numbers a user compares. Here each table of a renderable gets fixed column widths
before rich lays it out (`fit`): every column at least its longest unbreakable word (a number,
a header word, a piece of a label), the room that is left given to the columns that want more,
numbers before labels, so cells wrap at spaces only. A parser label with no space folds at its punctuation
(`label_lines`), never inside a run of letters or digits. When even the words do not fit, the
console is widened for that print (`print_whole`): a longer line in a log, never a cut number.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rich.cells import cell_len
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

_DIGIT = re.compile(r"\d")
_BREAK = re.compile(r"(?<=[:+/_.#=,;@-])")  # where a label without spaces may fold: after punctuation


def label_lines(label: str, width: int) -> str:
    """`label` as lines of at most `width` cells, broken only at spaces or after punctuation;
    a run of letters and digits longer than `width` stays whole on its own line."""
    pieces = [(" " if i and j == 0 else "", part) for i, word in enumerate(label.split())
              for j, part in enumerate(p for p in _BREAK.split(word) if p)]
    lines, line = [], ""
    for sep, piece in pieces:
        if line and cell_len(line) + cell_len(sep) + cell_len(piece) > width:
            lines.append(line)
            line = piece
        else:
            line = line + sep + piece if line else piece
    return "\n".join([*lines, line] if line else lines) or label


def _plain(value: object) -> str:
    return value.plain if isinstance(value, Text) else str(value) if isinstance(value, str) else ""


def _widths(table: Table, column_index: int) -> tuple[int, int]:
    """(longest word, longest line) over the column's header and cells."""
    column = table.columns[column_index]
    texts = [_plain(column.header), *(_plain(c) for c in column._cells)]
    words = [cell_len(w) for t in texts for w in t.split()] or [1]
    lines = [cell_len(line) for t in texts for line in t.splitlines()] or [1]
    return max(words), max(max(lines), max(words))


def _numeric(table: Table, column_index: int) -> bool:
    """Every non-empty cell of the column holds a digit: a column of numbers, not of labels."""
    cells = [_plain(c).strip() for c in table.columns[column_index]._cells]
    cells = [c for c in cells if c and c not in ("–", "-")]
    return bool(cells) and all(_DIGIT.search(c) for c in cells)


def fit(table: Table, width: int) -> int:
    """Fix `table`'s column widths for a console `width` cells wide (see the module docstring);
    returns the width the table needs, more than `width` when its longest words do not fit."""
    n = len(table.columns)
    if not n:
        return 0
    ranges = [_widths(table, i) for i in range(n)]
    outside = table._extra_width + sum(table._get_padding_width(i) for i in range(n))
    lows = [max(low, c.min_width or 0) for (low, _), c in zip(ranges, table.columns)]
    highs = [max(high, low) for (_, high), low in zip(ranges, lows)]
    room = width - outside
    if sum(highs) <= room:
        chosen = highs
    elif sum(lows) >= room:
        chosen = lows
    else:  # numbers first, whole on one line where they can be; labels fold into what is left
        chosen, spare = list(lows), room - sum(lows)
        numeric = [_numeric(table, i) for i in range(n)]
        for i in sorted(range(n), key=lambda i: not numeric[i]):
            more = min(highs[i] - chosen[i], spare)
            chosen[i] += more
            spare -= more
    for column, w in zip(table.columns, chosen):
        column.width, column.min_width, column.max_width = w, None, None
        column.no_wrap, column.overflow = False, "fold"  # wraps at spaces; no word is wider than the column
    return sum(chosen) + outside


def _tables(renderable: object) -> Iterator[Table]:
    if isinstance(renderable, Table):
        yield renderable
    elif isinstance(renderable, Group):
        for part in renderable.renderables:
            yield from _tables(part)


def print_whole(renderable: object, console: Console | None = None) -> None:
    """Print `renderable` with every table in it fitted to the console (`fit`); the console is
    widened for this print when a table's words need more than its width."""
    console = console or Console()
    width = console.width
    need = max([fit(t, width) for t in _tables(renderable)] or [0])
    if need > width:
        console.width = need
        for t in _tables(renderable):
            fit(t, need)
    try:
        console.print(renderable)
    finally:
        console.width = width
