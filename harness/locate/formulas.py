"""Find each ground-truth formula in a parser's page output, offline and deterministically.

Candidates, in the output's own order:
- LaTeX math in any delimiters: `$..$`, `$$..$$`, `\\(..\\)`, `\\[..\\]`, and the
  math-mode environments (`tablebench.tex.regions.MATH_MODE_ENVS`, found by `tex.math_spans`);
- MathML `<math>` elements (read through `mathml.mathml_to_latex`);
- a grouped display (several formulas set as rows of one align/aligned/gathered block)
  also offers each row, and two formulas separated only by spaces or punctuation are also
  offered joined (a formula the parser split in two).
A candidate is recognised by what it says: `similarity` compares the formulas' content
tokens (canonical tokens without structure markers or letter styles; order kept, Indel).
Formulas go through the one locate engine (`tablebench.locate.engine`): an optimal one-to-one
assignment picks the pairs; overlapping picks are resolved by score, and the ground truths left
over get another round on the candidates still free. Then a formula still missing is looked
for in the plain text outside every math candidate, read as a reader sees it
(`reader.reader_tokens`: `_ξ_<sup>2</sup>` is `ξ^{2}`, `_n_ ¯` is `\\bar{n}`): an exact run of its
canonical tokens, then of its content tokens only (text that lost the layout), see
`_find_tokens_in_text` for the short-formula rule.
Last, a formula of at least `MIN_TEXT_CHARS` characters still missing is aligned fuzzily: the
best-aligned substring of a line (rapidfuzz partial alignment) against its Unicode rendering
(shorter ones are not: one edit in a few characters is another formula, `(y+1)/8` vs `(m+1)/8`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from rapidfuzz import fuzz
from rapidfuzz.distance import Indel
from rapidfuzz.process import cdist

from tablebench.locate.engine import Located, Span, assign, locate
from tablebench.readers.formula_text import gt_tokens, reader_tokens
from tablebench.readers.mathml import MathMLError, mathml_to_latex
from tablebench.tex.formula import FormulaError, canonical_tokens
from tablebench.tex.formula_classes import CONTENT, DELIMITER, OPERATOR, PUNCTUATION, STRUCTURE, token_class
from tablebench.tex.latex_math import math_to_unicode
from tablebench.tex.math_spans import math_spans
from tablebench.tex.regions import ROW_DISPLAY_ENVS, env_pattern
from tablebench.tex.render import formula_body
from tablebench.tex.scripts import to_subscript, to_superscript
from tablebench.tex.symbols import DOUBLE_STRUCK_LETTERS as _DOUBLE_STRUCK

MIN_SCORE = 0.5  # content similarity a math candidate needs to count as the formula
MIN_TEXT_SCORE = 0.7  # plain text is noisier (any word shares letters): a stricter bar
ROUNDS = 4  # assignment rounds: a pick that overlaps a better one waits for the next
MIN_TOKENS = 3  # fewer canonical tokens than this (`x`, `xy`): matched in text only as a unique word
MIN_TEXT_CHARS = 8  # shorter formulas are matched in plain text only exactly (token runs), not fuzzily
_PARAGRAPH = re.compile(r"(?:[^\n]|\n(?![ \t]*\n))+")
JOIN_GAP = re.compile(r"[\s,;.:]{0,4}")

_ROWS_WRAP = re.compile(r"^\s*(?:\{\s*)?\\begin\{(" + env_pattern(ROW_DISPLAY_ENVS) + r")\}"
                        r"(?:\{\d+\})?(.*)\\end\{\1\}\s*(?:\}\s*)?$", re.S)
_ROW_SCAN = re.compile(r"\\\\|\\begin\{|\\end\{|(?<!\\)\{|(?<!\\)\}")


_TAG = re.compile(r"</?(?:sup|sub|em|strong|i|b|span|code)\b[^>]*>")
_SUP_TAG = re.compile(r"<sup>(.*?)</sup>", re.S)
_SUB_TAG = re.compile(r"<sub>(.*?)</sub>", re.S)
_FROM_SUP = {to_superscript(c): c for c in "0123456789+-=()nijklmxyz" if to_superscript(c)}
_FROM_SUB = {to_subscript(c): c for c in "0123456789+-=()aeijklmnoprstx" if to_subscript(c)}
_SCRIPT_RUN = re.compile("([" + "".join(_FROM_SUP) + "]+)|([" + "".join(_FROM_SUB) + "]+)")
_EMPHASIS = str.maketrans("", "", "*_`")


def plain_to_latex(text: str) -> str:
    """Plain-text math as a parser writes it -> LaTeX our canonical reader takes.

    Markdown emphasis (`_x_`, `**`) goes, `<sup>2</sup>` and `²` become `^{2}`, `<sub>`
    and `₂` become `_{2}`; everything else stays (Unicode symbols are canonical already).
    """
    text = _SUP_TAG.sub(lambda m: "\x00SUP" + m.group(1) + "\x00END", text)
    text = _SUB_TAG.sub(lambda m: "\x00SUB" + m.group(1) + "\x00END", text)
    text = _TAG.sub("", text).translate(_EMPHASIS)
    text = _SCRIPT_RUN.sub(lambda m: ("^{" + "".join(_FROM_SUP[c] for c in m.group(1)) + "}") if m.group(1)
                           else ("_{" + "".join(_FROM_SUB[c] for c in m.group(2)) + "}"), text)
    return text.replace("\x00SUP", "^{").replace("\x00SUB", "_{").replace("\x00END", "}")


@dataclass(frozen=True, slots=True)
class Candidate:
    """A formula in the output: its LaTeX (or Unicode text), where it is, and how it was written."""

    latex: str
    span: tuple[int, int]
    source: str  # "latex" | "mathml" | "text"


@lru_cache(maxsize=8192)
def content_key(latex: str) -> str:
    """The formula's content tokens (no structure markers, no letter style) as one char each."""
    try:
        tokens = canonical_tokens(latex)
    except FormulaError:
        return ""
    keep = (CONTENT, OPERATOR, DELIMITER, PUNCTUATION)
    return "".join(_char(t.split(":", 1)[1] if ":" in t[1:] else t) for t in tokens if token_class(t) in keep)


_CHARS: dict[str, str] = {}
_CONTENT_CLASSES = (CONTENT, OPERATOR, DELIMITER, PUNCTUATION)


def _char(token: str) -> str:
    """One code point per distinct token, so rapidfuzz compares token sequences as strings."""
    if token not in _CHARS:
        _CHARS[token] = token if len(token) == 1 else chr(0xF0000 + len(_CHARS))
    return _CHARS[token]


def similarity(gt: str, candidate: str) -> float:
    """Content similarity of two formulas in [0, 1] (Indel on content tokens)."""
    return float(Indel.normalized_similarity(content_key(gt), content_key(candidate)))


def math_candidates(output: str) -> list[Candidate]:
    """Every math span of the output, its rows when it groups several, and adjacent pairs joined."""
    found: list[Candidate] = []
    for m in math_spans(output):  # one linear pass: an unclosed opener repeated is not quadratic
        source = output[m.start:m.end]
        if m.kind == "mml":
            try:
                found.append(Candidate(mathml_to_latex(source), (m.start, m.end), "mathml"))
            except MathMLError:
                continue
        else:
            found.append(Candidate(source, (m.start, m.end), "latex"))
    out = list(found)
    for cand in found:
        if cand.source == "latex":
            out.extend(_rows(cand, output))
    for a, b in zip(found, found[1:]):
        if JOIN_GAP.fullmatch(output[a.span[1]:b.span[0]]):
            out.append(Candidate(f"{a.latex} {b.latex}", (a.span[0], b.span[1]), a.source))
    return out


def _rows(cand: Candidate, output: str) -> list[Candidate]:
    """The rows of a grouped display, each with its own span in the output."""
    body = formula_body(cand.latex)
    m = _ROWS_WRAP.match(body)
    if m:
        body = m.group(2)
    base = output.find(body, cand.span[0], cand.span[1])
    if base < 0:
        return []
    depth, start, rows = 0, 0, []
    for t in _ROW_SCAN.finditer(body):
        s = t.group(0)
        if s in ("{", "\\begin{"):
            depth += 1
        elif s in ("}", "\\end{"):
            depth -= 1
        elif depth == 0:
            rows.append((start, t.start()))
            start = t.end()
    if not rows:
        return []
    rows.append((start, len(body)))
    return [Candidate(body[a:b].replace("&", " "), (base + a, base + b), "latex")
            for a, b in rows if body[a:b].strip()]


class FormulaStrategy:
    """Formulas for the locate engine: content tokens (Indel), rounds of assignment over
    overlapping candidates, no split repair (joined neighbours are candidates of their own),
    then the plain-text passes."""

    noun = "formula"
    rounds = ROUNDS
    exclusive = True  # a display, its rows and a joined pair share text
    joins = None
    key = staticmethod(content_key)

    @staticmethod
    def candidates(output: str) -> tuple[list[Candidate], str]:
        return math_candidates(output), ""

    @staticmethod
    def candidate_key(candidate: Candidate) -> str:
        return content_key(candidate.latex)

    @staticmethod
    def scores(gt_keys: list[str], cand_keys: list[str]) -> np.ndarray:
        if not gt_keys or not cand_keys:
            return np.zeros((len(gt_keys), len(cand_keys)))
        return cdist(gt_keys, cand_keys, scorer=Indel.normalized_similarity, dtype=np.float64)

    @staticmethod
    def span(candidate: Candidate) -> Span:
        return candidate.span

    @staticmethod
    def found(g: int, pieces: list[Candidate], score: float, note: str, output: str, key: object = None) -> Located:
        (cand,) = pieces
        return _located(g, cand.latex, cand.span, cand.source, score)

    @staticmethod
    def missing(g: int, scores: np.ndarray, key: str, why_none: str, min_score: float) -> Located:
        return Located(g, None, None, None, float(scores.max()) if scores.size else 0.0)

    @staticmethod
    def search_text(output: str, cands: list[Candidate], gts: Sequence[str], keys: list[str],
                    located: list[Located], min_score: float) -> None:
        """Exact token runs (structured, then content only), then fuzzy Unicode alignment."""
        gt = list(gts)
        masked = _masked(output, cands)
        _find_tokens_in_text(gt, masked, located, flat=False)
        _find_tokens_in_text(gt, masked, located, flat=True)
        _find_in_text(gt, _masked(masked, [Candidate("", r.span, "") for r in located if r.span]), located)


FORMULAS = FormulaStrategy()


def locate_formulas(gt: list[str], output: str, min_score: float = MIN_SCORE) -> list[Located]:
    """One `Located` per ground-truth formula, in order (see the module doc for how).

    A found formula's `text` (and `prediction`) is the LaTeX to score: MathML converted, plain
    text via `plain_to_latex`; a missing one's is None.
    """
    return locate(FORMULAS, gt, output, min_score)


def _located(g: int, latex: str, span: Span, source: str, score: float) -> Located:
    return Located(g, latex, span, latex, float(score), "", source)


def _assign(scores: np.ndarray, cands: list[Candidate], result: list[Located], min_score: float) -> None:
    """Rounds of optimal assignment of the formulas still missing; overlapping picks wait a round."""
    done = [g for g, r in enumerate(result) if r.found]
    for g, c, score in assign(scores, min_score, spans=[c.span for c in cands], rounds=ROUNDS, done=done):
        result[g] = _located(g, cands[c].latex, cands[c].span, cands[c].source, score)


def unicode_form(latex: str) -> str:
    """The formula as a text-only parser writes it, without spaces: `x^{2}\\le y` -> "x²≤y"."""
    return "".join(math_to_unicode(formula_body(latex)).split())


def _fold(ch: str) -> str:
    """One character's compatibility form when that is one character (`²` -> `2`, `µ` -> `μ`)."""
    folded = unicodedata.normalize("NFKC", ch)
    return folded if len(folded) == 1 else ch


def _masked(output: str, cands: list[Candidate]) -> str:
    """The output with every math candidate blanked (offsets kept): what is left is plain text."""
    masked = list(output)
    for cand in cands:
        masked[cand.span[0]:cand.span[1]] = " " * (cand.span[1] - cand.span[0])
    return "".join(masked)


def _find_tokens_in_text(gt: list[str], output: str, result: list[Located], flat: bool) -> None:
    """Missing formulas whose canonical tokens are exactly a span of the plain text as a reader sees it.

    `reader.reader_tokens` reads emphasis, `<sup>`/`<sub>`, accents and math letters; a formula
    matches where its tokens (letter styles dropped) occur as a run of a paragraph's tokens, not
    inside a word and not as the base of a script it lacks (`_bounded`). A formula of fewer than `MIN_TOKENS` tokens
    (`x`, `xy`, `α`) is ambiguous in prose: it counts only as a whole word (Latin letters only when
    emphasised, `_x_`, as math is set), and only when the page text has no more such words than
    the page has ground-truth formulas reading the same.
    The optimal assignment then pairs formulas with non-overlapping occurrences.
    `flat`: compare content tokens only, at least `MIN_TOKENS` of them (scripts, fractions and
    accents dropped on both sides), for text that lost the layout (`λ max` for `\\lambda_{\\max}`); run after the structured pass.
    """
    missing = [g for g, r in enumerate(result) if not r.found]
    if not missing:
        return
    toks: list[tuple[str, int, int]] = []
    for m in _PARAGRAPH.finditer(output):  # a single line break is a space in Markdown
        toks += [(t, a + m.start(), b + m.start()) for t, a, b in reader_tokens(m.group(0))
                 if not flat or token_class(t) in _CONTENT_CLASSES]
        toks.append(("\n", m.end(), m.end()))
    stream = "".join(_char(t) for t, _, _ in toks)
    keys = {g: "".join(_char(t) for t in gt_tokens(gt[g]) if not flat or token_class(t) in _CONTENT_CLASSES)
            for g in range(len(gt))}
    cands: list[Candidate] = []
    cand_keys: list[str] = []
    for g in missing:
        key = keys[g]
        if not key or key in cand_keys or (flat and len(key) < MIN_TOKENS):
            continue  # flat, a short formula has lost what told it from a letter or two of prose
        hits = [i for i in _occurrences(stream, key) if _bounded(toks, output, i, i + len(key), len(key) < MIN_TOKENS)]
        same = sum(k == key for k in keys.values())
        if len(key) < MIN_TOKENS and len(hits) > same:
            continue  # a short formula that reads like more words on the page than it has formulas
        for i in hits:
            part = toks[i:i + len(key)]
            span = (min(a for _, a, _ in part), max(b for _, _, b in part))
            cands.append(Candidate(" ".join(_reading(t, output[a:b]) for t, a, b in part), span, "text"))
            cand_keys.append(key)
    if cands:
        scores = np.array([[1.0 if keys[g] == k else 0.0 for k in cand_keys] for g in range(len(gt))])
        _assign(scores, cands, result, 1.0)


def _reading(token: str, source: str) -> str:
    """What to score for one token: the source letter when it carries a style (`ℚ`), else the token."""
    return source if source in _DOUBLE_STRUCK else token


def _occurrences(stream: str, key: str) -> list[int]:
    """Start of every (possibly overlapping) occurrence of `key` in `stream`."""
    found, i = [], stream.find(key)
    while i >= 0:
        found.append(i)
        i = stream.find(key, i + 1)
    return found


def _bounded(toks: list[tuple[str, int, int]], output: str, i: int, j: int, whole_word: bool) -> bool:
    """Tokens i..j are a formula of their own: not the base of a script, and, when they read like a
    word or number (`log u`, `x2`), not glued to letters or digits (some parsers drop all spaces)."""
    if j < len(toks) and toks[j][0] in ("^{", "_{"):
        return False
    before = output[max(0, toks[i][1] - 8):toks[i][1]].rstrip("_*")[-1:]
    after = output[toks[j - 1][2]:toks[j - 1][2] + 8].lstrip("_*")[:1]
    if whole_word:
        if all(t.isascii() and t.isalpha() for t, _, _ in toks[i:j]) and not (
                output[toks[i][1] - 1:toks[i][1]] in ("_", "*") or output[toks[j - 1][2]:toks[j - 1][2] + 1] in ("_", "*")):
            return False  # a bare `a`, `x` is prose ("a log file"); math letters come emphasised
        return not (before.strip() and before not in "([,;:") and not (after.strip() and after not in ").,;:")
    if not all(t.isascii() and t.isalnum() for t, _, _ in toks[i:j] if token_class(t) != STRUCTURE):
        return True  # operators, brackets or non-Latin letters: distinctive even in glued text
    return not _glued(before, toks[i][0]) and not _glued(after, toks[j - 1][0])


def _glued(a: str, b: str) -> bool:
    """Two touching characters read as one word or number: letter+letter or digit+digit."""
    return (a.isalpha() and b.isalpha()) or (a.isdigit() and b.isdigit())


def _find_in_text(gt: list[str], text: str, result: list[Located]) -> None:
    """Missing formulas as Unicode plain text, outside every math candidate (longest first)."""
    missing = [g for g, r in enumerate(result) if not r.found]
    if not missing:
        return
    output = text
    text = _TAG.sub(lambda m: " " * len(m.group(0)), text)  # tags out, offsets kept
    lines = [(m.start(), m.group(0)) for m in re.finditer(r"[^\n]+", text)]
    for g in sorted(missing, key=lambda g: -len(unicode_form(gt[g]))):
        target = "".join(map(_fold, unicode_form(gt[g])))
        if len(target) < MIN_TEXT_CHARS:
            continue
        best: tuple[float, int, int] | None = None
        for offset, line in lines:
            keep = [i for i, ch in enumerate(line) if not ch.isspace() and ch not in "*_`"]
            squeezed = "".join(_fold(line[i]) for i in keep)
            if not squeezed:
                continue
            al = fuzz.partial_ratio_alignment(target, squeezed)
            if al is None or al.dest_end <= al.dest_start:
                continue
            score = Indel.normalized_similarity(target, squeezed[al.dest_start:al.dest_end])
            if best is None or score > best[0]:
                best = (score, offset + keep[al.dest_start], offset + keep[al.dest_end - 1] + 1)
        if best is None:
            continue
        score, start, end = best
        result[g].score = max(result[g].score, float(score))
        if score >= MIN_TEXT_SCORE:
            result[g] = _located(g, plain_to_latex(output[start:end]), (start, end), "text", score)
            lines = [(o, line if not (o < end and start < o + len(line)) else
                      line[:max(0, start - o)] + " " * (min(end, o + len(line)) - max(start, o)) + line[end - o:])
                     for o, line in lines]
