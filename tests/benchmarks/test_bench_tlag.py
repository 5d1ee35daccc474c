"""T-LAG speed: realistic generated pairs by size, a reference conformance pair, a dense worst case.

The reference `tlag_scorer.py` needs about 60 s on a 1,183-cell table (one Python psi
call per edge pair); `extra_info["x_vs_reference_60s"]` records the speed-up against that.
Run: python -m pytest -p no:xdist --benchmark-only --benchmark-enable tests/benchmarks/test_bench_tlag.py
"""

from __future__ import annotations

import json
import random

import pytest

from harness.metrics.tlag import tlag
from harness.table import Cell, Table
from tests.conftest import shared_path

REFERENCE_SECONDS = 60.0
WORDS = ["Model", "Baseline", "Ours", "Accuracy", "F1", "ImageNet", "CIFAR-10", "val", "test", "Params"]


def _value(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.45:
        return f"{rng.uniform(0, 100):.{rng.choice([1, 2, 3])}f}"
    if kind < 0.7:
        return f"{rng.uniform(0, 100):.1f} \u00b1 {rng.uniform(0, 5):.1f}"
    if kind < 0.8:
        return f"{rng.randint(0, 99)}%"
    if kind < 0.93:
        return rng.choice(WORDS)
    return rng.choice(["", "-"])


def _edit(rng: random.Random, text: str) -> str:
    if not text:
        return rng.choice("0123456789")
    i = rng.randrange(len(text))
    return text[:i] + rng.choice("0123456789x.") + text[i + 1 :]


def realistic_pair(rows: int, cols: int, seed: int = 0) -> tuple[Table, Table]:
    """A header row with merged group cells over numeric rows; the prediction has ~5% of
    cells edited, one body row dropped and one merged header cell split into two."""
    rng = random.Random(seed)
    header = [Cell("Method", header=True)] + [Cell(f"Group {i}", colspan=2, header=True) for i in range((cols - 1) // 2)]
    header += [Cell("Notes", header=True)] * ((cols - 1) % 2)
    body = [[Cell(_value(rng)) for _ in range(cols)] for _ in range(rows - 1)]
    gt = Table([header] + body)

    pred_header = [Cell(c.text, colspan=c.colspan, header=True) for c in header]
    pred_header[1:2] = [Cell(pred_header[1].text, header=True), Cell("", header=True)]
    dropped = rng.randrange(len(body))
    pred_body = [[Cell(_edit(rng, c.text) if rng.random() < 0.05 else c.text) for c in row]
                 for i, row in enumerate(body) if i != dropped]
    return gt, Table([pred_header] + pred_body)


def _run(benchmark, gt: Table, pred: Table) -> dict[str, float]:
    tlag(gt, pred)  # warm caches and lazy imports outside the timing
    result = benchmark(tlag, gt, pred)
    benchmark.extra_info["cells"] = len(gt.cells())
    benchmark.extra_info["x_vs_reference_60s"] = round(REFERENCE_SECONDS / benchmark.stats.stats.mean)
    return result


@pytest.mark.parametrize(("rows", "cols"), [(10, 10), (20, 20), (60, 20)], ids=["10x10", "20x20", "60x20"])
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
    gt, pred = Table.from_html(pair["gt_html"]), Table.from_html(pair["pred_html"])
    result = _run(benchmark, gt, pred)
    assert result["f1"] == pytest.approx(pair["tlag"], abs=1e-9)
