"""A parser that raises keeps the last frames of its traceback: in results.json and the card,
under `--tb=long` in the terminal, and the failure prints the `tablebench parse` command that
reruns it in one process (where the traceback is shown whole)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from tablebench.cli import main
from tablebench.core.messages import MAX_TRACEBACK
from tablebench.parse.runner import ParseRunner
from tablebench.report.html_data import expanded_html
from tests.raising_parser import Raises
from tests.test_plugin import args, bench, cache, warm_metrics  # noqa: F401  (fixtures)

pytest_plugins = ["pytester"]
SPEC = "tests.raising_parser:Raises"


def test_a_worker_keeps_the_last_frames_of_the_traceback(bench: Path, tmp_path: Path):  # noqa: F811
    pdf = next(bench.rglob("*.pdf"))
    with ParseRunner(Raises(), cache_dir=None) as runner:
        result = runner.run(pdf)
    assert result.outcome == "error" and result.message == f"RuntimeError: cannot read the table grid of {pdf.name}"
    trace = result.meta["traceback"]
    assert "_read_grid" in trace and trace.endswith(result.message) and len(trace) <= MAX_TRACEBACK


def test_the_traceback_reaches_results_json_the_card_and_tb_long(pytester: pytest.Pytester, bench: Path,  # noqa: F811
                                                                 tmp_path: Path):
    report = tmp_path / "r"
    run = pytester.runpytest(*args(bench, tmp_path / "cache", f"--parser={SPEC}", "--metrics=teds", "--tb=long",
                                   f"--report-dir={report}"))
    assert run.ret == pytest.ExitCode.TESTS_FAILED
    out = run.stdout.str()
    pdf = next(bench.rglob("*.pdf"))
    assert f"reproduce: tablebench parse {shlex.quote(SPEC)} " in out and str(pdf.parent) in out
    assert "parser traceback (last frames):" in out and "in _read_grid" in out
    results = json.loads((report / "results.json").read_text())["results"]
    assert results and all("in _read_grid" in r["parser_traceback"] for r in results)
    assert "in _read_grid" in expanded_html((report / "report.html").read_text())
    short = pytester.runpytest(*args(bench, tmp_path / "cache", f"--parser={SPEC}", "--metrics=teds",
                                     f"--report-dir={tmp_path / 'r2'}"))
    assert "reproduce: tablebench parse" in short.stdout.str() and "in _read_grid" not in short.stdout.str(), \
        "the traceback only under --tb=long"


def test_tablebench_parse_runs_one_parser_on_one_page_in_process(bench: Path, capsys):  # noqa: F811
    pdf = next(bench.rglob("*.pdf"))
    assert main(["parse", SPEC, str(pdf)]) == 1
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "in _read_grid" in err
    assert err.rstrip().endswith(f"tablebench parse: {SPEC} raised RuntimeError on {pdf.name}")
    assert main(["parse", "pypdf", str(pdf)]) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() and f"tablebench parse: pypdf on {pdf.name}: ok, " in captured.err
    assert main(["parse", "no-such-parser", str(pdf)]) == 1
    assert capsys.readouterr().err.startswith("tablebench: error: unknown parser 'no-such-parser'")
