"""Offline formula metrics on canonical tokens: edit similarity and the weighted formula score.

`token_edit_similarity(gt, pred)` = 1 - Levenshtein(gt tokens, pred tokens) / max(lengths), on
the canonical token sequences of `parse.canonical_tokens` (so `\\dfrac` vs `\\frac`, spacing,
`\\left`, fonts ... cost nothing), in [0, 1].

`formula_score(gt, pred)` (0-10, the study's scale) weighs what an edit changes. Both token
sequences are aligned by a weighted edit distance (fixed, a-priori costs: every insert or
delete 1, a substitution 1 within a class, 1.5 across classes, 0.3 when only the letter
style differs, and never between structure and content). Each edit on the optimal path is
counted by what it touches (`FEATURES`: a letter/digit/symbol, an operator or relation, a
sub/superscript/fraction/root marker, an accent, a letter style, a delimiter, punctuation,
matrix layout). The score is

    10 * exp(-(sum_k w_k * count_k) / n ** beta),   n = number of ground-truth tokens,

with the weights w and beta fitted to human ratings (`metaeval.fit_weights`, cross-validated
there; `WEIGHTS` below are the values fitted on the whole formula dev split). The
alignment is structure-aware because the tree is serialised with its markers: an exponent
that drops to the baseline (`x^{2}` -> `x2`) costs two marker edits, not zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numba import njit
from rapidfuzz.distance import Levenshtein

from harness.tex.formula import FormulaError, canonical_tokens
from harness.tex.formula_classes import FEATURES, token_class

_IDS: dict[str, int] = {}


def _intern(token: str) -> int:
    return _IDS.setdefault(token, len(_IDS))


@dataclass(frozen=True, slots=True)
class Encoded:
    """A token sequence as arrays the aligner reads: token id, unstyled id, class."""

    tokens: tuple[str, ...]
    ids: np.ndarray
    base: np.ndarray
    cls: np.ndarray


@lru_cache(maxsize=8192)
def encode(latex: str) -> Encoded:
    """Canonical tokens of a formula, encoded once (cached by source text)."""
    tokens = canonical_tokens(latex)
    ids = np.fromiter((_intern(t) for t in tokens), dtype=np.int64, count=len(tokens))
    base = np.fromiter((_intern(t.split(":", 1)[1] if ":" in t[1:] else t) for t in tokens),
                       dtype=np.int64, count=len(tokens))
    cls = np.fromiter((token_class(t) for t in tokens), dtype=np.int64, count=len(tokens))
    return Encoded(tokens, ids, base, cls)


def _encode_pred(pred: str) -> Encoded | None:
    """A prediction's encoding, or None when it cannot be read (it then scores 0)."""
    try:
        return encode(pred)
    except FormulaError:
        return None


def token_edit_similarity(gt: str, pred: str) -> float:
    """1 - normalised Levenshtein distance of the canonical token sequences, in [0, 1]."""
    a, b = encode(gt), _encode_pred(pred)
    if b is None:
        return 0.0
    if len(a.ids) == 0 and len(b.ids) == 0:
        return 1.0
    return float(Levenshtein.normalized_similarity(a.ids.tolist(), b.ids.tolist()))


@njit(cache=True, nogil=True)
def _sub_cost(ia, ba, ca, ib, bb, cb):  # pragma: no cover - compiled
    if ia == ib:
        return 0.0
    if ba == bb:
        return 0.3  # same symbol, other letter style
    a_struct = ca == 2 or ca == 3 or ca == 7
    b_struct = cb == 2 or cb == 3 or cb == 7
    if a_struct != b_struct:
        return 10.0  # never rename a marker into content: delete + insert instead
    return 1.0 if ca == cb else 1.5


@njit(cache=True, nogil=True)
def _align_counts(ia, ba, ca, ib, bb, cb, n_features):  # pragma: no cover - compiled
    """Weighted edit distance and the per-class counts of the edits on one optimal path."""
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
    counts = np.zeros(n_features)
    i, j = n, m
    while i > 0 or j > 0:
        if i > 0 and j > 0:
            c = _sub_cost(ia[i - 1], ba[i - 1], ca[i - 1], ib[j - 1], bb[j - 1], cb[j - 1])
            if abs(d[i, j] - (d[i - 1, j - 1] + c)) < 1e-9:
                if c > 0.0:
                    if ba[i - 1] == bb[j - 1]:
                        counts[4] += 1.0  # style only
                    else:
                        counts[ca[i - 1]] += 1.0
                i -= 1
                j -= 1
                continue
        if i > 0 and abs(d[i, j] - (d[i - 1, j] + 1.0)) < 1e-9:
            counts[ca[i - 1]] += 1.0
            i -= 1
        else:
            counts[cb[j - 1]] += 1.0
            j -= 1
    return d[n, m], counts


def edit_features(gt: str, pred: str) -> tuple[np.ndarray, int]:
    """(counts of edits per class of `FEATURES`, number of ground-truth tokens)."""
    a, b = encode(gt), encode(pred)
    _, counts = _align_counts(a.ids, a.base, a.cls, b.ids, b.base, b.cls, len(FEATURES))
    return counts, len(a.ids)


@dataclass(frozen=True, slots=True)
class Weights:
    """Cost of one edit of each class, and the length exponent beta."""

    w: tuple[float, ...]
    beta: float

    def penalty(self, counts: np.ndarray, n: np.ndarray | int) -> np.ndarray | float:
        return (np.asarray(counts) @ np.asarray(self.w)) / np.maximum(np.asarray(n, dtype=float), 1.0) ** self.beta


# Fitted on the whole formula dev split (106 pairs) by `metaeval.fit_weights` (refit:
# `fit_weights(*feature_matrix(pairs), human)`); the cross-validated agreement of this
# procedure is what `metaeval` reports. Order as FEATURES.
WEIGHTS = Weights(w=(1.284, 2.738, 1.647, 1.339, 0.898, 0.581, 0.319, 2.419), beta=0.5)


def score_from_features(counts: np.ndarray, n: np.ndarray | int, weights: Weights = WEIGHTS) -> np.ndarray | float:
    """10 * exp(-penalty): vectorised over rows of `counts`."""
    return 10.0 * np.exp(-weights.penalty(counts, n))


def formula_score(gt: str, pred: str, weights: Weights = WEIGHTS) -> float:
    """The offline formula score, 0-10: 10 when the formulas read the same (see module doc).

    An unreadable prediction (nested deeper than `parse.MAX_DEPTH`) scores 0; an unreadable
    ground truth raises `FormulaError`.
    """
    encode(gt)
    if _encode_pred(pred) is None:
        return 0.0
    counts, n = edit_features(gt, pred)
    return float(score_from_features(counts, n, weights))
