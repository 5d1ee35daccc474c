"""Semantic score speed: a typical 30-cell pair should take at most 2 ms (median, one core), a
40x40 pair (1,600 cells) at most 60 ms, and the time grow at most with the square of the cells
(large pairs align rows without comparing every cell with every cell, see
`semantic_align.FULL_COMPARISON`). Benchmarks record these times; no test fails on a clock
(a loaded machine would fail it): compare runs with `--benchmark-compare`.

A prediction that lost its grid (each row one line of text) is also split back into cells
(`semantic_split`): the flattened benchmarks time that extra reading.

Text caches (`normalize`, `numbers`, `residue`, `is_numeric`, `is_value`) are cleared before every round, so each round pays for
reading every cell afresh, as a new pair does; a 200-cell pair shows how it grows.
Run: python -m pytest -p no:xdist --benchmark-only --benchmark-enable tests/benchmarks/test_bench_semantic.py
"""

from __future__ import annotations

import random

import pytest

from tablebench.core.table import Table
from tablebench.metrics.tables import semantic_struct, semantic_text
from tablebench.metrics.tables.semantic import semantic_details
from tablebench.readers.text import read_lines
from tests.benchmarks.pairs import realistic_pair

WORDS = ["ResNet", "VGG", "ViT", "BERT", "Ours", "Baseline", "GPT-2", "T5", "LSTM", "CNN", "MLP", "Swin"]


def _value(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.6:
        return f"{rng.uniform(0, 100):.{rng.choice([1, 2])}f}"
    if kind < 0.8:
        return f"{rng.uniform(0, 100):.1f} ± {rng.uniform(0, 5):.1f}"
    if kind < 0.9:
        return f"\\textbf{{{rng.uniform(0, 100):.1f}}}"
    return "—"


def _pair(n_rows: int, n_cols: int, seed: int = 0) -> tuple[Table, Table]:
    """A ground truth and a prediction with a dropped decimal point, a typo and a lost row."""
    rng = random.Random(seed)
    head = ["Model"] + [f"Metric {c}" for c in range(1, n_cols)]
    rows = [[f"{rng.choice(WORDS)}-{r}"] + [_value(rng) for _ in range(1, n_cols)] for r in range(n_rows - 1)]
    gt = Table.from_rows([head, *rows], header_rows=1)
    pred_rows = [r[:] for r in rows[:-1]]
    pred_rows[0][1] = pred_rows[0][1].replace(".", "")
    pred_rows[1][0] = pred_rows[1][0][:-1] + "x"
    pred = Table.from_rows([head, *pred_rows])
    return gt, pred


def _clear() -> None:
    semantic_text.normalize.cache_clear()
    semantic_text.numbers.cache_clear()
    semantic_text.residue.cache_clear()
    semantic_struct.is_numeric.cache_clear()
    semantic_struct.is_value.cache_clear()


@pytest.mark.parametrize("shape", [(6, 5), (20, 10), (40, 40), (60, 20)],
                         ids=["30-cells", "200-cells", "40x40-cells", "60x20-cells"])
def test_bench_semantic(benchmark, shape: tuple[int, int]) -> None:
    gt, pred = _pair(*shape)
    semantic_details(gt, pred)  # import and first-call costs stay out of the timing

    def setup():
        _clear()
        return (gt, pred), {}

    result = benchmark.pedantic(semantic_details, setup=setup, rounds=200 if shape[0] < 10 else 30, iterations=1)
    assert 0 < result.score < 10
    benchmark.extra_info["cells"] = shape[0] * shape[1]


@pytest.mark.parametrize("shape", [(5, 6), (10, 10), (20, 20), (40, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_bench_semantic_realistic(benchmark, shape: tuple[int, int]) -> None:
    """The pairs every metric's benchmark times (`pairs.realistic_pair`): spans, edits, a merged cell."""
    gt, pred = realistic_pair(*shape)
    semantic_details(gt, pred)

    def setup():
        _clear()
        return (gt, pred), {}

    result = benchmark.pedantic(semantic_details, setup=setup, rounds=100 if shape[0] < 20 else 20, iterations=1)
    assert 0 < result.score < 10
    benchmark.extra_info["cells"] = shape[0] * shape[1]


@pytest.mark.parametrize("shape", [(6, 5), (60, 20)], ids=["30-cells-flattened", "60x20-cells-flattened"])
def test_bench_semantic_flattened(benchmark, shape: tuple[int, int]) -> None:
    gt, pred = _pair(*shape)
    lines = read_lines("\n".join(" ".join(c.text for c in row) for row in pred.rows))
    semantic_details(gt, lines)

    def setup():
        _clear()
        return (gt, lines), {}

    result = benchmark.pedantic(semantic_details, setup=setup, rounds=100 if shape[0] < 10 else 10, iterations=1)
    assert 0 < result.score < 10 and result.reading.startswith("lines")
    benchmark.extra_info["cells"] = shape[0] * shape[1]
