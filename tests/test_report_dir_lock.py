"""Two runs never share a report folder: the second run of a folder another run is writing to is a
one-line usage error (never a truncated results.jsonl under the first run), and default folder
names are unique even for runs started in the same second.

The first run is held in the middle of its items by a plugin that waits for a file, so the
second one starts while it writes; both are real subprocess pytest runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tablebench.core.files import claim_folder, new_folder
from tests.ci_cases import case_set, write_pages
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]

HOLDER = '''
import os, time
from pathlib import Path

def pytest_runtest_call(item):
    hold = os.environ.get("HOLD_DIR")
    if hold and item.nodeid.startswith("mini/p002::t0["):
        Path(hold, "started").touch()
        for _ in range(1200):  # at most 2 minutes: the test lets it go long before
            if Path(hold, "go").exists():
                return
            time.sleep(0.1)
'''


def test_a_second_run_into_a_folder_in_use_is_refused_and_the_first_finishes_whole(
        pytester: pytest.Pytester, tmp_path: Path):
    cases = case_set(tmp_path / "cases" / "mini", 3)
    out = write_pages(tmp_path / "exact", cases)
    pytester.makepyfile(holder=HOLDER)
    report, hold = tmp_path / "report", tmp_path / "hold"
    hold.mkdir()
    argv = [sys.executable, "-m", "pytest", *PLUGIN, "-p", "holder", f"--cases={cases}", f"--parser=mine=dir:{out}",
            "--metrics=teds", "-p", "no:cacheprovider", "-p", "no:xdist", f"--parse-cache={tmp_path / 'cache'}",
            f"--report-dir={report}"]
    env = {**os.environ, "HOLD_DIR": str(hold), "PYTHONPATH": str(pytester.path)}
    first = subprocess.Popen(argv, cwd=pytester.path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        while not (hold / "started").exists() and first.poll() is None:
            time.sleep(0.1)
        assert first.poll() is None, first.communicate()
        second = subprocess.run(argv, cwd=pytester.path, env={**env, "HOLD_DIR": ""}, capture_output=True,
                                text=True, timeout=300, check=False)
        assert second.returncode == pytest.ExitCode.USAGE_ERROR, second.stdout + second.stderr
        assert f"--report-dir {report}: another tablebench run is writing to it" in second.stderr
    finally:
        (hold / "go").touch()
        stdout, stderr = first.communicate(timeout=300)
    assert first.returncode == 0, stdout + stderr
    results = json.loads((report / "results.json").read_text())["results"]
    assert len(results) == len((report / "results.jsonl").read_text().splitlines()) > 5


def test_default_folder_names_are_unique_within_a_second(tmp_path: Path):
    base = tmp_path / "reports" / "20260101-120000-mine"
    first, second = new_folder(base), new_folder(base)
    assert (first, second) == (base, base.with_name(base.name + "-2")) and first.is_dir() and second.is_dir()


def test_a_folder_is_claimed_by_one_holder_at_a_time(tmp_path: Path):
    held = claim_folder(tmp_path / "r", "--out")
    with pytest.raises(ValueError, match=r"^--out .*: another tablebench run is writing to it"):
        claim_folder(tmp_path / "r", "--out")
    held.release()
    claim_folder(tmp_path / "r", "--out").release()


def test_report_out_into_a_folder_a_run_holds_is_refused(tmp_path: Path, capsys):
    from tablebench.cli import main
    from tablebench.report.write import write_report
    from tests.test_report_samples import sample_results

    write_report(sample_results(n_pages=2), tmp_path / "run", {"case_set": "s"})
    held = claim_folder(tmp_path / "busy", "--report-dir")
    try:
        merge = ["report", "merge", str(tmp_path / "run"), "--allow-incomplete", "--out"]  # a run without a record
        for argv in (["report", str(tmp_path / "run"), "--out"], merge):
            assert main([*argv, str(tmp_path / "busy")]) == 1
            assert "another tablebench run is writing to it" in capsys.readouterr().err
        assert not (tmp_path / "busy" / "results.json").exists()
    finally:
        held.release()
    assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "busy")]) == 0
