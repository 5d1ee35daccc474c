"""A lost xdist worker (killed, out of memory) ends neither the run nor its results: the run
finishes, the items the worker died on are `error` ("worker crashed"), every item is in results.json.

The reproducer is a plugin (`-p killer`) that SIGKILLs its own xdist worker process in the middle of one
page, as an out-of-memory kill would; a subprocess pytest run with `-n 2` on a small case set.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.ci_cases import case_set, write_pages
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]

KILLER = '''
import os, signal

def pytest_runtest_call(item):
    if hasattr(item.config, "workerinput") and item.nodeid.startswith("mini/p003::t1["):
        os.kill(os.getpid(), signal.SIGKILL)
'''


def test_split_lost_work_gives_up_the_crashed_page_and_requeues_only_unfinished_pages():
    from harness.plugin.workers import split_lost_work

    workload = {"s/p1[a]": {"s/p1::t0[a]": True, "s/p1::t1[a]": True},
                "s/p2[a]": {"s/p2::t0[a]": True, "s/p2::t1[a]": False, "s/p2::t2[a]": False},
                "s/p3[a]": {"s/p3::t0[a]": False}}
    crashed, lost, requeue = split_lost_work(workload)
    assert crashed == "s/p2::t1[a]"
    assert lost == ["s/p2::t2[a]"]
    assert requeue == {"s/p3[a]": {"s/p3::t0[a]": False}}  # never the finished p1 (sent empty, it hung the run)
    assert split_lost_work({"s/p1[a]": {"s/p1::t0[a]": True}}) == (None, [], {})


@pytest.mark.parametrize("dist", ["load", "worksteal"])
def test_a_killed_worker_ends_the_run_with_every_item_and_the_lost_ones_as_errors(
        pytester: pytest.Pytester, tmp_path: Path, dist: str):
    cases = case_set(tmp_path / "cases" / "mini", 6)
    out = write_pages(tmp_path / "exact", cases)
    pytester.makepyfile(killer=KILLER)  # a plugin module: a conftest's hooks would see only items below it
    report = tmp_path / "report"
    run = pytester.runpytest_subprocess(*PLUGIN, "-p", "killer", f"--cases={cases}", f"--parser=mine=dir:{out}",
                                        "--metrics=teds",
                                        "-p", "no:cacheprovider", f"--parse-cache={tmp_path / 'cache'}",
                                        f"--report-dir={report}", "-n", "2", f"--dist={dist}", timeout=120)
    text = run.stdout.str()
    assert run.ret == 1, text
    results = json.loads((report / "results.json").read_text())["results"]
    from harness.cases import load_case_set

    assert len(results) == load_case_set(cases).count("table"), text
    lost = [r for r in results if r["outcome"] != "ok"]
    assert lost and all(r["page"] == "p003" and r["outcome"] == "error" and "worker crashed" in r["message"]
                        and "\n" not in r["message"] for r in lost), lost
    assert {r["table"] for r in lost} >= {1}  # the item the worker died on
    if dist == "load":  # the page scheduler gives up the rest of the page, not runs it again
        assert {r["table"] for r in lost} == {t for t in range(1, 99) if any(
            x["page"] == "p003" and x["table"] == t for x in results)}
