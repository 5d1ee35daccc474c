"""Speed against the reference scorers, measured on the same pairs in the same run.

The references are not part of this repository: set `TABLEBENCH_REFERENCE_SCORERS` to a
folder holding them, run unmodified (see ../shared/conformance/README.md):

- `grits.py`: table-transformer `src/grits.py`, `grits_from_html(gt_html, pred_html)`;
- `tlag_scorer.py`: PulseBench-Tab, `score_single(gt_html, pred_html)` (exponent 7).

Without the variable (or a file, or what a file imports) the benchmarks skip and say why.
Each records `x_vs_reference` (the reference's best time over ours) in `extra_info` and
checks that both give the same value; none fails on a clock.
Run: TABLEBENCH_REFERENCE_SCORERS=/path python -m pytest -p no:xdist --benchmark-only
     --benchmark-enable tests/benchmarks/test_bench_reference.py
"""

from __future__ import annotations

import importlib.util
import os
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from tablebench.metrics.tables.grits import grits_details
from tablebench.metrics.tables.tlag import tlag_details
from tests.benchmarks.pairs import realistic_pair

ENV = "TABLEBENCH_REFERENCE_SCORERS"
SHAPES = [(5, 5), (10, 10), (40, 40)]
ROUNDS = 5  # the reference's best of this many calls (40x40: one)


def reference(file: str) -> ModuleType:
    """The reference module `file` from the folder in $TABLEBENCH_REFERENCE_SCORERS, or a skip."""
    folder = os.environ.get(ENV)
    if not folder:
        pytest.skip(f"{ENV} is not set: no reference scorers to compare with")
    path = Path(folder) / file
    if not path.is_file():
        pytest.skip(f"{path} is absent ({ENV}={folder})")
    spec = importlib.util.spec_from_file_location(f"reference_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - whatever the reference needs and is missing: skip, saying what
        pytest.skip(f"{path} does not import here: {type(exc).__name__}: {exc}")
    return module


def _best(fn: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _record_ratio(benchmark, reference_call: Callable[[], object], shape: tuple[int, int]) -> None:
    """The reference's best time on the pair (one call at 40x40) over ours, in `extra_info`."""
    seconds = _best(reference_call, 1 if shape[0] >= 40 else ROUNDS)
    benchmark.extra_info.update(reference_seconds=seconds, x_vs_reference=round(seconds / benchmark.stats["min"], 1))


def _html_pair(shape: tuple[int, int]) -> tuple[str, str]:
    gt, pred = realistic_pair(*shape, seed=sum(shape))
    return gt.to_html(), pred.to_html()


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_bench_grits_vs_reference(benchmark, shape: tuple[int, int]) -> None:
    ref = reference("grits.py")
    gt, pred = _html_pair(shape)
    theirs = ref.grits_from_html(gt, pred)
    ours = benchmark(grits_details, gt, pred)
    assert ours["con"] == pytest.approx(theirs["grits_con"], abs=1e-9)
    assert ours["top"] == pytest.approx(theirs["grits_top"], abs=1e-9)
    _record_ratio(benchmark, lambda: ref.grits_from_html(gt, pred), shape)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_bench_tlag_vs_reference(benchmark, shape: tuple[int, int]) -> None:
    ref = reference("tlag_scorer.py")
    gt, pred = _html_pair(shape)
    theirs = ref.score_single(gt, pred)
    ours = benchmark(tlag_details, gt, pred)
    assert isinstance(theirs, dict), f"score_single returned {type(theirs).__name__}, not its documented dict"
    assert ours["f1"] == pytest.approx(theirs["score"], abs=1e-9)
    assert ours["precision"] == pytest.approx(theirs["precision"], abs=1e-9)
    assert ours["recall"] == pytest.approx(theirs["recall"], abs=1e-9)
    _record_ratio(benchmark, lambda: ref.score_single(gt, pred), shape)
