"""Meta-evaluation: how well does each metric agree with human ratings of table extractions?

Reads a table-metric-study-format file (a list of ground truths, each with `gt_table`
(LaTeX) and `extractions[]` holding `extracted_table`, `human_scores`, the study's stored
`metrics` and `llm_scores`), drops empty extractions, averages the human ratings, and
correlates every metric with them: Pearson, Spearman and Kendall tau-b, each with a
percentile-bootstrap 95% confidence interval (pairs resampled with a fixed seed).

`cross_validate` measures the semantic score honestly: leave one ground-truth table out,
choose every tunable constant of the score on the other tables by the procedure in
`harness.metrics.tables.semantic_fit`, score the held-out table's extractions with them, and
correlate the pooled held-out scores with the ratings (CIs by resampling whole tables, since
the extractions of one table are not independent of each other).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
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
    from harness.core.files import read_json

    data = read_json(path)
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of ground-truth tables")
    pairs = []
    for n, gt in enumerate(data):
        try:
            pairs += _pairs_of(gt)
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{path}: ground truth #{n + 1} is not in the table-metric-study format "
                             f"({type(exc).__name__}: {exc}); expected gt_table and extractions[] with "
                             "extracted_table and human_scores") from None
    if not pairs:
        raise ValueError(f"{path}: no rated, non-empty extraction found")
    return pairs


def _pairs_of(gt: dict) -> list[RatedPair]:
    """The rated, non-empty extractions of one ground truth (raises on a wrong shape)."""
    if not isinstance(gt, dict) or not isinstance(gt["gt_table"], str):
        raise TypeError("a ground truth must be an object with a string gt_table")
    pairs = []
    for ext in gt.get("extractions") or []:
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
                               human=float(np.mean([float(h) for h in humans])), stored=stored))
    return pairs


def correlate(metric: Iterable[float], human: Iterable[float], n_boot: int = 1000, seed: int = 0,
              groups: Sequence[str] | None = None) -> dict:
    """Pearson, Spearman, Kendall tau-b of `metric` vs `human`, with bootstrap 95% CIs.

    With `groups` (e.g. the ground-truth table of each pair) the bootstrap resamples whole
    groups, not pairs: pairs of one table share its difficulty, so they are not independent.
    """
    x = np.asarray(list(metric), dtype=float)
    y = np.asarray(list(human), dtype=float)
    if x.shape != y.shape or x.size < 3:
        raise ValueError("correlation needs two equally long series of at least 3 values")
    point = _correlations(x, y)
    rng = np.random.default_rng(seed)
    if groups is None:
        idx = list(rng.integers(0, x.size, size=(n_boot, x.size)))
    else:
        labels = np.asarray(list(groups), dtype=object)
        members = [np.flatnonzero(labels == g) for g in dict.fromkeys(labels.tolist())]
        idx = [np.concatenate([members[k] for k in rng.integers(0, len(members), size=len(members))])
               for _ in range(n_boot)]
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
    from harness.metrics.tables.registry import HEADLINE, METRICS, SCALE

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
    from harness.readers.text import read_lines
    from harness.core.table import NoTableError

    gt = read_latex(gt_latex)[0]
    try:
        candidates = read_tables(extraction)
    except NoTableError:
        try:  # no grid: its lines, as the locator gives a table's run of plain lines
            return gt, read_lines(extraction)
        except NoTableError:
            return gt, None
    return gt, max(candidates, key=lambda t: len(t.cells()))


def cross_validate(pairs: list[RatedPair], n_boot: int = 1000, seed: int = 0) -> dict:
    """Leave-one-ground-truth-table-out cross-validation of the semantic score (see the module docstring).

    For each ground-truth table: `semantic_fit.fit` chooses every constant (key_weight and the
    weights) on the pairs of the other tables; the held-out table's pairs are scored with them.
    Returns the pooled held-out correlations (`cv`, CIs resampling tables), the per-fold choices
    and errors (`folds`), the held-out bias and mean absolute error per complexity, and for
    comparison the in-sample correlation of a fit on all pairs and that of `semantic.DEFAULT`.
    """
    from harness.metrics.tables.semantic import DEFAULT
    from harness.metrics.tables.semantic_fit import KEY_WEIGHTS, fit, predict

    human = np.asarray([p.human for p in pairs])
    tables = np.asarray([p.gt_id for p in pairs], dtype=object)
    if len(set(tables.tolist())) < 3:
        raise ValueError("cross-validation needs rated extractions of at least 3 ground-truth tables")
    features = semantic_features(pairs, sorted({*KEY_WEIGHTS, DEFAULT.key_weight}))
    grid = {kw: features[kw] for kw in KEY_WEIGHTS}
    held_out = np.zeros(len(pairs))
    folds = []
    for table in dict.fromkeys(tables.tolist()):
        test = tables == table
        train = {kw: [f for f, t in zip(fs, test) if not t] for kw, fs in grid.items()}
        params, train_mse = fit(train, human[~test], tables[~test].tolist())
        scores = predict([f for f, t in zip(features[params.key_weight], test) if t], np.asarray(params.weights))
        held_out[test] = scores
        within = _correlations(scores, human[test]) if test.sum() >= 3 else {}
        folds.append({"table": table, "n": int(test.sum()), "key_weight": params.key_weight,
                      "weights": [round(w, 4) for w in params.weights], "train_rmse": float(np.sqrt(train_mse)),
                      "pearson": _finite(within.get("pearson")),
                      "mae": float(np.mean(np.abs(scores - human[test]))),
                      "bias": float(np.mean(scores - human[test]))})
    params_all, _ = fit(grid, human, tables.tolist())
    in_sample = predict(features[params_all.key_weight], np.asarray(params_all.weights))
    default = predict(features[DEFAULT.key_weight], np.asarray(DEFAULT.weights))
    groups = tables.tolist()
    complexity = {}
    for name in dict.fromkeys(p.complexity for p in pairs):
        m = np.asarray([p.complexity == name for p in pairs])
        complexity[name] = {"n": int(m.sum()), "human_mean": float(human[m].mean()),
                            "cv_mean": float(held_out[m].mean()), "bias": float((held_out[m] - human[m]).mean()),
                            "mae": float(np.abs(held_out[m] - human[m]).mean())}
    return {
        "cv": {**correlate(held_out, human, n_boot, seed, groups=groups),
               "mae": float(np.mean(np.abs(held_out - human))), "bias": float(np.mean(held_out - human))},
        "in_sample": correlate(in_sample, human, n_boot, seed, groups=groups),
        "default": correlate(default, human, n_boot, seed, groups=groups),
        "params_all": {"key_weight": params_all.key_weight, "weights": [round(w, 4) for w in params_all.weights]},
        "complexity": complexity,
        "folds": folds,
        "scores": held_out.tolist(),
    }


def semantic_features(pairs: list[RatedPair], key_weights: Iterable[float]) -> dict[float, list]:
    """Per key_weight: each pair's semantic feature rows (one per reading; None: no table read)."""
    from harness.metrics.tables.semantic import comparisons

    read = [_read_pair(p.gt_latex, p.extraction) for p in pairs]
    return {kw: [None if pred is None else np.stack([c.features for c in comparisons(gt, pred, kw)])
                 for gt, pred in read] for kw in key_weights}


def _finite(value: float | None) -> float | None:
    return None if value is None or not np.isfinite(value) else float(value)


def cv_report(result: dict) -> str:
    """`cross_validate`'s result as a short plain-text report: pooled held-out, in-sample and
    shipped-constant correlations with their table-bootstrap CIs, scale use per complexity, folds."""
    lines = [f"Semantic score, leave-one-ground-truth-table-out ({len(result['folds'])} folds, "
             f"{result['cv']['n']} pairs; 95% CIs resample tables)", ""]
    lines.append(f"{'':<34}{'Pearson':>8} {'95% CI':>16} {'Spearman':>9} {'95% CI':>16} {'Kendall':>8}")
    for key, label in (("cv", "cross-validated (held-out tables)"), ("in_sample", "in-sample (fit on all tables)"),
                       ("default", "shipped constants (in-sample)")):
        r = result[key]
        lines.append(f"{label:<34}{r['pearson']:>8.3f} {_ci(r, 'pearson'):>16} {r['spearman']:>9.3f} "
                     f"{_ci(r, 'spearman'):>16} {r['kendall']:>8.3f}")
    cv = result["cv"]
    lines += ["", f"held-out scale use: mean abs. error {cv['mae']:.2f}, bias {cv['bias']:+.2f} (score - human)"]
    for name, c in result["complexity"].items():
        lines.append(f"  {name:<9} n={c['n']:<4} human {c['human_mean']:.2f}  held-out {c['cv_mean']:.2f}  "
                     f"bias {c['bias']:+.2f}  MAE {c['mae']:.2f}")
    lines += ["", f"fit on all tables: key_weight {result['params_all']['key_weight']}, weights "
              f"{result['params_all']['weights']}", "",
              f"{'fold (held-out table)':<22}{'n':>4}{'key_w':>7}{'Pearson':>9}{'MAE':>6}{'bias':>7}  weights"]
    for f in result["folds"]:
        r = "-" if f["pearson"] is None else f"{f['pearson']:.3f}"
        lines.append(f"{f['table']:<22}{f['n']:>4}{f['key_weight']:>7}{r:>9}{f['mae']:>6.2f}{f['bias']:>+7.2f}  "
                     f"{f['weights']}")
    return "\n".join(lines)


def _ci(r: dict, name: str) -> str:
    lo, hi = r["ci95"][name]
    return "-" if lo is None else f"[{lo:.3f}, {hi:.3f}]"
