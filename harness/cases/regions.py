"""Where a ground-truth table is on its PDF pages: one region per page it is on, what a report
crops to show it.

Why derived here: a record of `tablebench generate --doc-pages` gives a long table's `bbox` on
its first page only, and that bbox is as wide as the table's first cell says (a marker where its
text starts, mirrored about the centre of the text), which for a right-aligned or empty first
cell is narrower than the table: a crop to it cut off the first and the last column. What the
record does say is enough to find the table whole on every page:

- across: the text block (the page's paper less its margins, `layout.paper` and
  `layout.margins_mm`): a long table is set in one column, centred on the text width, and the
  generator refuses overfull boxes, so it is never wider;
- on its first page: from the bbox's top to its bottom (the row markers place both);
- on a page it fills (neither first nor last): the whole text block;
- on its last page: from the top of the text block down as many rows as are left (the
  repeated header and the body rows after the last break) at the first page's height per row,
  plus one row (its rules and a row's variation), never past the block.

A table not written as a long table (the record gives no `pages` list) keeps its bbox: it is
measured whole (its box's width and height at its saved position). A record without a usable
layout (pdf-parse-bench folders, a paper not in `PAPERS`) gives its tables' bbox on their first
page only, as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple, Protocol

PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}  # mm: the paper sizes a layout names
_PT_PER_MM = 72 / 25.4  # PDF points

Box = tuple[float, float, float, float]  # x0, top, x1, bottom in PDF points, origin top-left


class PlacedTable(Protocol):
    """What a region is derived from: a ground-truth table (`tablebench.cases.GroundTruthTable`)."""

    bbox: Box | None
    page: int
    breaks: tuple[int, ...]
    long: bool

    @property
    def pages(self) -> tuple[int, ...]: ...

    @property
    def table(self) -> Any: ...  # the table as read (`tablebench.core.table.Table`): its rows and header rows


class Region(NamedTuple):
    """A table's part on one PDF page."""

    page: int  # 1-based
    box: Box


def text_block(layout: object) -> Box | None:
    """The text block of a page of `layout` (its paper less its margins, top right bottom left,
    in mm), or None when the layout does not say."""
    if not isinstance(layout, Mapping) or layout.get("paper") not in PAPERS:
        return None
    margins = layout.get("margins_mm")
    if not isinstance(margins, list) or len(margins) != 4 or not all(type(m) in (int, float) for m in margins):
        return None
    width, height = PAPERS[layout["paper"]]
    top, right, bottom, left = margins
    box = (left * _PT_PER_MM, top * _PT_PER_MM, (width - right) * _PT_PER_MM, (height - bottom) * _PT_PER_MM)
    return box if 0 <= box[0] < box[2] and 0 <= box[1] < box[3] else None


def table_regions(table: PlacedTable, layout: object) -> tuple[Region, ...]:
    """The table's region on each PDF page it is on, first to last (see the module docstring);
    () when the record has no bbox for it."""
    if table.bbox is None:
        return ()
    block = text_block(layout) if table.long else None
    if block is None:
        return (Region(table.page, table.bbox),)
    left, block_top, right, block_bottom = block
    _, top, _, bottom = table.bbox
    regions = [Region(table.page, (left, top, right, bottom))]
    if not table.breaks:
        return tuple(regions)
    rows = len(table.table.rows)
    per_row = (bottom - top) / table.breaks[0]  # the rows on the first page: the header and the body before the break
    for page in table.pages[1:-1]:
        regions.append(Region(page, block))
    left_over = table.table.header_rows + rows - table.breaks[-1] + 1
    last = min(block_bottom, block_top + per_row * left_over)
    regions.append(Region(table.pages[-1], (left, block_top, right, last)))
    return tuple(regions)
