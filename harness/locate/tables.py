"""Find each ground-truth table in a parser's page output, offline and deterministically.

Tables through the one locate engine (`tablebench.locate.engine`). Every table in the output (any
markup, or aligned plain text) is a candidate with its literal span; each (ground truth,
candidate) pair gets a format-agnostic content score (`table_profile.similarity`); an optimal
one-to-one assignment picks the pairs; then two repairs: a table the parser split into
adjacent pieces is merged back, and a ground truth left without a table may share a candidate
that holds it together with another ground truth (tables the parser fused). Last, a table still
missing is looked for in the plain lines outside every candidate (`loose_lines`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from tablebench.core.messages import one_line
from tablebench.core.table import Cell, NoTableError, Table
from tablebench.locate.engine import MAX_FRAGMENTS, Joins, Located, Span, describe_spans, locate
from tablebench.locate.loose_lines import find_loose
from tablebench.locate.table_profile import Profile, holds_words, normalize, profile, similarity, text_profile
from tablebench.readers import read_tables
from tablebench.readers.row_roles import header_end
from tablebench.readers.textnorm import ANY_TAG

__all__ = ["MAX_FRAGMENTS", "MIN_SCORE", "Located", "candidates", "join_fragments", "locate_tables", "normalize",
           "profile", "similarity", "text_profile"]

# Calibrated on the 20-page pdf-parse-bench sample (pymupdf4llm, pdfplumber, pypdf outputs): a
# page's tables looked for in the 19 other pages' outputs score <= 0.15 at p99 (max 0.30: another
# paper's hyperparameter table); true Markdown matches score >= 0.79, pypdf's loose lines >= 0.53,
# and pdfplumber's mangled fragments from 0.30 up.
MIN_SCORE = 0.30
SPLIT_GAIN = 0.02  # a neighbouring candidate joins a match only when the score rises this much
MERGE_GAIN = 0.05  # a shared candidate must explain both tables better than one by this much
HELD = 0.9  # share of a piece's trigrams in the ground truth that makes it a piece of that table (`held_by`)

_STRUCTURED = ("html", "latex", "markdown")
MAX_LABEL = 80  # characters: a line between two fragments longer than this is prose, not a section label
TITLE_REACH = 200  # characters above a table searched for its title line
_PAGE_MARK = re.compile(r"[^\w\s]*\d{1,4}[^\w\s]*")  # a line that is one bare number: a page number or a note mark


def candidates(output: str) -> tuple[list[Table], str]:
    """Every table in `output` in span order, and a one-line reason when there is none.

    Markup tables come from `read_tables`; aligned plain-text blocks outside them are added
    too, since a parser may write some tables as Markdown and others as loose text.
    """
    try:
        found = read_tables(output)
    except NoTableError:
        return [], "no table candidates in the output"
    except Exception as exc:  # noqa: BLE001 - garbage output must not end a benchmark run
        return [], f"no table candidates: the reader failed ({type(exc).__name__}: {one_line(exc, 200)})"
    if found and all(t.fmt in _STRUCTURED for t in found):
        found = sorted(found + _plain_outside(output, found), key=_span_key)
    return found, "" if found else "no table candidates in the output"


def _plain_outside(output: str, tables: list[Table]) -> list[Table]:
    """Aligned plain-text tables in the text the markup tables leave (their spans blanked)."""
    chars = list(output)
    for t in tables:
        if t.span is not None:
            start, end = t.span
            chars[start:end] = [c if c == "\n" else " " for c in output[start:end]]
    from tablebench.readers.text import read_text

    try:
        return read_text("".join(chars))
    except NoTableError:
        return []


def _span_key(table: Table) -> tuple[int, int]:
    return table.span or (0, 0)


class TableStrategy:
    """Tables for the locate engine: content profiles, one assignment round, split/fused repairs."""

    noun = "table"
    rounds = 1  # a ground truth left below `min_score` stays missing (then the repairs and loose lines)
    exclusive = False  # the readers' tables are pieces of their own
    joins = Joins(similarity, SPLIT_GAIN, MERGE_GAIN, combine=lambda pieces, keys: joined_profile(pieces, keys),
                  held=lambda gt, key: held_by(gt, key))
    candidates = staticmethod(candidates)
    key = staticmethod(profile)
    candidate_key = staticmethod(profile)

    @staticmethod
    def scores(gt_keys: list[Profile], cand_keys: list[Profile]) -> np.ndarray:
        scores = np.array([[similarity(g, c) for c in cand_keys] for g in gt_keys], dtype=np.float64)
        return scores.reshape(len(gt_keys), len(cand_keys))

    @staticmethod
    def span(candidate: Table) -> Span | None:
        return candidate.span

    @staticmethod
    def found(g: int, pieces: list[Table], score: float, note: str, output: str, key: Profile | None = None) -> Located:
        table = join_fragments(pieces, output, attached_lines(pieces, output, key))
        text = output[table.span[0]:table.span[1]] if table.span is not None else ""
        spans = tuple(t.span for t in pieces if t.span is not None)
        if len(spans) > 1:
            note = f"{note} at {describe_spans(spans)}"
        return Located(g, table, table.span, text, round(score, 6), note, table.fmt, spans)

    @staticmethod
    def missing(g: int, scores: np.ndarray, key: Profile, why_none: str, min_score: float) -> Located:
        best = round(float(scores.max()), 6) if scores.size else 0.0
        return Located(g, None, None, "", best, _missing_note(scores, min_score, why_none, key))

    @staticmethod
    def search_text(output: str, cands: list[Table], gts: Sequence[Table], keys: list[Profile],
                    located: list[Located], min_score: float) -> None:
        """Tables written as plain lines or a list: each line becomes a one-cell row."""
        missing = [loc.gt_index for loc in located if not loc.found]
        for g, (table, score) in find_loose(output, cands, keys, missing, min_score).items():
            start, end = table.span  # type: ignore[misc]
            note = f"read from {len(table.rows)} loose line(s) outside any table markup"
            located[g] = Located(g, table, (start, end), output[start:end], round(score, 6), note, table.fmt)


TABLES = TableStrategy()


def joined_profile(pieces: list[Table], keys: list[Profile]) -> Profile:
    """The content of adjacent pieces read as one table (`join_fragments`): each piece's own
    profile, a later piece's repeated header rows (`repeated_header`) left out."""
    total = None
    for piece, key, n in zip(pieces, keys, repeated_header(pieces)):
        if n >= len(piece.rows):
            continue  # a piece that only says the header again adds nothing
        part = key if n == 0 else profile(Table(piece.rows[n:], fmt=piece.fmt))
        total = part if total is None else total + part
    return total if total is not None else keys[0]


def held_by(gt: Profile, piece: Profile) -> bool:
    """Whether what a piece says is in the ground truth (a piece of that table): at least
    `HELD` of its char trigrams are the ground truth's (trigrams, not words: a parser that
    drops a thin space, "µΩcm" for "µΩ cm", still says the same)."""
    total = piece.grams.total()
    return total > 0 and sum(n for g, n in piece.grams.items() if gt.grams[g] > 0) >= HELD * total


def locate_tables(gt: list[Table], output: str, min_score: float = MIN_SCORE, *,
                  loose_lines: bool = True) -> list[Located]:
    """One `Located` per ground-truth table, in order; see the module docstring for the steps.

    `min_score` is the least content score (see `similarity`) that counts as found. With
    `loose_lines`, a table still missing at the end is looked for in the lines outside every
    candidate (a parser that wrote the table as plain lines or a list): each line becomes a
    one-cell row, so the content counts and the lost structure shows in the metrics.
    """
    return locate(TABLES, gt, output, min_score, text_pass=loose_lines)


def attached_lines(tables: list[Table], output: str, gt: Profile | None) -> list[Span]:
    """Which short lines of `output` beside the located pieces belong to the table (as any locator
    must, with the ground truth `gt`): the lines right above the first piece that the ground truth
    holds and the table does not (a title, or a title over a subtitle, that a parser set as lines
    above the table: moved, not lost), read upwards to the first line that is no such title, and
    the one short line between two pieces that it holds ("Model B" set as a heading between the
    halves of a split table). A line that is one bare number (a page number or a note mark,
    whose digits the ground truth may hold in any cell) names nothing. What the lines say is read
    by `join_fragments`, which does not see the ground truth."""
    if gt is None or not output or any(t.span is None for t in tables) or not tables:
        return []
    out: list[Span] = []
    inside = {normalize(c.text) for t in tables for row in t.rows for c in row}
    start = tables[0].span[0]  # type: ignore[index]
    reach = max(0, start - TITLE_REACH)
    before = output[reach:start].rstrip()
    cut = before.rfind("\n\n")
    offset = reach + (cut + 2 if cut >= 0 else 0)  # the last block of lines before the table
    lines: list[Span] = []
    for line in output[offset:reach + len(before)].splitlines(keepends=True):
        lines.append((offset, offset + len(line.rstrip("\n"))))
        offset += len(line)
    for a, b in reversed(lines):
        label = _between_label(output[a:b])
        if not label or _PAGE_MARK.fullmatch(label) or not holds_words(gt, label) or normalize(label) in inside:
            break
        out.insert(0, (a, b))
    for prev, nxt in zip(tables, tables[1:]):
        gap = (prev.span[1], nxt.span[0])  # type: ignore[index]
        label = _between_label(output[gap[0]:gap[1]])
        if label and not _PAGE_MARK.fullmatch(label) and holds_words(gt, label):  # a page number between: a break
            out.append(gap)
    return out


def join_fragments(tables: list[Table], output: str = "", lines: Sequence[Span] = ()) -> Table:
    """Located pieces of one table, and the `lines` of `output` beside them that belong to it
    (`attached_lines`), read as one table as a reader reads them: rows stacked in output order,
    a short line above the first piece as a title row over the table's width, a short line
    between two pieces as the label of the rows below it (a section row). A later piece that
    opens with the table's header rows (all, or the last of them) says them again, as a
    table continued on the next page does: they are read once (`repeated_header`). The span runs
    from the first line or piece to the last piece."""
    fmts = list(dict.fromkeys(t.fmt for t in tables))
    width = max((sum(c.colspan for c in row) for t in tables for row in t.rows), default=1)
    spans = [t.span for t in tables if t.span is not None] + list(lines)
    span = (min(a for a, _ in spans), max(b for _, b in spans)) if spans else None
    first = tables[0].span[0] if tables[0].span is not None else None
    rows: list[list[Cell]] = []
    repeated = repeated_header(tables) if len(tables) > 1 else [0] * len(tables)
    for a, b in sorted(lines):
        if first is not None and b <= first:
            rows.append([Cell(_between_label(output[a:b]), colspan=width)])
    for k, t in enumerate(tables):
        if k and tables[k - 1].span is not None and t.span is not None:
            gap = (tables[k - 1].span[1], t.span[0])
            rows += [[Cell(_between_label(output[a:b]), colspan=width)] for a, b in lines if (a, b) == gap]
        rows += t.rows[repeated[k]:]
    if len(tables) == 1 and not lines:
        return tables[0]
    return Table(rows, fmt="+".join(fmts), span=span)


def repeated_header(pieces: list[Table]) -> list[int]:
    """Per piece of one table, how many rows at its top repeat the table's header: the most rows
    that read exactly as the last ones of the header (a table continued on a new page repeats
    its header, or its lower levels). The header is the rows of the pieces stacked before the
    first row of values (`row_roles.header_end`; titles included), so it may be a piece of its
    own (a parser that sets a header apart from the body) and a piece that repeats data rows is
    not excused. Cells are compared by their text (the locator's `normalize`) and spans."""
    stacked = [row for t in pieces for row in t.rows]
    head = _header_rows(Table(stacked))
    header = [_row_key(row) for row in stacked[:head]]
    out, start = [], 0
    for t in pieces:
        n = 0
        if start >= head:  # a piece below the header: does it open by saying it again?
            n = next((j for j in range(min(head, len(t.rows)), 0, -1)
                      if [_row_key(row) for row in t.rows[:j]] == header[head - j:]), 0)
        out.append(n)
        start += len(t.rows)
    return out


_VALUE = re.compile(r"[-+−–±~≈<>$.,:;%()\[\]/\d\s*^†‡§]*\d[-+−–±~≈<>$.,:;%()\[\]/\d\s*^†‡§eE]*")


def _header_rows(table: Table) -> int:
    """The rows before the table's data as a reader sees them (`row_roles.header_end` over the
    cells' text, a cell of digits and number signs being a value)."""
    grid = [[normalize(c.text) for c in row for _ in range(c.colspan)] for row in table.rows]
    starts = np.cumsum([0] + [len(row) for row in table.rows])  # every cell its own id, table-wide
    ids = [[int(starts[r]) + n for n, c in enumerate(row) for _ in range(c.colspan)]
           for r, row in enumerate(table.rows)]
    return header_end(grid, ids, lambda text: bool(_VALUE.fullmatch(text)))


def _row_key(row: list[Cell]) -> tuple[tuple[str, int], ...]:
    return tuple((normalize(c.text), c.colspan) for c in row)


def _between_label(text: str) -> str:
    """The text between two fragments as one label, if it is one short line (heading and
    emphasis marks dropped); "" otherwise."""
    lines = [ln.strip() for ln in ANY_TAG.sub(" ", text).splitlines() if ln.strip()]
    if len(lines) != 1 or len(lines[0]) > MAX_LABEL:
        return ""
    return " ".join(lines[0].strip("#*_ ").split())


def _missing_note(scores: np.ndarray, min_score: float, why_none: str, prof: Profile) -> str:
    if prof.empty:
        return "the ground-truth table has no text to match"
    if not scores.size:
        return why_none
    best = float(scores.max())
    if best >= min_score:
        return f"best candidate scored {best:.2f} but fits another table better"
    shown, threshold = _distinct(best, min_score)
    return f"best candidate scored {shown} < {threshold}"


def _distinct(a: float, b: float) -> tuple[str, str]:
    """`a` and `b` with the fewest decimals (at least 2) that tell them apart: never "0.30 < 0.30"."""
    for digits in range(2, 7):
        shown = f"{a:.{digits}f}", f"{b:.{digits}f}"
        if shown[0] != shown[1]:
            return shown
    return repr(a), repr(b)
