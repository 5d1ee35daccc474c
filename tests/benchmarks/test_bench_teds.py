"""TEDS speed on realistic pairs: the reference takes ~3 s at 10x10 and ~34 s at 20x20.

Pairs come from `tests/benchmarks/pairs.py`, shared by the metric benchmarks.
Run: `.venv/bin/python -m pytest -p no:xdist --benchmark-only --benchmark-enable tests/benchmarks/test_bench_teds.py`
"""

from __future__ import annotations

import pytest

from tablebench.core.table import Cell, Table
from tablebench.metrics import teds
from tests.benchmarks.pairs import realistic_pair

REFERENCE_SECONDS = {(10, 10): 3.0, (20, 20): 34.0}  # published in the task brief
LIMIT_SECONDS = {(60, 20): 0.5}


def _pair(n_rows: int, n_cols: int) -> tuple[Table, Table]:
    return realistic_pair(n_rows, n_cols, seed=n_rows * 1000 + n_cols)


@pytest.mark.parametrize("structure_only", [False, True], ids=["content", "structure"])
@pytest.mark.parametrize("shape", [(4, 4), (10, 10), (20, 20), (60, 20)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_bench_teds(benchmark, shape: tuple[int, int], structure_only: bool) -> None:
    gt, pred = _pair(*shape)
    teds(gt, pred, structure_only=structure_only)  # JIT warm-up stays out of the timing
    value = benchmark(teds, gt, pred, structure_only=structure_only)
    assert 0.5 < value < 1.0
    mean = benchmark.stats.stats.mean
    if shape in REFERENCE_SECONDS:
        benchmark.extra_info["speedup_vs_reference"] = round(REFERENCE_SECONDS[shape] / mean)
        assert mean * 100 < REFERENCE_SECONDS[shape]
    if shape in LIMIT_SECONDS:
        assert mean < LIMIT_SECONDS[shape]


def test_bench_teds_identical(benchmark) -> None:
    gt, _ = _pair(10, 10)
    copy = Table([[Cell(c.text, c.rowspan, c.colspan) for c in row] for row in gt.rows])
    assert benchmark(teds, gt, copy) == 1.0
