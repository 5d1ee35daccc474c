"""GriTS speed on realistic generated pairs of 5x5 to 60x20 slots, HTML in.

table-transformer's `grits_from_html` takes about 0.3 s on a 10x10 pair and 4 s on 20x20
(its 60x20 conformance pair took ~120 s with the other reference metrics);
`extra_info["x_vs_reference"]` records the speed-up where a reference time is known.
Run: python -m pytest -p no:xdist --benchmark-only --benchmark-enable tests/benchmarks/test_bench_grits.py
"""

from __future__ import annotations

import pytest

from tablebench.metrics.tables.grits import grits_details
from tests.benchmarks.pairs import realistic_pair

REFERENCE_SECONDS = {(10, 10): 0.3, (20, 20): 4.0}


@pytest.mark.parametrize("shape", [(5, 5), (10, 10), (20, 20), (40, 40), (60, 20)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_bench_grits_html(benchmark, shape: tuple[int, int]) -> None:
    gt, pred = realistic_pair(*shape, seed=sum(shape))
    assert gt.shape == shape and pred.shape == (shape[0] - 1, shape[1])
    gt_html, pred_html = gt.to_html(), pred.to_html()
    expected = grits_details(gt, pred)  # also warms up the compiled kernels
    result = benchmark(grits_details, gt_html, pred_html)
    assert result == expected
    assert 0.5 < result["con"] < 1.0 and 0.5 < result["top"] < 1.0
    assert result["precision_con"] > result["recall_con"]  # a dropped row costs recall
    if shape in REFERENCE_SECONDS and benchmark.stats is not None:
        benchmark.extra_info["x_vs_reference"] = round(REFERENCE_SECONDS[shape] / benchmark.stats["mean"], 1)
