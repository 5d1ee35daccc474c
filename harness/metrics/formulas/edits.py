"""The edits between two canonical token sequences, and what each one means to a reader.

`align(a, b)` is a weighted edit distance over the encoded tokens (fixed, a-priori costs:
an insert or delete 1, a substitution 1 within a class, 1.5 across classes, 0.3 when only
the letter style differs, never between structure and content) and returns the edits of
one optimal path. `Edit`s are then read as a reader reads them (`meaning`):

- a **number** edit touches a digit: a value changed, whatever the glyphs look like;
- a **rename**: one letter or symbol read as another at every place it occurs, into a
  symbol the ground truth does not use (`σ` -> `π` throughout): the formula says the same
  thing with another name;
- a rename into the **same letter** written another way (`same_letter`: a Greek letter and
  the Latin one it is typeset like, `ν` -> `v`, `ρ` -> `p`, `χ` -> `x`; a letter's variant
  form, `ϑ` -> `θ`) is counted as a letter style: the reader sees the same symbol throughout
  and reads past it (as a `\\mathbb{R}` read as `R`);
- a **conflict**: a substitution that is not a rename, so that two symbols become one (`c`
  read as an `r` the formula already has) or one symbol becomes two (`μ` read as `ρ` in one
  place and kept in another): what the formula says has changed;
- a **repeat**: a substitution already counted in this pair (the same `a` -> `b` again): a
  reader counts a systematic misreading once;
- every other edit by the class of the token it touches (`formula_classes`).

Measured and left out: how alike two different glyphs look. Similarity of the typeset shapes
(pdflatex renders of the Latin, Greek and digit glyphs, ink overlap or stroke distance) rates
`μ`/`ρ` as alike as `ρ`/`p`, and as a feature its fitted cost rose with the similarity; what
separates the look-alike a reader fixes from the swap that changes the formula is whether the
substitution is a consistent rename, and whether both sides are one letter (`same_letter`, a
fixed table, not a measured likeness). The rendered comparison as a tiebreak (`glyph_f1`:
pairs that typeset alike read as notation only, or its F1 as a fitted feature) never raised
the cross-validated agreement, and it costs two pdflatex runs per pair.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass

import numpy as np
from numba import njit

from tablebench.tex.formula_classes import (
    ACCENT,
    CONTENT,
    DELIMITER,
    LAYOUT,
    OPERATOR,
    PUNCTUATION,
    STRUCTURE,
    STYLE,
)

# What the score counts, in this order (`meaning` fills one row of them per pair).
FEATURES = ("content", "rename", "number", "repeat", "operator", "structure", "accent", "style",
            "delimiter", "punctuation", "layout")
_SLOT = {CONTENT: 0, OPERATOR: 4, STRUCTURE: 5, ACCENT: 6, STYLE: 7, DELIMITER: 8, PUNCTUATION: 9, LAYOUT: 10}
RENAME, NUMBER, REPEAT = 1, 2, 3
# The slots whose edits change what a formula says (a symbol, number, operator or script changed,
# added or lost); a rename, a repeat, and accents, styles (a same-letter rename among them),
# delimiters, punctuation and layout a reader reads past (`score.says_otherwise`).
MEANING = (0, NUMBER, 4, 5)


# Greek letters and the Latin letter each is typeset like (`same_letter`); a letter's variant forms
# (`ϑ`, `ϕ`, `ϖ`, `ϵ`, `ϱ`, `ς`) fold to it by Unicode compatibility (NFKC) first.
_LATIN_LOOKALIKE = dict(zip("αγικνορυχωΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ayikvopuxwABEZHIKMNOPTYX"))


def same_letter(a: str, b: str) -> bool:
    """True when two different symbols are one letter written another way: a variant form
    (`ϑ`/`θ`) or a Greek letter and the Latin letter it looks like (`ν`/`v`). Case counts:
    `Φ` and `φ` are two letters."""
    if a == b:
        return False
    fold = [unicodedata.normalize("NFKC", t) for t in (a, b)]
    return _LATIN_LOOKALIKE.get(fold[0], fold[0]) == _LATIN_LOOKALIKE.get(fold[1], fold[1])


# The alignment's substitution costs (an insert or a delete costs 1), fixed a priori, not fitted: the
# counts per class are what the fitted weights price.
STYLE_COST = 0.3  # the same symbol in another letter style
ACROSS_COST = 1.5  # a substitution across classes (within a class: 1)
MARKER_COST = 10.0  # a structure marker read as content: never, a delete and an insert instead


@njit(cache=True, nogil=True)
def _sub_cost(ia, ba, ca, ib, bb, cb):  # pragma: no cover - compiled
    if ia == ib:
        return 0.0
    if ba == bb:
        return STYLE_COST
    a_struct = ca == 2 or ca == 3 or ca == 7
    b_struct = cb == 2 or cb == 3 or cb == 7
    if a_struct != b_struct:
        return MARKER_COST
    return 1.0 if ca == cb else ACROSS_COST


@njit(cache=True, nogil=True)
def _align(ia, ba, ca, ib, bb, cb):  # pragma: no cover - compiled
    """Edits of one optimal path as (gt index or -1, pred index or -1), last edit first."""
    n, m = ia.shape[0], ib.shape[0]
    d = np.zeros((n + 1, m + 1))
    for i in range(1, n + 1):
        d[i, 0] = i
    for j in range(1, m + 1):
        d[0, j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            best = d[i - 1, j - 1] + _sub_cost(ia[i - 1], ba[i - 1], ca[i - 1], ib[j - 1], bb[j - 1], cb[j - 1])
            if d[i - 1, j] + 1.0 < best:
                best = d[i - 1, j] + 1.0
            if d[i, j - 1] + 1.0 < best:
                best = d[i, j - 1] + 1.0
            d[i, j] = best
    out = np.empty((n + m, 2), dtype=np.int64)
    k = 0
    i, j = n, m
    while i > 0 or j > 0:
        if i > 0 and j > 0:
            c = _sub_cost(ia[i - 1], ba[i - 1], ca[i - 1], ib[j - 1], bb[j - 1], cb[j - 1])
            if abs(d[i, j] - (d[i - 1, j - 1] + c)) < 1e-9:
                if c > 0.0:
                    out[k, 0], out[k, 1] = i - 1, j - 1
                    k += 1
                i -= 1
                j -= 1
                continue
        if i > 0 and abs(d[i, j] - (d[i - 1, j] + 1.0)) < 1e-9:
            out[k, 0], out[k, 1] = i - 1, -1
            i -= 1
        else:
            out[k, 0], out[k, 1] = -1, j - 1
            j -= 1
        k += 1
    return out[:k]


@dataclass(frozen=True, slots=True)
class Edit:
    """One edit: the ground-truth token and the predicted one ("" for an insert / a delete)."""

    gt: str
    pred: str
    cls: int  # the feature class of the token it touches (the ground truth's, else the prediction's)


def align(a, b) -> list[Edit]:
    """The edits of one optimal alignment of two `score.Encoded` sequences, in reading order."""
    path = _align(a.ids, a.base, a.cls, b.ids, b.base, b.cls)[::-1]
    edits = []
    for i, j in path:
        gt = a.tokens[i] if i >= 0 else ""
        pred = b.tokens[j] if j >= 0 else ""
        if i >= 0 and j >= 0 and a.base[i] == b.base[j]:
            edits.append(Edit(gt, pred, STYLE))
        else:
            edits.append(Edit(gt, pred, int(a.cls[i] if i >= 0 else b.cls[j])))
    return edits


def _base(token: str) -> str:
    return token.split(":", 1)[1] if ":" in token[1:] else token


def readings(edits: list[Edit], gt_tokens: tuple[str, ...]) -> list[tuple[Edit, int]]:
    """Each edit with the `FEATURES` slot a reader counts it in (see the module doc)."""
    in_gt = Counter(_base(t) for t in gt_tokens)
    subs = Counter((_base(e.gt), _base(e.pred)) for e in edits if e.gt and e.pred and e.cls != STYLE)
    read_as = Counter(a for a, _ in subs)  # how many different readings each substituted symbol has
    seen: set[tuple[str, str]] = set()
    out = []
    for e in edits:
        a, b = _base(e.gt), _base(e.pred)
        if e.gt and e.pred and e.cls != STYLE:
            if (a, b) in seen:
                out.append((e, REPEAT))
                continue
            seen.add((a, b))
        if e.cls == CONTENT and (a.isdigit() or b.isdigit()):
            out.append((e, NUMBER))
        elif e.cls == CONTENT and e.gt and e.pred:
            renamed = subs[(a, b)] == in_gt[a] and read_as[a] == 1 and in_gt[b] == 0
            out.append((e, (_SLOT[STYLE] if same_letter(a, b) else RENAME) if renamed else 0))
        else:
            out.append((e, _SLOT[e.cls]))
    return out


def meaning(edits: list[Edit], gt_tokens: tuple[str, ...]) -> np.ndarray:
    """The counts of `FEATURES` for one pair's edits."""
    counts = np.zeros(len(FEATURES))
    for _, slot in readings(edits, gt_tokens):
        counts[slot] += 1.0
    return counts


_MARKERS = {"_{": "a subscript", "^{": "a superscript", "}": "the end of a group", "}{": "a fraction bar",
            "\\matrix{": "a matrix", "&": "a column break", "\\\\": "a row break"}
_STYLE_MACROS = {"bb": "mathbb", "cal": "mathcal", "frak": "mathfrak"}


def shown(token: str) -> str:
    """A canonical token as a reader would name it: `^{` -> 'a superscript', `bb:R` -> '\\mathbb{R}'."""
    if token in _MARKERS:
        return _MARKERS[token]
    if token.endswith("{"):
        return f"'{token[:-1]}'"
    if ":" in token[1:]:
        style, base = token.split(":", 1)
        return f"'\\{_STYLE_MACROS.get(style, style)}{{{base}}}'"
    return f"'{token}'"


def describe(edits: list[Edit], gt_tokens: tuple[str, ...], weights: tuple[float, ...], limit: int = 6) -> list[str]:
    """The differences in words, costliest first (by `weights`, per `FEATURES`), each once with a count."""
    costs: dict[str, float] = {}
    counts: Counter[str] = Counter()
    said: dict[tuple[str, str], str] = {}  # a substitution's words, for its repeats
    for e, slot in readings(edits, gt_tokens):
        if slot == REPEAT:
            key = said.get((e.gt, e.pred)) or f"{shown(e.gt)} read as {shown(e.pred)}"
        elif e.gt and e.pred:
            style = " throughout (the same letter)" if e.cls != STYLE else " (letter style)"
            key = f"{shown(e.gt)} read as {shown(e.pred)}" + {
                RENAME: " throughout", NUMBER: " (a number changed)", _SLOT[STYLE]: style}.get(slot, "")
            said[(e.gt, e.pred)] = key
        else:
            key = f"{shown(e.gt)} missing" if e.gt else f"extra {shown(e.pred)}"
        costs[key] = max(costs.get(key, 0.0), weights[slot])
        counts[key] += 1
    group_end = {f"{shown('}')} missing", f"extra {shown('}')}"}
    if len(costs) > len(group_end & costs.keys()):  # a construct's closing brace goes with its marker
        costs = {k: v for k, v in costs.items() if k not in group_end}
    ranked = sorted(costs, key=lambda k: (-costs[k] * counts[k], k))
    notes = [k if counts[k] == 1 else f"{k} ({counts[k]}x)" for k in ranked[:limit]]
    if len(ranked) > limit:
        notes.append(f"and {len(ranked) - limit} more differences")
    return notes
