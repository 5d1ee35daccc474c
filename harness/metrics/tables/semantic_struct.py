"""A table as the facts a reader takes from it: each cell with the headers it sits under.

A data cell means something only together with its row header (the stub columns at the
left) and its column header path (the header rows above). Keying every cell by the two
makes representation free: a multi-level header flattened into one row ("Task 1 Score")
gives the same path as two rows "Task 1" / "Score"; a row span resolved by repeating the
value or by empty padding gives the same row key (stub cells are filled downwards).
A header row whose only label is written once over blank cells (a title or a single group
header, as Markdown writes a \\multicolumn) heads every column from it to the right: there is
no other label those columns could stand under. Group labels in any header row, each written
once over blank cells, are read as a reader of Markdown or aligned text reads them: each covers
the columns up to the next label, within its own group of the rows above (a blank cell of the
last header row under another group's label stays that label's column). In aligned text a
label that crosses a column boundary shows only how far its text reaches, not its extent; a
label in a stub column heads columns right of it only in a row of group labels, and only with a
label under it (else it is the stub's header). That reading serves to align and attribute; the
header *as written* (`col_written`) is what is compared as text, so a group label written once costs a
header misreading, not the attribution of every value under it. A header row with one label
over every column (a caption) is the table's title, kept apart from the column paths and
compared as a level of every column's path: lost, or read as a group header, it is one cause.
Columns (rows) a reader cannot tell apart are one: a span no other cell splits, or a column
repeating its neighbour in every slot (the same span resolved by repeating its text). Blank
rows and columns are dropped, but counted: each is one thing a reader sees that the table
does not have.

Header rows are the larger of the reader's header marks and a count inferred from the
content (leading rows before the first row of numbers, or before a section row above it),
by the same rule for both sides; the caller may try other readings for the prediction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from tablebench.core.table import Table
from tablebench.metrics.tables.semantic_text import NULL, normalize, numbers, residue
from tablebench.readers.row_roles import header_end, is_label_row, is_mark, is_set_off_label, is_spanning_label, repeats_header
from tablebench.readers.textnorm import fold_case

_LEADING_NUMBER = re.compile(r"[^\w]{0,2}[-+±~≈<>≤≥]?\.?\d")
_MAGNITUDE = re.compile(r"(\d)[^\W\d_]{1,2}\b")  # a unit or magnitude written onto a number


@dataclass(slots=True)
class Grid:
    """A table's visible slots, normalised, with empty rows/columns dropped."""

    cells: list[list[str]]  # normalised text per slot (a spanning cell repeats)
    shown: list[list[str]]  # the text as written, for error messages
    flagged_rows: int  # leading rows the reader marked as headers
    blank_lines: int = 0  # empty rows and columns dropped: each is one thing a reader sees that is not there
    ids: list[list[int]] | None = None  # the cell covering each slot (a span covers several); None: one per slot
    # whether a span's slots show its extent: markup declares it; in aligned text a cell covers the
    # columns its text happens to reach, which says nothing of how far the label reaches
    extents: bool = True

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.cells), len(self.cells[0]) if self.cells else 0


@dataclass(slots=True)
class View:
    """A table read as a reader reads it: column header paths, row keys, and the body cells."""

    col_keys: list[str]  # per column: its header path, normalised, levels joined by spaces
    col_shown: list[str]  # the same as written, levels joined by " / "
    row_keys: list[str]  # per body row: its stub cells, normalised
    row_shown: list[str]
    body: list[list[str]]  # body rows x columns, normalised
    body_shown: list[list[str]]
    header_rows: int
    stub_cols: int
    title: str = ""  # header levels every column shares (a caption row over the whole table), normalised
    title_shown: str = ""
    col_written: list[str] | None = None  # per column: its header path as written (group labels not spread)
    col_levels: list[tuple[str, ...]] | None = None  # per column: its path's levels (title excluded), normalised
    row_levels: list[tuple[str, ...]] | None = None  # per body row: its key's levels (section, stub cells)

    @property
    def n_facts(self) -> int:
        """Facts a reader takes away: each named column header (its title included) and each body cell."""
        return sum(1 for c in range(len(self.col_keys)) if self.full_key(c)) + sum(len(r) for r in self.body)

    def full_key(self, c: int) -> str:
        """Column `c`'s whole header path as written, the title's level included."""
        return f"{self.title} {(self.col_written or self.col_keys)[c]}".strip()

    def full_shown(self, c: int) -> str:
        return " / ".join(t for t in (self.title_shown, self.col_shown[c]) if t)


def to_grid(table: Table) -> Grid:
    """Normalised slot texts; rows and columns holding nothing are dropped (they show nothing).

    Plain lists throughout: a table has tens of rows, and numpy's cost per call would be most of
    the work (`tests/benchmarks/test_bench_semantic.py`)."""
    cells = table.cells()
    ids = table.layout().grid.tolist()
    if not ids or not ids[0]:
        return Grid([], [], 0, 0, [])
    # A span over slots no other cell splits makes columns (rows) a reader cannot tell apart: one.
    split = [0] + [c for c in range(1, len(ids[0])) if any(row[c] != row[c - 1] for row in ids)]
    ids = [[row[c] for c in split] for row in ids]
    ids = [row for r, row in enumerate(ids) if r == 0 or row != ids[r - 1]]
    raw = [[cells[i].text if i >= 0 else "" for i in row] for row in ids]
    norm = [[normalize(t) for t in row] for row in raw]
    filled_r = [any(t != NULL for t in row) for row in norm]
    columns = list(zip(*norm))
    filled_c = [any(t != NULL for t in column) for column in columns]
    # The same for a span resolved by repeating its text: a column (row) that repeats its
    # neighbour in every slot cannot be told from it either.
    keep_c = [c for c, full in enumerate(filled_c) if full and (c == 0 or columns[c] != columns[c - 1])]
    keep_r = [r for r, full in enumerate(filled_r) if full and (r == 0 or norm[r] != norm[r - 1])]
    header_row = [all(cells[i].header for i in row if i >= 0) and any(i >= 0 for i in row) for row in ids]
    flagged = 0
    for r in keep_r:
        one_label = _one_label(ids[r])
        if not header_row[r] or (one_label and flagged and not _one_label(ids[keep_r[flagged - 1]])):
            break  # a row of one label marked as a header under a row of column labels: a section's label
        flagged += 1
    blank = filled_r.count(False) + filled_c.count(False)
    return Grid([[norm[r][c] for c in keep_c] for r in keep_r], [[raw[r][c] for c in keep_c] for r in keep_r],
                flagged if flagged < len(keep_r) else 0, blank, [[ids[r][c] for c in keep_c] for r in keep_r],
                "text" not in table.fmt.split("+"))


def _one_label(row: list[int]) -> bool:
    """A row of a layout grid holds one cell (over every slot it covers)."""
    return len({i for i in row if i >= 0}) == 1


@lru_cache(maxsize=65536)
def is_numeric(norm: str) -> bool:
    """A cell that is data, not a label: it starts with a number and is mostly numbers
    (91.2, -3.1±0.2, 45%, 1M, (1/8, 1/4)); R@20 or ResNet-50 are labels."""
    if not _LEADING_NUMBER.match(norm):
        return False
    norm = _MAGNITUDE.sub(r"\1", norm)  # 25M, 1.2B, 10k, 5ms: a number with its unit
    return len(residue(norm)) <= 3 * len(numbers(norm))


@lru_cache(maxsize=65536)
def is_value(norm: str) -> bool:
    """Data, not a label: a number (see `is_numeric`) or a cell of marks (✓, ×, ◯). Cached: a
    reading asks it of every cell several times (header rows, stub columns, row roles)."""
    return is_numeric(norm) or is_mark(norm, NULL)


def is_section(row: list[str], ids: list[int] | None = None) -> bool:
    """A row holding one label from the first column on (`row_roles.is_spanning_label`): it groups
    the rows below it, it labels no column."""
    return is_spanning_label(row, ids, blank=NULL, is_value=is_numeric)


def sections(grid: Grid, start: int = 0) -> set[int]:
    """Section rows at or below row `start`: a label from the first column on, or one set right of a
    blank stub over every other column where no row of labels follows (`row_roles.is_set_off_label`)."""
    ids = grid.ids or [None] * len(grid.cells)
    n = len(grid.cells)
    return {r for r in range(start, n) if is_section(grid.cells[r], ids[r])
            or (is_set_off_label(grid.cells[r], ids[r], blank=NULL, is_value=is_numeric)
                and not (r + 1 < n and is_label_row(grid.cells[r + 1], ids[r + 1], is_value, NULL)))}


def inferred_header_rows(grid: Grid) -> int:
    """Rows before the data starts, title rows included (`row_roles.header_end`)."""
    return header_end(grid.cells, grid.ids, is_value, blank=NULL)


def header_rows(grid: Grid) -> int:
    """The reader's header marks or the inferred count, whichever is larger: readers often mark
    only the first of several header rows (a `<th>` row over a `<td>` row of sub-headers). Marks
    over rows that are records are not a header: a header names columns once, so rows whose labels
    each begin later rows too (`Case ID`, `Key Context` above a rule, then again in every block
    below it) are the first record of a table of records."""
    flagged = 0 if _records(grid, grid.flagged_rows) else grid.flagged_rows
    return max(flagged, inferred_header_rows(grid))


def _records(grid: Grid, h: int) -> bool:
    """The first `h` rows (two or more) are records: each one's first cell begins a later row too,
    with other cells there (not a header repeated whole, as a table broken across pages repeats it)."""
    if h < 2 or h >= len(grid.cells):
        return False
    later: dict[str, set[tuple[str, ...]]] = {}  # first cell -> the distinct rows it begins below (linear)
    for row in grid.cells[h:]:
        later.setdefault(row[0], set()).add(tuple(row))
    return all(row[0] != NULL and bool(later.get(row[0], set()) - {tuple(row)}) for row in grid.cells[:h])


def stub_columns(grid: Grid, h: int) -> int:
    """The first column, plus following label columns when numbers come later (e.g. Dataset | Metric | ...)."""
    n_rows, n_cols = grid.shape
    if n_cols <= 1:
        return n_cols
    numeric = []
    for c in range(n_cols):
        vals = [grid.cells[r][c] for r in range(h, n_rows) if grid.cells[r][c] != NULL]
        numeric.append(not vals or sum(map(is_value, vals)) * 2 > len(vals))  # empty: not a label; a tie: labels
    k = 1
    while k < n_cols - 1 and not numeric[k] and any(numeric[k + 1:]):
        k += 1
    return k


def view(grid: Grid, h: int, stub: int | None = None) -> View:
    """The table under `h` header rows: header paths per column, row keys, body cells; the stub is
    `stub` columns wide when given (another reading), else as `stub_columns` finds it."""
    h = min(h, len(grid.cells))
    grid, k = _without_repeated_headers(grid, h)
    n_rows, n_cols = grid.shape
    k = k if stub is None else max(1, min(stub, n_cols - 1 if n_cols > 1 else n_cols))
    cells = [row[:] for row in grid.cells]
    shown = [row[:] for row in grid.shown]
    section_rows = sections(grid, h)
    for r in section_rows:  # a section row ("Dataset A" across the table): one label, however spanned or set off
        c = next(c for c in range(n_cols) if cells[r][c] != NULL)
        cells[r] = [cells[r][c]] + [NULL] * (n_cols - 1)
        shown[r] = [shown[r][c]] + [""] * (n_cols - 1)
    ids = grid.ids or [list(range(n_cols)) for _ in range(n_rows)]
    for r in range(h):  # a header row's only label, written once over blank slots (a title): spread it right
        filled = [c for c in range(n_cols) if cells[r][c] != NULL]
        if len(filled) == 1:  # written in one slot: a label spanned over several shows its own extent
            for c in range(filled[0] + 1, n_cols):
                if cells[r][c] == NULL:
                    cells[r][c], shown[r][c] = cells[r][filled[0]], shown[r][filled[0]]
    for c in range(1, k):  # a stub header written once over blank stub columns: spread it right
        if all(cells[r][c] == NULL for r in range(h)):
            for r in range(h):
                cells[r][c], shown[r][c] = cells[r][c - 1], shown[r][c - 1]
    written = [row[:] for row in cells[:h]]  # the header as written, before group labels are spread
    for r in range(h):
        _spread_written_once(cells, shown, written, ids, r, h, k, grid.extents)
    for r in range(h + 1, n_rows):  # row labels written once over padding: spread them down
        for c in range(k):
            if cells[r][c] == NULL and cells[r - 1][c] != NULL and any(t != NULL for t in cells[r][k:]) \
                    and r - 1 not in section_rows:
                cells[r][c], shown[r][c] = cells[r - 1][c], shown[r - 1][c]
    # A header row with one label over every column (a title or caption row) names the table,
    # not a column: it is one fact, kept apart, so that losing it (a parser often sets it as a
    # heading above the table) is one error and not a wrong header over every column.
    levels = [r for r in range(h) if len(set(cells[r])) > 1 or cells[r][0] == NULL]
    titles = [r for r in range(h) if r not in levels]
    if not levels or n_cols < 2:
        levels, titles = list(range(h)), []
    title, title_shown = _path([cells[r][0] for r in titles], [shown[r][0] for r in titles])
    col_keys, col_shown, col_written, col_levels = [], [], [], []
    for c in range(n_cols):
        key, show = _path([cells[r][c] for r in levels], [shown[r][c] for r in levels])
        col_levels.append(_levels([cells[r][c] for r in levels]))
        col_keys.append(key)
        col_shown.append(show)
        col_written.append(_path([written[r][c] for r in levels], [""] * len(levels))[0])
    row_keys, row_shown, row_levels = [], [], []
    # sections nest: a section row right above another opens an outer group, whose label the rows
    # of every inner section below carry, until the next such pair ("(a) COCO" over "CLIP")
    outer: list[tuple[str, str]] = []
    inner: list[tuple[str, str]] = []
    for r in range(h, n_rows):
        if r in section_rows:
            label = (cells[r][0], shown[r][0].strip())
            if r + 1 in section_rows and r + 1 < n_rows:
                outer, inner = [label], []
            else:
                inner = [label]
            path = outer + inner
            row_keys.append(" ".join(t for t, _ in path))
            row_shown.append(" / ".join(t for _, t in path))
            row_levels.append(tuple(t for t, _ in path))
            continue
        key, show = _path(cells[r][:k], shown[r][:k])
        levels_r = _levels(cells[r][:k])
        if outer or inner:  # rows under a section are read with its label (and the outer one's)
            key = " ".join([*(t for t, _ in outer + inner), key])
            show = " / ".join([*(t for _, t in outer + inner), show])
            levels_r = (*(t for t, _ in outer + inner), *levels_r)
        row_keys.append(key)
        row_shown.append(show)
        row_levels.append(levels_r)
    return View(col_keys, col_shown, row_keys, row_shown, cells[h:], [[t.strip() for t in row] for row in shown[h:]],
                h, k, title, title_shown, col_written, col_levels, row_levels)


def _spread_written_once(cells: list[list[str]], shown: list[list[str]], written: list[list[str]],
                         ids: list[list[int]], r: int, h: int, k: int, extents: bool) -> None:
    """Header row `r`'s labels written once over blank cells (a Markdown or plain-text \\multicolumn),
    each spread over the cells up to the next label, as a reader reads them.

    Within the label's group (columns under the same labels above it), never over holes (a header
    row shorter than the body: markup that a renderer breaks), and never from a label that shows
    its own extent (spanned in markup, or repeated over its columns; in aligned text a label only
    reaches as far as its text). A label in a stub column heads the columns right of it only in a
    row of group labels (one that labels value columns too) and with a label under it: else it is
    the stub's own header, written at the top of its row span."""
    n_cols = len(cells[r])
    if len({ids[r][c] for c in range(n_cols) if cells[r][c] != NULL}) < 2:
        return  # no label, or a single one (a title: spread over the row already)
    grouped = any(written[r][c] != NULL for c in range(k, n_cols))  # the row labels value columns too
    start = -1  # the first slot of the label being spread
    for c in range(1, n_cols):
        if written[r][c - 1] != NULL and (start < 0 or ids[r][c - 1] != ids[r][start]):
            start = c - 1
        if cells[r][c] != NULL or start < 0:
            continue
        if ids[r][c] < 0 or any(cells[q][c] != cells[q][start] for q in range(r)):
            start = -1  # a hole, or a column of another group: the label ends here
            continue
        slots = sum(1 for i in ids[r] if i == ids[r][start])
        once = (slots == 1 or not extents) and (start == 0 or written[r][start - 1] != written[r][start])
        heads = start >= k or (grouped and r + 1 < h and cells[r + 1][start] != NULL
                               and ids[r + 1][start] != ids[r][start])
        if once and heads:
            cells[r][c], shown[r][c] = cells[r][start], shown[r][start]


def _without_repeated_headers(grid: Grid, h: int) -> tuple[Grid, int]:
    """The grid without body rows that repeat a header row (`row_roles.repeats_header`), and its
    stub columns (`stub_columns`; counted once when no row goes)."""
    k = stub_columns(grid, h)
    drop = {r for r in range(h, len(grid.cells)) if repeats_header(grid.cells[r], grid.cells[:h], k, blank=NULL)}
    if not drop:
        return grid, k
    keep = [r for r in range(len(grid.cells)) if r not in drop]
    out = Grid([grid.cells[r] for r in keep], [grid.shown[r] for r in keep], grid.flagged_rows, grid.blank_lines,
               [grid.ids[r] for r in keep] if grid.ids else None, grid.extents)
    return out, stub_columns(out, h)


def _levels(norm: list[str]) -> tuple[str, ...]:
    """A path's levels without blanks and without a span's repeats (what `_path` joins)."""
    out: list[str] = []
    for t in norm:
        if t != NULL and (not out or out[-1] != t):
            out.append(t)
    return tuple(fold_case(t) for t in out)  # as `_path` keys them


def _path(norm: list[str], shown: list[str]) -> tuple[str, str]:
    """Header levels without blanks and without a span's repeats, as a key and for display."""
    keys: list[str] = []
    show: list[str] = []
    for t, s in zip(norm, shown):
        if t != NULL and (not keys or keys[-1] != t):
            keys.append(t)
            show.append(s.strip())
    # a path's key is read as one text: a lone capital level ("P" under "One-step") loses its
    # case as it does in the same header written in one cell ("One-step P")
    return fold_case(" ".join(keys)), " / ".join(show)
