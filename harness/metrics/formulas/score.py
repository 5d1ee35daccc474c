"""Offline formula metrics on canonical tokens: edit similarity and the weighted formula score.

`token_edit_similarity(gt, pred)` = 1 - Levenshtein(gt tokens, pred tokens) / max(lengths), on
the canonical token sequences of `formula.canonical_tokens` (so `\\dfrac` vs `\\frac`, spacing,
`\\left`, fonts ... cost nothing), in [0, 1].

`formula_score(gt, pred)` (0-10, the study's scale) weighs what an edit means to a reader.
Both token sequences are aligned (`edits.align`) and each edit is counted by what it does
(`edits.FEATURES`: a number changed, a symbol renamed throughout or read as another one, a
substitution repeated, an operator, a sub/superscript/fraction/root
marker, an accent, a letter style, a delimiter, punctuation, matrix layout). The score is

    10 * exp(-P ** gamma),   P = (sum_k w_k * count_k) / n ** beta,   n = ground-truth tokens,

with the weights w, beta and gamma fitted to human ratings (`metaeval_formulas.fit_weights`,
cross-validated there; `WEIGHTS` below are the values fitted on all rated pairs). gamma < 1
makes the first errors cost the most: a reader who sees an intact formula with many small
slips does not rate it as nothing. A command no symbol table knows is read as the glyph
pdflatex prints for it (`formula_symbols.typeset_symbol`, cached; kept by name without TeX).
`explained` also names each difference in words (the notes of a result).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from rapidfuzz.distance import Levenshtein

from tablebench.metrics.formulas.edits import MEANING, align, describe, meaning
from tablebench.tex.formula import FormulaError, canonical_tokens
from tablebench.tex.formula_classes import token_class
from tablebench.tex.formula_symbols import typeset_symbol

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


MAX_TEX_LOOKUPS = 4  # distinct unknown commands of one formula typeset by TeX (see `_read`)


def _unknown_command(token: str) -> bool:
    return len(token) > 1 and token[0] == "\\" and token[1:].isalpha()


def _read(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """Tokens as the metric compares them: an unknown command as the glyph TeX prints, if one.
    Only the first `MAX_TEX_LOOKUPS` distinct unknown commands of a formula are typeset (each
    may cost a pdflatex run on a cold cache): garbage full of invented commands stays bounded,
    the rest are kept by name."""
    looked: dict[str, str] = {}
    for t in tokens:
        if _unknown_command(t) and t not in looked and len(looked) < MAX_TEX_LOOKUPS:
            looked[t] = typeset_symbol(t[1:]) or t
    return tuple(looked.get(t, t) for t in tokens)


@lru_cache(maxsize=8192)
def encode(latex: str) -> Encoded:
    """Canonical tokens of a formula, encoded once (cached by source text)."""
    tokens = _read(canonical_tokens(latex))
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


def edit_features(gt: str, pred: str) -> tuple[np.ndarray, int]:
    """(counts of edits per `edits.FEATURES`, number of ground-truth tokens)."""
    a, b = encode(gt), encode(pred)
    return meaning(align(a, b), a.tokens), len(a.ids)


@dataclass(frozen=True, slots=True)
class Weights:
    """Cost of one edit of each class, the length exponent beta, the concavity gamma, and what a
    formula that says something else costs whatever its length (`wrong`, see `says_otherwise`)."""

    w: tuple[float, ...]
    beta: float
    gamma: float = 1.0
    wrong: float = 0.0

    def penalty(self, counts: np.ndarray, n: np.ndarray | int) -> np.ndarray | float:
        counts = np.asarray(counts, dtype=float)
        raw = (counts @ np.asarray(self.w)) / np.maximum(np.asarray(n, dtype=float), 1.0) ** self.beta
        return np.power(raw + self.wrong * says_otherwise(counts), self.gamma)


def says_otherwise(counts: np.ndarray) -> np.ndarray | float:
    """1 where a pair's edits change what the formula says (`edits.MEANING`: a symbol, number,
    operator or script changed, added or lost), else 0. A reader weighs such an edit by whether
    the formula still says the same thing, not by its share of the formula: one digit changed in
    a long formula makes it another formula (`\\log 5` read as `\\log 1`)."""
    return (np.asarray(counts)[..., list(MEANING)].sum(axis=-1) > 0).astype(float)


# Fitted on all rated pairs of the formula study (dev and dev2, 175 pairs) by
# `metaeval_formulas.fit_weights` (refit: `fit_weights(*feature_matrix(pairs), human)`); the
# cross-validated agreement of this procedure is what `meta-eval --cv` reports. Order as FEATURES.
WEIGHTS = Weights(
    w=(0.619, 1.241, 1.682, 0.379, 1.435, 0.837, 1.105, 0.368, 0.537, 0.398, 1.3),
    beta=0.5,
    gamma=0.75,
    wrong=0.297,
)


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


def explained(gt: str, pred: str, weights: Weights = WEIGHTS) -> tuple[float, list[str]]:
    """`formula_score` and its differences in words, costliest first (`edits.describe`)."""
    a, b = encode(gt), _encode_pred(pred)
    if b is None:
        return 0.0, ["the prediction cannot be read (nested too deeply)"]
    edits = align(a, b)
    score = float(score_from_features(meaning(edits, a.tokens), len(a.ids), weights))
    return score, (describe(edits, a.tokens, weights.w) if edits else [])
