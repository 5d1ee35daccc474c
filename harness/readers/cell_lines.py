"""The lines of a cell as a reader sees them: a `<br>` starts a new line.

Readers give each cell one line of text (what every metric compares). Whether a cell stacks
the values of several rows (a parser that writes a whole column into one cell, a value per
line) shows only in its lines, which its source (`Cell.raw`) keeps."""

from __future__ import annotations

import re

from tablebench.core.table import Cell
from tablebench.readers.html import element_lines
from tablebench.readers.markdown import cell_lines as markdown_lines

_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)


def cell_lines(cell: Cell) -> list[str]:
    """The cell's non-blank lines; its text as one line when its source has no line break."""
    raw = cell.raw
    if not raw or not _BR.search(raw):
        return [cell.text] if cell.text.strip() else []
    lines = element_lines(raw) if raw.lstrip().startswith("<") else markdown_lines(raw)
    return lines or ([cell.text] if cell.text.strip() else [])
