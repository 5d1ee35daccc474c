"""How the semantic score's constants are chosen from rated pairs: the procedure, in code.

The score is `10 * exp(-w . features)` with `w >= 0` (`semantic.combine`). Given rated pairs,
`fit` chooses `w` by least squares against the mean human rating (bounded to w >= 0, so every
error keeps costing; a tiny ridge keeps unused features at 0; each unit -- a judged page, a rated
ground-truth table (`RatedPair.unit`) -- weighs alike, however many of its extractions were rated,
as each weighs alike when held out in cross-validation), for each candidate of `COUNTINGS` (a
`key_weight` and a `midpoint`: the constants that change what is counted), and keeps the candidate
with the smallest squared error. Least squares
rather than correlation, because a leaderboard reader reads the number, not only the order:
the score should use the scale as the raters do. A grid read as written and one rebuilt from
lines of text have weights of their own (`Params.weights`, `Params.lines_weights`, and in lines a
weight per kind of error for being there at all, `Params.lines_presence`): each pair's features sit
in the part of its kind of reading (`semantic.feature_row`), so one least-squares problem fits all.

`tablebench meta-eval FILE --cv` runs this procedure once per held-out unit on the other units (`tablebench.evaluate.metaeval_tables.cross_validate`); `semantic.DEFAULT` is its result on
every rated pair (dev, dev2) and judged pair (data/judged-pairs), rounded
(`python -m tests.benchmarks.semantic_figures` prints it).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.optimize import least_squares

from tablebench.metrics.tables.semantic import DEFAULT, Counting, Params

KEY_WEIGHTS = (0.3, 0.5, 0.7)  # alignment: share of header keys (the rest: content)
MIDPOINTS = (0.4, 0.5, 0.6)  # likeness below which a label, a row, a line is not the table's own
COUNTINGS = tuple(Counting(k, m) for k in KEY_WEIGHTS for m in MIDPOINTS)
RIDGE = 1e-3  # per weight, against the squared error of ~200 pairs in score points: negligible unless unused

Features = list[np.ndarray | None]  # per pair: its feature row (`semantic.Read.row`); None: no table read, scores 0


def predict(features: Features, weights: np.ndarray) -> np.ndarray:
    """The score of every pair under `weights` (0 where nothing was read)."""
    out = np.zeros(len(features))
    for i, row in enumerate(features):
        if row is not None:
            out[i] = 10.0 * np.exp(-float(row @ weights))
    return out


def table_weights(groups: Sequence[str] | None, n: int) -> np.ndarray:
    """Per pair: 1 / (pairs of its unit: a judged page, a rated ground-truth table), scaled to mean
    1, so that every unit weighs alike in the fit (as each weighs alike when held out in turn); all
    1 without groups."""
    if groups is None:
        return np.ones(n)
    _, index, counts = np.unique(np.asarray(groups, dtype=object), return_inverse=True, return_counts=True)
    w = 1.0 / counts[index]
    return w * n / w.sum()


def fit_weights(features: Features, human: np.ndarray, start: Sequence[float] | None = None,
                groups: Sequence[str] | None = None) -> np.ndarray:
    """Non-negative weights minimising the squared error of the score against `human`, each unit
    (`groups`: its id per pair) weighing alike."""
    w = DEFAULT.vector if start is None else np.asarray(start, dtype=float)
    use = [i for i, row in enumerate(features) if row is not None]
    if not use:
        return w
    y = np.asarray(human, dtype=float)[use]
    sw = np.sqrt(table_weights(groups, len(features))[use])
    x = np.stack([features[i] for i in use])

    def residuals(v: np.ndarray) -> np.ndarray:
        return np.concatenate([sw * (10.0 * np.exp(-(x @ v)) - y), np.sqrt(RIDGE) * v])

    def jacobian(v: np.ndarray) -> np.ndarray:
        return np.vstack([-10.0 * (sw * np.exp(-(x @ v)))[:, None] * x, np.sqrt(RIDGE) * np.eye(len(v))])

    return least_squares(residuals, w, jac=jacobian, bounds=(0.0, np.inf), method="trf").x


def fit(features_by_counting: dict[Counting, Features], human: np.ndarray,
        groups: Sequence[str] | None = None) -> tuple[Params, float]:
    """The Params (the counting constants and the weights) with the smallest squared error on these
    pairs (each unit of `groups` weighing alike), and that error (weighted MSE)."""
    best: tuple[Params, float] | None = None
    for counting in sorted(features_by_counting):
        features = features_by_counting[counting]
        w = fit_weights(features, human, groups=groups)
        mse = float(np.average((predict(features, w) - human) ** 2, weights=table_weights(groups, len(human))))
        if best is None or mse < best[1] - 1e-12:
            best = (Params.of_vector(counting, w), mse)
    assert best is not None
    return best
