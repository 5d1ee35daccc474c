"""Fixtures for the harness's own tests: where ../shared is, and skipping cleanly without it."""

from __future__ import annotations

import functools
import importlib
import importlib.util
import json
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("TABLEBENCH_SHARED", REPO.parent / "shared"))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before the first in-process pytester run of a process, every metric once: such a run drops
    the modules it imported when it ends, and numba, imported a second time, fails on its own
    registrations (whichever test an xdist worker happens to run first). And importlib_metadata,
    before pytester saves sys.meta_path (see `_keep_distribution_finder`)."""
    if "pytester" in getattr(item, "fixturenames", ()):
        _warm_metrics()
        _keep_distribution_finder()


@functools.cache
def _warm_metrics() -> None:
    from tablebench.core.table import Table
    from tablebench.metrics import score

    table = Table.from_rows([["a", "b"], ["1", "2"]], header_rows=1)
    score(table, table)
    score("$x^2$", "$x^2$", kind="formula")


@functools.cache
def _keep_distribution_finder() -> None:
    """importlib_metadata (litellm imports it) deletes the standard library's distribution finder and
    appends its own to sys.meta_path. First imported during a pytester test, its finder is dropped when
    pytester puts sys.meta_path back, and the process finds no distribution: no entry point, so no
    built-in parser for the tests after it. Imported here, the finder is part of what pytester restores."""
    if importlib.util.find_spec("importlib_metadata") is not None:
        importlib.import_module("importlib_metadata")


def shared_path(*parts: str) -> Path:
    """A path under ../shared, or a skip naming what is missing (CI always has it)."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent: these tests need ../shared beside the repo (CI has it)")
    return path


@pytest.fixture(scope="session")
def conformance_pairs() -> list[dict]:
    """The 312 reference-scored pairs of ../shared/conformance/metric_pairs.jsonl."""
    path = shared_path("conformance", "metric_pairs.jsonl")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="session")
def metric_study_dev() -> list[dict]:
    """The dev split of table-metric-study: 15 ground truths with their extractions."""
    return json.loads(shared_path("data", "table-metric-study", "dev.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def bench_sample_dir() -> Path:
    """The 20-page pdf-parse-bench sample (PDFs + ground-truth JSON)."""
    return shared_path("data", "pdf-parse-bench-2026q1-tables-sample")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Benchmarks are opt-in: collected only with --benchmark-only (see `./dev.sh speed`)."""
    if "benchmarks" in collection_path.parts and not config.getoption("benchmark_only", False):
        return True
    return None


OPT_IN = {"slow": "opt-in heavy check: run with -m slow",
          "adversarial": "opt-in bomb under a memory limit and a timeout: run with -m adversarial"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """`slow` and `adversarial` tests are opt-in: each runs only when `-m` names it (e.g. `-m slow`)."""
    markexpr = config.getoption("markexpr") or ""
    for marker, reason in OPT_IN.items():
        if marker in markexpr:
            continue
        skip = pytest.mark.skip(reason=reason)
        for item in items:
            if item.get_closest_marker(marker):
                item.add_marker(skip)
