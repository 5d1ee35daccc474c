"""A `command:` parser can be debugged from what a run keeps: its stderr (bounded, redacted) is the
traceback of a page it failed on, in results.json and the case's card, and `tablebench parse`
runs it as the benchmark does and prints that stderr, not the harness's own frames."""

from __future__ import annotations

import html
import json
import sys
from pathlib import Path

import pytest

from tablebench.cli import main
from tablebench.core.messages import MAX_TRACEBACK, REDACTED
from tablebench.parse.runner import ParseRunner
from tablebench.report.html_data import expanded_html
from tests.ci_cases import case_set
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]

# fails on page 3 only, after 12,000 characters of noise and a line naming a secret; line 9 is the raise
SCRIPT = """import os, sys
from pathlib import Path


def read_grid(pdf):
    if pdf.name == "003.pdf":
        print("noise\\n" * 2000, file=sys.stderr)
        print("reading", pdf.name, "with", os.environ.get("TB_TEST_KEY", ""), file=sys.stderr)
        raise ValueError(f"no grid in {pdf.name}")
    return "| a | b |\\n|---|---|\\n| 1 | 2 |"


print(read_grid(Path(sys.argv[1])))
"""
RAISE_LINE = 9

# what the command sees of where it runs: printed as its output, so both ways of running it can be compared
SEES = """import json, os, sys
from pathlib import Path

pdf = Path(sys.argv[1])
print(json.dumps({"pdf_absolute": pdf.is_absolute(), "pdf_in_cwd": pdf.parent == Path.cwd(),
                  "tmpdir_is_cwd": os.environ.get("TMPDIR") == os.getcwd(), "pdf_name": pdf.name,
                  "env": sorted(k for k in os.environ if k != "PWD")}))
"""


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "tools" / "raise3.py"
    path.parent.mkdir()
    path.write_text(SCRIPT, encoding="utf-8")
    return path


def _where(script: Path) -> str:
    return f'File "{script}", line {RAISE_LINE}, in read_grid'


def test_a_script_raising_on_page_3_shows_its_file_and_line_in_results_json_and_the_card(
        pytester: pytest.Pytester, tmp_path: Path, script: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TB_TEST_KEY", "s3cr3t-value-of-a-key")
    bench = case_set(tmp_path / "bench", 3)
    report = tmp_path / "report"
    pytester.runpytest(*PLUGIN, f"--cases={bench}", f"--parse-cache={tmp_path / 'cache'}", "-p", "no:cacheprovider",
                       f"--parser=mine=command:{sys.executable} {script} {{pdf}}", "--metrics=teds",
                       f"--report-dir={report}")
    results = json.loads((report / "results.json").read_text(encoding="utf-8"))["results"]
    failed = [r for r in results if r["page"] == "p003"]
    assert failed and all(r["outcome"] == "parse_error" for r in results if r["page"] == "p003")
    for r in failed:
        trace = r["parser_traceback"]
        assert _where(script) in trace and trace.endswith("ValueError: no grid in 003.pdf"), trace[-500:]
        assert len(trace) <= MAX_TRACEBACK and "s3cr3t-value-of-a-key" not in trace and REDACTED in trace
        assert "parse/command.py" not in trace, "the command's stderr, not the harness's frames"
    assert all(not r.get("parser_traceback") for r in results if r["page"] != "p003")
    card = html.unescape(expanded_html((report / "report.html").read_text(encoding="utf-8")))
    assert _where(script) in card


def test_tablebench_parse_prints_the_commands_stderr(tmp_path: Path, script: Path, capsys,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TB_TEST_KEY", "s3cr3t-value-of-a-key")
    pdf = case_set(tmp_path / "bench", 3) / "pdfs" / "003.pdf"
    spec = f"command:{sys.executable} {script} {{pdf}}"
    assert main(["parse", spec, str(pdf)]) == 1
    err = capsys.readouterr().err
    assert _where(script) in err and "ValueError: no grid in 003.pdf" in err
    assert "parse/command.py" not in err and "s3cr3t-value-of-a-key" not in err and REDACTED in err
    assert err.rstrip().splitlines()[-1].startswith(f"tablebench parse: {spec} on 003.pdf: error, ")
    assert main(["parse", spec, str(pdf), "--pdb"]) == 1
    assert capsys.readouterr().err.startswith("tablebench: error: --pdb stops in a Python parser; a command: runs ")


def test_tablebench_parse_runs_a_command_as_the_benchmark_does(tmp_path: Path, capsys,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    sees = tmp_path / "sees.py"
    sees.write_text(SEES, encoding="utf-8")
    pdf = case_set(tmp_path / "bench", 1) / "pdfs" / "001.pdf"
    monkeypatch.chdir(pdf.parent)  # a relative {pdf}, as a user types it
    spec = f"command:{sys.executable} {sees} {{pdf}}"
    with ParseRunner(spec, cache_dir=None, timeout=60) as runner:
        benchmark = json.loads(runner.run(pdf).text)
    assert main(["parse", spec, "001.pdf"]) == 0
    debugged = json.loads(capsys.readouterr().out)
    assert debugged == benchmark
    assert benchmark["pdf_absolute"] and benchmark["pdf_in_cwd"] and benchmark["tmpdir_is_cwd"]
