"""The terminal's failure summary stays short whatever the number of failed cases: one line per cause.

Two real pytest runs (subprocesses, no `-r` given: pytest's defaults) on the whole committed
synth-v1 (100 pages, 441 tables): a parser whose `prepare()` cannot import its model, and a
`dir:` folder holding the outputs of 5 pages of 100. The lines counted are every line pytest's
short test summary and the tablebench failures section print; the cause, its pages and cases,
and the command to reproduce it are in them.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from tablebench.cases import load_case_set

from tests.test_plugin import PLUGIN
from tests.test_run import write_outputs

pytest_plugins = ["pytester"]
LIMIT = 30  # lines of failure summary, for any number of failed cases
BROKEN = '''
class Broken:
    name = "tb-broken"
    version = "1"
    config: dict = {}

    def prepare(self) -> None:
        import no_such_model_package  # noqa: F401 -- the model's package is not installed

    def parse(self, pdf_path):
        return ""
'''


def failure_summary(lines: list[str]) -> list[str]:
    """The lines of pytest's short test summary and of tablebench's failures section (each from
    its `===` heading to the next heading)."""
    out, inside = [], False
    for line in lines:
        heading = line.startswith("=") and line.endswith("=")
        if heading:
            inside = "short test summary info" in line or "tablebench failures" in line
        if inside:
            out.append(line)
    return out


def _run(pytester: pytest.Pytester, tmp_path: Path, spec: str, *more: str) -> tuple[list[str], dict]:
    report = tmp_path / "report"
    result = pytester.runpytest_subprocess(*PLUGIN, f"--parser={spec}", f"--parse-cache={tmp_path / 'cache'}",
                                           f"--report-dir={report}", "-p", "no:cacheprovider", "-p", "no:xdist",
                                           *more, timeout=900)
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()[-3000:]
    return result.stdout.lines, json.loads((report / "results.json").read_text(encoding="utf-8"))


def test_a_parser_whose_prepare_fails_on_every_page_is_one_cause(pytester: pytest.Pytester, tmp_path: Path) -> None:
    pytester.makepyfile(tb_broken=BROKEN)
    lines, data = _run(pytester, tmp_path, "tb-broken=tb_broken:Broken")
    results = data["results"]
    assert len(results) == 441 and all(r["verdict"]["status"] == "fail" for r in results)
    summary = failure_summary(lines)
    assert 0 < len(summary) <= LIMIT, "\n".join(summary)
    text = "\n".join(summary)
    cause = next(line for line in summary if "ModuleNotFoundError" in line)
    assert cause.startswith("tb-broken") and "prepare() raised ModuleNotFoundError" in cause
    assert "no_such_model_package" in cause
    assert "100/100 pages (441 cases)" in cause and "every page" in cause, cause
    assert text.count("reproduce: tablebench parse tb_broken:Broken ") == 1, text
    assert not any(line.startswith("FAILED synth-v1/") for line in lines), "each case's line: junit, report.html"
    assert lines[-1].startswith("=") and "441 failed" in lines[-1], "pytest's count stays"


def test_a_dir_folder_holding_5_of_100_outputs_is_one_cause(pytester: pytest.Pytester, tmp_path: Path) -> None:
    five = load_case_set("synth-v1", only={f"p{i:03d}" for i in range(1, 6)})
    folder = write_outputs(tmp_path / "outputs", five)
    lines, data = _run(pytester, tmp_path, f"five=dir:{folder}", "--metrics=teds")
    failed = [r for r in data["results"] if r["verdict"]["status"] == "fail"]
    assert len(failed) == 441 - sum(len(p.tables) for p in five.pages)
    summary = failure_summary(lines)
    assert 0 < len(summary) <= LIMIT, "\n".join(summary)
    cause = next(line for line in summary if f"in {folder}" in line)
    assert cause.startswith("five: ") and f"95/100 pages ({len(failed)} cases)" in cause, cause
    example = next(line for line in summary if "'synth-v1/p006::t0[five]'" in line)
    assert shlex.split(example.split("e.g. ", 1)[1])[0] == "synth-v1/p006::t0[five]", "an id to paste after pytest"
