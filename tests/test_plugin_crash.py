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
    from tablebench.plugin.workers import split_lost_work

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
    from tablebench.cases import load_case_set

    assert len(results) == load_case_set(cases).count("table"), text
    lost = [r for r in results if r["outcome"] != "ok"]
    assert lost and all(r["page"] == "p003" and r["outcome"] == "error" and "worker crashed" in r["message"]
                        and "\n" not in r["message"] for r in lost), lost
    assert {r["index"] for r in lost} >= {1}  # the item the worker died on
    if dist == "load":  # the page scheduler gives up the rest of the page, not runs it again
        assert {r["index"] for r in lost} == {t for t in range(1, 99) if any(
            x["page"] == "p003" and x["index"] == t for x in results)}


def test_a_killed_workers_tables_make_the_run_incomplete_and_never_known_failures(pytester: pytest.Pytester,
                                                                                 tmp_path: Path):
    cases = case_set(tmp_path / "cases" / "mini", 4)
    out = write_pages(tmp_path / "exact", cases)
    pytester.makepyfile(killer=KILLER)
    base = tmp_path / "base.json"

    def bench(report: str, outputs: Path, *more: str, killer: bool = True) -> pytest.RunResult:
        return pytester.runpytest_subprocess(*PLUGIN, *(["-p", "killer"] if killer else []), f"--cases={cases}",
                                             f"--parser=mine=dir:{outputs}", "--metrics=teds", "-p", "no:cacheprovider",
                                             f"--parse-cache={tmp_path / 'cache'}", f"--report-dir={tmp_path / report}",
                                             *more, timeout=120)

    run = bench("r1", out, "-n", "2", f"--save-baseline={base}")
    record = json.loads((tmp_path / "r1" / "results.json").read_text())["meta"]["completeness"]
    assert record["crashed"] > 0 and record["complete"] is False, run.stdout.str()
    assert not base.exists() and "--save-baseline" in run.stderr.str() and "INCOMPLETE" in run.stdout.str()
    # let through on purpose: what the worker took down is no measurement, so it is left out of the baseline
    bench("r2", out, "-n", "2", f"--save-baseline={base}", "--allow-incomplete")
    saved = json.loads(base.read_text())["cases"]
    crashed = {f"{r['case_set']}/{r['page']}::t{r['index']}[mine]" for r in
               json.loads((tmp_path / "r2" / "results.json").read_text())["results"] if r["outcome"] == "error"}
    assert crashed and not crashed & set(saved) and all(e["outcome"] == "ok" for e in saved.values())
    # a later parser that finds nothing on that page: its tables fail, none is a known failure (xfail)
    nothing = write_pages(tmp_path / "nothing", cases, lambda page, i, html: "" if page == "p003" else html)
    later = bench("r3", nothing, "-p", "no:xdist", f"--baseline={base}", killer=False)
    assert later.ret == 1 and "xfailed" not in later.stdout.lines[-1], later.stdout.str()  # pytest's count
    assert any(line.startswith("mine: ") and " 0 xfailed," in line for line in later.stdout.lines)  # ours
    failed = {r["id"] for r in json.loads((tmp_path / "r3" / "results.json").read_text())["results"]
              if r["verdict"]["status"] == "fail"}
    assert crashed < failed and all(i.startswith("mini/p003::") for i in failed)  # and t0, lost now


# Both first workers die at their first benchmark item, seconds apart; the first one's replacement
# is slow to collect, so the second loss comes after it said it is ready but before its collection.
TWO_KILLERS = '''
import os, signal, time

def pytest_collection(session):
    if getattr(session.config, "workerinput", {}).get("workerid") not in (None, "gw0", "gw1"):
        time.sleep(8.0)

def pytest_runtest_call(item):
    worker = getattr(item.config, "workerinput", {}).get("workerid")
    if worker in ("gw0", "gw1") and "::t" in item.nodeid:
        time.sleep(4.0 if worker == "gw1" else 0.0)
        os.kill(os.getpid(), signal.SIGKILL)
'''


def test_two_workers_lost_in_quick_succession_end_the_run_with_every_item(pytester: pytest.Pytester,
                                                                          tmp_path: Path) -> None:
    """xdist's LoadScopeScheduling gave work to a replacement worker before its collection
    arrived (`registered_collections[node]`): INTERNALERROR KeyError, the run crashed."""
    cases = case_set(tmp_path / "cases" / "mini", 6)
    out = write_pages(tmp_path / "exact", cases)
    pytester.makepyfile(killers=TWO_KILLERS)
    report = tmp_path / "report"
    run = pytester.runpytest_subprocess(*PLUGIN, "-p", "killers", f"--cases={cases}", f"--parser=mine=dir:{out}",
                                        "--metrics=teds", "-p", "no:cacheprovider",
                                        f"--parse-cache={tmp_path / 'cache'}", f"--report-dir={report}", "-n", "2",
                                        timeout=180)
    text = run.stdout.str() + run.stderr.str()
    assert "INTERNALERROR" not in text and run.ret == 1, text[-3000:]
    from tablebench.cases import load_case_set

    results = json.loads((report / "results.json").read_text())["results"]
    assert len(results) == load_case_set(cases).count("table"), text[-3000:]
    lost = [r for r in results if r["outcome"] == "error"]
    assert len({r["page"] for r in lost}) == 2 and all("worker crashed" in r["message"] for r in lost)
