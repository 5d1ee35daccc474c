"""The prose of a parser's output as a reader sees it: words in output order, with their offsets.

Why a reader of its own: the text kind scores what a person reading the output would read as
running text. Tables, formulas and images are other items' business, and a reader never reads
markup (`**`, `#`, `<p>`, `\\section{`) as words. So the output is read without the ground truth
(as every reader here): what the output itself marks as a table (HTML `<table>`, Markdown pipe
rows, LaTeX tabulars), as math (`$...$`, `$$...$$`, `\\[...\\]`, `\\(...\\)`, `<math>`, equation
environments) or as an image is left out, markup characters are blanked, and what remains is
cut into words. A table written as plain lines (no markup) stays prose: a reader cannot tell it
from text either.

Words keep their [start, end) in the output, so a locator can point at what it matched; each
word's `norm` is the word as a reader forgives it (`readers.textnorm.forgiven`, the one reading
every forgiving scorer shares: compatibility forms such as the ligatures ﬁ/ﬂ, invisible
characters, typographic quotes and dashes, entities, glyph shapes), and a word broken by a hyphen
at a line end is read joined. Nothing else is forgiven: a changed letter or case stays changed.
`key` (case folded but for Greek, edge punctuation off) is only for finding where a word is,
never for scoring.

Every pattern here runs in time linear in the output, by construction, because the output is
anybody's: repetitions are bounded, closers are searched once from each opener, and a pattern
that reads a run of one character (`_` of emphasis, a word's edge punctuation) takes the run
whole, from its first character only (a lookbehind, and a possessive quantifier that never gives
back): tried from every character of a long run and backtracking over the rest of it, such a
pattern was quadratic (`a` + 40,000 `_` + `a` took 29 s). A 100,000-character run of any
character the patterns read takes under 0.1 s (tests/benchmarks/test_bench_prose.py).
"""

from __future__ import annotations

import re
from string import punctuation
from typing import NamedTuple

from tablebench.readers.textnorm import fold_case, forgiven
from tablebench.tex.math_spans import math_spans
from tablebench.tex.regions import FLOAT_ENVS, TABULAR_ENVS, env_pattern

# scripts written without spaces between words: each character is a word of its own (full-width
# punctuation too; not full-width digits and Latin letters, which a reader forgives as ASCII's)
_CJK = ("\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
        "\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff60")
WORD = re.compile(f"[{_CJK}]|[^\\s{_CJK}]+")
# punctuation at a word's edges: the leading run from the start; the trailing run only from its
# first character (not after another non-word character) and taken whole (possessive): tried from
# every character of a long run, `[^\w]+$` rescanned the rest of the run each time (quadratic)
_EDGE = re.compile(r"\A\W++|(?<!\W)\W++\Z")
_NOT_NEWLINE = re.compile(r"[^\n]")

# regions that are not prose at all (closers searched from each opener: linear); math is
# `tex.math_spans`'s, the one finder of math in an output
_REGIONS = (
    (re.compile(r"<table\b", re.IGNORECASE), re.compile(r"</table\s*>", re.IGNORECASE)),
    (re.compile(r"<!--"), re.compile(r"-->")),
    (re.compile(r"```"), re.compile(r"```")),
)
# a table or a float, each to its own \end (`tex.regions`: every table environment the table reader reads)
_ENVIRONMENT = re.compile(r"\\begin\s*\{\s*(" + env_pattern(TABULAR_ENVS | FLOAT_ENVS) + r")\s*\}")
_SINGLE = (
    re.compile(r"(?<![\\$])\$[^$\n]{1,300}\$"),  # inline math on one line (prose writes prices: no further)
    re.compile(r"^[ \t]*\|[^\n]*$", re.MULTILINE),  # a Markdown table row
    re.compile(r"!\[[^\]\n]{0,300}\]\([^)\n]{0,500}\)"),  # a Markdown image
    re.compile(r"<img\b[^<>]{0,500}>", re.IGNORECASE),
)
# markup around prose: blanked, the text it wraps kept
_MARKUP = re.compile(
    r"</?[A-Za-z][^<>\n]{0,200}>"  # an HTML tag
    r"|^[ \t]{0,3}#{1,6}(?=[ \t])"  # a Markdown heading's hashes
    r"|^[ \t]{0,3}>+"  # a block quote
    r"|^[ \t]*(?:[-*+]|\d{1,3}[.)])(?=[ \t])"  # a list bullet
    r"|^[ \t]*(?:-{3,}|\*{3,}|_{3,}|={3,})[ \t]*$"  # a rule or a setext underline
    r"|\*+|`+|(?<!\w)_+|(?<!_)_++(?!\w)"  # emphasis and code marks (a run of _ taken whole: linear)
    r"|\]\([^)\n]{0,500}\)|\[(?=[^\]\n]{0,300}\]\()"  # a link's brackets and target
    r"|\\[A-Za-z]+\*?|\\(?=[^\w\s])|[{}]",  # a LaTeX command's name, an escape, braces
    re.MULTILINE)


class Word(NamedTuple):
    """One word of prose: where it is in the output, what a reader reads, how it is looked up
    (a tuple: a page of a 2 MB output has hundreds of thousands)."""

    start: int
    end: int
    norm: str  # the word as scored (`forgiven`)
    key: str  # case folded, edge punctuation off: for finding it, never for scoring


def key_of(norm: str) -> str:
    """The lookup form of a normalised word: case folded, punctuation at its edges removed."""
    if norm.isascii():
        return (norm.strip(punctuation) or norm).lower()
    stripped = _EDGE.sub("", norm)
    return fold_case(stripped or norm)


def words_of(text: str) -> list[Word]:
    """Plain text (a ground-truth block) as words, nothing masked; hyphenated line breaks joined."""
    return _words(text, text)


def prose_words(output: str) -> list[Word]:
    """The prose of a parser's output as words in output order (tables, math and images left
    out, markup blanked); offsets index `output`."""
    return _words(output, _masked(output))


def _words(original: str, masked: str) -> list[Word]:
    out: list[Word] = []
    pending: tuple[int, int, str] | None = None  # a word ending in "-" at a line end, waiting for its rest
    for m in WORD.finditer(masked):
        start, end = m.span()
        word = m.group()
        if pending is None and word.isascii() and "&" not in word and word[-1] != "-":  # most words: as written
            out.append(Word(start, end, word, (word.strip(punctuation) or word).lower()))
            continue
        norm = forgiven(word)
        if not norm.strip():
            continue
        if pending is not None:
            p_start, p_end, p_norm = pending
            pending = None
            if "\n" in masked[p_end:start] and norm[:1].islower():
                _add(out, p_start, end, p_norm[:-1] + norm)
                continue
            _add(out, p_start, p_end, p_norm)
        if len(norm) > 1 and norm.endswith("-") and norm[-2].isalpha():
            pending = (start, end, norm)
            continue
        _add(out, start, end, norm)
    if pending is not None:
        _add(out, *pending)
    return out


def _add(out: list[Word], start: int, end: int, norm: str) -> None:
    # forgiving may turn one character into words ("x²" -> "x 2" stays one; U+3000 -> space): keep one word
    if not norm.isascii():
        norm = " ".join(norm.split()) or norm
    out.append(Word(start, end, norm, key_of(norm)))


def _masked(output: str) -> str:
    """`output` with every non-prose region and markup character replaced by spaces (same length)."""
    cut: list[tuple[int, int]] = []
    for opener, closer in _REGIONS:
        _pair_regions(output, opener, closer, cut)
    cut.extend((span.start, span.end) for span in math_spans(output, dollar=False))
    _environments(output, cut)
    for pattern in _SINGLE:
        cut.extend(m.span() for m in pattern.finditer(output))
    cut.extend(m.span() for m in _MARKUP.finditer(output))
    if not cut:
        return output
    cut.sort()
    pieces, reach = [], 0
    for start, end in cut:  # sorted by start: each character is copied or blanked once
        if end <= reach:
            continue
        start = max(start, reach)
        pieces.append(output[reach:start])
        pieces.append(_NOT_NEWLINE.sub(" ", output[start:end]))
        reach = end
    pieces.append(output[reach:])
    return "".join(pieces)


def _pair_regions(text: str, opener: re.Pattern, closer: re.Pattern, cut: list[tuple[int, int]]) -> None:
    """Opener ... closer regions, each closer searched once from its opener; none found: stop."""
    at = 0
    while (m := opener.search(text, at)) is not None:
        end = closer.search(text, m.end())
        if end is None:
            return
        cut.append((m.start(), end.end()))
        at = end.end()


def _environments(text: str, cut: list[tuple[int, int]]) -> None:
    """LaTeX table / float environments, each to its own \\end{name} (a name without a
    closer after one opener has none after a later one either: each name is searched once in vain)."""
    at, unclosed = 0, set()
    while (m := _ENVIRONMENT.search(text, at)) is not None:
        name, at = m.group(1), m.end()
        if name in unclosed:
            continue
        closer = f"\\end{{{name}}}"
        end = text.find(closer, m.end())
        if end < 0:
            unclosed.add(name)
            continue
        cut.append((m.start(), end + len(closer)))
        at = end + len(closer)
