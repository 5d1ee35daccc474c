"""A file in a case set that its manifest does not list and no reader opens (`001.txt` a command
wrote beside its PDF) is named wherever the set is checked: the run's header and its closing
notes, and `tablebench cases info`. Such a file cannot change a score, so it is a warning; a
stray page file (`NNN.json`, `NNN.pdf`) would be benchmarked, and stays refused."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tablebench.cases import load_case_set
from tablebench.cli import main
from tests.ci_cases import SYNTH
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]


@pytest.fixture
def littered(tmp_path: Path) -> Path:
    cases = tmp_path / "synth-v1"
    shutil.copytree(SYNTH, cases)  # the committed set, copied: the repository stays clean
    (cases / "001.txt").write_text("written by pdftotext -layout 001.pdf")
    (cases / "outputs").mkdir()
    return cases


def test_a_stray_file_is_named_in_the_runs_header_and_notes(pytester: pytest.Pytester, littered: Path,
                                                             tmp_path: Path) -> None:
    run = pytester.runpytest(*PLUGIN, f"--cases={littered}", f"--parse-cache={tmp_path / 'cache'}", "-p",
                             "no:cacheprovider", "--parser=command:cat {pdf}", "--metrics=teds", "--report-only",
                             f"--report-dir={tmp_path / 'report'}", "synth-v1/p001")
    lines = run.stdout.str().splitlines()
    header = next(line for line in lines if line.startswith("tablebench: case set synth-v1:"))
    assert header.endswith("; files match manifest.json (sha256); not in it, never read: 001.txt, outputs/"), header
    assert ("tablebench WARNING: case set synth-v1 holds 2 files not in manifest.json, never read: 001.txt, "
            "outputs/ (remove them)") in lines
    assert load_case_set(littered, verify=True).unlisted == ("001.txt", "outputs/")


def test_cases_info_names_a_stray_file_and_refuses_a_stray_page(littered: Path, capsys) -> None:
    assert main(["cases", "info", str(littered)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "unlisted │ not in manifest.json, never read: 001.txt, outputs/" in out
    shutil.copy(littered / "001.json", littered / "999.json")
    with pytest.raises(ValueError, match=r"999\.json: not in the manifest"):
        load_case_set(littered, verify=True)
