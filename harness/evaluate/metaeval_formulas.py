"""Meta-evaluation of the formula metrics against the formula-metric-study human ratings.

Reads the study format (a JSON list of pairs: `gt_id`, `gt_formula`, `extracted_formula`,
`metrics` {bleu_score, levenshtein_similarity, cdm_score}, `llm_scores` [{judge_model,
score}], `human_study_scores` [three 0-10 ratings]) and correlates every stored metric and
ours with the mean human rating (Pearson, Spearman, Kendall; percentile-bootstrap 95% CIs,
via `harness.evaluate.metaeval.correlate`).

Cross-validation: leave one ground-truth formula out (all pairs of a `gt_id` form a fold).
In each fold every tunable constant of the formula score (the class weights and beta of
`score.Weights`) is fitted on the other folds only, then the held-out pairs are scored;
the correlations of these out-of-fold scores are the CV numbers. The rendered score has no
tuned constant, so its in-sample number is already honest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from harness.core.files import read_json
from harness.metrics.formulas.score import FEATURES, Weights, edit_features, score_from_features, token_edit_similarity
from harness.evaluate.metaeval import correlate


@dataclass(slots=True)
class FormulaPair:
    """One rated (ground-truth formula, extracted formula) pair with the study's stored scores."""

    gt_id: str
    gt: str
    pred: str
    human: float
    stored: dict[str, float] = field(default_factory=dict)


def is_formula_study(data: object) -> bool:
    """True for the formula study format (so `tablebench meta-eval FILE` can pick the track)."""
    return (isinstance(data, list) and bool(data) and isinstance(data[0], dict)
            and "gt_formula" in data[0] and "extracted_formula" in data[0])


def load_formula_pairs(path: str | Path) -> list[FormulaPair]:
    """Every pair with at least one human rating; a one-line `ValueError` for another format."""
    data = read_json(path)
    if not is_formula_study(data):
        raise ValueError(f"{path}: not the formula study format (a list of pairs with gt_formula, extracted_formula)")
    pairs = []
    for row in data:
        humans = [h for h in row.get("human_study_scores") or [] if h is not None]
        if not humans:
            continue
        stored = {k: float(v) for k, v in (row.get("metrics") or {}).items() if v is not None}
        for judge in row.get("llm_scores") or []:
            if judge.get("score") is not None:
                stored[f"judge:{judge['judge_model']}"] = float(judge["score"])
        pairs.append(FormulaPair(str(row.get("gt_id", len(pairs))), str(row["gt_formula"]),
                                 str(row.get("extracted_formula") or ""), float(np.mean(humans)), stored))
    if not pairs:
        raise ValueError(f"{path}: no rated pair found")
    return pairs


def feature_matrix(pairs: list[FormulaPair]) -> tuple[np.ndarray, np.ndarray]:
    """(edit counts per class, one row per pair; ground-truth token counts)."""
    rows, lengths = [], []
    for p in pairs:
        counts, n = edit_features(p.gt, p.pred)
        rows.append(counts)
        lengths.append(n)
    return np.asarray(rows, dtype=float).reshape(len(pairs), len(FEATURES)), np.asarray(lengths, dtype=float)


BETAS = (0.0, 0.25, 0.5, 0.75, 1.0)
RIDGE = 0.01  # pull towards log-weight 0 (weight 1/e.. e scale) so rare classes stay finite


def fit_weights(counts: np.ndarray, lengths: np.ndarray, human: np.ndarray) -> Weights:
    """Class weights (>= 0) and beta minimising the squared error of the score to `human`.

    beta is chosen from `BETAS`; for each, the log-weights are fitted by L-BFGS with a small
    ridge. Deterministic: same data, same weights.
    """
    best: tuple[float, Weights] | None = None
    k = counts.shape[1]
    for beta in BETAS:
        norm = counts / np.maximum(lengths, 1.0)[:, None] ** beta

        def loss(logw: np.ndarray) -> tuple[float, np.ndarray]:
            w = np.exp(logw)
            pred = 10.0 * np.exp(-(norm @ w))
            resid = pred - human
            grad = (2.0 * resid * -pred) @ norm * w / len(human) + 2 * RIDGE * logw
            return float(np.mean(resid ** 2) + RIDGE * np.sum(logw ** 2)), grad

        res = minimize(loss, np.full(k, -1.0), jac=True, method="L-BFGS-B", bounds=[(-8.0, 4.0)] * k)
        if best is None or res.fun < best[0]:
            best = (float(res.fun), Weights(tuple(float(x) for x in np.exp(res.x)), beta))
    assert best is not None
    return best[1]


def cross_validated_scores(pairs: list[FormulaPair]) -> np.ndarray:
    """Out-of-fold formula scores: each ground-truth formula's pairs scored with weights fitted without it."""
    counts, lengths = feature_matrix(pairs)
    human = np.array([p.human for p in pairs])
    groups = np.array([p.gt_id for p in pairs])
    out = np.zeros(len(pairs))
    for g in np.unique(groups):
        test = groups == g
        weights = fit_weights(counts[~test], lengths[~test], human[~test])
        out[test] = score_from_features(counts[test], lengths[test], weights)
    return out


Scorer = Callable[[str, str], float | None]


def formula_scorers(render: bool = False) -> dict[str, Scorer]:
    """Our offline scorers by name; `render` adds the CDM-like score (needs pdflatex)."""
    from harness.metrics.formulas.score import formula_score

    scorers: dict[str, Scorer] = {"formula_score": formula_score, "token_edit": token_edit_similarity}
    if render:
        from harness.metrics.formulas.cdm import cdm_like

        scorers["cdm_like"] = cdm_like
    return scorers


def meta_evaluate_formulas(pairs: list[FormulaPair], render: bool | None = None, cv: bool = True,
                           n_boot: int = 1000, seed: int = 0) -> dict[str, dict]:
    """Correlations with the mean human rating: stored metrics/judges, ours, and `cv:` ours.

    The result has the table study's shape ({name: {pearson, spearman, kendall, ci95, n}}), so
    `report.terminal.meta_eval_table` prints it. `render=None`: the CDM-like score when
    pdflatex is installed (first run ~0.3 s per formula, then cached).
    """
    if render is None:
        from harness.tex.runner import have_pdflatex

        render = have_pdflatex()
    human = [p.human for p in pairs]
    results: dict[str, dict] = {}
    for name in sorted({n for p in pairs for n in p.stored}):
        rated = [(p.stored[name], p.human) for p in pairs if name in p.stored]
        if len(rated) >= 3:
            xs, ys = zip(*rated)
            results[name] = correlate(xs, ys, n_boot=n_boot, seed=seed)
    for name, scorer in formula_scorers(render).items():
        rated = [(x, p.human) for p in pairs if (x := scorer(p.gt, p.pred)) is not None]
        if len(rated) >= 3:
            xs, ys = zip(*rated)
            results[f"ours:{name}"] = correlate(xs, ys, n_boot=n_boot, seed=seed)
    if cv:
        results["cv:formula_score"] = correlate(cross_validated_scores(pairs), human, n_boot=n_boot, seed=seed)
    return results
