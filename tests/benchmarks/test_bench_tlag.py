"""T-LAG speed: realistic generated pairs by size (5x5 to 60x20), a reference conformance pair, a dense worst case.

The reference `tlag_scorer.py` needs about 60 s on a 1,183-cell table (one Python psi
call per edge pair); `extra_info["x_vs_reference_60s"]` records the speed-up against that.
Run: python -m pytest -p no:xdist --benchmark-only --benchmark-enable tests/benchmarks/test_bench_tlag.py
"""

from __future__ import annotations

import json
import random

import pytest

from tablebench.core.table import Table
from tablebench.metrics.tables.tlag import tlag_details
from tablebench.readers.html import table_from_html
from tests.benchmarks.pairs import realistic_pair
from tests.conftest import shared_path

REFERENCE_SECONDS = 60.0
def _run(benchmark, gt: Table, pred: Table) -> dict[str, float]:
    tlag_details(gt, pred)  # warm caches and lazy imports outside the timing
    result = benchmark(tlag_details, gt, pred)
    benchmark.extra_info["cells"] = len(gt.cells())
    benchmark.extra_info["x_vs_reference_60s"] = round(REFERENCE_SECONDS / benchmark.stats.stats.mean)
    return result


@pytest.mark.parametrize(("rows", "cols"), [(5, 5), (10, 10), (20, 20), (40, 40), (60, 20)],
                         ids=["5x5", "10x10", "20x20", "40x40", "60x20"])
def test_bench_tlag_realistic(benchmark, rows: int, cols: int) -> None:
    gt, pred = realistic_pair(rows, cols)
    result = _run(benchmark, gt, pred)
    assert 0.5 < result["f1"] < 1.0


def test_bench_tlag_dense_numeric_1200_cells(benchmark) -> None:
    """Worst case for the solver: equal-length numbers, so every edge pair has nonzero weight."""
    rng = random.Random(1)
    gt = Table.from_rows([[f"{rng.uniform(10, 99):.2f}" for _ in range(20)] for _ in range(60)])
    pred = Table.from_rows([[f"{rng.uniform(10, 99):.2f}" for _ in range(20)] for _ in range(60)])
    result = _run(benchmark, gt, pred)
    assert 0.0 < result["f1"] < 0.5


@pytest.mark.shared
def test_bench_tlag_conformance_large_60x20(benchmark) -> None:
    """The conformance pair `large-3-60x20` (1,111 / 1,091 cells), checked against its reference score."""
    path = shared_path("conformance", "metric_pairs.jsonl")
    pair = next(p for p in map(json.loads, path.read_text(encoding="utf-8").splitlines()) if p["id"].startswith("large-3"))
    gt, pred = table_from_html(pair["gt_html"]), table_from_html(pair["pred_html"])
    result = _run(benchmark, gt, pred)
    assert result["f1"] == pytest.approx(pair["tlag"], abs=1e-9)
