"""GriTS speed on realistic generated pairs of 10x10, 20x20 and 60x20 slots, HTML in.

table-transformer's `grits_from_html` takes about 0.3 s on a 10x10 pair and 4 s on 20x20
(its 60x20 conformance pair took ~120 s with the other reference metrics);
`extra_info["x_vs_reference"]` records the speed-up where a reference time is known.
Run: python -m pytest -p no:xdist --benchmark-only --benchmark-enable tests/benchmarks/test_bench_grits.py
"""

from __future__ import annotations

import random

import pytest

from harness.metrics.grits import grits
from harness.table import Cell, Table

REFERENCE_SECONDS = {(10, 10): 0.3, (20, 20): 4.0}
WORDS = ["Model", "Baseline", "Ours", "accuracy", "F1", "ResNet-50", "BERT-base", "n/a", "Total",
         "mean", "Method", "Params (M)", "Time (s)", "\u2014", "ImageNet", "val"]


def _value(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.4:
        return f"{rng.uniform(0, 100):.{rng.choice([1, 2, 3])}f}"
    if kind < 0.7:
        return f"{rng.uniform(0, 100):.1f} \u00b1 {rng.uniform(0, 5):.1f}"
    if kind < 0.85:
        return rng.choice(WORDS)
    return " ".join(rng.sample(WORDS, 2))


def _edit(rng: random.Random, text: str) -> str:
    i = rng.randrange(len(text)) if text else 0
    return text[:i] + rng.choice("0123456789x.") + text[i + 1:]


def realistic_pair(rows: int, cols: int, seed: int = 0) -> tuple[Table, Table]:
    """A `rows` x `cols` grid: a two-row header with a rowspan and colspan-2 groups over
    numbers, ± values and words; the prediction drops a body row, edits ~5% of cells and
    merges two cells of one body row."""
    rng = random.Random(seed)
    groups = (cols - 1) // 2
    header = [Cell("Method", rowspan=2, header=True)]
    header += [Cell(_value(rng), colspan=2, header=True) for _ in range(groups)]
    header += [Cell("Notes", rowspan=2, header=True)] * ((cols - 1) % 2)
    sub = [Cell(rng.choice(["mean", "std", "F1", "Acc."]), header=True) for _ in range(2 * groups)]
    body = [[Cell(_value(rng)) for _ in range(cols)] for _ in range(rows - 2)]
    gt = Table([header, sub] + body)

    pred_body = [[Cell(_edit(rng, c.text) if rng.random() < 0.05 else c.text) for c in row] for row in body]
    del pred_body[rng.randrange(len(pred_body))]
    merged = pred_body[rng.randrange(len(pred_body))]
    merged[0:2] = [Cell(f"{merged[0].text} {merged[1].text}", colspan=2)]
    copy = [[Cell(c.text, c.rowspan, c.colspan, c.header) for c in row] for row in (header, sub)]
    return gt, Table(copy + pred_body)


@pytest.mark.parametrize("shape", [(10, 10), (20, 20), (60, 20)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_bench_grits_html(benchmark, shape: tuple[int, int]) -> None:
    gt, pred = realistic_pair(*shape, seed=sum(shape))
    assert gt.shape == shape and pred.shape == (shape[0] - 1, shape[1])
    gt_html, pred_html = gt.to_html(), pred.to_html()
    expected = grits(gt, pred)  # also warms up the compiled kernels
    result = benchmark(grits, gt_html, pred_html)
    assert result == expected
    assert 0.5 < result["con"] < 1.0 and 0.5 < result["top"] < 1.0
    assert result["precision_con"] > result["recall_con"]  # a dropped row costs recall
    if shape in REFERENCE_SECONDS and benchmark.stats is not None:
        benchmark.extra_info["x_vs_reference"] = round(REFERENCE_SECONDS[shape] / benchmark.stats["mean"], 1)
