"""The opt-in LLM locator: a model points at each ground-truth table in a parser's output.

Why: the offline locator (`harness.locate.tables`) recognises tables by content and markup; a model
also copes with output where a table is hard to recognise (prose-like text, odd markup,
fused captions). But a model may misquote or invent, so its answer is only a pointer:

1. The model gets the ground-truth tables (LaTeX) and the whole output and returns, per
   table, the verbatim span of the output that represents it (or "").
2. Each span is re-found in the output as a literal substring: exactly, else exactly after
   collapsing whitespace, else by a sliding-window edit-distance alignment
   (`rapidfuzz.fuzz.partial_ratio_alignment`) of the content only (markup, whitespace and
   rules dropped, so shared HTML boilerplate cannot carry an invented table) that must reach
   `min_alignment`. A span that is not in the output is rejected: no match can be fabricated.
3. The region is widened to the reader's tables it mostly covers (an alignment may clip a
   few edge characters) and read with `harness.readers.read_tables`.
4. Tables still unmatched get one more request, on the output with the found regions cut out.

Returns the same `Located` objects as `harness.locate.tables.locate_tables`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.core.llm import LLMError, complete
from harness.locate.tables import Located, candidates, locate_tables, profile, similarity
from harness.core.messages import one_line
from harness.readers import read_tables
from harness.readers.latex import read_latex
from harness.core.table import Cell, NoTableError, Table

PROMPT_VERSION = "locate-2026.11-1"
MIN_ALIGNMENT = 0.85  # least Indel similarity (0-1) of a misquoted span's content to the output's
COVER = 0.5  # a reader table joins the region when this share of it lies inside
LOOSE_SHARE = 0.25  # plain lines join the read tables when they hold more of the region's text
MIN_CONTENT = 8  # a misquoted span needs this many content chars to be aligned at all
_WS = re.compile(r"\s+")
_KEEP = re.compile(r"<[^<>]*>|-{2,}|[\s|*_`]+|(.)", re.DOTALL)  # group 1: a content char

SYSTEM_PROMPT = """\
You locate tables in the text output of a PDF parser. You receive numbered ground-truth tables
written in LaTeX and the parser's output for the whole page, in which each table may appear as
HTML, Markdown, LaTeX or plain text, possibly damaged (cells merged or split, rows lost, text
garbled).

For every ground-truth table, find the part of the output that is that table and copy it
verbatim into "span": character for character, from its first to its last character,
including markup. Do not repair, reformat, translate, abbreviate or shorten it. Leave out
captions and surrounding prose. If the table is not in the output, give an empty string.
Never write text that is not in the output.

Answer with only a JSON object: {"tables": [{"index": <number>, "span": "<verbatim text>"}, ...]}
with one entry per ground-truth table."""

def spans_schema(key: str) -> dict[str, Any]:
    """The answer's JSON schema: `{key: [{"index": int, "span": str}, ...]}` (tables, formulas)."""
    return {
        "type": "object", "additionalProperties": False, "required": [key],
        "properties": {key: {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["index", "span"],
            "properties": {"index": {"type": "integer"}, "span": {"type": "string"}}}}},
    }


SCHEMA: dict[str, Any] = spans_schema("tables")


@dataclass(frozen=True)
class Found:
    """A span re-found in the output: where, and how closely the model quoted it (1.0 = exactly)."""

    start: int
    end: int
    alignment: float
    how: str  # "exact", "whitespace", "aligned"


def locate_messages(gt_latex: dict[int, str], text: str) -> list[dict[str, str]]:
    """The chat messages for the tables `gt_latex` (index -> LaTeX) in `text`."""
    tables = "\n\n".join(f'<table index="{i}">\n{latex.strip()}\n</table>' for i, latex in gt_latex.items())
    user = f"Ground-truth tables:\n{tables}\n\nParser output:\n<output>\n{text}\n</output>"
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def read_spans(data: Any, wanted: set[int]) -> dict[int, str]:
    """index -> span from a parsed answer (unknown indices dropped); ValueError when malformed."""
    items = data.get("tables") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise ValueError("the answer must be an object with a 'tables' list")  # noqa: TRY004 - re-asks the model
    spans: dict[int, str] = {}
    for item in items:
        if not isinstance(item, dict) or "index" not in item:
            raise ValueError("each entry of 'tables' must be an object with 'index' and 'span'")
        try:
            index = int(item["index"])
        except (TypeError, ValueError):
            raise ValueError(f"'index' must be an integer, got {item['index']!r}") from None
        span = item.get("span")
        if index in wanted and isinstance(span, str) and span.strip() and index not in spans:
            spans[index] = span
    return spans


# -- re-finding a quoted span literally ---------------------------------------------------------
def refind(span: str, output: str, taken: list[tuple[int, int]] = (), *,
           min_alignment: float = MIN_ALIGNMENT) -> Found | None:
    """Where `span` literally is in `output`, preferring text outside `taken`; None when absent.

    Exact occurrences first; then exact after collapsing whitespace runs on both sides (models
    drop alignment spaces); then the best window of the whitespace-collapsed output by edit
    distance, accepted at `min_alignment` (0-1). Positions are in `output`.
    """
    needle = span.strip()
    if not needle:
        return None
    exact = _occurrences(output, needle)
    if exact:
        start = _prefer_free(exact, len(needle), taken)
        return Found(start, start + len(needle), 1.0, "exact")
    flat, where = _collapse(output)
    flat_needle = _WS.sub(" ", needle)
    spaced = _occurrences(flat, flat_needle)
    if spaced:
        start = spaced[0]
        return Found(where[start], where[start + len(flat_needle) - 1] + 1, 1.0, "whitespace")
    content, at = _content(output)
    content_needle, _ = _content(needle)
    if len(content_needle) < MIN_CONTENT:
        return None  # too little text to tell a misquote from a coincidence
    from rapidfuzz import fuzz

    best = fuzz.partial_ratio_alignment(content_needle, content, score_cutoff=100 * min_alignment)
    if best is None or best.dest_end <= best.dest_start:
        return None
    return Found(at[best.dest_start], at[best.dest_end - 1] + 1, best.score / 100, "aligned")


def _occurrences(text: str, needle: str) -> list[int]:
    out, pos = [], text.find(needle)
    while pos >= 0 and len(out) < 64:
        out.append(pos)
        pos = text.find(needle, pos + 1)
    return out


def _prefer_free(starts: list[int], length: int, taken: list[tuple[int, int]] | tuple) -> int:
    for start in starts:
        if not any(start < b and a < start + length for a, b in taken):
            return start
    return starts[0]


def _content(text: str) -> tuple[str, list[int]]:
    """What a table says, without markup: tags, whitespace, pipes, emphasis and rules dropped;
    with each kept char's position in `text`. Alignment runs on this, so shared boilerplate
    (HTML style attributes, separator rows) cannot make an invented table look quoted."""
    chars: list[str] = []
    where: list[int] = []
    for match in _KEEP.finditer(text):
        if match.group(1) is not None:
            chars.append(match.group(1))
            where.append(match.start())
    return "".join(chars), where


def _collapse(text: str) -> tuple[str, list[int]]:
    """`text` with whitespace runs as one space, and each kept char's position in `text`."""
    chars: list[str] = []
    where: list[int] = []
    for match in re.finditer(r"\s+|\S+", text):
        if match.group().isspace():
            chars.append(" ")
            where.append(match.start())
        else:
            chars.append(match.group())
            where.extend(range(match.start(), match.end()))
    return "".join(chars), where


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
def locate_tables_llm(gt_latex: list[str], output: str, model: str, *, gt_tables: list[Table] | None = None,
                      min_alignment: float = MIN_ALIGNMENT, cache_dir: Path | None = None, fallback: bool = True,
                      usage: dict[str, Any] | None = None, **llm_options: Any) -> list[Located]:
    """One `Located` per ground-truth table (LaTeX), in order, located by `model` in `output`.

    `gt_tables` are those LaTeX tables already read (e.g. `GroundTruthTable.table`), to skip
    re-reading them; they only serve the content score. `llm_options` go to
    `harness.core.llm.complete`. When the model cannot be reached or answers garbage twice,
    `fallback` uses the offline locator (each note says so); without it the `LLMError`
    propagates. A `usage` dict, when given, is filled with what locating cost: `cost` (USD,
    0.0 from the cache), `requests` (HTTP requests made) and `cached` (answers from the cache).
    """
    spend = usage if usage is not None else {}
    spend.update(cost=0.0, requests=0, cached=0)
    if not isinstance(output, str):
        raise TypeError(f"locate_tables_llm expects the output as str, got {type(output).__name__}")
    if not 0.0 < min_alignment <= 1.0:
        raise ValueError(f"min_alignment must be in (0, 1], got {min_alignment}")
    if not gt_latex:
        return []
    if gt_tables is None:
        gt_tables = [_read_gt(latex, i) for i, latex in enumerate(gt_latex)]
    elif len(gt_tables) != len(gt_latex):
        raise ValueError(f"gt_tables has {len(gt_tables)} tables for {len(gt_latex)} LaTeX ground truths")
    if not output.strip():
        return [Located(i, None, None, "", 0.0, "the output is empty") for i in range(len(gt_latex))]
    try:
        return _locate(gt_latex, gt_tables, output, model, min_alignment, cache_dir, llm_options, spend)
    except LLMError as exc:
        spend["cost"] += exc.cost
        spend["requests"] += exc.attempts
        if not fallback:
            raise
        reason = one_line(exc, 200)
        out = locate_tables(gt_tables, output)
        for loc in out:
            loc.note = "; ".join(filter(None, [f"LLM locator failed ({reason}): offline locator used", loc.note]))
        return out


def _read_gt(latex: str, index: int) -> Table:
    try:
        return read_latex(latex)[0]
    except (NoTableError, IndexError):
        raise ValueError(f"ground-truth table {index} is not a LaTeX tabular our reader can read") from None


def _locate(gt_latex: list[str], gt_tables: list[Table], output: str, model: str, min_alignment: float,
            cache_dir: Path | None, llm_options: dict[str, Any], spend: dict[str, Any]) -> list[Located]:
    cands, _ = candidates(output)
    found: dict[int, tuple[Table, Found, str]] = {}
    rejected: dict[int, str] = {}
    taken: list[tuple[int, int]] = []
    for round_ in range(2):  # the second round asks again for the unmatched, on what is left
        pending = [i for i in range(len(gt_latex)) if i not in found]
        if not pending:
            break
        text = output if round_ == 0 else _remaining(output, taken)
        if not text.strip():
            break
        wanted = set(pending)
        response = complete(model, locate_messages({i: gt_latex[i] for i in pending}, text),
                            prompt_version=PROMPT_VERSION, schema=SCHEMA,
                            check=lambda data, w=wanted: read_spans(data, w), cache_dir=cache_dir, **llm_options)
        spend["cost"] += response.cost
        spend["requests"] += response.attempts
        spend["cached"] += int(response.cached)
        for index, span in sorted(response.data.items()):
            hit = refind(span, output, taken, min_alignment=min_alignment)
            if hit is None:
                rejected[index] = f"the model's span is not in the output (below {min_alignment:.0%} alignment)"
                continue
            table = read_region(output, hit.start, hit.end, cands)
            taken.append(table.span)
            found[index] = (table, hit, "" if round_ == 0 else "found on the second request")
            rejected.pop(index, None)
    out = []
    for i, gt in enumerate(gt_tables):
        if i not in found:
            out.append(Located(i, None, None, "", 0.0, rejected.get(i, "the model found no span for this table")))
            continue
        table, hit, extra = found[i]
        start, end = table.span
        how = "span quoted exactly" if hit.how == "exact" else (
            "span quoted up to whitespace" if hit.how == "whitespace" else f"span re-found at {hit.alignment:.0%} alignment")
        note = "; ".join(filter(None, [f"LLM locator: {how}", extra]))
        out.append(Located(i, table, (start, end), output[start:end], round(similarity(profile(gt), profile(table)), 6),
                           note))
    return out


def _remaining(output: str, taken: list[tuple[int, int]]) -> str:
    """The output with the located regions cut out (a blank line each), for the second request."""
    parts, pos = [], 0
    for a, b in sorted(taken):
        if a > pos:
            parts.append(output[pos:a])
        pos = max(pos, b)
    parts.append(output[pos:])
    return "\n\n".join(p for p in parts if p.strip())
