"""What a user gates on, through the real plugin: error cases, report-only, baselines by label,
known failures, case-set verification, compact failure output, the cache line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tablebench.cases import load_case_set
from tablebench.report.html_data import expanded_html
from tests.test_plugin import args, junit, results_json, warm_metrics  # noqa: F401 — warm_metrics is autouse
from tests.test_run import break_table, copy_pages, write_outputs

pytest_plugins = ["pytester"]


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_pages(tmp_path_factory.mktemp("cases") / "bench")


def outputs(folder: Path, bench: Path, skip: frozenset = frozenset()) -> Path:
    return write_outputs(folder, load_case_set(bench), skip=skip)


def test_unreadable_ground_truth_is_an_error_case_in_every_output(pytester: pytest.Pytester, bench: Path,
                                                                   tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Was: a traceback per table, the table missing from results.json and the leaderboard
    (4/4 found instead of 4/5, means over 4 tables)."""
    monkeypatch.setenv("COLUMNS", "250")  # room for the reason after the long dir: label
    out = outputs(tmp_path / "out", bench)
    broken = break_table(copy_pages(tmp_path / "broken"), "074", 1)
    report, xml = tmp_path / "report", tmp_path / "junit.xml"
    result = pytester.runpytest(*args(broken, tmp_path / "cache", f"--parser=dir:{out}", "--metrics=teds",
                                      f"--report-dir={report}", f"--junitxml={xml}"))
    result.assert_outcomes(passed=4, failed=1)
    stdout = result.stdout.str()
    assert "Traceback" not in stdout and "raise " not in stdout
    [line] = [ln for ln in result.stdout.lines if ln.startswith("FAILED ")]
    assert line.startswith(f"FAILED broken/p074::t1[dir:{out}] - Failed: error: ground truth unreadable (NoTableError")
    data = results_json(report)
    assert len(data["results"]) == 5
    bad = next(r for r in data["results"] if r["page"] == "p074" and r["index"] == 1)
    assert bad["outcome"] == "error" and bad["scores"] == {} and "\n" not in bad["message"]
    [row] = data["leaderboard"]["rows"]
    assert (row["overall"]["total"], row["overall"]["found"], row["outcomes"]["error"]) == (5, 4, 1)
    assert row["overall"]["metrics"]["teds"]["include_missing"] == pytest.approx(4 / 5), "the error counts 0"
    assert "| error |" in (report / "leaderboard.md").read_text(encoding="utf-8")
    assert junit(xml)[f"broken/p074::t1[dir:{out}]"]["props"]["outcome"] == "error"


def test_report_only_records_everything_and_exits_zero(pytester: pytest.Pytester, bench: Path, tmp_path: Path):
    out = outputs(tmp_path / "out", bench, skip=frozenset({("p074", 2)}))
    run = [f"--parser=dir:{out}", "--parser=broken=command:false {pdf}", "--metrics=teds", "--min-score=teds=0.99"]
    gated = pytester.runpytest(*args(bench, tmp_path / "cache", *run, f"--report-dir={tmp_path / 'gated'}"))
    gated.assert_outcomes(passed=4, failed=6)
    report = tmp_path / "report"
    result = pytester.runpytest(*args(bench, tmp_path / "cache", *run, "--report-only", f"--report-dir={report}"))
    result.assert_outcomes(passed=10)
    assert result.ret == pytest.ExitCode.OK
    data = results_json(report)
    assert sorted(r["outcome"] for r in data["results"]) == ["missing"] + ["ok"] * 4 + ["parse_error"] * 5
    meta = data["meta"]
    assert (meta["tables"], meta["cases"], meta["report_only"]) == (5, 10, True)
    assert meta["parsers"] == [f"dir:{out}", "broken"]
    assert meta["parser_specs"] == {"broken": "command:false {pdf}"}
    def record(report: Path) -> list:
        return [(r["page"], r["index"], r["parser"], r["outcome"], r["scores"], r["message"])
                for r in results_json(report)["results"]]

    assert record(report) == record(tmp_path / "gated"), "same record, only the exit differs"


def test_a_baseline_accepts_known_failures_and_fails_new_ones(pytester: pytest.Pytester, bench: Path, tmp_path: Path):
    base = tmp_path / "base.json"
    first = outputs(tmp_path / "first", bench, skip=frozenset({("p074", 2)}))
    saved = pytester.runpytest(*args(bench, tmp_path / "c1", f"--parser=mine=dir:{first}", "--metrics=teds",
                                     f"--save-baseline={base}"))
    saved.assert_outcomes(passed=4, failed=1)
    second = outputs(tmp_path / "second", bench, skip=frozenset({("p074", 2), ("p002", 0)}))
    xml = tmp_path / "junit.xml"
    result = pytester.runpytest(*args(bench, tmp_path / "c2", f"--parser=mine=dir:{second}", "--metrics=teds",
                                      f"--baseline={base}", f"--junitxml={xml}"))
    result.assert_outcomes(passed=3, failed=1, xfailed=1)
    cases = junit(xml)
    assert cases["bench/p074::t2[mine]"]["skipped"].startswith("known failure (missing in the baseline): not found")
    assert cases["bench/p002::t0[mine]"]["failure"].startswith("Failed: not found in parser output")
    assert f"baseline {base}: 5 of 5 entries match this run's 5 cases" in result.stdout.str()


def test_a_baseline_that_matches_nothing_is_a_usage_error(pytester: pytest.Pytester, bench: Path, tmp_path: Path):
    """Was: another label (or spec) matched no entry and every case passed without a word."""
    out, base = outputs(tmp_path / "out", bench), tmp_path / "base.json"
    pytester.runpytest(*args(bench, tmp_path / "c", f"--parser=a=dir:{out}", "--metrics=teds",
                             f"--save-baseline={base}")).assert_outcomes(passed=5)
    other = pytester.runpytest(*args(bench, tmp_path / "c", f"--parser=b=dir:{out}", "--metrics=teds",
                                     f"--baseline={base}"))
    assert other.ret == pytest.ExitCode.USAGE_ERROR
    err = other.stderr.str()
    assert "none of its 5 entries match this run's 5 cases (baseline parsers: a; this run: b)" in err
    assert err.count("\n") <= 2
    moved = shutil.copytree(out, tmp_path / "moved")
    same_label = pytester.runpytest(*args(bench, tmp_path / "c", f"--parser=a=dir:{moved}", "--metrics=teds,grits",
                                          f"--baseline={base}"))
    same_label.assert_outcomes(passed=5)
    assert "tablebench: parsers a" in same_label.stdout.str()
    assert "5 of 5 entries match" in same_label.stdout.str()


def test_a_case_set_that_does_not_match_its_manifest_is_refused_unless_no_verify(
        pytester: pytest.Pytester, bench: Path, tmp_path: Path):
    from tablebench.generate.importer import import_bench

    ours = tmp_path / "ours"
    import_bench(bench, ours)
    ok = pytester.runpytest(*args(ours, tmp_path / "c", "--parser=pypdf", "--collect-only", "-q"))
    assert ok.ret == pytest.ExitCode.OK
    page = ours / "074.json"
    page.write_text(page.read_text(encoding="utf-8").replace("1.42", "1.43"), encoding="utf-8")
    refused = pytester.runpytest(*args(ours, tmp_path / "c", "--parser=pypdf", "--collect-only"))
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    assert "does not match its manifest.json: 074.json: sha256 mismatch" in refused.stderr.str()
    assert "--no-verify" in refused.stderr.str()
    out = outputs(tmp_path / "out", bench)
    report = tmp_path / "report"
    anyway = pytester.runpytest(*args(ours, tmp_path / "c", f"--parser=dir:{out}", "--metrics=teds", "--no-verify",
                                      f"--report-dir={report}"))
    assert anyway.ret in (0, 1)
    stdout = anyway.stdout.str()
    assert "NOT VERIFIED against manifest.json (--no-verify)" in stdout
    assert "tablebench WARNING: case set ours was not verified against its manifest" in stdout
    assert results_json(report)["meta"]["case_set_verified"] is False
    (ours / "manifest.json").write_text("{not json", encoding="utf-8")
    bad = pytester.runpytest(*args(ours, tmp_path / "c", "--parser=pypdf", "--collect-only"))
    assert bad.ret == pytest.ExitCode.USAGE_ERROR and "manifest.json: invalid JSON" in bad.stderr.str()


def test_failures_are_one_line_each_and_the_leaderboard_comes_last(pytester: pytest.Pytester, bench: Path,
                                                                    tmp_path: Path):
    out = outputs(tmp_path / "out", bench, skip=frozenset({("p074", 2), ("p002", 1)}))
    run = args(bench, tmp_path / "c", f"--parser=dir:{out}", "--metrics=teds")
    result = pytester.runpytest(*run)
    result.assert_outcomes(passed=3, failed=2)
    stdout = result.stdout.str()
    assert "= FAILURES =" not in stdout, "no block per failing table"
    assert sum(line.startswith("FAILED bench/") for line in result.stdout.lines) == 2
    assert stdout.index("short test summary info") < stdout.index("tablebench leaderboard")
    verbose = pytester.runpytest(*run, "--tb=short")
    assert "= FAILURES =" in verbose.stdout.str(), "an explicit --tb is the user's choice"


def test_the_summary_says_how_many_pages_came_from_the_cache(pytester: pytest.Pytester, bench: Path,
                                                             tmp_path: Path):
    run = args(bench, tmp_path / "cache", "--parser=pypdf", "--metrics=teds", "--report-only")
    first = pytester.runpytest(*run, f"--report-dir={tmp_path / 'r1'}")
    assert "tablebench parse cache: 0 of 2 pages from the cache" in first.stdout.str()
    again = pytester.runpytest(*run, f"--report-dir={tmp_path / 'r2'}")
    assert "tablebench parse cache: 2 of 2 pages from the cache" in again.stdout.str()
    assert results_json(tmp_path / "r2")["meta"]["parse_cache"] == "2 of 2 pages from the cache"


def test_semantic_errors_reach_the_failure_message_and_results(pytester: pytest.Pytester, bench: Path,
                                                               tmp_path: Path):
    out = outputs(tmp_path / "out", bench)
    page = out / "074.md"
    page.write_text(page.read_text(encoding="utf-8").replace("1.42", "9.99"), encoding="utf-8")
    xml, report = tmp_path / "junit.xml", tmp_path / "report"
    result = pytester.runpytest(*args(bench, tmp_path / "c", f"--parser=dir:{out}", "--metrics=semantic",
                                      "--min-score=semantic=10", f"--junitxml={xml}", f"--report-dir={report}"))
    result.assert_outcomes(passed=4, failed=1)
    case = junit(xml, report)[f"bench/p074::t0[dir:{out}]"]
    assert "semantic errors: " in case["failure"] and "9.99" in case["failure"]
    assert case["result"]["errors"] and any("9.99" in e for e in case["result"]["errors"])
    html = expanded_html((report / "report.html").read_text(encoding="utf-8"))
    assert "semantic errors" in html
    assert json.dumps(case["result"]["errors"][0])[1:-1] in (report / "results.json").read_text()
