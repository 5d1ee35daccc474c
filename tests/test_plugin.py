"""The real plugin driven by pytester on a two-page case set: collection, outcomes, thresholds, xdist."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
import textwrap
import xml.etree.ElementTree as ET
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from tests.test_run import copy_pages, write_outputs

pytest_plugins = ["pytester"]

# An installed package loads the plugin by its entry point; a checkout needs -p.
INSTALLED = any(ep.name == "tablebench" for ep in entry_points(group="pytest11"))
PLUGIN = [] if INSTALLED else ["-p", "tablebench.plugin.hooks"]
IDS = ["bench/p002::t0", "bench/p002::t1", "bench/p074::t0", "bench/p074::t1", "bench/p074::t2"]
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module", autouse=True)
def warm_metrics() -> None:
    """Run every metric once in this process before any in-process pytester run: pytester
    drops the modules a run imported, and numba's lazily imported parts cannot load twice."""
    from tablebench.core.table import Table
    from tablebench.metrics import score

    table = Table.from_rows([["a", "b"], ["1", "2"]], header_rows=1)
    score(table, table)


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The case set (pages 002 and 074 of the pdf-parse-bench sample: 5 tables, 1 complex)."""
    return copy_pages(tmp_path_factory.mktemp("cases") / "bench")


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One parse cache for the module: each real parser reads each page once."""
    return tmp_path_factory.mktemp("parse-cache")


@pytest.fixture(scope="module")
def exact(bench: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Precomputed outputs holding the exact ground-truth tables (Markdown and HTML)."""
    from tablebench.cases import load_case_set

    return write_outputs(tmp_path_factory.mktemp("exact"), load_case_set(bench))


def args(bench: Path, cache: Path, *more: str) -> list[str]:
    return [*PLUGIN, f"--cases={bench}", f"--parse-cache={cache}", "-rf", "-p", "no:cacheprovider", *more]


def junit(path: Path, report: Path | None = None) -> dict[str, dict]:
    """case id -> {"props": {name: value}, "failure": message or None, "skipped": message or None,
    "classname", "name", "size": bytes of its properties, "result": its ItemResult dict from
    `report`/results.json when given}."""
    results = {}
    if report is not None:
        data = json.loads((report / "results.json").read_text(encoding="utf-8"))
        results = {f"{r['case_set']}/{r['page']}::t{r['index']}[{r['parser']}]": r for r in data["results"]}
    out = {}
    for case in ET.parse(path).iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        failure, skipped = case.find("failure"), case.find("skipped")
        test_id = props.get("id") or f"{case.get('classname')}::{case.get('name')}"  # the id, as pytest printed it
        out[test_id] = {"props": props, "failure": None if failure is None else failure.get("message"),
                        "skipped": None if skipped is None else skipped.get("message"),
                        "classname": case.get("classname"), "name": case.get("name"),
                        "size": sum(len(ET.tostring(p)) for p in case.iter("property")),
                        "result": results.get(test_id)}
    return out


def results_json(report: Path) -> dict:
    return json.loads((report / "results.json").read_text(encoding="utf-8"))


def test_parser_specs_split_on_commas_except_inside_command_and_dir():
    from tablebench.core.options import split_specs

    assert split_specs(["pypdf,pdfplumber", "pypdf", " camelot "]) == ["pypdf", "pdfplumber", "camelot"]
    assert split_specs(["pypdf,command:tool --cols a,b {pdf}", "dir:/x,y"]) == [
        "pypdf", "command:tool --cols a,b {pdf}", "dir:/x,y"]
    assert split_specs(["pypdf,mine=command:tool a,b {pdf}"]) == ["pypdf", "mine=command:tool a,b {pdf}"]
    assert split_specs([]) == [] and split_specs([","]) == []


def test_without_parser_the_benchmark_is_not_collected(pytester: pytest.Pytester, bench: Path, cache: Path):
    pytester.makepyfile(test_own="def test_own():\n    assert True\n")
    result = pytester.runpytest(*args(bench, cache))
    result.assert_outcomes(passed=1)
    assert "tablebench leaderboard" not in result.stdout.str()
    help_text = pytester.runpytest(*PLUGIN, "--help").stdout.str()
    assert "tablebench: benchmark PDF table extraction" in help_text
    for option in ("--parser=NAME", "--cases=SET", "--metrics=LIST", "--judge=MODEL", "--judge-timeout=SECONDS",
                   "--judge-page-timeout=SECONDS", "--judge-max-answer=MB", "--min-score=METRIC=VALUE",
                   "--baseline=FILE", "--save-baseline=FILE", "--baseline-tolerance=X", "--report-dir=DIR",
                   "--parse-timeout=SECONDS", "--parse-cache=DIR", "--report-only", "--no-verify",
                   "--max-page-failures=N"):
        assert option in help_text, option
    from tablebench.parse.registry import builtin_parsers

    flat = " ".join(help_text.split())
    assert "tesseract" in builtin_parsers() and all(name in flat for name in builtin_parsers()), "every built-in"
    assert "module:Class" in flat


def test_collection_ids_order_markers_and_selection(pytester: pytest.Pytester, bench: Path, cache: Path):
    pytester.makepyfile(test_own="def test_own():\n    assert True\n")
    result = pytester.runpytest(*args(bench, cache, "--parser=pypdf,pdfplumber", "--collect-only", "-q"))
    listed = [line for line in result.stdout.lines if line.startswith("bench/")]
    expected = [f"{i}[{p}]" for page in ("p002", "p074") for p in ("pypdf", "pdfplumber")
                for i in IDS if f"/{page}:" in i]
    assert listed == expected, "one item per (page, parser, table), each (parser, page) run adjacent"
    assert "test_own" not in result.stdout.str(), "--parser without paths is the benchmark alone"

    complex_only = pytester.runpytest(*args(bench, cache, "--parser=pypdf", "--collect-only", "-q", "-m", "complex"))
    assert [ln for ln in complex_only.stdout.lines if ln.startswith("bench/")] == ["bench/p074::t1[pypdf]"]
    picked = pytester.runpytest(*args(bench, cache, "--parser=pypdf,pdfplumber", "--collect-only", "-q",
                                      "-k", "p002 and t1 and pdfplumber"))
    assert [ln for ln in picked.stdout.lines if ln.startswith("bench/")] == ["bench/p002::t1[pdfplumber]"]
    with_path = pytester.runpytest(*args(bench, cache, "--parser=pypdf", "--collect-only", "-q", "test_own.py"))
    assert "test_own.py::test_own" in with_path.stdout.str() and "bench/p074::t2[pypdf]" in with_path.stdout.str()


def test_ids_carry_the_label_not_the_command_line(pytester: pytest.Pytester, bench: Path, cache: Path):
    from tablebench.core.labels import default_label

    command = f"command:{sys.executable} -c 'import sys; print(sys.argv)' --long-option-a --long-option-b {{pdf}}"
    result = pytester.runpytest(*args(bench, cache, f"--parser={command}", f"--parser=mine=dir:{cache}/",
                                      "--collect-only", "-q"))
    listed = [line for line in result.stdout.lines if line.startswith("bench/")]
    label = default_label(command)
    assert listed[:2] == [f"bench/p002::t0[{label}]", f"bench/p002::t1[{label}]"]
    assert "bench/p002::t0[mine]" in listed and not any("--long-option" in line for line in listed)
    assert len(label) < 50 and label.startswith("command:python")


@pytest.mark.parametrize("bad, says", [
    (["--parser=nope"], "unknown parser 'nope'"),
    (["--parser=pypdf", "--min-score=teds"], "expected METRIC=VALUE"),
    (["--parser=pypdf", "--min-score=teds=nan"], "expected METRIC=VALUE with a finite VALUE"),
    (["--parser=pypdf", "--min-score=bleu=0.5"], "not a score of the selected metrics"),
    (["--parser=pypdf", "--min-score=semantc=7"], "--min-score semantc: unknown metric 'semantc' (did you mean semantic?)"),
    (["--parser=pypdf", "--metrics=teds,nope"], "unknown metric(s) nope"),
    (["--parser=pypdf", "--parse-timeout=0"], "--parse-timeout must be positive"),
    (["--parser=pypdf", "--parse-timeout=inf"], "--parse-timeout: expected a finite number, got 'inf'"),
    (["--parser=pypdf", "--parse-timeout=nan"], "--parse-timeout: expected a finite number, got 'nan'"),
    (["--parser=pypdf", "--parse-timeout=soon"], "--parse-timeout: expected a number, got 'soon'"),
    (["--parser=pypdf", "--baseline-tolerance=nan"], "--baseline-tolerance: expected a finite number, got 'nan'"),
    (["--parser=pypdf", "--baseline-tolerance=-0.1"], "--baseline-tolerance must be >= 0, got '-0.1'"),
    (["--parser=dir:/x", "--parser=dir:/x/"], "two parsers have the label 'dir:/x'"),
])
def test_bad_options_are_one_line_usage_errors(pytester: pytest.Pytester, bench: Path, cache: Path, bad, says):
    result = pytester.runpytest(*args(bench, cache, *bad))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert says in result.stderr.str()
    assert "Traceback" not in result.stderr.str() and not result.stdout.lines[-1:] == ["tablebench leaderboard"]


def test_missing_case_set_and_baseline_files_are_usage_errors(pytester: pytest.Pytester, bench: Path, tmp_path: Path,
                                                              cache: Path):
    result = pytester.runpytest(*args(tmp_path / "nowhere", cache, "--parser=pypdf"))
    assert result.ret == pytest.ExitCode.USAGE_ERROR and "not found" in result.stderr.str()
    (tmp_path / "b.json").write_text("[]")
    result = pytester.runpytest(*args(bench, cache, "--parser=pypdf", f"--baseline={tmp_path / 'b.json'}"))
    assert result.ret == pytest.ExitCode.USAGE_ERROR and "not a tablebench-baseline/3 file" in result.stderr.str()


def test_crashing_hanging_and_garbage_parsers_each_get_their_outcome(pytester: pytest.Pytester, bench: Path,
                                                                    tmp_path: Path):
    from tablebench.core.labels import default_label

    crash = "command:sh -c 'echo boom >&2; exit 1' sh {pdf}"
    hang = "command:sh -c 'sleep 30' sh {pdf}"
    garbage = f"command:{sys.executable} -c 'import os,sys; sys.stdout.buffer.write(os.urandom(5000))' {{pdf}}"
    xml, report = tmp_path / "junit.xml", tmp_path / "report"
    result = pytester.runpytest(*args(bench, tmp_path / "cache", "--parser=pypdf", f"--parser={crash}",
                                      f"--parser={hang}", f"--parser={garbage}", "--parse-timeout=2",
                                      f"--junitxml={xml}", f"--report-dir={report}", "--metrics=teds"))
    cases = junit(xml, report)
    assert len(cases) == 20
    expect = {default_label(crash): ("parse_error", "exited with code 1: boom"),
              default_label(hang): ("timeout", "no output within 2 s"),
              default_label(garbage): ("parse_error", "output looks binary")}
    for test_id, case in cases.items():
        r = case["result"]
        assert case["props"]["outcome"] == r["outcome"]
        if r["parser"] == "pypdf":
            assert r["outcome"] in ("ok", "missing"), test_id
            assert (case["failure"] is None) == (r["outcome"] == "ok")
            if r["outcome"] == "ok":
                assert float(case["props"]["teds"]) == r["scores"]["teds"]
            continue
        outcome, says = expect[r["parser"]]
        assert r["outcome"] == outcome and says in r["message"], (test_id, r["message"])
        assert r["spec"] in (crash, hang, garbage)
        assert case["failure"].startswith(f"Failed: {outcome}: ") and says in case["failure"]
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    out = result.stdout.str()
    assert "tablebench leaderboard" in out and out.count("command:sh#") >= 2
    assert f"FAILED bench/p074::t1[{default_label(hang)}] - Failed: timeout" in out, "the short summary names the outcome"
    assert "report.html" in out and (report / "results.json").is_file()


def test_exact_outputs_pass_and_a_regression_fails_min_score_and_baseline(pytester: pytest.Pytester, bench: Path,
                                                                          exact: Path, tmp_path: Path):
    out, base = tmp_path / "out", tmp_path / "base.json"
    shutil.copytree(exact, out)
    spec = f"dir:{out}"
    first = pytester.runpytest(*args(bench, tmp_path / "c", f"--parser={spec}", "--metrics=teds,grits",
                                     f"--save-baseline={base}", "--min-score=teds=0.99", "--min-score=grits_con=1"))
    first.assert_outcomes(passed=5)
    saved = json.loads(base.read_text())
    assert sorted(saved["cases"]) == sorted(f"{i}[{spec}]" for i in IDS)
    assert all(c["outcome"] == "ok" and c["scores"]["teds"] == pytest.approx(1.0) for c in saved["cases"].values())
    assert saved["parsers"][spec]["spec"] == spec and saved["parsers"][spec]["version"]
    assert saved["metrics"] == ["teds", "grits"] and saved["case_set"]["name"] == "bench"

    page = out / "074.md"
    text = page.read_text(encoding="utf-8")
    assert text.count("1.42") == 1
    page.write_text(text.replace("1.42", "9.99"), encoding="utf-8")  # one cell of p074/t0 regresses
    xml = tmp_path / "junit.xml"
    second = pytester.runpytest(*args(bench, tmp_path / "c", f"--parser={spec}/", "--metrics=teds,grits",
                                      f"--baseline={base}", "--min-score=teds=0.99", f"--junitxml={xml}",
                                      f"--report-dir={tmp_path / 'r2'}"))
    second.assert_outcomes(passed=4, failed=1)
    assert f"baseline {base}: 5 of 5 entries match this run's 5 cases" in second.stdout.str(), \
        "dir:/x/ and dir:/x are one parser label"
    case = junit(xml, tmp_path / "r2")[f"bench/p074::t0[{spec}]"]
    teds, failure = case["result"]["scores"]["teds"], case["failure"]
    assert teds < 0.99 and case["props"]["teds"] == str(teds)
    assert f"teds {teds:.2f} < min 0.99" in failure
    assert f"teds {teds:.2f} < baseline 1.00 - 0.01" in failure
    assert "grits_con" in failure and failure.count("< baseline 1.00 - 0.01") >= 2
    loose = pytester.runpytest(*args(bench, tmp_path / "c", f"--parser={spec}", "--metrics=teds,grits",
                                     f"--baseline={base}", "--baseline-tolerance=0.5"))
    loose.assert_outcomes(passed=5)


COUNTING_PARSER = textwrap.dedent("""\
    import sys, pathlib, fcntl
    pdf, outputs, log = map(pathlib.Path, sys.argv[1:4])
    with open(log, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.write(pdf.stem + "\\n")
    print((outputs / (pdf.stem + ".md")).read_text(encoding="utf-8"))
""")


def test_xdist_parses_each_page_once_and_scores_like_a_serial_run(pytester: pytest.Pytester, bench: Path,
                                                                    exact: Path, tmp_path: Path):
    """Under -n 2 and serially: the same results reach results.json (they travel with the test
    reports, not as junit properties), junit stays small and has a classname."""
    script = tmp_path / "counting_parser.py"
    script.write_text(COUNTING_PARSER)
    runs = {}
    for mode, extra in (("serial", ["-p", "no:xdist"]), ("xdist", ["-n", "2"])):
        log = tmp_path / f"{mode}.log"
        counting = f"counter=command:{shlex.quote(sys.executable)} {script} {{pdf}} {exact} {log}"
        xml = tmp_path / f"{mode}.xml"
        result = pytester.runpytest_subprocess(*args(bench, tmp_path / f"cache-{mode}", "--parser=pypdf",
                                                     f"--parser={counting}", f"--junitxml={xml}",
                                                     f"--report-dir={tmp_path / mode}", *extra))
        assert result.ret in (0, 1), result.stderr.str()
        assert sorted(log.read_text().split()) == ["002", "074"], f"{mode}: each page parsed once"
        assert "tablebench leaderboard" in result.stdout.str()
        cases = junit(xml, tmp_path / mode)
        assert len(results_json(tmp_path / mode)["results"]) == 10
        for test_id, case in cases.items():
            assert case["result"] is not None, f"{mode}: {test_id} reached results.json"
            assert case["classname"] in ("bench.p002", "bench.p074") and case["name"].startswith("t")
            assert set(case["props"]) == {"id", "outcome", *case["result"]["scores"]}, "the id, outcome and scores"
            assert case["size"] < 1000, case["size"]  # was ~3 KB: the whole result as JSON
        runs[mode] = {k: (c["result"]["outcome"], c["result"]["scores"], c["result"]["message"])
                      for k, c in cases.items()}
    assert len(runs["serial"]) == 10
    assert runs["xdist"] == runs["serial"]
    assert all(outcome == "ok" for test_id, (outcome, *_) in runs["serial"].items() if "[counter]" in test_id)


def test_root_conftest_registers_the_plugin_once_with_or_without_the_entry_point(pytester: pytest.Pytester,
                                                                              monkeypatch: pytest.MonkeyPatch,
                                                                              tmp_path: Path):
    pytester.makeconftest((REPO / "conftest.py").read_text(encoding="utf-8"))
    site = tmp_path / "site"
    dist = site / "tablebench_fake-0.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: tablebench-fake\nVersion: 0.0\n")
    (dist / "entry_points.txt").write_text("[pytest11]\ntablebench = tablebench.plugin.hooks\n")
    for env in ("", str(site)):
        monkeypatch.setenv("PYTHONPATH", env)
        result = pytester.runpytest_subprocess("--help")
        assert result.ret == 0, result.stderr.str()
        assert "--parser=NAME" in result.stdout.str()
