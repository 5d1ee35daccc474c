"""Plain-text tables -> `Table`s: column-aligned grids (pdftotext -layout, pypdf) and CSV/TSV.

Aligned text has no markup, so columns are inferred: within a block of lines that have gaps of
2+ spaces, a character column is a boundary when (almost) no line has text there. A line whose
text crosses a boundary that most lines respect is a spanning cell (a centred group header),
not a reason to give up the boundary. Delimited text goes through the csv module, which knows
quoting; the delimiter is sniffed by which one splits most lines into the same number of fields.
"""

from __future__ import annotations

import csv
import re
from collections import Counter

import numpy as np

from tablebench.core.table import Cell, NoTableError, Table
from tablebench.readers.textnorm import cell_text_form

_TOKEN = re.compile(r"\S+(?: \S+)*")  # text runs separated by 2+ spaces (single spaces stay inside)
MAX_GAP_LINES = 2  # blank or single-run lines tolerated inside a block (double-spaced rows, label rows)
MAX_LABEL_CHARS = 40  # a single-run line longer than this is prose, which ends the block
CROSSING_SHARE = 0.2  # a boundary survives when at most this share of reference lines crosses it
PROSE_CELL_CHARS = 40  # median cell longer than this: running text, not a table
PROSE_RUN_CHARS = 25  # a run this long with 5+ words is prose (used to recognise two-column pages)
_GAP = "  "  # two spaces inside a delimited field: the text is aligned, the delimiter is in its cells
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")  # 4,476,619: the commas of a number, not delimiters
_KEPT_COMMA = "\ue000"  # a comma kept inside its field while csv splits the line (private use: in no text)
DELIMITERS = ("\t", ",", ";", "|")  # ties go to the earlier: a tab is the strongest signal


def read_lines(text: str) -> Table:
    """`text` as a table of one cell per non-blank line: what is left of a table whose parser
    wrote each row as a line of text without column marks (the semantic score splits such
    lines again, `tablebench.metrics.tables.semantic_lines`). Raises `NoTableError` for blank text."""
    rows = [[Cell(line.strip())] for line in text.splitlines() if line.strip()]
    if not rows:
        raise NoTableError("no text")
    return Table(rows, fmt="lines", span=(0, len(text)))


def read_text(text: str) -> list[Table]:
    """Every column-aligned block of >= 2 rows and >= 2 columns in `text`, in order.

    Cells of a row that leave a column blank get empty cells (the grid is rectangular);
    a run of text crossing column boundaries becomes one cell with a colspan. No header flags:
    plain text does not say which rows are headers. A two-column page (pdftotext -layout
    prints both page columns side by side) is split at its gutter first, so a table's span
    may enclose text of the other page column. Raises `NoTableError` when none is found.
    """
    if not isinstance(text, str):
        raise TypeError(f"read_text expects str, got {type(text).__name__}")
    lines = _lines(text)
    runs = [[(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(line.expandtabs(8))]
            for _, line in lines]
    gutter = _gutter(runs)
    if gutter is None:
        sides = [runs]
    else:
        sides = [[[r for r in line if r[0] < gutter] for line in runs],
                 [[r for r in line if r[0] >= gutter] for line in runs]]
    tables = []
    for side in sides:
        for block in _blocks(side):
            rows = _grid([side[i] for i in block])
            if rows is None:
                continue
            (start, first), (end, last) = lines[block[0]], lines[block[-1]]
            span = (start + _raw_index(first, side[block[0]][0][0]), end + _raw_index(last, side[block[-1]][-1][1]))
            tables.append(Table(rows, fmt="text", span=span))
    if not tables:
        raise NoTableError("no block of >= 2 lines aligned in >= 2 columns (gaps of 2+ spaces) found")
    return sorted(tables, key=lambda t: t.span)


def read_delimited(text: str, delimiter: str | None = None) -> list[Table]:
    """CSV/TSV tables in `text`: blocks of delimited rows separated by blank lines, in order.

    `delimiter=None` sniffs one of `, tab ; |`. Quoted fields may hold delimiters and newlines.
    Single-field lines at the edges of a block (titles, captions) are left out; ragged rows are
    kept as written. Raises `NoTableError` when no block has >= 2 rows and >= 2 columns.
    """
    if not isinstance(text, str):
        raise TypeError(f"read_delimited expects str, got {type(text).__name__}")
    if delimiter is None:
        delimiter = sniff_delimiter(text)
        if delimiter is None:
            raise NoTableError("no delimiter among , tab ; | splits >= 2 lines into the same >= 2 fields")
    elif len(delimiter) != 1:
        raise ValueError(f"delimiter must be one character, got {delimiter!r}")
    lines = _lines(text)
    tables = []
    for group in _csv_groups(lines, delimiter):
        while group and len(group[0][2]) < 2:
            group.pop(0)
        while group and len(group[-1][2]) < 2:
            group.pop()
        if len(group) < 2:
            continue
        rows = [[Cell(cell_text_form(field.strip()), raw=field) for field in fields] for _, _, fields in group]
        start, first = lines[group[0][0]]
        end, last = lines[group[-1][1]]
        span = (start + len(first) - len(first.lstrip()), end + len(last.rstrip()))
        tables.append(Table(rows, fmt="csv", span=span))
    if not tables:
        raise NoTableError(f"no block of >= 2 rows with >= 2 fields split by {delimiter!r} found")
    return tables


def sniff_delimiter(text: str) -> str | None:
    """The delimiter among `, tab ; |` that splits the most lines into one common field count >= 2."""
    best, best_key = None, (0, 0)
    lines = _lines(text)
    for d in DELIMITERS:
        if d not in text:
            continue
        counts = Counter(len(fields) for _, _, fields in _csv_rows(lines, d) if len(fields) >= 2)
        if not counts:
            continue
        width, n = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
        if n >= 2 and (n, width) > best_key:
            best, best_key = d, (n, width)
    return best


def delimited_share(text: str) -> float:
    """Share of non-blank lines that the sniffed delimiter splits into its most common width.

    A line whose fields hold a gap of two or more spaces does not count: the spaces align its
    columns and the delimiter sits inside cells (decimal commas in aligned text: `4,87    5,51`)."""
    d = sniff_delimiter(text)
    if d is None:
        return 0.0
    rows = [fields for _, _, fields in _csv_rows(_lines(text), d) if any(f.strip() for f in fields)]
    if not rows:
        return 0.0
    counts = Counter(len(fields) for fields in rows if not any(_GAP in f.strip() for f in fields))
    if not counts:
        return 0.0
    width, n = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
    return n / len(rows) if width >= 2 else 0.0


# -- shared line handling -------------------------------------------------------------------
def _lines(text: str) -> list[tuple[int, str]]:
    """(offset, line) for every "\\n"-separated line, with a trailing "\\r" dropped."""
    out, pos = [], 0
    for line in text.split("\n"):
        out.append((pos, line[:-1] if line.endswith("\r") else line))
        pos += len(line) + 1
    return out


# -- aligned text ---------------------------------------------------------------------------
def _raw_index(line: str, column: int) -> int:
    """The index in `line` of display column `column` (they differ only when tabs are expanded)."""
    if "\t" not in line:
        return min(column, len(line))
    col = 0
    for i, ch in enumerate(line):
        col = col + 8 - col % 8 if ch == "\t" else col + 1
        if col > column:
            return i
    return len(line)


def _is_prose(run: str) -> bool:
    return len(run) >= PROSE_RUN_CHARS and run.count(" ") >= 4


def _gutter(runs: list[list[tuple[int, int, str]]]) -> int | None:
    """The display column between two page columns, when the text is a two-column page.

    A gutter is a band in the middle of the page that (almost) no text run crosses while prose
    sits on both sides of it; on a one-column page prose lines cross the middle, so none is found.
    """
    filled = [line for line in runs if line]
    if len(filled) < 6:
        return None
    width = max(e for line in filled for _, e, _ in line)
    cover = np.zeros(width + 1, dtype=np.int64)
    for line in filled:
        for s, e, _ in line:
            cover[s] += 1
            cover[e] -= 1
    cover = np.cumsum(cover)
    lo, hi = int(width * 0.3), int(width * 0.7)
    free = np.flatnonzero(cover[lo:hi] <= len(filled) // 50) + lo
    if free.size == 0:
        return None
    x = int(free[np.argmin(np.abs(free - width / 2))])
    left = sum(any(_is_prose(t) and e <= x for _, e, t in line) for line in filled)
    right = sum(any(_is_prose(t) and s >= x for s, _, t in line) for line in filled)
    return x if min(left, right) >= 3 else None


def _blocks(runs: list[list[tuple[int, int, str]]]) -> list[list[int]]:
    """Line indices of each block: lines with >= 2 runs, bridging short gaps of other lines."""
    blocks: list[list[int]] = []
    current: list[int] = []
    gap: list[int] = []
    for i, line_runs in enumerate(runs):
        if len(line_runs) >= 2:
            if current and len(gap) <= MAX_GAP_LINES:
                current.extend(j for j in gap if runs[j])
            elif current:
                blocks.append(current)
                current = []
            if not current:
                current = _group_headers_above(runs, i)
            current.append(i)
            gap = []
        elif current:
            if line_runs and len(line_runs[0][2]) > MAX_LABEL_CHARS:
                blocks.append(current)
                current, gap = [], []
            else:
                gap.append(i)
    if current:
        blocks.append(current)
    return [b for b in blocks if len(b) >= 2]


def _group_headers_above(runs: list[list[tuple[int, int, str]]], i: int) -> list[int]:
    """Short single-run lines right above line `i` that sit right of its first cell: group headers."""
    above: list[int] = []
    j = i - 1
    while j >= 0 and i - j <= MAX_GAP_LINES and len(runs[j]) == 1:
        s, _, text = runs[j][0]
        if s <= runs[i][0][1] or len(text) > MAX_LABEL_CHARS:
            break
        above.insert(0, j)
        j -= 1
    return above


def _grid(lines: list[list[tuple[int, int, str]]]) -> list[list[Cell]] | None:
    """Cells of a block on the columns its shared gaps define, or None when it is no table."""
    # Boundaries come from the lines with at least the median number of runs: group headers
    # and label rows have fewer runs and may cross boundaries; they are placed afterwards.
    median = float(np.median([len(runs) for runs in lines]))
    reference = [runs for runs in lines if len(runs) >= median]
    starts = np.array([s for runs in reference for s, _, _ in runs], dtype=np.int64)
    ends = np.array([e for runs in reference for _, e, _ in runs], dtype=np.int64)
    lo, hi = int(starts.min()), int(ends.max())
    cover = np.zeros(hi + 1, dtype=np.int64)
    np.add.at(cover, starts, 1)
    np.add.at(cover, ends, -1)
    cover = np.cumsum(cover)[lo:hi]
    busy = cover > int(len(reference) * CROSSING_SHARE)
    # A region that only a few lines use (a row group's label, written once over the rows
    # below it) is a column too when blank space sets it apart on both sides.
    sparse = np.flatnonzero(np.diff(np.concatenate(([0], ((cover > 0) & ~busy).view(np.int8), [0]))))
    for s, e in zip(sparse[0::2], sparse[1::2]):
        if (s == 0 or cover[s - 1] == 0) and (e == len(cover) or cover[e] == 0):
            busy[s:e] = True
    # columns: maximal runs of busy positions (offsets relative to lo)
    edges = np.flatnonzero(np.diff(np.concatenate(([0], busy.view(np.int8), [0]))))
    col_starts, col_ends = edges[0::2] + lo, edges[1::2] + lo
    n_cols = len(col_starts)
    if n_cols < 2:
        return None
    # the first and last column each run touches, for all runs at once
    all_starts = np.array([s for runs in lines for s, _, _ in runs], dtype=np.int64)
    all_ends = np.array([e for runs in lines for _, e, _ in runs], dtype=np.int64)
    first = np.minimum(np.searchsorted(col_ends, all_starts, side="right"), n_cols - 1)
    last = np.minimum(np.maximum(np.searchsorted(col_starts, all_ends, side="left") - 1, first), n_cols - 1)
    touched = iter(zip(first.tolist(), last.tolist()))
    rows: list[list[Cell]] = []
    for runs in lines:
        row: list[Cell] = []
        used = 0  # columns filled so far in this row
        for (_, _, text), (c0, c1) in zip(runs, touched):
            if row and c0 < used:  # same column(s) as the previous run: one cell
                prev = row[-1]
                prev.text = f"{prev.text} {cell_text_form(text)}"
                prev.colspan += max(0, c1 + 1 - used)
                used = max(used, c1 + 1)
                continue
            row.extend(Cell("") for _ in range(c0 - used))
            row.append(Cell(cell_text_form(text), colspan=c1 - c0 + 1))
            used = c1 + 1
        row.extend(Cell("") for _ in range(n_cols - used))
        rows.append(row)
    lengths = [len(c.text) for row in rows for c in row if c.text]
    if not lengths or float(np.median(lengths)) > PROSE_CELL_CHARS:
        return None
    return rows


# -- delimited text -------------------------------------------------------------------------
def _csv_rows(lines: list[tuple[int, str]], delimiter: str) -> list[tuple[int, int, list[str]]]:
    """(first line, last line, fields) of each CSV record; a malformed tail ends the read."""
    if delimiter == ",":  # a thousands separator (`306,869`) is the number's, never a delimiter
        lines = [(i, _THOUSANDS.sub(_KEPT_COMMA, line)) for i, line in lines]
    source = (line.replace("\r", " ") + "\n" for _, line in lines)
    reader = csv.reader(source, delimiter=delimiter, skipinitialspace=True, strict=False)
    out = []
    first = 0
    try:
        for fields in reader:
            fields = [f.replace(_KEPT_COMMA, ",") for f in fields] if delimiter == "," else fields
            out.append((first, reader.line_num - 1, _bracketed_joined(fields, delimiter)))
            first = reader.line_num
    except csv.Error:  # e.g. a field beyond csv.field_size_limit(): keep what was read
        pass
    return out


def _bracketed_joined(fields: list[str], delimiter: str) -> list[str]:
    """`fields` with those a delimiter split inside a bracket joined back: a reader reads
    `(1, 1, 1)` or `[0.12, 0.50]` as one value, not as cells, so a line of such values and words
    is not delimited text (its commas are the values' own)."""
    if not any("(" in f or "[" in f for f in fields):
        return fields
    out: list[str] = []
    depth = 0
    for field in fields:
        if depth > 0 and out:
            out[-1] += f"{delimiter} {field}" if delimiter != "\t" else f"\t{field}"
        else:
            out.append(field)
        depth = max(0, depth + field.count("(") + field.count("[") - field.count(")") - field.count("]"))
    return out


def _csv_groups(lines: list[tuple[int, str]], delimiter: str) -> list[list[tuple[int, int, list[str]]]]:
    """Records split into groups at blank lines."""
    groups: list[list[tuple[int, int, list[str]]]] = [[]]
    for record in _csv_rows(lines, delimiter):
        if any(f.strip() for f in record[2]):
            groups[-1].append(record)
        elif groups[-1]:
            groups.append([])
    return [g for g in groups if g]
