"""Metrics: pure functions of (ground truth, prediction) -> score.

Rule metrics (TEDS, GriTS, T-LAG) are in [0, 1] and reproduce their reference
implementations; `semantic` is on the 0-10 scale of human ratings and LLM judges.
`registry` maps the names the CLI and plugin use to these functions.
"""

from harness.metrics.tables.grits import grits
from harness.metrics.tables.semantic import semantic
from harness.metrics.tables.teds import teds
from harness.metrics.tables.tlag import tlag

__all__ = ["grits", "semantic", "teds", "tlag"]
