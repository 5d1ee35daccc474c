"""Metrics: functions of (ground truth, prediction) -> score, for every item kind.

All of them are pure and offline but the LLM judge (`tablebench.metrics.judge`), which asks a model
through `tablebench.core.llm` (cached, so a rerun asks nothing).

Rule metrics (TEDS, GriTS, T-LAG) are in [0, 1] and reproduce their reference
implementations; `semantic` is on the 0-10 scale of human ratings and LLM judges. What each
metric is (kind, scores, scale, defaults) is declared in `tablebench.core.metric_specs`;
`score(gt, pred, names, kind=...)` scores one pair with any of them.
"""

from tablebench.metrics.score import score
from tablebench.metrics.tables.grits import grits
from tablebench.metrics.tables.semantic import semantic
from tablebench.metrics.tables.teds import teds
from tablebench.metrics.tables.tlag import tlag

__all__ = ["grits", "score", "semantic", "teds", "tlag"]
