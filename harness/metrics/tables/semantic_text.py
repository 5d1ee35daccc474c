"""Cell text as a reader sees it, and how alike two cells are in meaning.

Parsers write the same visible cell in many ways (`$\\alpha$`, `α`, `&alpha;`; `**91.2**`,
`<b>91.2</b>`, `\\textbf{91.2}`; `—`, `N/A`). `normalize` maps all of them to one form so
that representation costs nothing. `cell_similarity` then compares meaning: numbers are
parsed and must agree exactly in value (1.12 vs 112 or a dropped minus sign scores 0,
91.2 vs 91.20 scores 1), other text is compared by edit-distance ratio.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from rapidfuzz import fuzz, process

from tablebench.metrics.tables.semantic_glyphs import fold_mark, same_mark
from tablebench.readers.cell_markup import sub_script
from tablebench.readers.textnorm import (ANY_TAG, GLUED_SYMBOL_ITALIC, STYLE_TAGS, Processor, fold_case, forgiven,
                                         scripts_apart, tag_pattern)
from tablebench.tex.latex_math import latex_to_text
from tablebench.tex.scripts import to_superscript

NULL = "∅"  # the one form of every "no value here" marker

# Markers a table uses for "no value"; compared after normalisation, case folded, without spaces.
# "None" is not one: it is also a label ("None" as the fine-tuning data, the regulariser, ...).
_NULLS = {"", "-", "--", "---", "—", "–", "−", "n/a", "na", "n.a.", "n.a", "null", "nan", "/", "\\", "∅"}

_TIGHT = re.compile(r"\s+(?=[)\]}%,;:!?↑↓→←°†‡*∗′″])|(?<=[(\[{])\s+")  # "RA ↑", "( 12 )": spacing only
# 1.2 × 10⁻³, 1.2x10^{-3}, 1.2·10^-3, 1.2 × 10−3 (a text layer that set the exponent on the line: a
# minus right after "× 10" is no subtraction): one number, written as 1.2e-3 (as parsers also write it)
_SCIENTIFIC = re.compile(r"(\d)\s*[×x·⋅∙*]\s*10\s*(?:\^\{?([-+]?\d+)\}?|([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)|[−-](\d+)(?![\d.]))")
_FROM_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_STYLE_TAG = tag_pattern(STYLE_TAGS)  # **<u>x</u>** is plain emphasis once its styling goes
_MD_EMPH = re.compile(r"(\*\*|__|\*|`)(?=\S)(.+?)(?<=\S)\1")
# _italic_ as parsers write it, also glued to what follows (`_W_mix`), never inside a word (`MAE_AST`)
_MD_UNDERSCORE = re.compile(r"(?<![\w\\])_(?=[^\s_])([^_]+?)(?<=\S)_")
# A number: optional minus, digits and/or a fraction, an optional exponent; thousands may be
# grouped by commas or by (thin) spaces (1,000 = 1 000 = 1000). The lookahead makes a digit
# obligatory: the pattern never matches the empty string.
_NUMBER = re.compile(r"(?<![\w.])(-?)(?=\.?\d)(\d{1,3}(?:,\d{3})+(?!\d)|\d{1,3}(?: \d{3})+(?!\d)|\d+)?(\.\d+)?"
                     r"(?:e([-+]?\d+))?(?![\w])")
# one letter, perhaps indexed (a folded sub/superscript follows after a space) or primed: N, k₁, T′
_SYMBOL = re.compile(r"[^\W\d_](?: \w{1,3})?['′*]*$")

# μ_B written as text: a one-letter symbol's subscript, read as β₂ reads ("β 2"); MAE_AST stays a name
_SUBSCRIPT_MARK = re.compile(r"(?<=(?<!\w)[^\W\d_])_(?=\w{1,3}\b)")
# "x" for "×" where it can only mean "times": after a number with nothing glued on (a speed-up,
# 2.5x), or between a number (or a closing bracket, a Greek letter: 2πx5) and a number (3x3)
_TIMES = re.compile(r"(?<=\d)\s*x(?![\w])|(?<=[\d)\]\u0370-\u03ff])\s*x\s*(?=\d)")
# ± as plain text writes it: 91.2 +/- 0.3, 91.2 +- 0.3
_PLUS_MINUS = re.compile(r"\+\s*/\s*[-−]|\+[-−](?=\s*\.?\d)")

_MD_ESCAPE = re.compile(r"\\([@|*<>+=!?])")  # Markdown escapes that mean nothing in LaTeX


@lru_cache(maxsize=65536)
def normalize(text: str, processor: Processor = forgiven) -> str:
    """What a reader sees, in one canonical spelling: entities, markup and math resolved, runs of
    super- and subscripts set apart (`scripts_apart`: a footnote mark never joins a number), then
    what a reader forgives forgiven (`processor`: `readers.textnorm.forgiven`, glyphs that print
    alike, fractions), case folded (not that of Greek letters
    or of a one-letter cell: there case names different things), white space collapsed; null
    markers become `NULL`."""
    t = html.unescape(html.unescape(text)) if "&" in text else text
    if "<" in t:
        # <sup>1</sup> reads as ¹, then as a superscript set apart (" 1", `scripts_apart`); 10 <sup>−3</sup> as 10⁻³
        t = ANY_TAG.sub(" ", sub_script(_STYLE_TAG.sub("", t), _script))
    if "\\" in t or "$" in t or "^" in t:
        t = _latex_to_text(t)
    if "*" in t or "_" in t or "`" in t:
        t = _MD_EMPH.sub(r"\2", t)
        if "_" in t:
            t = _SUBSCRIPT_MARK.sub(" ", _MD_UNDERSCORE.sub(r"\1", GLUED_SYMBOL_ITALIC.sub(r"\1", t)))
    t = unicodedata.normalize("NFC", t)
    if "10" in t:
        t = _SCIENTIFIC.sub(_e_notation, t)
    if "+" in t:
        t = _PLUS_MINUS.sub("±", t)
    if "x" in t:
        t = _TIMES.sub("×", t)
    t = fold_mark(" ".join(processor(scripts_apart(t)).split()))
    if not _SYMBOL.match(t):  # a cell that is one letter (N vs n, K₁ vs k₁) is a symbol: its case is its name
        t = fold_case(t)
    t = _TIGHT.sub("", t)
    if t.replace(" ", "").casefold() in _NULLS:
        return NULL
    return t


def _script(name: str, inner: str) -> str:
    """A `<sup>` element as the Unicode superscript a reader sees; a `<sub>`, or a superscript with
    no Unicode form, as its text set apart."""
    if name.lower() == "sup" and (converted := to_superscript(html.unescape(ANY_TAG.sub("", inner)))) is not None:
        return converted
    return f" {inner} "


def _e_notation(m: re.Match[str]) -> str:
    if m.group(4) is not None:
        return f"{m.group(1)}e-{m.group(4)}"
    exponent = m.group(2) if m.group(2) is not None else m.group(3).translate(_FROM_SUPERSCRIPT)
    return f"{m.group(1)}e{exponent}"


def _latex_to_text(t: str) -> str:
    """Residual LaTeX (and Markdown escapes) in a cell -> its text, by the LaTeX reader's converter;
    markup it cannot read is left as written (garbage must not sink the score)."""
    t = _MD_ESCAPE.sub(r"\1", t)
    try:
        return latex_to_text(t)
    except Exception:  # noqa: BLE001 - any failure: the cell as written
        return t


@lru_cache(maxsize=65536)
def numbers(norm: str) -> tuple[str, ...]:
    """The numbers in a normalised cell, each canonical: `91.20` -> `91.2`, `1,234` -> `1234`, `.5` -> `0.5`."""
    out = []
    for m in _NUMBER.finditer(norm):
        sign, whole, frac, exp = m.groups()
        if whole is None and frac is None:
            continue
        whole = (whole or "0").replace(",", "").replace(" ", "").lstrip("0") or "0"
        frac = (frac or "").rstrip("0").rstrip(".")
        out.append(f"{sign}{whole}{frac}" + (f"e{int(exp)}" if exp else ""))
    return tuple(out)


@lru_cache(maxsize=65536)
def residue(norm: str) -> str:
    """The cell without its numbers and white space: the text the numbers sit in."""
    return "".join(_NUMBER.sub("#", norm).split())


def cell_similarity(a: str, b: str) -> float:
    """Meaning-level similarity of two normalised cells in [0, 1].

    Equal text is 1. When either side holds numbers, the share of numbers that agree exactly
    decides (a changed number is a wrong fact, not a typo; in the same text, slot by slot),
    scaled by how alike the surrounding text is; otherwise it is the edit-distance ratio of
    the texts.
    """
    if a == b or a.replace(" ", "") == b.replace(" ", "") or same_mark(a, b) or _symbol_as_text(a, b):
        return 1.0
    na, nb = numbers(a), numbers(b)
    if na or nb:
        if not (na and nb):  # a number against words: a different fact, text alike at best
            return 0.5 * fuzz.ratio(a, b) / 100.0
        ra, rb = residue(a), residue(b)
        # in the same text, numbers in other slots are another fact ("x = 50%, y = 75%" is not "x = 75%, y = 50%")
        same_slots = ra == rb and len(na) == len(nb)
        common = sum(x == y for x, y in zip(na, nb)) if same_slots else _multiset_overlap(na, nb)
        if common == 0:
            return 0.0
        text = 1.0 if ra == rb else fuzz.ratio(ra, rb) / 100.0
        return common / max(len(na), len(nb)) * (0.5 + 0.5 * text)
    return fuzz.ratio(a, b) / 100.0


def _symbol_as_text(a: str, b: str) -> bool:
    """A symbol (its case kept: X₀ is "X 0") against a text whose case was folded (X0 is "x0", a
    subscript a text layer wrote on): the same when they agree but for case and spaces."""
    sa, sb = bool(_SYMBOL.match(a)), bool(_SYMBOL.match(b))
    return sa != sb and fold_case(a.replace(" ", "")) == fold_case(b.replace(" ", ""))


def _multiset_overlap(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    rest = list(b)
    n = 0
    for x in a:
        if x in rest:
            rest.remove(x)
            n += 1
    return n


def similarity_matrix(left: list[str], right: list[str]) -> np.ndarray:
    """`cell_similarity` for every pair of two lists of normalised cells, computed once per
    distinct pair: rapidfuzz's vectorised ratio for plain text, exact number comparison where
    numbers occur."""
    if not left or not right:
        return np.zeros((len(left), len(right)))
    ul_l, il = _distinct(left)
    ur_l, ir = _distinct(right)
    return distinct_similarity(ul_l, ur_l)[il[:, None], ir]


def distinct_similarity(ul_l: list[str], ur_l: list[str]) -> np.ndarray:
    """`similarity_matrix` of two lists of distinct normalised cells (both non-empty); each entry
    depends only on its two texts, so any grouping of the texts into calls gives the same bits."""
    sim = process.cdist(ul_l, ur_l, scorer=fuzz.ratio, dtype=np.float32, workers=1).astype(float) / 100.0
    left, right = _side(tuple(ul_l)), _side(tuple(ur_l))
    if left.has_number.any() or right.has_number.any():
        # Numbers against words keep half their text likeness; numbers against numbers score
        # 0 unless they share a number, so only pairs sharing one (found by an index) are compared.
        sim[left.has_number[:, None] | right.has_number[None, :]] *= 0.5
        sim[left.has_number[:, None] & right.has_number[None, :]] = 0.0
        for i, nums in enumerate(left.numbers):
            hits = [right.by_number[x] for x in set(nums) if x in right.by_number]
            for j in (set().union(*hits) if len(hits) > 1 else hits[0] if hits else ()):
                if right.bare[j] != left.bare[i]:  # texts equal but for spaces are 1 (below)
                    sim[i, j] = cell_similarity(ul_l[i], ur_l[j])
    for i, bare in enumerate(left.bare):
        for j in right.by_bare.get(bare, ()):
            sim[i, j] = 1.0
    for mine, other, flip in ((left, right, False), (right, left, True)):  # `_symbol_as_text`
        for k, folded in mine.symbols.items():
            for m in other.by_bare.get(folded, ()):
                if m not in other.symbols:
                    sim[(m, k) if flip else (k, m)] = 1.0
    for i in left.marks:  # one-character cells that show the same mark but differ (`same_mark`: 0 and ○)
        for j in right.marks:
            if ul_l[i] != ur_l[j] and same_mark(ul_l[i], ur_l[j]):
                sim[i, j] = 1.0
    return sim


@dataclass(frozen=True, slots=True)
class _Side:
    """What `distinct_similarity` looks up in one side's texts, read once per list of texts."""

    numbers: list[tuple[str, ...]]
    has_number: np.ndarray
    by_number: dict[str, list[int]]  # a number -> the texts holding it
    bare: list[str]  # each text without spaces
    by_bare: dict[str, list[int]]
    marks: list[int]  # the one-character texts
    symbols: dict[int, str]  # the texts that are symbols (case kept) -> their case-folded bare form


@lru_cache(maxsize=16)
def _side(texts: tuple[str, ...]) -> _Side:
    """One side's lookups: a score compares the same list of cells against many (a wrong value
    against every predicted cell), so they are built once per list."""
    nums = [numbers(x) for x in texts]
    by_number: dict[str, list[int]] = {}
    for i, found in enumerate(nums):
        for x in set(found):
            by_number.setdefault(x, []).append(i)
    bare = [t.replace(" ", "") for t in texts]
    by_bare: dict[str, list[int]] = {}
    for i, b in enumerate(bare):
        by_bare.setdefault(b, []).append(i)
    return _Side(nums, np.fromiter(map(bool, nums), bool, len(nums)), by_number, bare, by_bare,
                 [i for i, t in enumerate(texts) if len(t) == 1],
                 {i: fold_case(b) for i, (t, b) in enumerate(zip(texts, bare)) if _SYMBOL.match(t)})


def _distinct(values: list[str]) -> tuple[list[str], np.ndarray]:
    """The distinct values and, per input, the index of its value among them."""
    return _distinct_of(tuple(values))


@lru_cache(maxsize=16)
def _distinct_of(values: tuple[str, ...]) -> tuple[list[str], np.ndarray]:
    """`_distinct`, once per list: a wrong value is compared with every predicted cell, a list asked for again."""
    index: dict[str, int] = {}
    inverse = [index.setdefault(v, len(index)) for v in values]
    return list(index), np.asarray(inverse, dtype=np.intp)


def key_similarity_matrix(left: list[str], right: list[str], sim: np.ndarray | None = None) -> np.ndarray:
    """How surely two header keys name the same row or column, in [0, 1], for aligning and
    attributing: like `similarity_matrix`, except that a key whose words all occur in the other
    (a header path that lost or gained a level, "Top-1" vs "ImageNet Top-1") names it as surely
    as an equal one. Whether the shorter key still names *one* row or column is the caller's
    question (it may name several: see `semantic_align`). Numbers must agree. `sim`: the
    `similarity_matrix` of the two lists, when the caller has it already."""
    sim = similarity_matrix(left, right) if sim is None else sim
    if not left or not right:
        return sim
    ul, il = _distinct(left)
    ur, ir = _distinct(right)
    ts = process.cdist(ul, ur, scorer=fuzz.token_set_ratio, dtype=np.float32, workers=1) / 100.0
    nl = [set(numbers(x)) for x in ul]
    nr = [set(numbers(x)) for x in ur]
    if any(nl) and any(nr):  # else one side holds no number: the empty set is in every other
        ts = ts * np.array([[a <= b or b <= a for b in nr] for a in nl], dtype=bool)
    return np.maximum(sim, ts[il[:, None], ir])


def shared_cells(g_body: list[list[str]], p_body: list[list[str]]) -> np.ndarray:
    """Per (gt row, pred row): the share of the gt row's cells whose text the pred row holds
    exactly. For large tables this stands in for the full cell-by-cell comparison when rows
    are aligned (typos then count as misses there, but not in the aligned cells' scores)."""
    from scipy.sparse import csr_matrix  # large tables only: 0.1 s of imports a small run need not pay

    ids: dict[str, int] = {}
    g_ids = [[ids.setdefault(t.replace(" ", ""), len(ids)) for t in row] for row in g_body]
    p_ids = [[ids.setdefault(t.replace(" ", ""), len(ids)) for t in row] for row in p_body]
    # counts of whole cells: exact in any order of summing, so a sparse product (no dense matrix
    # over every distinct text, no threaded BLAS call) gives the same bits
    held = csr_matrix((np.ones(sum(map(len, p_ids))), ([j for j, row in enumerate(p_ids) for _ in row],
                                                         [k for row in p_ids for k in row])), (len(p_body), len(ids)))
    held.sum_duplicates()
    held.data[:] = 1.0  # held or not: a text repeated in one predicted row counts once
    counts = csr_matrix((np.ones(sum(map(len, g_ids))), ([i for i, row in enumerate(g_ids) for _ in row],
                                                         [k for row in g_ids for k in row])), (len(g_body), len(ids)))
    return (counts @ held.T).toarray() / max(len(g_body[0]) if g_body else 1, 1)
