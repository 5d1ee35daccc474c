"""Gate speed: one paired comparison (bootstrap CI + sign-flip permutation test) per run size.

A gate runs once per metric, parser and breakdown row at the end of a session, so its cost
is per run, not per table; these sizes are a case set (441 tables) and a large one.
Run: python -m pytest -p no:xdist --benchmark-only --benchmark-enable tests/benchmarks/test_bench_gate.py
"""

from __future__ import annotations

import numpy as np
import pytest

from tablebench.gating.aggregate import paired_statistics


@pytest.mark.parametrize("n", [441, 5000])
def test_bench_gate_compare(benchmark, n: int) -> None:
    rng = np.random.default_rng(0)
    base = rng.uniform(0.2, 0.9, n)
    run = base + rng.normal(-0.005, 0.03, n)
    stats = benchmark(paired_statistics, base, run, min_effect=0.001)
    assert stats["n"] == n
