"""A benchmark process keeps the garbage collector off its long-lived heap (`tablebench.plugin.heap`):
by the time the first case is scored, start-up and collection are in the permanent generation."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tablebench.cases import load_case_set
from tablebench.plugin.session import KEEP_PARSED
from tests.ci_cases import bench_args, case_set, write_pages
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]

CONFTEST = textwrap.dedent("""\
    import gc


    def pytest_tablebench_result(item, result):
        result.extra["frozen"] = gc.get_freeze_count()
""")


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_the_heap_is_frozen_before_the_cases_are_scored(pytester: pytest.Pytester, tmp_path: Path,
                                                         workers: list[str]) -> None:
    cases = case_set(tmp_path / "mini", 2)
    exact = write_pages(tmp_path / "exact", cases)
    pytester.makeconftest(CONFTEST)
    done = pytester.runpytest_subprocess(*PLUGIN, *bench_args(cases, tmp_path, f"mine=dir:{exact}"),
                                         *(workers or ["-p", "no:xdist"]))
    assert done.ret == 0, done.stdout.str()
    results = json.loads((tmp_path / "report" / "results.json").read_text())["results"]
    # a bare interpreter with pytest and numpy tracks tens of thousands of objects: all of them frozen
    assert results and all(r["extra"]["frozen"] > 10_000 for r in results), [r["extra"] for r in results]


KEPT = textwrap.dedent("""\
    import json, os

    from tablebench.cases import GroundTruthTable
    from tablebench.plugin.nodes import RESULT_ATTR


    def pytest_sessionfinish(session):
        terminal = session.config.pluginmanager.get_plugin("terminalreporter")
        reports = [r for kept in terminal.stats.values() for r in kept]
        kept = {"reports": len(reports), "with_result": sum(hasattr(r, RESULT_ATTR) for r in reports),
                "parsed_pages": len({item.page.page_id for item in session.items
                                     if isinstance(getattr(item, "gt", None), GroundTruthTable)
                                     and "table" in item.gt.__dict__})}
        worker = getattr(session.config, "workerinput", None)  # not the environment: an outer xdist run sets it
        name = worker["workerid"] if worker else "serial"
        with open(os.path.join(os.environ["KEPT_DIR"], name + ".json"), "w") as f:
            json.dump(kept, f)
""")


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_process_keeps_no_result_json_nor_parsed_ground_truth_of_pages_it_finished(
        pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: list[str]) -> None:
    """What grew with the case set in every process: each report's result JSON in pytest's terminal
    stats, and each page's parsed ground-truth tables (but for the last few pages: two parsers'
    items of a page come close together, the page is read once)."""
    cases = case_set(tmp_path / "mini", 2 * KEEP_PARSED + 4)  # each of two workers runs more pages than it keeps
    exact = write_pages(tmp_path / "exact", cases)
    pytester.makeconftest(KEPT)
    monkeypatch.setenv("KEPT_DIR", str(tmp_path))
    done = pytester.runpytest_subprocess(*PLUGIN, *bench_args(cases, tmp_path, f"a=dir:{exact}", f"b=dir:{exact}"),
                                         *(workers or ["-p", "no:xdist"]))
    assert done.ret == 0, done.stdout.str() + done.stderr.str()
    kept = {p.stem: json.loads(p.read_text()) for p in tmp_path.glob("*.json")}
    processes = ["serial"] if not workers else ["gw0", "gw1"]
    assert all(kept[p]["with_result"] == 0 and 0 < kept[p]["parsed_pages"] <= KEEP_PARSED for p in processes), kept
    tables = sum(len(p.tables) for p in load_case_set(cases).pages)
    assert sum(kept[p]["reports"] for p in processes) == 3 * 2 * tables, kept  # the reports stay, only lighter


SCHEDULED = textwrap.dedent("""\
    import json, os

    CONFIG = []
    most = []


    def pytest_configure(config):
        CONFIG.append(config)


    def pytest_runtest_logreport(report):
        dsession = CONFIG[0].pluginmanager.get_plugin("dsession")
        if dsession is not None and dsession.sched is not None:  # the controller: the scopes it tracks
            most.append(sum(len(work) for work in dsession.sched.assigned_work.values()))


    def pytest_sessionfinish(session):
        if session.config.pluginmanager.get_plugin("dsession") is not None:
            with open(os.path.join(os.environ["KEPT_DIR"], "scheduled.json"), "w") as f:
                json.dump({"most": max(most), "reports": len(most)}, f)
""")


def test_the_controller_forgets_finished_pages(pytester: pytest.Pytester, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """xdist's scope scheduler counted a worker's pending tests over every page it was ever given,
    after every test (quadratic in the pages); a finished page leaves the count."""
    cases = case_set(tmp_path / "mini", 12)
    exact = write_pages(tmp_path / "exact", cases)
    pytester.makeconftest(SCHEDULED)
    monkeypatch.setenv("KEPT_DIR", str(tmp_path))
    done = pytester.runpytest_subprocess(*PLUGIN, *bench_args(cases, tmp_path, f"a=dir:{exact}"), "-n", "2")
    assert done.ret == 0, done.stdout.str() + done.stderr.str()
    seen = json.loads((tmp_path / "scheduled.json").read_text())
    assert seen["reports"] > 0 and seen["most"] <= 6, seen  # of 12 pages: those in progress or queued
