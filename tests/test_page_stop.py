"""`--max-page-failures=N` stops a run once N pages failed to parse, as `--maxfail` stops after N
failed tests, and says why in one line that names the cause: with or without xdist, exit 1.

The counting is checked on results made here; the runs are real pytest runs (subprocesses) on
the whole committed synth-v1 (100 pages, 441 tables) of the repo's raising parser
(tests/raising_parser.py) and of a parser whose `prepare()` cannot import its model
(tests/test_failure_summary.py's). Off by default: that file's runs go through every page.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablebench.core.results import ItemResult
from tablebench.report.page_failures import PageFailures
from tests import raising_parser
from tests.test_failure_summary import BROKEN
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]


def result(page: int, outcome: str = "parse_error", message: str = "", parser: str = "p", index: int = 0,
           verdict: str = "fail") -> ItemResult:
    return ItemResult(parser=parser, case_set="s", page=f"p{page:03d}", index=index, group="simple", outcome=outcome,
                      message=message or f"RuntimeError: cannot read p{page:03d}.pdf",
                      verdict={"status": verdict, "reasons": [f"{outcome}: {message or 'RuntimeError: cannot read'}"]})


def test_pages_a_parser_failed_on_count_once_each_and_a_low_score_never() -> None:
    count = PageFailures(3)
    assert not count.add(result(1)) and not count.add(result(1, index=1)), "a page counts once"
    assert not count.add(result(2, outcome="ok")), "a scored table that failed its floor is no parse failure"
    assert not count.add(result(2, outcome="missing")) and not count.add(result(2, outcome="error"))
    assert not count.add(result(3, outcome="timeout", verdict="known")), "whatever the case's verdict"
    assert count.add(result(4, outcome="empty")), "the third page reaches the limit"
    assert not count.add(result(5)), "it is said once"
    assert not any(PageFailures(0).add(result(i)) for i in range(1, 50)), "0: never"


def test_the_line_names_the_cause_of_the_pages_and_of_most_when_they_differ() -> None:
    alike = PageFailures(2)
    alike.add(result(1))
    alike.add(result(2))
    assert alike.reason() == ("stopped after 2 pages failed alike (--max-page-failures=2): "
                              "p: parse_error: RuntimeError: cannot read")
    mixed = PageFailures(3)
    for page, message in ((1, "OSError: disk"), (2, "ValueError: x"), (3, "ValueError: x")):
        mixed.add(result(page, message=message))
    assert mixed.reason() == ("stopped after 3 pages failed to parse (--max-page-failures=3), for 2 causes; "
                              "of most pages (2): p: parse_error: ValueError: x")


def _run(pytester: pytest.Pytester, tmp_path: Path, spec: str, *more: str) -> tuple[pytest.RunResult, dict]:
    report = tmp_path / "report"
    run = pytester.runpytest_subprocess(*PLUGIN, f"--parser={spec}", f"--parse-cache={tmp_path / 'cache'}",
                                        f"--report-dir={report}", "-p", "no:cacheprovider", *more, timeout=600)
    return run, json.loads((report / "results.json").read_text(encoding="utf-8"))


def test_a_run_stops_after_n_pages_failed_and_says_why_in_one_line(pytester: pytest.Pytester,
                                                                   tmp_path: Path) -> None:
    pytester.makepyfile(raising_parser=Path(raising_parser.__file__).read_text(encoding="utf-8"))
    run, data = _run(pytester, tmp_path, "raises=raising_parser:Raises", "--max-page-failures=5", "-p", "no:xdist")
    out = run.stdout.str()
    assert run.ret == pytest.ExitCode.TESTS_FAILED, out[-3000:]
    reason = ("stopped after 5 pages failed alike (--max-page-failures=5): "
              "raises: parse_error: RuntimeError: cannot read the table grid of …")
    stop = [line for line in run.stdout.lines if line.startswith("!") and "stopped after" in line]
    assert len(stop) == 1 and reason in stop[0], out[-3000:]
    assert {r["page"] for r in data["results"]} == {"p001", "p002", "p003", "p004", "p005"}, "no page after the 5th"
    completeness = data["meta"]["completeness"]
    assert completeness["finished"] < 441 and reason in completeness["reason"], "INCOMPLETE, with the reason"
    assert f"INCOMPLETE: {completeness['finished']} of 441 items finished" in out


def test_under_xdist_the_controller_stops_the_workers_and_exits_as_without(pytester: pytest.Pytester,
                                                                           tmp_path: Path) -> None:
    pytester.makepyfile(tb_broken=BROKEN)
    run, data = _run(pytester, tmp_path, "tb-broken=tb_broken:Broken", "--max-page-failures=3", "-n", "2")
    out = run.stdout.str()
    assert run.ret == pytest.ExitCode.TESTS_FAILED, out[-3000:]  # not xdist's Interrupted (2)
    stop = [line for line in run.stdout.lines if line.startswith("!")]
    assert len(stop) == 1, out[-3000:]
    assert "stopped after 3 pages failed alike (--max-page-failures=3): tb-broken: " in stop[0]
    assert "prepare() raised ModuleNotFoundError: No module named 'no_such_model_package'" in stop[0]
    pages = {r["page"] for r in data["results"]}
    assert 3 <= len(pages) < 20, f"the workers finish the pages sent to them, then stop: {sorted(pages)}"
    assert "Interrupted" not in out and "KeyboardInterrupt" not in out
