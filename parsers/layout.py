"""Put extracted tables back into the page text where they stand, as Markdown or HTML.

Table parsers (pdfplumber, camelot) give rows plus a bounding box; the benchmark wants
what a reader of the page sees: text in reading order with each table at its place.
Blocks are ordered top to bottom (ties left to right), which is the reading order of a
one-column page and keeps every paragraph and table whole on a two-column one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

from tablebench.core.table import Table

TABLE_FORMATS = ("html", "markdown")


@dataclass(slots=True, frozen=True)
class Block:
    """A piece of the page at (`top`, `left`), in top-down page coordinates."""

    top: float
    left: float
    text: str
    is_table: bool = False


def clean_cell(value: object) -> str:
    """A cell as one line: None / NaN (spanned or empty cells) become '', newlines spaces."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return " ".join(str(value).split())


def rows_to_markdown(rows: Sequence[Sequence[object]]) -> str:
    """A pipe table; the first row is the header, pipes in cells are escaped."""
    cells = [[clean_cell(v).replace("|", "\\|") for v in row] for row in rows]
    if not cells:
        return ""
    width = max(len(row) for row in cells)
    lines = ["| " + " | ".join(row + [""] * (width - len(row))) + " |" for row in cells]
    lines.insert(1, "|" + "---|" * width)
    return "\n".join(lines)


def rows_to_html(rows: Sequence[Sequence[object]]) -> str:
    """Canonical HTML of a span-free table (the harness's interchange form)."""
    return Table.from_rows([[clean_cell(v) for v in row] for row in rows]).to_html()


def render_table(rows: Sequence[Sequence[object]], fmt: str) -> str:
    """Rows in the chosen format; a ValueError names the allowed ones."""
    if fmt == "html":
        return rows_to_html(rows)
    if fmt == "markdown":
        return rows_to_markdown(rows)
    raise ValueError(f"table format {fmt!r} is not one of {', '.join(TABLE_FORMATS)}")


def inside(x: float, y: float, box: tuple[float, float, float, float]) -> bool:
    """Whether point (x, y) lies in box (x0, top, x1, bottom)."""
    x0, top, x1, bottom = box
    return x0 <= x <= x1 and top <= y <= bottom


def compose(blocks: Iterable[Block]) -> str:
    """The page text: blocks top to bottom; lines joined by newlines, tables set apart."""
    ordered = [b for b in sorted(blocks, key=lambda b: (round(b.top, 1), b.left)) if b.text.strip()]
    parts: list[str] = []
    for i, block in enumerate(ordered):
        if i:
            parts.append("\n\n" if block.is_table or ordered[i - 1].is_table else "\n")
        parts.append(block.text)
    return "".join(parts) + "\n"
