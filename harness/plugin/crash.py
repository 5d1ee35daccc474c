"""A lost xdist worker, in the controller: the item it died on and the rest of its page become
`error` results ("worker crashed") that are reported, counted and written like any other.

xdist reports the item a worker died on as a failed report without a result (`when="???"`);
`pytest_handlecrashitem` is its documented place to amend that report. The other unfinished
items of the page (which `tablebench.plugin.workers.PageScheduling` does not run again) get
reports of their own here, through the ordinary report hooks, so the terminal, junit XML and
the results see every item of the run.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tablebench.core.completeness import WORKER_CRASHED
from tablebench.core.results import ItemResult
from tablebench.plugin.nodes import RESULT_ATTR


def crash_reason(report: pytest.TestReport) -> str:
    """'worker crashed (xdist worker gw1 lost)': the one line each lost item carries."""
    gateway = getattr(getattr(report, "node", None), "gateway", None)
    return f"{WORKER_CRASHED} (xdist worker {getattr(gateway, 'id', '?')} lost)"


def handle_crash(config: pytest.Config, crashitem: str, report: pytest.TestReport, sched: Any,
                 lost_result: Callable[[str, str], ItemResult | None]) -> None:
    """Give the crash item's report its error result, and log a failed report with an error result
    for every other item of its page the scheduler gave up (`sched.lost`). `lost_result(nodeid,
    reason)` is the item's error result, None for an item that is not a benchmark case."""
    reason = crash_reason(report)
    result = lost_result(crashitem, reason)
    if result is not None:
        _carry(report, result)
    for nodeid in getattr(sched, "lost", {}).pop(crashitem, []):
        other = lost_result(nodeid, reason)
        location = (nodeid.split("::")[0], None, nodeid)
        config.hook.pytest_runtest_logstart(nodeid=nodeid, location=location)
        rep = pytest.TestReport(nodeid=nodeid, location=location, keywords={}, outcome="failed", longrepr=reason,
                                when="call")
        rep.node = getattr(report, "node", None)  # type: ignore[attr-defined]  # as xdist marks its reports
        if other is not None:
            _carry(rep, other)
        config.hook.pytest_runtest_logreport(report=rep)
        config.hook.pytest_runtest_logfinish(nodeid=nodeid, location=location)


def _carry(report: pytest.TestReport, result: ItemResult) -> None:
    """The report as a call report with the result on it (what `reported_result` reads) and its one line."""
    report.when = "call"  # type: ignore[assignment]
    report.longrepr = result.message
    setattr(report, RESULT_ATTR, json.dumps(result.to_row(), ensure_ascii=False))
