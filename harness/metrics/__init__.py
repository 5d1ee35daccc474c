"""Metrics: pure functions of (ground truth, prediction) -> score. Rule metrics in [0, 1]."""

from harness.metrics.teds import teds
from harness.metrics.grits import grits
from harness.metrics.tlag import tlag
from harness.metrics.semantic import semantic
