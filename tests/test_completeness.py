"""Completeness as data: a run that did not finish every item it was asked for says so in
results.json, the terminal, the leaderboards and the report, and the gate, --save-baseline and
`tablebench report merge` refuse it unless --allow-incomplete (which flags it instead).

The runs are subprocess pytest runs on a small slice of synth-v1 (`tests.ci_cases`); a run is cut
short by `-x`, by a KeyboardInterrupt (a plugin raising it on one item, as Ctrl-C does), or by a
worker lost for good (`--max-worker-restart=0`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablebench.cli import main
from tablebench.core.completeness import Completeness, combine, measure, of_meta, refusal
from tablebench.core.results import ItemResult
from tablebench.report.write import write_report
from tests.ci_cases import case_set, shift_one_char, write_pages
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]

STOPPER = '''
import os, signal

def pytest_runtest_call(item):
    if item.nodeid.startswith("mini/p002::t1["):
        if os.environ.get("STOP_WITH") == "kill" and hasattr(item.config, "workerinput"):
            os.kill(os.getpid(), signal.SIGKILL)
        if os.environ.get("STOP_WITH") == "interrupt":
            raise KeyboardInterrupt
'''


# -- the record --------------------------------------------------------------------------------------
def test_measure_lists_the_missing_items_and_an_old_record_reads_as_unknown():
    done = measure(["a", "b", "c", "d"], ["a", "c"], "interrupted (Ctrl-C)")
    assert (done.expected, done.finished, done.missing, done.missing_count) == (4, 2, ("b", "d"), 2)
    assert not done.complete
    assert done.banner() == "INCOMPLETE: 2 of 4 items finished, 2 missing (interrupted (Ctrl-C))"
    assert of_meta({"completeness": done.to_dict()}, 2) == done
    assert measure(["a"], ["a"]).banner() is None and measure(["a"], ["a"]).complete
    old = of_meta({"case_set": "s"}, 7)
    assert old.complete and not old.known and "unknown" in old.line() and old.banner() is None
    assert not of_meta({"completeness": {"expected": 3, "finished": 1, "complete": False}}, 1).complete
    assert not of_meta({"completeness": {"expected": "3", "finished": 1}}, 1).known  # malformed: unknown
    assert refusal(done, "gate", allow=False).startswith("gate: refused: INCOMPLETE: 2 of 4")
    assert refusal(done, "gate", allow=True) is None and refusal(measure(["a"], ["a"]), "gate", False) is None
    both = combine([done, measure(["x"], ["x"])], flagged=True)
    assert (both.expected, both.finished, both.missing_count, both.complete) == (5, 3, 2, False)
    assert "--allow-incomplete" in both.reason
    assert not combine([done, Completeness(None, 3)]).known


# -- runs ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """(cases, exact outputs, shifted outputs) for 3 pages of synth-v1."""
    root = tmp_path_factory.mktemp("mini")
    cases = case_set(root / "cases" / "mini", 3)
    return cases, write_pages(root / "exact", cases), write_pages(root / "shifted", cases, shift_one_char)


def run(pytester: pytest.Pytester, cases: Path, outputs: Path, report: Path, *more: str,
        stop: str = "") -> pytest.RunResult:
    pytester.makepyfile(stopper=STOPPER)
    pytester._monkeypatch.setenv("STOP_WITH", stop)
    return pytester.runpytest_subprocess(*PLUGIN, "-p", "stopper", f"--cases={cases}", f"--parser=mine=dir:{outputs}",
                                         "--metrics=teds", "-p", "no:cacheprovider", f"--report-dir={report}",
                                         f"--parse-cache={report.parent / 'cache'}", *more, timeout=120)


def completeness_of(report: Path) -> dict:
    return json.loads((report / "results.json").read_text())["meta"]["completeness"]


def test_a_full_run_records_itself_complete(pytester: pytest.Pytester, mini, tmp_path: Path):
    cases, exact, _ = mini
    done = run(pytester, cases, exact, tmp_path / "r", "-p", "no:xdist")
    assert done.ret == 0, done.stdout.str()
    record = completeness_of(tmp_path / "r")
    assert record["complete"] is True and record["expected"] == record["finished"] > 5 and record["missing"] == []
    assert "INCOMPLETE" not in done.stdout.str()


def test_collecting_only_finishes_nothing_and_says_nothing_of_completeness(pytester: pytest.Pytester, mini,
                                                                           tmp_path: Path):
    """`--collect-only` is asked to run no item: no INCOMPLETE banner, no report folder."""
    cases, exact, _ = mini
    listed = run(pytester, cases, exact, tmp_path / "r", "-p", "no:xdist", "--collect-only", "-q")
    assert listed.ret == 0 and "mini/p001::t0[mine]" in listed.stdout.str()
    assert "INCOMPLETE" not in listed.stdout.str() + listed.stderr.str()
    assert not (tmp_path / "r" / "results.json").exists()


def test_minus_x_is_incomplete_everywhere_and_its_baseline_is_refused(pytester: pytest.Pytester, mini, tmp_path: Path):
    cases, _, shifted = mini
    report, baseline = tmp_path / "r", tmp_path / "base.json"
    done = run(pytester, cases, shifted, report, "-p", "no:xdist", "-x", "--min-score=teds=0.999",
               f"--save-baseline={baseline}")
    text = done.stdout.str()
    assert done.ret != 0 and not baseline.exists(), text
    record = completeness_of(report)
    assert record["complete"] is False and record["finished"] == 1 and record["missing_count"] == record["expected"] - 1
    assert "-x" in record["reason"]
    banner = f"INCOMPLETE: 1 of {record['expected']} items finished"
    assert banner in text and "--save-baseline" in done.stderr.str()
    assert banner in (report / "leaderboard.md").read_text() and banner in (report / "report.html").read_text()
    allowed = run(pytester, cases, shifted, tmp_path / "r2", "-p", "no:xdist", "-x", "--min-score=teds=0.999",
                  f"--save-baseline={baseline}", "--allow-incomplete")
    assert baseline.exists() and banner in allowed.stdout.str()
    assert len(json.loads(baseline.read_text())["cases"]) == 1


def test_ctrl_c_and_a_lost_worker_are_incomplete_and_the_gate_refuses_them(pytester: pytest.Pytester, mini,
                                                                          tmp_path: Path):
    cases, exact, _ = mini
    assert run(pytester, cases, exact, tmp_path / "full", "-p", "no:xdist",
               f"--save-baseline={tmp_path / 'base.json'}").ret == 0
    gate = [f"--baseline={tmp_path / 'base.json'}", "--gate=teds"]
    stopped = run(pytester, cases, exact, tmp_path / "int", "-p", "no:xdist", *gate, stop="interrupt")
    assert stopped.ret == pytest.ExitCode.INTERRUPTED
    record = completeness_of(tmp_path / "int")
    assert not record["complete"] and "interrupted" in record["reason"] and record["finished"] < record["expected"]
    assert "gate: refused: INCOMPLETE" in stopped.stdout.str() or "gate: not run" in stopped.stdout.str()
    assert "gate passed" not in stopped.stdout.str()
    # a worker lost for good: its page's items are errors, counted, and the gate does not pass
    lost = run(pytester, cases, exact, tmp_path / "lost", "-n", "2", "--max-worker-restart=0", *gate, stop="kill")
    text = lost.stdout.str()
    record = completeness_of(tmp_path / "lost")
    assert lost.ret != 0 and record["crashed"] > 0, text
    assert "gate passed" not in text and ("gate FAILED" in text or "gate: refused: INCOMPLETE" in text), text
    assert f"{record['crashed']} lost with a crashed worker" in text


def test_merge_refuses_an_incomplete_shard_unless_allowed_and_then_flags_it(pytester: pytest.Pytester, mini,
                                                                         tmp_path: Path, capsys):
    cases, exact, _ = mini
    assert run(pytester, cases, exact, tmp_path / "full", "-p", "no:xdist",
               f"--save-baseline={tmp_path / 'base.json'}").ret == 0
    assert run(pytester, cases, exact, tmp_path / "s1", "-p", "no:xdist", "--shard=1/2").ret == 0
    run(pytester, cases, exact, tmp_path / "s2", "-p", "no:xdist", "--shard=2/2", stop="interrupt")
    if completeness_of(tmp_path / "s2")["complete"]:  # p002 fell in shard 1: interrupt that one instead
        run(pytester, cases, exact, tmp_path / "s1", "-p", "no:xdist", "--shard=1/2", stop="interrupt")
        assert run(pytester, cases, exact, tmp_path / "s2", "-p", "no:xdist", "--shard=2/2").ret == 0
    capsys.readouterr()
    shards = [str(tmp_path / "s1"), str(tmp_path / "s2")]
    gate = ["--baseline", str(tmp_path / "base.json"), "--gate", "teds"]
    assert main(["report", "merge", *shards, "--out", str(tmp_path / "m"), *gate]) == 1
    err = capsys.readouterr().err
    assert "report merge:" in err and "INCOMPLETE" in err and "--allow-incomplete" in err
    assert not (tmp_path / "m").exists()
    main(["report", "merge", *shards, "--out", str(tmp_path / "m"), *gate, "--allow-incomplete"])
    out = capsys.readouterr().out
    assert "INCOMPLETE" in out and "gate passed: no significant regression beyond the minimum effect\n" not in out
    record = completeness_of(tmp_path / "m")
    assert record["complete"] is False and "--allow-incomplete" in record["reason"]
    assert "INCOMPLETE" in (tmp_path / "m" / "leaderboard.md").read_text()


def test_an_old_results_file_without_the_record_still_reads_and_says_unknown(tmp_path: Path, capsys):
    results = [ItemResult(parser="p", case_set="s", page="p001", index=0, group="simple", outcome="ok",
                          scores={"teds": 1.0})]
    write_report(results, tmp_path / "old", {"case_set": "s"})
    assert main(["report", str(tmp_path / "old")]) == 0
    assert "completeness unknown" in capsys.readouterr().out


def test_merge_refuses_a_shard_without_the_record_unless_allowed(tmp_path: Path, capsys):
    results = [ItemResult(parser="p", case_set="s", page="p001", index=0, group="simple", outcome="ok",
                          scores={"teds": 1.0})]
    write_report(results, tmp_path / "old", {"case_set": "s"})  # no meta.completeness: an older or edited file
    assert main(["report", "merge", str(tmp_path / "old"), "--out", str(tmp_path / "m")]) == 1
    err = capsys.readouterr().err
    assert "report merge:" in err and "no completeness record" in err and "--allow-incomplete" in err
    assert not (tmp_path / "m").exists()
    assert main(["report", "merge", str(tmp_path / "old"), "--out", str(tmp_path / "m"), "--allow-incomplete"]) == 0
    assert "completeness unknown" in capsys.readouterr().out
