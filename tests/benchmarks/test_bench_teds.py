"""TEDS speed on realistic pairs: the reference takes ~3 s at 10x10 and ~34 s at 20x20.

Each pair is a results table (header row, method names, "62.6 ± 3.3"-style numbers) against
a conformance-like prediction: a few edited cells, a dropped row and two merged cells.
Run: `.venv/bin/python -m pytest -p no:xdist --benchmark-only --benchmark-enable tests/benchmarks/test_bench_teds.py`
"""

from __future__ import annotations

import random

import pytest

from harness.metrics import teds
from harness.table import Cell, Table

REFERENCE_SECONDS = {(10, 10): 3.0, (20, 20): 34.0}  # published in the task brief
LIMIT_SECONDS = {(60, 20): 0.5}


def _results_table(n_rows: int, n_cols: int, rng: random.Random) -> Table:
    header = ["Method"] + [f"Dataset {c}" for c in range(1, n_cols)]
    rows = [header]
    for r in range(1, n_rows):
        rows.append([f"Model-{r} ({rng.choice(['ours', 'base', 'large'])})"]
                    + [f"{rng.uniform(10, 99):.1f} ± {rng.uniform(0, 5):.1f}" for _ in range(n_cols - 1)])
    return Table.from_rows(rows, header_rows=1)


def _prediction(gt: Table, rng: random.Random) -> Table:
    """A parser's typical damage: a few characters edited, one row dropped, two cells merged."""
    rows = [[Cell(c.text, c.rowspan, c.colspan) for c in row] for row in gt.rows]
    for _ in range(max(2, len(rows) // 4)):
        cell = rng.choice(rng.choice(rows))
        at = rng.randrange(len(cell.text) + 1)
        cell.text = cell.text[:at] + rng.choice("0123456789.,") + cell.text[at + 1:]
    del rows[rng.randrange(1, len(rows))]
    row = rows[rng.randrange(1, len(rows))]
    first, second = row[1], row.pop(2)
    first.text, first.colspan = f"{first.text} {second.text}", 2
    return Table(rows)


def _pair(n_rows: int, n_cols: int) -> tuple[Table, Table]:
    rng = random.Random(n_rows * 1000 + n_cols)
    gt = _results_table(n_rows, n_cols, rng)
    return gt, _prediction(gt, rng)


@pytest.mark.parametrize("structure_only", [False, True], ids=["content", "structure"])
@pytest.mark.parametrize("shape", [(3, 4), (10, 10), (20, 20), (60, 20)], ids=lambda s: f"{s[0]}x{s[1]}")
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
