"""Hooks a `conftest.py` or a plugin implements to take part in a tablebench run.

Registered by `tablebench.plugin.hooks` (`pluginmanager.add_hookspecs`) whether or not the run
benchmarks anything, so a conftest implementing them loads in every session. They are called
only in a benchmark run (`--parser`); tests/test_plugin_hooks.py has a conftest using all three.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from tablebench.core.results import ItemResult


@pytest.hookspec
def pytest_tablebench_add_metrics(config: pytest.Config) -> Iterable[Any] | None:
    """Return extra metrics for this run (`tablebench.core.metric_specs.MetricSpec`s), or None.

    Called once per process when the session starts, before `--metrics` is read: each spec
    is registered, so `--metrics=NAME` scores it like a built-in (a default spec of a kind
    scores when `--metrics` names none of that kind's), and results.json's meta lists the
    names under `extra_metrics`. Anything but a `MetricSpec` is a usage error.
    """


@pytest.hookspec
def pytest_tablebench_result(item: pytest.Item, result: ItemResult) -> None:
    """Read or annotate one item's result, after it was scored and before it is judged against
    the thresholds and recorded.

    Called once per benchmark item in the process that ran it (an xdist worker under `-n`).
    What the hook changes on `result` (its `extra` dict is the place for annotations) is what
    the verdict, junit XML and results.json see. Return value ignored.
    """


@pytest.hookspec
def pytest_tablebench_update_meta(config: pytest.Config, meta: dict, results: Sequence[ItemResult]) -> None:
    """Update the run's `meta` in place before the report files are written.

    Called once, in the controller, with every result in report order and the meta as it
    will be written (gate lines included); what it holds lands in results.json,
    leaderboard.md and report.html. Keep values JSON-serialisable. Return value ignored.
    `results` is a read-only sequence: iterating it reads each result's texts from disk again
    (`tablebench.report.stream.FullResults`), so iterate it once and keep only what you need.
    """
