"""Meta-evaluation: how well does each metric agree with human ratings of table extractions?

Reads a table-metric-study-format file (a list of ground truths, each with `gt_table`
(LaTeX) and `extractions[]` holding `extracted_table`, `human_scores`, the study's stored
`metrics` and `llm_scores`), drops empty extractions, averages the human ratings, and
correlates every metric with them: Pearson, Spearman and Kendall tau-b, each with a
percentile-bootstrap 95% confidence interval (pairs resampled with a fixed seed).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy import stats

CORRELATIONS = ("pearson", "spearman", "kendall")


@dataclass(slots=True)
class RatedPair:
    """One (ground truth, extraction) pair with its mean human rating and stored scores."""

    gt_id: str
    complexity: str
    gt_latex: str
    extraction: str
    parser: str
    human: float
    stored: dict[str, float] = field(default_factory=dict)


def load_rated_pairs(path: str | Path) -> list[RatedPair]:
    """Every non-empty extraction of the file, with stored metric and judge scores by name."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of ground-truth tables")
    pairs = []
    for gt in data:
        for ext in gt.get("extractions", []):
            text = ext.get("extracted_table") or ""
            humans = [h for h in ext.get("human_scores", []) if h is not None]
            if not text.strip() or not humans:
                continue
            stored = {name: float(v) for name, v in (ext.get("metrics") or {}).items() if v is not None}
            for judge in ext.get("llm_scores") or []:
                if judge.get("score") is not None:
                    stored[f"judge:{judge['judge_model']}"] = float(judge["score"])
            pairs.append(RatedPair(gt_id=str(gt.get("gt_id", "")), complexity=str(gt.get("complexity", "")),
                                   gt_latex=gt["gt_table"], extraction=text, parser=str(ext.get("parser", "")),
                                   human=float(np.mean(humans)), stored=stored))
    if not pairs:
        raise ValueError(f"{path}: no rated, non-empty extraction found")
    return pairs


def correlate(metric: Iterable[float], human: Iterable[float], n_boot: int = 1000, seed: int = 0) -> dict:
    """Pearson, Spearman, Kendall tau-b of `metric` vs `human`, with bootstrap 95% CIs."""
    x = np.asarray(list(metric), dtype=float)
    y = np.asarray(list(human), dtype=float)
    if x.shape != y.shape or x.size < 3:
        raise ValueError("correlation needs two equally long series of at least 3 values")
    point = _correlations(x, y)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, x.size, size=(n_boot, x.size))
    boot = {name: [] for name in CORRELATIONS}
    for row in idx:
        for name, value in _correlations(x[row], y[row]).items():
            boot[name].append(value)
    ci = {}
    for name, values in boot.items():
        arr = np.asarray(values, dtype=float)
        arr = arr[np.isfinite(arr)]
        ci[name] = [float(np.percentile(arr, 2.5)), float(np.percentile(arr, 97.5))] if arr.size else [None, None]
    return {**point, "ci95": ci, "n": int(x.size)}


def _correlations(x: np.ndarray, y: np.ndarray) -> dict[str, float]:
    if np.ptp(x) == 0 or np.ptp(y) == 0:  # a constant series has no defined correlation
        return {name: float("nan") for name in CORRELATIONS}
    return {
        "pearson": float(stats.pearsonr(x, y).statistic),
        "spearman": float(stats.spearmanr(x, y).statistic),
        "kendall": float(stats.kendalltau(x, y, variant="b").statistic),
    }


Scorer = Callable[[str, str], float | None]  # None: no score for this pair (left out of the correlation)


def meta_evaluate(pairs: list[RatedPair], scorers: dict[str, Scorer] | None = None,
                  n_boot: int = 1000, seed: int = 0) -> dict[str, dict]:
    """Correlations for every stored metric/judge in the pairs and for each of `scorers`.

    A scorer takes (ground-truth LaTeX, raw extraction) and returns a score; ours are
    listed with an `ours:` prefix so they sit beside the study's stored values.
    """
    names = sorted({name for p in pairs for name in p.stored})
    results: dict[str, dict] = {}
    for name in names:
        rated = [(p.stored[name], p.human) for p in pairs if name in p.stored]
        if len(rated) >= 3:
            xs, ys = zip(*rated)
            results[name] = correlate(xs, ys, n_boot=n_boot, seed=seed)
    for name, scorer in (scorers or {}).items():
        rated = [(x, p.human) for p in pairs if (x := scorer(p.gt_latex, p.extraction)) is not None]
        xs, ys = zip(*rated) if rated else ((), ())  # a scorer may abstain (None): a judge call that failed
        results[f"ours:{name}"] = correlate(xs, ys, n_boot=n_boot, seed=seed)
    return results


def recomputed_scorers(metrics: Iterable[str]) -> dict[str, Scorer]:
    """Scorers that read the raw LaTeX ground truth and raw extraction through our readers.

    An extraction in which no table can be read scores 0; with several tables, the one
    with the most cells is taken (the study's extractions hold one table each).
    """
    from harness.metrics.registry import HEADLINE, METRICS, SCALE

    cache: dict[tuple[str, str], dict[str, float]] = {}

    def all_scores(gt_latex: str, extraction: str) -> dict[str, float] | None:
        key = (gt_latex, extraction)
        if key not in cache:
            gt, pred = _read_pair(gt_latex, extraction)
            cache[key] = {} if pred is None else {
                k: v for name in metrics for k, v in METRICS[name](gt, pred).items()}
        return cache[key] or None

    def make(name: str) -> Scorer:
        headline = HEADLINE[name]

        def scorer(gt_latex: str, extraction: str) -> float:
            values = all_scores(gt_latex, extraction)
            return 0.0 if values is None else values[headline] / SCALE.get(name, 1.0)

        return scorer

    return {name: make(name) for name in metrics}


def _read_pair(gt_latex: str, extraction: str):
    from harness.readers import read_tables
    from harness.readers.latex import read_latex
    from harness.table import NoTableError

    gt = read_latex(gt_latex)[0]
    try:
        candidates = read_tables(extraction)
    except NoTableError:
        return gt, None
    return gt, max(candidates, key=lambda t: len(t.cells()))
