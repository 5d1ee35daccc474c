"""The formula metric study in the meta-evaluation engine (`tablebench.evaluate.metaeval`).

Reads the study format (a JSON list of pairs: `gt_id`, `gt_formula`, `extracted_formula`,
`metrics` {bleu_score, levenshtein_similarity, cdm_score}, `llm_scores` [{judge_model,
score}], `human_study_scores` [three 0-10 ratings]); our scorers are the formula score, the
token edit similarity and, with pdflatex, the rendered glyph match (`glyph_f1`).

Cross-validation: leave one ground-truth formula out (all pairs of a `gt_id` form a fold).
In each fold every tunable constant of the formula score (the class weights, beta and
gamma of `score.Weights`) is fitted on the other folds only, then the held-out pairs are scored;
the correlations of these out-of-fold scores are the CV numbers, always listed as
`cv:formula_score`. The rendered score has no tuned constant, so its in-sample number is
already honest.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from tablebench.evaluate import metaeval
from tablebench.evaluate.metaeval import Fit, Kind, Options, RatedPair, Scorer, stored_scores
from tablebench.metrics.formulas.edits import FEATURES, MEANING
from tablebench.metrics.formulas.glyph_match import glyph_match
from tablebench.metrics.formulas.score import (
    WEIGHTS,
    Weights,
    edit_features,
    formula_score,
    says_otherwise,
    score_from_features,
    token_edit_similarity,
)
from tablebench.tex.runner import have_pdflatex


def is_formula_study(data: object) -> bool:
    """True for the formula study format (so `tablebench meta-eval FILE` can pick the kind)."""
    return (isinstance(data, list) and bool(data) and isinstance(data[0], dict)
            and "gt_formula" in data[0] and "extracted_formula" in data[0])


def read_formula_pairs(data: object, path: str) -> list[RatedPair]:
    """Every pair of one file's data with at least one human rating."""
    if not is_formula_study(data):
        raise ValueError(f"{path}: not the formula study format (a list of pairs with gt_formula, extracted_formula)")
    pairs = []
    for row in data:
        humans = [h for h in row.get("human_study_scores") or [] if h is not None]
        if not humans:
            continue
        pairs.append(RatedPair(str(row.get("gt_id", len(pairs))), str(row["gt_formula"]),
                               str(row.get("extracted_formula") or ""), float(np.mean(humans)),
                               stored_scores(row.get("metrics"), row.get("llm_scores"))))
    if not pairs:
        raise ValueError(f"{path}: no rated pair found")
    return pairs


def load_formula_pairs(*paths: str | Path) -> list[RatedPair]:
    """The rated pairs of one or more formula-metric-study files, pooled; a one-line `ValueError` for another format."""
    return metaeval.load_pairs(FORMULAS, paths)


def feature_matrix(pairs: list[RatedPair]) -> tuple[np.ndarray, np.ndarray]:
    """(edit counts per class, one row per pair; ground-truth token counts)."""
    rows, lengths = [], []
    for p in pairs:
        counts, n = edit_features(p.gt, p.extraction)
        rows.append(counts)
        lengths.append(n)
    return np.asarray(rows, dtype=float).reshape(len(pairs), len(FEATURES)), np.asarray(lengths, dtype=float)


BETAS = (0.0, 0.25, 0.5, 0.75, 1.0)
GAMMAS = (0.5, 0.75, 1.0)
RIDGE = 0.01  # pull towards log-weight 0 (weight 1/e.. e scale) so rare classes stay finite
_EPS = 1e-9  # keeps the gradient of P ** gamma finite at P = 0


def fit_weights(counts: np.ndarray, lengths: np.ndarray, human: np.ndarray) -> Weights:
    """Class weights (>= 0), the cost of a formula saying otherwise (`score.says_otherwise`), beta and
    gamma minimising the squared error of the score to `human`.

    beta and gamma are chosen from `BETAS` x `GAMMAS`; for each, the log-weights are fitted by
    L-BFGS with a small ridge. Deterministic: same data, same weights.
    """
    best: tuple[float, Weights] | None = None
    k = counts.shape[1]
    wrong = says_otherwise(counts)[:, None]  # costs alike at any length: one more column, not normalised
    for beta in BETAS:
        norm = np.hstack([counts / np.maximum(lengths, 1.0)[:, None] ** beta, wrong])
        for gamma in GAMMAS:
            res = minimize(_loss, np.full(k + 1, -1.0), args=(norm, human, gamma), jac=True, method="L-BFGS-B",
                           bounds=[(-8.0, 4.0)] * (k + 1))
            if best is None or res.fun < best[0]:
                w = np.exp(res.x)
                best = (float(res.fun), Weights(tuple(float(x) for x in w[:k]), beta, gamma, float(w[k])))
    assert best is not None
    return best[1]


def _loss(logw: np.ndarray, norm: np.ndarray, human: np.ndarray, gamma: float) -> tuple[float, np.ndarray]:
    """Mean squared error of 10 * exp(-(norm @ w) ** gamma) to `human`, plus the ridge; and its gradient."""
    w = np.exp(logw)
    raw = norm @ w + _EPS
    pred = 10.0 * np.exp(-raw ** gamma)
    resid = pred - human
    d_raw = 2.0 * resid * -pred * gamma * raw ** (gamma - 1.0)
    grad = (d_raw @ norm) * w / len(human) + 2 * RIDGE * logw
    return float(np.mean(resid ** 2) + RIDGE * np.sum(logw ** 2)), grad


Features = tuple[np.ndarray, np.ndarray]  # feature_matrix's (counts, lengths)


def _fit(features: Features, human: np.ndarray, groups: np.ndarray, rows: np.ndarray) -> tuple[Weights, float]:
    """`fit_weights` on the `rows` pairs (every pair weighing alike), with its training error."""
    counts, lengths = features
    weights = fit_weights(counts[rows], lengths[rows], human[rows])
    return weights, float(np.mean((_predict(features, weights, rows) - human[rows]) ** 2))


def _predict(features: Features, weights: Weights, rows: np.ndarray) -> np.ndarray:
    counts, lengths = features
    return score_from_features(counts[rows], lengths[rows], weights)


def _describe(weights: Weights) -> dict:
    return {"beta": weights.beta, "gamma": weights.gamma, "wrong": round(weights.wrong, 4),
            "weights": [round(w, 4) for w in weights.w]}


def _check(options: Options) -> None:
    if options.judge:
        raise ValueError("--judge is not supported for the formula study yet (its stored judges are reported)")


def _scorers(pairs: list[RatedPair], options: Options) -> dict[str, Scorer]:
    """Ours by name; the rendered glyph match when pdflatex is installed (first run ~0.3 s per formula, then cached)."""
    scorers: dict[str, Scorer] = {"formula_score": formula_score, "token_edit": token_edit_similarity}
    if options.render and have_pdflatex():
        scorers["glyph_f1"] = glyph_match
    return scorers


def edit_classes(pairs: list[RatedPair]) -> dict[str, np.ndarray]:
    """The pairs by what their edits do (`edits.MEANING`): one meaning edit and nothing else (a
    symbol, number, operator or script changed, added or lost), meaning edits only, notation
    edits only (renames, accents, styles, delimiters, punctuation, layout), and both."""
    counts, _ = feature_matrix(pairs)
    meaning = counts[:, list(MEANING)].sum(axis=1)
    notation = counts.sum(axis=1) - meaning
    return {"one meaning edit": (meaning == 1) & (notation == 0), "meaning edits only": (meaning > 0) & (notation == 0),
            "notation edits only": (meaning == 0) & (notation > 0), "mixed": (meaning > 0) & (notation > 0)}


FORMULAS = Kind(item="formula",
                title="Formula metrics vs {reference} ({n} pairs; cv: leave one ground-truth formula out)",
                is_study=is_formula_study, read_pairs=read_formula_pairs, check=_check, scorers=_scorers,
                fit=Fit(features=feature_matrix, fit=_fit, predict=_predict, describe=_describe, shipped=WEIGHTS),
                drop_sparse_scorers=True, cv_row="cv:formula_score", classes=edit_classes)
