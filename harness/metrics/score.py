"""Score one (ground truth, prediction) pair with selected metric specs, for any item kind."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from tablebench.core.kinds import ORIGINAL_KIND
from tablebench.core.metric_specs import MetricSpec, Scored, defaults_of, spec, specs_of


def score_pair(gt: Any, pred: Any, metrics: Iterable[MetricSpec | str]) -> tuple[dict[str, float], list[str]]:
    """(every value of the selected groups, their explanations in words, worst first)."""
    scored = score_details(gt, pred, metrics)
    return scored.values, list(scored.notes)


def score_details(gt: Any, pred: Any, metrics: Iterable[MetricSpec | str]) -> Scored:
    """Every selected scorer's answer in one `Scored`: the values, the notes (in the scorers' order),
    the evidence for the item's card and the groups not computed, with why."""
    scores: dict[str, float] = {}
    notes: list[str] = []
    evidence: dict = {}
    not_computed: dict[str, str] = {}
    for metric in metrics:
        scored = (spec(metric) if isinstance(metric, str) else metric).scorer()(gt, pred)
        scores.update(scored.values)
        notes.extend(scored.notes)
        evidence.update(scored.evidence or {})
        not_computed.update(scored.not_computed or {})
    return Scored(scores, tuple(notes), evidence, not_computed)


def score_values(gt: Any, pred: Any, metrics: Sequence[MetricSpec | str]) -> dict[str, float]:
    """The values only (what meta-evaluation and the library API want)."""
    return score_pair(gt, pred, metrics)[0]


def score(gt: Any, pred: Any, metrics: Iterable[str] | None = None, *, kind: str = ORIGINAL_KIND) -> dict[str, float]:
    """Every value of the named metric groups of `kind` (default: the kind's default metrics) for one
    pair: the library's one call to score a table (`Table`s) or a formula (LaTeX strings)."""
    own = {s.name: s for s in specs_of(kind)}
    names = list(metrics) if metrics is not None else defaults_of(kind)
    unknown = [n for n in names if n not in own]
    if unknown:
        raise ValueError(f"unknown {kind} metric(s) {', '.join(unknown)}; known: {', '.join(own)}")
    return score_values(gt, pred, [own[n] for n in names])
