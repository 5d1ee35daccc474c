"""Meta-evaluation: how well does each metric agree with human ratings, for every kind of item?

One engine for the table and the formula metric studies. A study file holds rated pairs (a
ground truth, an extraction, several human ratings, the study's stored metric and judge
scores); the engine pools the pairs of one or more files, averages the human ratings and
correlates every stored score and each of ours with them: Pearson, Spearman and Kendall
tau-b, each with a percentile-bootstrap 95% confidence interval (fixed seed).

Cross-validation measures a tuned score honestly: leave one ground truth out, choose every
tunable constant of the score on the other ground truths, score the held-out one's pairs
with them, and correlate the pooled held-out scores with the ratings.

What differs between kinds (reading the study format, our scorers, how a score's constants
are fitted) is a `Kind`, defined next to its kind: `metaeval_tables.TABLES`,
`metaeval_formulas.FORMULAS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

from tablebench.core.files import read_json
from tablebench.core.options import DEFAULT_JUDGE_TIMEOUT, DEFAULT_MAX_ANSWER_MB
from tablebench.evaluate.progress import Progress, no_progress

CORRELATIONS = ("pearson", "spearman", "kendall")


@dataclass(slots=True)
class RatedPair:
    """One (ground truth, extraction) pair with its mean human rating and stored scores."""

    gt_id: str
    gt: str
    extraction: str
    human: float
    stored: dict[str, float] = field(default_factory=dict)
    complexity: str = ""
    parser: str = ""
    reference: str = "human"  # what `human` holds: the mean human rating, or a stored judge's score (`judge:NAME`)
    page: str = ""  # the page of a judged pair's table: its tables are held out together

    @property
    def unit(self) -> str:
        """What a cross-validation holds out together: a judged pair's page (one parser read the
        page's tables alike, so a rule fitted on one of them is not tested on its neighbours), a
        rated pair's ground truth."""
        return self.page or self.gt_id


Scorer = Callable[[str, str], float | None]  # None: no score for this pair (left out of the correlation)
TABLE_METRICS = "semantic,teds,grits,tlag"  # the default: semantic is the headline score, the others for comparison


@dataclass(frozen=True, slots=True)
class Options:
    """The choices of `tablebench meta-eval` that a kind may use (defaults as the command's)."""

    metrics: str = TABLE_METRICS  # tables: our metrics to recompute
    judge: str | None = None  # an LLM judge to correlate too (litellm model string)
    judge_variant: str = "tuned"
    judge_timeout: float = DEFAULT_JUDGE_TIMEOUT  # seconds of one judge question
    judge_max_answer: float = DEFAULT_MAX_ANSWER_MB  # MB of one judge answer
    llm_cache: str | None = ".tablebench-cache/judge"
    api_base: str | None = None
    render: bool = True  # formulas: the rendered score, when pdflatex is installed
    cv: bool = False  # the full cross-validation report instead of the agreement table
    n_boot: int = 1000
    seed: int = 0


@dataclass(frozen=True, slots=True)
class Fit:
    """A score whose constants are chosen from rated pairs: how, for one kind.

    `fit(features, human, groups, rows)` chooses the constants on the pairs where the boolean
    mask `rows` is true (`human` and `groups` cover all pairs) and returns them with their
    training error (mean squared); `predict(features, params, rows)` scores the `rows` pairs;
    `describe(params)` is what a report shows of them; `shipped` are the score's own constants.
    """

    features: Callable[[list[RatedPair]], Any]
    fit: Callable[[Any, np.ndarray, np.ndarray, np.ndarray], tuple[Any, float]]
    predict: Callable[[Any, Any, np.ndarray], np.ndarray]
    describe: Callable[[Any], dict]
    shipped: Any


@dataclass(frozen=True, slots=True)
class Kind:
    """What one kind of item's study needs beyond the engine.

    `read_pairs(data, path)` gives the rated pairs of one file's JSON (a one-line `ValueError`
    naming `path` for another shape); `check(options)` refuses options the kind cannot honour
    before anything is read; `scorers(pairs, options)` are ours, by name. The cross-validated
    score is either always a row of the agreement table (`cv_row`, its name) or, with `--cv`,
    a full report of its own (`cv_report`, the text form of `cross_validate`).
    """

    item: str  # "table", "formula": the ground truth a fold holds out
    title: str  # of the agreement table; {n} is the number of pairs, {reference} what they are rated by
    is_study: Callable[[object], bool]
    read_pairs: Callable[[object, str], list[RatedPair]]
    check: Callable[[Options], None]
    scorers: Callable[[list[RatedPair], Options], dict[str, Scorer]]
    fit: Fit
    drop_sparse_scorers: bool  # leave out a scorer with fewer than 3 scores (else: an error)
    cv_row: str | None = None
    cv_report: Callable[[dict], str] | None = None
    # pairs by what differs in them (the formula study: meaning edits, notation edits, mixed):
    # the cv row is given per class too, with its mean beside the ratings' mean
    classes: Callable[[list[RatedPair]], dict[str, np.ndarray]] | None = None

    def reports_cv(self, options: Options) -> bool:
        """True when `meta_eval` gives the full cross-validation (`--cv`, for a kind with that report)."""
        return options.cv and self.cv_report is not None


def kind_of(path: str | Path, kinds: Sequence[Kind]) -> Kind:
    """The first of `kinds` whose study format the file has; else the last (its reader says what is wrong)."""
    data = read_json(path)
    return next((kind for kind in kinds if kind.is_study(data)), kinds[-1])


def load_pairs(kind: Kind, paths: Sequence[str | Path]) -> list[RatedPair]:
    """The rated pairs of one or more files of a study, pooled in file order.

    With several files, each ground-truth id is prefixed with its file's name (`dev2/T01`),
    so that the ground truths of different files stay apart (folds, group bootstrap).
    """
    if not paths:
        raise ValueError("no study file given")
    stems = [Path(p).stem for p in paths]
    if len(set(stems)) < len(stems):
        raise ValueError(f"study files must have distinct names to be pooled: {', '.join(map(str, paths))}")
    pooled: list[RatedPair] = []
    for path, stem in zip(paths, stems):
        pairs = kind.read_pairs(read_json(path), str(path))
        if len(paths) > 1:
            for pair in pairs:
                pair.gt_id = f"{stem}/{pair.gt_id}"
                pair.page = f"{stem}/{pair.page}" if pair.page else ""
        pooled += pairs
    return pooled


def stored_scores(metrics: dict | None, judges: list | None) -> dict[str, float]:
    """A study's stored metric values and judge scores by name (`judge:MODEL`); null: not computed."""
    stored = {name: float(v) for name, v in (metrics or {}).items() if v is not None}
    for judge in judges or []:
        if judge.get("score") is not None:
            stored[f"judge:{judge['judge_model']}"] = float(judge["score"])
    return stored


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


def meta_evaluate(pairs: list[RatedPair], scorers: dict[str, Scorer] | None = None,
                  n_boot: int = 1000, seed: int = 0, drop_sparse_scorers: bool = False,
                  progress: Progress = no_progress) -> dict[str, dict]:
    """Correlations for every stored metric/judge in the pairs and for each of `scorers`.

    A scorer takes (ground truth, raw extraction) and returns a score, or None to abstain (a
    judge call that failed); ours are listed with an `ours:` prefix so they sit beside the
    study's stored values. A stored score needs 3 pairs to be listed; a scorer of ours with
    fewer is an error, or left out with `drop_sparse_scorers`. `progress` hears of each pair
    scored and each score correlated.
    """
    names = sorted({name for p in pairs for name in p.stored})
    series: dict[str, list[tuple[float, float, str]]] = {}
    for name in names:
        rated = [(p.stored[name], p.human, p.gt_id) for p in pairs if name in p.stored]
        if len(rated) >= 3:
            series[name] = rated
    for name, scorer in (scorers or {}).items():
        rated = []
        progress(f"scoring ours:{name}", 0, len(pairs))
        for i, p in enumerate(pairs, 1):
            if (x := scorer(p.gt, p.extraction)) is not None:
                rated.append((x, p.human, p.gt_id))
            progress(f"scoring ours:{name}", i, len(pairs))
        if len(rated) >= 3 or not drop_sparse_scorers:
            series[f"ours:{name}"] = rated
    results: dict[str, dict] = {}
    progress("correlating (bootstrap)", 0, len(series))
    for i, (name, rated) in enumerate(series.items(), 1):
        xs, ys, gs = zip(*rated) if rated else ((), (), ())
        # the pairs of one ground truth share its difficulty: the CI resamples ground truths
        results[name] = correlate(xs, ys, n_boot=n_boot, seed=seed, groups=gs if len(set(gs)) >= 3 else None)
        progress("correlating (bootstrap)", i, len(series))
    return results


def meta_eval(kind: Kind, pairs: list[RatedPair], options: Options, progress: Progress = no_progress) -> dict:
    """What `tablebench meta-eval` reports: the `cross_validate` result (with `options.cv`, for
    a kind with a CV report), else the agreement of every stored score and ours with the
    ratings, plus the cross-validated score for a kind that always lists it."""
    if kind.reports_cv(options):
        return cross_validate(pairs, kind, options.n_boot, options.seed, progress=progress)
    results = meta_evaluate(pairs, kind.scorers(pairs, options), options.n_boot, options.seed,
                            drop_sparse_scorers=kind.drop_sparse_scorers, progress=progress)
    if kind.cv_row is not None:
        scores, _ = held_out_scores(pairs, kind.fit, progress=progress)
        human = np.asarray([p.human for p in pairs])
        results[kind.cv_row] = correlate(scores, human, n_boot=options.n_boot, seed=options.seed)
        for name, m in split_masks([p.gt_id for p in pairs]).items():  # the same held-out scores, per file
            results[f"{kind.cv_row} ({name})"] = correlate(scores[m], human[m], n_boot=options.n_boot, seed=options.seed)
        for name, m in (kind.classes(pairs) if kind.classes else {}).items():
            if m.sum() >= 3:
                results[f"{kind.cv_row} [{name}]"] = {
                    **correlate(scores[m], human[m], n_boot=options.n_boot, seed=options.seed),
                    "mean": float(scores[m].mean()), "reference_mean": float(human[m].mean())}
    return results


def split_masks(groups: list[str]) -> dict[str, np.ndarray]:
    """Per file of a pooled study (the `file/` prefix `load_pairs` gives ground-truth ids), its
    pairs, where it has at least 3; empty for a single file."""
    out = {}
    for name in dict.fromkeys(g.split("/", 1)[0] for g in groups if "/" in g):
        m = np.asarray([g.startswith(name + "/") for g in groups])
        if m.sum() >= 3:
            out[name] = m
    return out


def held_out_scores(pairs: list[RatedPair], fit: Fit, features: Any = None,
                    progress: Progress = no_progress) -> tuple[np.ndarray, list[tuple]]:
    """Each unit's pairs (`RatedPair.unit`: a judged page, a rated ground truth) scored with
    constants fitted on the other units' pairs.

    Returns the held-out scores and, per unit in order of first appearance,
    (its id, its pairs' mask, the constants fitted without it, their training error).
    """
    features = fit.features(pairs) if features is None else features
    human = np.asarray([p.human for p in pairs])
    groups = np.asarray([p.unit for p in pairs], dtype=object)
    scores = np.zeros(len(pairs))
    folds = []
    ids = list(dict.fromkeys(groups.tolist()))
    progress("cross-validation folds", 0, len(ids))
    for i, gt_id in enumerate(ids, 1):
        test = groups == gt_id
        params, train_mse = fit.fit(features, human, groups, ~test)
        scores[test] = fit.predict(features, params, test)
        folds.append((gt_id, test, params, train_mse))
        progress("cross-validation folds", i, len(ids))
    return scores, folds


def cross_validate(pairs: list[RatedPair], kind: Kind, n_boot: int = 1000, seed: int = 0,
                   progress: Progress = no_progress) -> dict:
    """Leave-one-unit-out cross-validation of `kind`'s tuned score, in full: a unit is a rated
    ground truth, or a judged page with all its tables (`RatedPair.unit`).

    Returns the pooled held-out correlations (`cv`, CIs resampling units, since the
    pairs of one are not independent of each other), the per-fold choices and errors
    (`folds`), the held-out bias and mean absolute error per complexity, and for comparison
    the in-sample correlation of a fit on all pairs and that of the shipped constants.
    """
    human = np.asarray([p.human for p in pairs])
    groups = np.asarray([p.unit for p in pairs], dtype=object)
    if len(set(groups.tolist())) < 3:
        raise ValueError(f"cross-validation needs rated extractions of at least 3 ground-truth {kind.item}s")
    fit = kind.fit
    features = fit.features(pairs)
    held_out, fold_fits = held_out_scores(pairs, fit, features, progress=progress)
    folds = []
    for gt_id, test, params, train_mse in fold_fits:
        scores = held_out[test]
        within = _correlations(scores, human[test]) if test.sum() >= 3 else {}
        folds.append({"table": gt_id, "n": int(test.sum()), **fit.describe(params),
                      "train_rmse": float(np.sqrt(train_mse)), "pearson": _finite(within.get("pearson")),
                      "mae": float(np.mean(np.abs(scores - human[test]))),
                      "bias": float(np.mean(scores - human[test])), "human_sd": float(np.std(human[test]))})
    every = np.ones(len(pairs), dtype=bool)
    params_all, _ = fit.fit(features, human, groups, every)
    in_sample = fit.predict(features, params_all, every)
    shipped = fit.predict(features, fit.shipped, every)
    group_list = groups.tolist()
    complexity = {}
    for name in dict.fromkeys(p.complexity for p in pairs):
        m = np.asarray([p.complexity == name for p in pairs])
        within = correlate(held_out[m], human[m], n_boot, seed, groups=groups[m].tolist()) if m.sum() >= 3 else {}
        complexity[name] = {"n": int(m.sum()), "human_mean": float(human[m].mean()),
                            "pearson": _finite(within.get("pearson")), "ci95": within.get("ci95", {}),
                            "cv_mean": float(held_out[m].mean()), "bias": float((held_out[m] - human[m]).mean()),
                            "mae": float(np.abs(held_out[m] - human[m]).mean()),
                            "judges": _judge_bias([p for p, keep in zip(pairs, m) if keep])}
    return {
        "splits": {name: {**correlate(held_out[m], human[m], n_boot, seed, groups=groups[m].tolist()),
                          "reference": _reference_of([p for p, keep in zip(pairs, m) if keep]),
                          "shipped": correlate(shipped[m], human[m], n_boot, seed, groups=groups[m].tolist())}
                   for name, m in split_masks(group_list).items()},
        "pooled": {name: {**correlate(held_out[m], human[m], n_boot, seed, groups=groups[m].tolist()),
                          "reference": _reference_of([p for p, keep in zip(pairs, m) if keep]),
                          "shipped": correlate(shipped[m], human[m], n_boot, seed, groups=groups[m].tolist())}
                   for name, m in pooled_masks(pairs).items()},
        "cells": parser_cells(pairs, held_out, shipped),
        "parsers": parser_agreement(pairs, held_out, n_boot, seed),
        "cv": {**correlate(held_out, human, n_boot, seed, groups=group_list),
               "mae": float(np.mean(np.abs(held_out - human))), "bias": float(np.mean(held_out - human))},
        "in_sample": correlate(in_sample, human, n_boot, seed, groups=group_list),
        "default": correlate(shipped, human, n_boot, seed, groups=group_list),
        "params_all": fit.describe(params_all),
        "complexity": complexity,
        "folds": folds,
        "scores": held_out.tolist(),
    }


def pooled_masks(pairs: list[RatedPair]) -> dict[str, np.ndarray]:
    """The pools an acceptance figure is read on, where the pairs mix both references: every judged
    pair together (all pages, all parsers), every rated pair together, and the rated pairs of simple
    tables (where a score that only separates wrecks from good tables shows). Each needs 3 pairs."""
    judged = np.asarray([p.reference != "human" for p in pairs])
    simple = np.asarray([p.complexity == "simple" for p in pairs])
    masks = {"judged pairs, all pages": judged, "rated pairs, all tables": ~judged,
             "rated pairs, simple tables": ~judged & simple}
    if not judged.any():  # rated pairs only: the pooled figures are the whole one, but for simple tables
        masks = {"rated pairs, simple tables": simple}
    elif judged.all():  # judged pairs only: the whole figure is the pooled one
        masks = {}
    return {name: m for name, m in masks.items() if m.sum() >= 3}


def _reference_of(pairs: list[RatedPair]) -> str:
    """What the pairs' reference ratings are: "human", a stored judge's name, or "mixed"."""
    refs = {p.reference for p in pairs}
    return refs.pop() if len(refs) == 1 else "mixed"


def agreement_title(kind: Kind, pairs: list[RatedPair]) -> str:
    """The agreement table's title (`Kind.title`) naming what the metrics are compared with:
    "human ratings", "the judge (judge:MODEL)" when every pair's reference is a stored judge's
    score, or "human ratings and stored judges" for a mix (the judged pairs of the table study)."""
    reference = _reference_of(pairs)
    said = {"human": "human ratings", "mixed": "human ratings and stored judges"}.get(reference,
                                                                                     f"the judge ({reference})")
    return kind.title.format(n=len(pairs), reference=said)


def parser_cells(pairs: list[RatedPair], held_out: np.ndarray, shipped: np.ndarray) -> list[dict]:
    """Per (parser, complexity) of the pairs rated by a stored judge (the judged pairs: the
    built-in parsers' outputs): n, the judge's mean, the held-out and the shipped score's means.
    A leaderboard ranks parsers by such means, so the score must use the scale as the judge does
    in each cell, not only rank pairs alike."""
    cells: dict[tuple[str, str], list[int]] = {}
    for i, p in enumerate(pairs):
        if p.reference != "human":
            cells.setdefault((p.parser, p.complexity), []).append(i)
    human = np.asarray([p.human for p in pairs])
    return [{"parser": parser, "complexity": complexity, "n": len(idx), "reference_mean": float(human[idx].mean()),
             "cv_mean": float(held_out[idx].mean()), "shipped_mean": float(shipped[idx].mean())}
            for (parser, complexity), idx in sorted(cells.items())]


def parser_agreement(pairs: list[RatedPair], held_out: np.ndarray, n_boot: int, seed: int) -> dict[str, dict]:
    """Per parser of the judged pairs: the held-out score's correlation with the judge (CIs
    resample units) and its mean difference, so a rule that helps one parser and hurts another
    shows."""
    out = {}
    for parser in sorted({p.parser for p in pairs if p.reference != "human"}):
        m = np.asarray([p.reference != "human" and p.parser == parser for p in pairs])
        if m.sum() < 3:
            continue
        units = [p.unit for p, keep in zip(pairs, m) if keep]
        reference = np.asarray([p.human for p in pairs])[m]
        out[parser] = {**correlate(held_out[m], reference, n_boot, seed, groups=units),
                       "diff": float(np.mean(held_out[m] - reference))}
    return out


def _judge_bias(pairs: list[RatedPair]) -> dict[str, float]:
    """Each stored LLM judge's mean minus the human mean over the pairs it scored (0-10 both): a
    judge may use the scale unlike raters, more on some complexities than on others."""
    out = {}
    for name in sorted({k for p in pairs for k in p.stored if k.startswith("judge:")}):
        rated = [(p.stored[name], p.human) for p in pairs if name in p.stored]
        out[name] = float(np.mean([j - h for j, h in rated]))
    return out


def _finite(value: float | None) -> float | None:
    return None if value is None or not np.isfinite(value) else float(value)
