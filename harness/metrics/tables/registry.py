"""Metric names as the CLI and the plugin know them, each mapped to the scores it yields.

`--metrics teds,grits` selects groups; every group yields one or more flat, named floats
(rule metrics in [0, 1], `semantic` on the 0-10 scale) so results travel as plain data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from harness.core.table import Table

ScoreFn = Callable[[Table, Table], dict[str, float]]


def _teds(gt: Table, pred: Table) -> dict[str, float]:
    from harness.metrics.tables.teds import teds

    return {"teds": teds(gt, pred)}


def _teds_struct(gt: Table, pred: Table) -> dict[str, float]:
    from harness.metrics.tables.teds import teds

    return {"teds_struct": teds(gt, pred, structure_only=True)}


def _grits(gt: Table, pred: Table) -> dict[str, float]:
    from harness.metrics.tables.grits import grits

    return {f"grits_{k}": float(v) for k, v in grits(gt, pred).items()}


def _tlag(gt: Table, pred: Table) -> dict[str, float]:
    from harness.metrics.tables.tlag import tlag

    r = tlag(gt, pred)
    return {"tlag": float(r["f1"]), "tlag_precision": float(r["precision"]), "tlag_recall": float(r["recall"])}


def _semantic(gt: Table, pred: Table) -> dict[str, float]:
    return _semantic_detailed(gt, pred)[0]


def _semantic_detailed(gt: Table, pred: Table) -> tuple[dict[str, float], dict[str, list[str]]]:
    from harness.metrics.tables.semantic import semantic

    result = semantic(gt, pred)
    return {"semantic": float(result.score)}, {"semantic": list(result.errors[:MAX_NOTES])}


METRICS: dict[str, ScoreFn] = {
    "teds": _teds,
    "teds_struct": _teds_struct,
    "grits": _grits,
    "tlag": _tlag,
    "semantic": _semantic,
}
DEFAULT_METRICS = tuple(METRICS)  # every offline metric
# Groups that also explain their score in words (e.g. semantic's main errors), for reports.
DETAILED: dict[str, Callable[[Table, Table], tuple[dict[str, float], dict[str, list[str]]]]] = {
    "semantic": _semantic_detailed,
}
MAX_NOTES = 5  # explanations kept per group, most severe first

# The headline value of each group, for leaderboards and meta-evaluation.
HEADLINE = {"teds": "teds", "teds_struct": "teds_struct", "grits": "grits_con", "tlag": "tlag",
            "semantic": "semantic"}
# Scale of each headline value: the report shows all of them on 0-1.
SCALE = {"semantic": 10.0}


def parse_metric_list(spec: str | Iterable[str] | None) -> list[str]:
    """'teds,grits' -> ['teds', 'grits']; unknown names give a one-line error listing the known ones."""
    if spec is None:
        return list(DEFAULT_METRICS)
    names = [n.strip() for n in (spec.split(",") if isinstance(spec, str) else spec) if n.strip()]
    unknown = [n for n in names if n not in METRICS]
    if unknown:
        raise ValueError(f"unknown metric(s) {', '.join(unknown)}; known: {', '.join(METRICS)}")
    return names


def score(gt: Table, pred: Table, metrics: Iterable[str]) -> dict[str, float]:
    """All values of the selected metric groups for one (ground truth, prediction) pair."""
    out: dict[str, float] = {}
    for name in metrics:
        out.update(METRICS[name](gt, pred))
    return out


def score_details(gt: Table, pred: Table, metrics: Iterable[str]) -> tuple[dict[str, float], dict[str, list[str]]]:
    """Like `score`, plus {group: [explanations]} from the groups that give them (semantic's errors)."""
    scores: dict[str, float] = {}
    notes: dict[str, list[str]] = {}
    for name in metrics:
        if name in DETAILED:
            values, words = DETAILED[name](gt, pred)
            notes.update(words)
        else:
            values = METRICS[name](gt, pred)
        scores.update(values)
    return scores, notes
