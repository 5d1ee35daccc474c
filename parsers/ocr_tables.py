"""Tables from OCR word boxes and ruling lines: regions, rows, cells, columns, column spans.

Why geometry and not the OCR engine's layout: Tesseract segments a table into unrelated
text blocks. Here a table is a stack of horizontal rules of about the same extent whose
bands hold tabular lines (lines with wide gaps); a band of prose between two rules ends
the table. Inside, words become rows (vertical overlap), rows become cells (gaps wider
than about half an em), and columns are the x-intervals covered by the cells of the
fullest rows. A cell over several columns, or sitting above a partial rule (booktabs
`\\cmidrule`, `\\cline`) that covers several, spans them.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import median

import numpy as np

from tablebench.core.table import Cell, Table
from tablebench.parsers.ocr_image import Rule

GAP = 0.6  # a gap wider than GAP x the median word height separates cells
SAME_EXTENT = 0.03  # rules whose ends differ by less than this fraction of the page width stack


@dataclass(frozen=True, slots=True)
class Word:
    """One OCR word: text, box in pixels, and the engine's block/paragraph/line ids."""

    text: str
    left: int
    top: int
    width: int
    height: int
    line_key: tuple[int, ...] = ()

    @property
    def right(self) -> int:
        return self.left + self.width

    @property
    def bottom(self) -> int:
        return self.top + self.height

    @property
    def cx(self) -> float:
        return self.left + self.width / 2

    @property
    def cy(self) -> float:
        return self.top + self.height / 2


@dataclass(slots=True)
class Region:
    """A table's box (pixels) and the rules inside it."""

    x0: int
    top: int
    x1: int
    bottom: int
    rules: list[Rule]

    def holds(self, word: Word) -> bool:
        return self.x0 - 2 <= word.cx <= self.x1 + 2 and self.top <= word.cy <= self.bottom


def rows_of(words: list[Word]) -> list[list[Word]]:
    """Words grouped into lines by vertical overlap, top to bottom, each left to right."""
    rows: list[tuple[float, float, list[Word]]] = []  # (top, bottom, words) of each open row
    for word in sorted(words, key=lambda w: (w.cy, w.left)):
        for i, (top, bottom, members) in enumerate(rows):
            overlap = min(bottom, word.bottom) - max(top, word.top)
            if overlap >= 0.4 * min(word.height, bottom - top):
                members.append(word)  # the row keeps its first word's extent, so rows never chain
                break
        else:
            rows.append((word.top, word.bottom, [word]))
    ordered = sorted(rows, key=lambda r: median(w.cy for w in r[2]))
    return [sorted(r[2], key=lambda w: w.left) for r in ordered]


def cells_of(row: list[Word], gap: float) -> list[list[Word]]:
    """A row's words grouped into cells: a new cell after every gap wider than `gap` pixels."""
    cells: list[list[Word]] = []
    for word in row:
        if cells and word.left - max(w.right for w in cells[-1]) <= gap:
            cells[-1].append(word)
        else:
            cells.append([word])
    return cells


def _tabular_row(row: list[Word], word_height: float) -> bool:
    """A line with a column gap: one gap wider than ~an em, or far wider than its other gaps.

    Justified prose stretches every space of a line alike; a table row has a few wide gaps."""
    gaps = [b.left - a.right for a, b in zip(row, row[1:])]
    if not gaps:
        return False
    widest = max(gaps)
    if widest > 1.2 * word_height:
        return True
    return len(gaps) >= 2 and widest > 0.6 * word_height and widest > 2.5 * median(gaps)


def table_regions(rules: list[Rule], words: list[Word], page_width: int) -> list[Region]:
    """Tables: stacks of same-extent rules whose bands between rules look tabular."""
    heights = [w.height for w in words] or [10]
    tolerance = SAME_EXTENT * page_width
    stacks: list[list[Rule]] = []
    for rule in sorted(rules, key=lambda r: -r.width):  # widest first: they define the stacks
        for stack in stacks:
            if abs(stack[0].x0 - rule.x0) <= tolerance and abs(stack[0].x1 - rule.x1) <= tolerance:
                stack.append(rule)
                break
        else:
            stacks.append([rule])
    regions = []
    for stack in stacks:
        stack.sort(key=lambda r: r.y)
        x0, x1 = min(r.x0 for r in stack), max(r.x1 for r in stack)
        start = 0
        for i in range(len(stack) - 1):
            top, bottom = stack[i].y, stack[i + 1].y
            inside = [w for w in words if x0 <= w.cx <= x1 and top < w.cy < bottom]
            if not _tabular_band(inside, bottom - top, x1 - x0, median(heights)):
                if i > start:
                    regions.append(_region(stack[start:i + 1], rules, x0, x1))
                start = i + 1
        if len(stack) - 1 > start:
            regions.append(_region(stack[start:], rules, x0, x1))
    return _without_overlaps(regions)


def _tabular_band(words: list[Word], height: int, width: int, word_height: float) -> bool:
    """A band between two rules belongs to a table unless it holds prose (lines without gaps).

    Two full-width lines of prose end a table even when the band also holds other tables."""
    if not words:
        return height < 6 * word_height  # an empty band: a double rule, or white space between tables
    rows = rows_of(words)
    prose = [r for r in rows if len(r) >= 4 and r[-1].right - r[0].left >= 0.8 * width
             and not _tabular_row(r, word_height)]
    if len(prose) >= 2:
        return False
    if sum(_tabular_row(r, word_height) for r in rows) >= len(rows) / 2:
        return True
    return len(rows) == 1 and height < 3.5 * word_height  # one short line between rules: a table row


def _region(stack: list[Rule], rules: list[Rule], x0: int, x1: int) -> Region:
    top, bottom = stack[0].y, stack[-1].y
    inner = [r for r in rules if top <= r.y <= bottom and r.x0 >= x0 - 5 and r.x1 <= x1 + 5]
    return Region(x0, top, x1, bottom, inner)


def _without_overlaps(regions: list[Region]) -> list[Region]:
    """Drop a region lying inside a larger one (a table's partial rules form their own stacks)."""
    kept: list[Region] = []
    for region in sorted(regions, key=lambda r: -(r.x1 - r.x0) * (r.bottom - r.top)):
        if not any(k.x0 - 5 <= region.x0 and region.x1 <= k.x1 + 5 and k.top - 5 <= region.top
                   and region.bottom <= k.bottom + 5 for k in kept):
            kept.append(region)
    return sorted(kept, key=lambda r: (r.top, r.x0))


def build_table(region: Region, words: list[Word]) -> Table:
    """The table in `region`: rows, cells, column spans and centred row labels as row spans."""
    inside = [w for w in words if region.holds(w)]
    if not inside:
        return Table()
    gap = GAP * median(w.height for w in inside)
    rows = [cells_of(r, gap) for r in rows_of(inside)]
    columns = _columns(rows)
    grid = [_place(row, columns, _partial_rules_below(region, rows, i)) for i, row in enumerate(rows)]
    rowspans = _centred_labels(grid, _groups(region, rows))
    keep = [i for i, (slots, _) in enumerate(grid) if any(s is not None for s in slots)]
    after = {i: [r for r in keep if r > i] for i, _ in rowspans}  # spans count the rows that stay
    covered = {(r, j) for (i, j), n in rowspans.items() for r in after[i][:n - 1]}
    out = [_row_cells(grid[i][0], grid[i][1], {j: n for (r, j), n in rowspans.items() if r == i},
                      {j for r, j in covered if r == i}) for i in keep]
    return Table(out, fmt="ocr")


def _place(row: list[list[Word]], columns: list[tuple[int, int]], below: list[Rule]) -> tuple[list[str | None], dict[int, int]]:
    """A row's cells put into column slots: slot texts and the column span of each placed cell."""
    slots: list[str | None] = [None] * len(columns)
    spans: dict[int, int] = {}
    for cell in row:
        first, last = _column_range(cell, columns, below)
        text = " ".join(w.text for w in cell)
        while first < last and slots[first] is not None:
            first += 1  # a spanning cell starts after the columns already taken
        if slots[first] is not None:  # two pieces of one cell: join them, never drop text
            slots[first] = f"{slots[first]} {text}"
            continue
        slots[first] = text
        spans[first] = last - first + 1
    return slots, spans


def _groups(region: Region, rows: list[list[list[Word]]]) -> list[list[int]]:
    """Row indices split where a rule at least half the table wide runs between two rows."""
    width = region.x1 - region.x0
    groups: list[list[int]] = [[0]]
    for i in range(1, len(rows)):
        above = max(w.bottom for c in rows[i - 1] for w in c)
        below = min(w.top for c in rows[i] for w in c)
        if any(above <= r.y <= below and r.width >= 0.5 * width for r in region.rules):
            groups.append([])
        groups[-1].append(i)
    return groups


def _centred_labels(grid: list[tuple[list[str | None], dict[int, int]]], groups: list[list[int]]) -> dict[tuple[int, int], int]:
    """Row spans of labels centred on a group of rows (LaTeX `\\multirow`), in the first two columns.

    A group whose only text in column j sits below its first row has a centred label: it
    moves to the first row and spans the group. Rows left empty by the moves (the label
    sat between two rows) disappear. Returns {(row, column): rowspan}; edits `grid`."""
    moved: list[tuple[list[int], int]] = []
    for group in groups:
        if len(group) < 2:
            continue
        for j in range(min(2, len(grid[0][0]))):
            filled = [i for i in group if grid[i][0][j] is not None]
            if len(filled) != 1 or filled[0] == group[0] or grid[filled[0]][1].get(j, 1) > 1:
                continue
            label, first = filled[0], group[0]
            grid[first][0][j], grid[label][0][j] = grid[label][0][j], None
            grid[first][1][j] = grid[label][1].pop(j, 1)
            moved.append((group, j))
    spans = {}
    for group, j in moved:
        spans[(group[0], j)] = sum(any(s is not None for s in grid[i][0]) for i in group)
    return spans


def _columns(rows: list[list[list[Word]]]) -> list[tuple[int, int]]:
    """Column x-intervals: where cells of a third of the rows lie, plus sparse columns elsewhere.

    Spanning headers and stray OCR splits cover the gaps between columns in a few rows
    only, so they neither merge columns nor invent new ones; cells of two or more rows
    outside every such column (labels of grouped rows, sparse columns) form columns of their own."""
    boxes = [[(min(w.left for w in c), max(w.right for w in c)) for c in r] for r in rows]
    flat = [b for r in boxes for b in r]
    lo, hi = min(a for a, _ in flat), max(b for _, b in flat)
    cover = np.zeros(hi - lo + 1, dtype=np.int32)
    for r in boxes:
        seen = np.zeros(cover.shape, dtype=bool)
        for a, b in r:
            seen[a - lo:b - lo + 1] = True
        cover += seen
    need = max(2, -(-len(rows) // 3)) if len(rows) >= 4 else 1
    busy = np.concatenate([[False], cover >= need, [False]])
    edges = np.flatnonzero(np.diff(busy.astype(np.int8)))
    columns = [(int(a) + lo, int(b) - 1 + lo) for a, b in zip(edges[::2], edges[1::2])]
    stray = sorted((a, b) for a, b in flat if not any(min(b, d) >= max(a, c) for c, d in columns))
    extra = [(a, b) for a, b in _merge(stray) if sum(a <= c and d <= b for c, d in stray) >= 2]
    return sorted(columns + extra) or [(lo, hi)]


def _merge(intervals: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted intervals with the overlapping ones joined."""
    merged: list[list[int]] = []
    for a, b in intervals:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return [(a, b) for a, b in merged]


def _partial_rules_below(region: Region, rows: list[list[list[Word]]], i: int) -> list[Rule]:
    """Rules shorter than the table under row i with no other text between (they underline
    spanning headers; the row between may hold only labels centred on both header rows)."""
    bottom = max(w.bottom for c in rows[i] for w in c)
    width = region.x1 - region.x0
    found = []
    for rule in region.rules:
        if rule.width >= 0.9 * width or rule.y < bottom - 3:
            continue
        between = (w for row in rows[i + 1:] for c in row for w in c if w.top < rule.y)
        if not any(min(w.right, rule.x1) > max(w.left, rule.x0) for w in between):
            found.append(rule)
    return found


def _column_range(cell: list[Word], columns: list[tuple[int, int]], below: list[Rule]) -> tuple[int, int]:
    """First and last column a cell covers: by overlap, by a partial rule under it, else nearest."""
    left, right = min(w.left for w in cell), max(w.right for w in cell)
    centre = (left + right) / 2
    for rule in below:
        if rule.x0 <= centre <= rule.x1:
            left, right = min(left, rule.x0), max(right, rule.x1)
    hit = [j for j, (a, b) in enumerate(columns) if min(b, right) - max(a, left) > 0.25 * min(b - a, right - left)]
    if hit:
        return hit[0], hit[-1]
    nearest = min(range(len(columns)), key=lambda j: abs((columns[j][0] + columns[j][1]) / 2 - centre))
    return nearest, nearest


def _row_cells(slots: list[str | None], spans: dict[int, int], rowspans: dict[int, int], covered: set[int]) -> list[Cell]:
    """Slots to cells: a spanning cell swallows the empty slots it covers; slots a row span
    from above covers are left out (the HTML table model)."""
    cells, j = [], 0
    while j < len(slots):
        if j in covered:
            j += 1
            continue
        span = spans.get(j, 1)
        if span > 1 and all(s is None and k not in covered for k, s in enumerate(slots[j + 1:j + span], j + 1)):
            cells.append(Cell(slots[j] or "", colspan=span, rowspan=rowspans.get(j, 1)))
            j += span
        else:
            cells.append(Cell(slots[j] or "", rowspan=rowspans.get(j, 1)))
            j += 1
    return cells
