"""The CI options through the real plugin: aggregate gate vs per-table baseline, shards + merge.

The case set is 12 pages (59 tables) of the committed synth-v1; the parsers are `dir:` folders
written from the ground truth (tests/ci_cases.py), so every number here is computed, not mocked.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tablebench.cli import main
from tests.ci_cases import case_set, noisy, shift_one_char, write_pages
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]
PAGES = 12


@pytest.fixture(scope="module", autouse=True)
def warm_metrics() -> None:
    """Score once in this process first: pytester drops modules a run imported, numba cannot reload."""
    from tablebench.core.table import Table
    from tablebench.metrics import score

    table = Table.from_rows([["a", "b"], ["1", "2"]], header_rows=1)
    score(table, table, ["teds"])


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return case_set(tmp_path_factory.mktemp("cases") / "mini", PAGES)


@pytest.fixture(scope="module")
def outputs(cases: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("outputs")
    return {"exact": write_pages(root / "exact", cases), "shifted": write_pages(root / "shifted", cases, shift_one_char),
            "noisy1": write_pages(root / "noisy1", cases, noisy(1)),
            "noisy2": write_pages(root / "noisy2", cases, noisy(2))}


def args(cases: Path, tmp: Path, *more: str, xdist: bool = False) -> list[str]:
    return [*PLUGIN, f"--cases={cases}", f"--parse-cache={tmp / 'cache'}", "--metrics=teds", "-p", "no:cacheprovider",
            *([] if xdist else ["-p", "no:xdist"]), "-rf", *more]


def junit_cases(path: Path) -> dict[str, ET.Element]:
    return {f"{c.get('classname')}::{c.get('name')}": c for c in ET.parse(path).iter("testcase")}


def test_noise_fails_tables_by_chance_but_not_the_gate(pytester: pytest.Pytester, cases: Path, outputs, tmp_path):
    """A stochastic parser: two runs of the same noise distribution (seeds 1 and 2)."""
    base = tmp_path / "base.json"
    first = pytester.runpytest(*args(cases, tmp_path, f"--parser=vlm=dir:{outputs['noisy1']}", f"--save-baseline={base}",
                                     f"--report-dir={tmp_path / 'r1'}"))
    assert first.ret == 0
    gate = ["--gate=teds", "--gate-min-effect=0.005", "--baseline-tolerance=0.01", f"--baseline={base}"]
    xml = tmp_path / "second.xml"
    second = pytester.runpytest(*args(cases, tmp_path, f"--parser=vlm=dir:{outputs['noisy2']}", *gate,
                                      f"--junitxml={xml}", f"--report-dir={tmp_path / 'r2'}"))
    out = second.stdout.str()
    per_table = [ln for ln in second.stdout.lines if ln.startswith("FAILED ") and "< baseline" in ln]
    assert len(per_table) >= 3, "noise alone fails several tables against a per-table tolerance"
    assert "FAILED tablebench::gate" not in out and "gate passed" in out
    gate_case = junit_cases(xml)["tablebench::gate[teds]"]
    assert gate_case.find("failure") is None
    assert second.ret == pytest.ExitCode.TESTS_FAILED  # from the tables, not the gate

    only_gate = pytester.runpytest(*args(cases, tmp_path, f"--parser=vlm=dir:{outputs['noisy2']}", *gate,
                                         "--baseline-per-table=off", f"--report-dir={tmp_path / 'r3'}"))
    assert only_gate.ret == 0, only_gate.stdout.str()
    assert "no change: teds [vlm]" in only_gate.stdout.str()


def test_a_small_loss_on_every_table_passes_per_table_but_fails_the_gate(pytester: pytest.Pytester, cases: Path,
                                                                          outputs, tmp_path: Path):
    base = tmp_path / "base.json"
    assert pytester.runpytest(*args(cases, tmp_path, f"--parser=mine=dir:{outputs['exact']}",
                                    f"--save-baseline={base}", f"--report-dir={tmp_path / 'r1'}")).ret == 0
    xml, report = tmp_path / "j.xml", tmp_path / "r2"
    run = pytester.runpytest(*args(cases, tmp_path, f"--parser=mine=dir:{outputs['shifted']}", f"--baseline={base}",
                                   "--baseline-tolerance=0.03", "--gate=teds", "--gate-min-effect=0.002",
                                   f"--junitxml={xml}", f"--report-dir={report}"))
    assert run.ret == pytest.ExitCode.TESTS_FAILED
    run.assert_outcomes(passed=59, failed=1)  # every table within its tolerance; the gate fails
    out = run.stdout.str()
    assert "FAILED tablebench::gate[teds] - REGRESSION: teds [mine]: 1.000 -> 0.99" in out
    assert "gate FAILED: 1 of 1 gated comparisons regressed" in out
    assert out.index("tablebench leaderboard") < out.index("tablebench gate"), "the verdict ends the output"
    assert "regression (not gated): teds:complex [mine]" in out and "(not gated): teds:language=en [mine]" in out
    case = junit_cases(xml)["tablebench::gate[teds]"]
    assert case.find("failure").get("message").startswith("REGRESSION: teds [mine]")
    rows = json.loads(next(p.get("value") for p in case.iter("property") if p.get("name") == "gate"))
    assert rows[0]["verdict"] == "regression" and rows[0]["n"] == 59 and rows[0]["diff"] < -0.002
    meta = json.loads((report / "results.json").read_text())["meta"]
    assert meta["gate"][0].startswith("REGRESSION: teds [mine]")
    assert json.loads((report / "gate.json").read_text())[0]["failed"] is True
    html = (report / "report.html").read_text()
    assert '<tr class="v-fail"><td>teds</td><td>mine</td><td>1.000</td>' in html, "the gate's row, marked failed"
    assert "<td>REGRESSION</td></tr>" in html

    looser = pytester.runpytest(*args(cases, tmp_path, f"--parser=mine=dir:{outputs['shifted']}", f"--baseline={base}",
                                      "--baseline-tolerance=0.03", "--gate=teds", "--gate-min-effect=0.05",
                                      f"--report-dir={tmp_path / 'r3'}"))
    assert looser.ret == 0, "a drop below the minimum effect passes"
    report_only = pytester.runpytest(*args(cases, tmp_path, f"--parser=mine=dir:{outputs['shifted']}",
                                           f"--baseline={base}", "--gate=teds", "--gate-min-effect=0.002",
                                           "--report-only", f"--report-dir={tmp_path / 'r4'}"))
    assert report_only.ret == pytest.ExitCode.TESTS_FAILED, "report-only records tables; the gate still decides"
    report_only.assert_outcomes(passed=59, failed=1)


def test_a_session_stopped_early_says_the_gate_did_not_run(pytester: pytest.Pytester, cases: Path, outputs,
                                                          tmp_path: Path):
    base = tmp_path / "base.json"
    assert pytester.runpytest(*args(cases, tmp_path, f"--parser=mine=dir:{outputs['exact']}",
                                    f"--save-baseline={base}", f"--report-dir={tmp_path / 'r1'}")).ret == 0
    run = pytester.runpytest(*args(cases, tmp_path, f"--parser=mine=dir:{outputs['shifted']}", f"--baseline={base}",
                                   "--baseline-tolerance=0", "--gate=teds", "-x", f"--report-dir={tmp_path / 'r2'}"))
    assert run.ret == pytest.ExitCode.TESTS_FAILED
    out = run.stdout.str()
    assert "tablebench gate: not run: the session stopped early (-x / --maxfail / Ctrl-C)" in out
    assert "tablebench::gate[teds]" not in out


def test_gate_under_xdist_is_one_testcase_in_the_controller(pytester: pytest.Pytester, cases: Path, outputs,
                                                            tmp_path: Path):
    base = tmp_path / "base.json"
    assert pytester.runpytest(*args(cases, tmp_path, f"--parser=mine=dir:{outputs['exact']}",
                                    f"--save-baseline={base}", f"--report-dir={tmp_path / 'r1'}")).ret == 0
    xml = tmp_path / "x.xml"
    run = pytester.runpytest_subprocess(*args(cases, tmp_path, f"--parser=mine=dir:{outputs['shifted']}",
                                              f"--baseline={base}", "--baseline-per-table=off", "--gate=teds",
                                              "--gate-min-effect=0.002", f"--junitxml={xml}",
                                              f"--report-dir={tmp_path / 'r2'}", "-n", "2", xdist=True))
    assert run.ret == pytest.ExitCode.TESTS_FAILED, run.stdout.str()
    cases_xml = junit_cases(xml)
    assert [k for k in cases_xml if k.startswith("tablebench::")] == ["tablebench::gate[teds]"]
    assert len(cases_xml) == 60 and cases_xml["tablebench::gate[teds]"].find("failure") is not None


def test_shards_merged_equal_the_unsharded_run(pytester: pytest.Pytester, cases: Path, outputs, tmp_path: Path):
    spec = f"--parser=mine=dir:{outputs['noisy1']}"
    whole = pytester.runpytest(*args(cases, tmp_path, spec, f"--report-dir={tmp_path / 'whole'}",
                                     f"--save-baseline={tmp_path / 'base.json'}"))
    assert whole.ret == 0
    counts = []
    for i in (1, 2, 3):
        shard = pytester.runpytest(*args(cases, tmp_path, spec, f"--shard={i}/3", f"--report-dir={tmp_path / f's{i}'}"))
        assert shard.ret == 0
        counts.append(shard.parseoutcomes()["passed"])
    assert sum(counts) == 59 and min(counts) >= 15, counts
    assert main(["report", "merge", *(str(tmp_path / f"s{i}") for i in (3, 1, 2)), "--out", str(tmp_path / "m")]) == 0

    def cases_of(folder: Path) -> list[tuple]:
        data = json.loads((folder / "results.json").read_text())
        return [(r["case_set"], r["page"], r["index"], r["parser"], r["outcome"], r["scores"]) for r in data["results"]]

    assert cases_of(tmp_path / "m") == cases_of(tmp_path / "whole")
    merged = json.loads((tmp_path / "m" / "results.json").read_text())
    unsharded = json.loads((tmp_path / "whole" / "results.json").read_text())
    for board in (merged["leaderboard"], unsharded["leaderboard"]):
        for row in board["rows"]:
            row.pop("seconds_per_page")  # timing: dir: pages are read again on every run
    assert merged["leaderboard"] == unsharded["leaderboard"]
    assert merged["meta"]["case_set_fingerprint"] == unsharded["meta"]["case_set_fingerprint"]
    shard_meta = json.loads((tmp_path / "s2" / "results.json").read_text())["meta"]
    assert shard_meta["shard"] == "2/3" and shard_meta["shard_pages"] >= 3
    gated = main(["report", "merge", *(str(tmp_path / f"s{i}") for i in (1, 2, 3)), "--out", str(tmp_path / "g"),
                  f"--baseline={tmp_path / 'base.json'}", "--gate=teds"])
    assert gated == 0 and "no change: teds [mine]" in json.loads((tmp_path / "g" / "results.json").read_text())["meta"]["gate"][0]


@pytest.mark.parametrize("bad, says", [
    (["--gate=teds"], "--gate needs --baseline FILE"),
    (["--gate=bleu", "--baseline=B"], "--gate bleu: unknown metric 'bleu': not a score of the selected metrics"),
    (["--gate-alpha=nan"], "--gate-alpha must be a finite number"),
    (["--gate-min-effect=-1"], "--gate-min-effect must be a finite number"),
    (["--repeat=0"], "--repeat must be a positive integer"),
    (["--shard=4/3"], "--shard '4/3': expected I/N"),
    (["--parse-concurrency=x"], "--parse-concurrency must be a positive integer"),
    (["--shard=20/20"], "--shard 20/20: more shards than the case set's 12 pages (use at most 12)"),
    (["--shard=1/100000000"], "--shard 1/100000000: more shards than the case set's 12 pages"),
])
def test_bad_ci_options_are_one_line_usage_errors(pytester: pytest.Pytester, cases: Path, outputs, tmp_path: Path,
                                                 bad, says):
    base = tmp_path / "B"
    if any("=B" in b for b in bad):
        pytester.runpytest(*args(cases, tmp_path, f"--parser=dir:{outputs['exact']}", f"--save-baseline={base}",
                                 f"--report-dir={tmp_path / 'r'}"))
        bad = [b.replace("=B", f"={base}") for b in bad]
    result = pytester.runpytest(*args(cases, tmp_path, f"--parser=dir:{outputs['exact']}", *bad))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert says in result.stderr.str()


def test_repeat_parses_every_page_k_times_and_reports_the_spread(pytester: pytest.Pytester, cases: Path, outputs,
                                                                  tmp_path: Path):
    import shlex
    import sys

    from tests.test_repeat import RANDOM_PARSER

    script, logs = tmp_path / "random_parser.py", tmp_path / "logs"
    script.write_text(RANDOM_PARSER)
    logs.mkdir()
    spec = f"command:{shlex.quote(sys.executable)} {script} {{pdf}} {outputs['exact']} {logs}"
    run = pytester.runpytest(*args(cases, tmp_path, f"--parser=rnd={spec}", "--repeat=3", "--report-only",
                                   f"--report-dir={tmp_path / 'r'}", "-k", "p001 or p002 or p003"))
    assert run.ret == 0, run.stdout.str()
    calls = (logs / "calls.log").read_text().split()
    assert sorted(calls) == sorted(["001", "002", "003"] * 3), "three parses of each selected page"
    data = json.loads((tmp_path / "r" / "results.json").read_text())
    assert data["meta"]["repeat"] == 3
    reps = [r["repeat"] for r in data["results"]]
    assert all(rep["k"] == 3 and len(rep["scores"]["teds"]) == 3 for rep in reps if rep["scores"])
    assert any(rep["sd"].get("teds", 0) > 0 for rep in reps), "a random parser's repeats differ"
    assert "tablebench repeats: 3 parses per page; per-table sd (mean over tables): teds 0." in run.stdout.str()
