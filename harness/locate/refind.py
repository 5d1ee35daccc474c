"""Re-finding a model's quoted span in the output as a literal substring: no match can be invented.

A model may misquote (drop alignment spaces, slip a digit) or invent. Its quote is only a
pointer: `refind` looks for it exactly, else exactly after collapsing whitespace, else by a
sliding-window edit-distance alignment (`rapidfuzz.fuzz.partial_ratio_alignment`) of the
content only (markup, whitespace and rules dropped, so shared HTML boilerplate cannot carry an
invented table) that must reach `min_alignment`. A span that is not in the output is rejected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MIN_ALIGNMENT = 0.85  # least Indel similarity (0-1) of a misquoted span's content to the output's
MIN_CONTENT = 8  # a misquoted span needs this many content chars to be aligned at all
_WS = re.compile(r"\s+")
# group 1: a content char. Its tag alternative is the re-finder's own (any length, no "<" inside),
# not `readers.textnorm.ANY_TAG` or `ELEMENT_TAG`: which characters count as content decides spans.
_KEEP = re.compile(r"<[^<>]*>|-{2,}|[\s|*_`]+|(.)", re.DOTALL)


@dataclass(frozen=True)
class Found:
    """A span re-found in the output: where, and how closely the model quoted it (1.0 = exactly)."""

    start: int
    end: int
    alignment: float
    how: str  # "exact", "whitespace", "aligned"


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
