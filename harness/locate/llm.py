"""The opt-in LLM locator for tables: a model points at each ground-truth table in a parser's output.

Tables through the one LLM-locate engine (`tablebench.locate.llm_engine`): the model gets the
ground-truth tables (LaTeX) and the whole output and quotes, per table, the verbatim span that
represents it, or up to `MAX_FRAGMENTS` consecutive spans when the parser split the table; each
span is re-found literally (`tablebench.locate.refind`), widened to the reader's tables it mostly
covers (an alignment may clip a few edge characters) and read with
`tablebench.readers.read_tables`; fragments are joined in output order, as the offline locator
joins them. Tables still unmatched get one more request, on the output with the found regions
cut out. Returns the same `Located` objects as `locate_tables`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from tablebench.core.table import Cell, NoTableError, Table
from tablebench.locate import llm_engine
from tablebench.locate.engine import Located, Span
from tablebench.locate.llm_engine import locate_llm, quoted, spans_schema
from tablebench.locate.refind import MIN_ALIGNMENT, Found, refind
from tablebench.locate.tables import (
    MAX_FRAGMENTS,
    attached_lines,
    candidates,
    join_fragments,
    locate_tables,
    profile,
    similarity,
)
from tablebench.readers import read_tables
from tablebench.readers.latex import read_latex

__all__ = ["MIN_ALIGNMENT", "PROMPT_VERSION", "SCHEMA", "SYSTEM_PROMPT", "locate_tables_llm", "read_region",
           "read_spans", "refind"]

PROMPT_VERSION = "locate-2026.11-2"
COVER = 0.5  # a reader table joins the region when this share of it lies inside
LOOSE_SHARE = 0.25  # plain lines join the read tables when they hold more of the region's text

SYSTEM_PROMPT = f"""\
You locate tables in the text output of a PDF parser. You receive numbered ground-truth tables
written in LaTeX and the parser's output for the whole page, in which each table may appear as
HTML, Markdown, LaTeX or plain text, possibly damaged (cells merged or split, rows lost, text
garbled).

For every ground-truth table, find the part of the output that is that table and copy it
verbatim into "spans": character for character, from its first to its last character,
including markup. Do not repair, reformat, translate, abbreviate or shorten it. Leave out
captions and surrounding prose. The parser may have broken one table into several consecutive
pieces (for example at a section row, with a heading between the pieces): then give each piece
as its own string in "spans", in output order, at most {MAX_FRAGMENTS} pieces, without the text
between them. Never put two different ground-truth tables into one entry. If the table is not in
the output, give an empty list. Never write text that is not in the output.

Answer with only a JSON object:
{{"tables": [{{"index": <number>, "spans": ["<verbatim text>", ...]}}, ...]}}
with one entry per ground-truth table."""

SCHEMA: dict[str, Any] = spans_schema("tables", MAX_FRAGMENTS)


def read_spans(data: Any, wanted: set[int]) -> dict[int, list[str]]:
    """index -> its fragments' spans from a parsed table answer (unknown indices dropped);
    ValueError when malformed or over `MAX_FRAGMENTS` fragments."""
    return llm_engine.read_spans(data, wanted, "tables", MAX_FRAGMENTS)


# -- from a region to a Table -------------------------------------------------------------------
def read_region(output: str, start: int, end: int, cands: list[Table]) -> Table:
    """The table in output[start:end], widened to the reader tables it mostly covers.

    Several tables inside are joined (the model said this is one table). Lines no reader
    takes become one-cell rows in their place when they hold more than LOOSE_SHARE of the
    region's text (a table written partly as plain lines), so the content still counts.
    """
    for cand in cands:
        if cand.span is None:
            continue
        a, b = cand.span
        inside = min(b, end) - max(a, start)
        if b > a and inside >= COVER * (b - a):
            start, end = min(start, a), max(end, b)
    text = output[start:end]
    try:
        tables = [t for t in read_tables(text) if t.span is not None]
    except Exception:  # noqa: BLE001 - NoTableError, or a reader bug on odd output: the lines still count
        tables = []
    loose = [(a, line) for a, line in _lines(text) if not any(a < e and s < a + len(line) for s, e in
                                                             (t.span for t in tables))]
    if tables and _size(line for _, line in loose) <= LOOSE_SHARE * _size([text]):
        fmt = "+".join(dict.fromkeys(t.fmt for t in tables))
        span = (start + min(t.span[0] for t in tables), start + max(t.span[1] for t in tables))
        return Table([row for t in tables for row in t.rows], fmt=fmt, span=span)
    pieces = sorted([(t.span[0], t.rows) for t in tables] + [(a, [[Cell(line)]]) for a, line in loose],
                    key=lambda piece: piece[0])
    fmt = "+".join(dict.fromkeys([*(t.fmt for t in tables), "lines"]))
    lead, trail = len(text) - len(text.lstrip()), len(text) - len(text.rstrip())
    return Table([row for _, rows in pieces for row in rows], fmt=fmt, span=(start + lead, end - trail))


def read_fragments(output: str, regions: list[Span], cands: list[Table]) -> list[Table]:
    """The table fragments in these regions (`read_region` each), in output order; regions whose
    tables overlap (two quotes of one piece, widened to the same reader table) are read as one."""
    regions = sorted(regions)
    while True:
        pieces = [read_region(output, a, b, cands) for a, b in regions]
        merged: list[Span] = []
        for (a, b), piece in zip(regions, pieces):
            start, end = piece.span
            if merged and start < merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], b, end))
            else:
                merged.append((min(a, start), max(b, end)))
        if len(merged) == len(regions):
            return pieces
        regions = merged


def _lines(text: str) -> list[tuple[int, str]]:
    """(offset, stripped line) of every non-blank line."""
    out, pos = [], 0
    for line in text.split("\n"):
        if line.strip():
            out.append((pos + len(line) - len(line.lstrip()), line.strip()))
        pos += len(line) + 1
    return out


def _size(texts: Iterable[str]) -> int:
    return sum(len("".join(t.split())) for t in texts)


# -- the locator -----------------------------------------------------------------------------------
class TableSpans:
    """Tables for the LLM-locate engine: LaTeX in the prompt, a region read as a `Table`, two requests."""

    noun = "table"
    key = "tables"
    system_prompt = SYSTEM_PROMPT
    prompt_version = PROMPT_VERSION
    rounds = 2
    fragments = MAX_FRAGMENTS
    describe = staticmethod(quoted)

    def __init__(self, gt_latex: list[str], gt_tables: list[Table] | None) -> None:
        self.gt_latex, self.gt_tables, self.count = gt_latex, gt_tables, len(gt_latex)

    def prepare(self) -> None:
        if self.gt_tables is None:
            self.gt_tables = [_read_gt(latex, i) for i, latex in enumerate(self.gt_latex)]
        elif len(self.gt_tables) != len(self.gt_latex):
            raise ValueError(f"gt_tables has {len(self.gt_tables)} tables for {len(self.gt_latex)} LaTeX ground truths")

    def ground_truths(self, pending: list[int]) -> str:
        return "\n\n".join(f'<table index="{i}">\n{self.gt_latex[i].strip()}\n</table>' for i in pending)

    def reader(self, output: str) -> Callable[[int, list[Found]], tuple[Located, list[Span]]]:
        cands, _ = candidates(output)

        def read(index: int, hits: list[Found]) -> tuple[Located, list[Span]]:
            pieces = read_fragments(output, [(h.start, h.end) for h in hits], cands)
            table = join_fragments(pieces, output, attached_lines(pieces, output, profile(self.gt_tables[index])))
            start, end = table.span
            spans = [piece.span for piece in pieces]
            score = round(similarity(profile(self.gt_tables[index]), profile(table)), 6)
            return Located(index, table, (start, end), output[start:end], score, "", table.fmt, tuple(spans)), spans

        return read

    def missing(self, index: int, note: str) -> Located:
        return Located(index, None, None, "", 0.0, note)

    def offline(self, output: str) -> list[Located]:
        return locate_tables(self.gt_tables, output)


def locate_tables_llm(gt_latex: list[str], output: str, model: str, *, gt_tables: list[Table] | None = None,
                      min_alignment: float = MIN_ALIGNMENT, cache_dir: Path | None = None, fallback: bool = True,
                      usage: dict[str, Any] | None = None, **llm_options: Any) -> list[Located]:
    """One `Located` per ground-truth table (LaTeX), in order, located by `model` in `output`.

    `gt_tables` are those LaTeX tables already read (e.g. `GroundTruthTable.table`), to skip
    re-reading them; they only serve the content score. The rest as `llm_engine.locate_llm`:
    `llm_options` go to `tablebench.core.llm.complete`; `fallback` uses the offline locator when the
    model fails; `usage` is filled with `cost`, `requests` and `cached`.
    """
    return locate_llm(TableSpans(gt_latex, gt_tables), output, model, min_alignment=min_alignment,
                      cache_dir=cache_dir, fallback=fallback, usage=usage, **llm_options)


def _read_gt(latex: str, index: int) -> Table:
    try:
        return read_latex(latex)[0]
    except (NoTableError, IndexError):
        raise ValueError(f"ground-truth table {index} is not a LaTeX tabular our reader can read") from None
