"""reports/: `reports/latest` names the newest run, and only the newest run folders stay.

Only folders a run made under its default name, holding nothing but what a run writes, are
ever removed; a folder another run is writing to, a user's folder and anything else stay."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tablebench.core.files import claim_folder
from tablebench.report.runs import LATEST, keep_newest, run_folder
from tests.ci_cases import case_set, write_pages
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]


def _run(reports: Path, stamp: str, extra: str = "") -> Path:
    folder = reports / f"{stamp}-mine"
    folder.mkdir(parents=True)
    for name in ("results.json", "results.jsonl", "leaderboard.md", "report.html", ".tablebench-run.lock"):
        (folder / name).write_text("{}", encoding="utf-8")
    (folder / "crops" / "s").mkdir(parents=True)
    if extra:
        (folder / extra).write_text("mine", encoding="utf-8")
    return folder


def test_the_default_name_is_a_timestamp_and_the_parsers(tmp_path: Path) -> None:
    path = run_folder(tmp_path / "reports", ["pdfplumber", "vlm:gpt/x y"])
    assert path.parent == tmp_path / "reports" and not path.exists()
    assert re.fullmatch(r"\d{8}-\d{6}-pdfplumber\+vlm_gpt_x_y", path.name), path.name


def test_latest_names_the_newest_and_only_the_tool_s_own_old_folders_go(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    runs = [_run(reports, f"202601{day:02d}-120000") for day in range(1, 26)]
    mine = _run(reports, "20250101-000000", extra="notes.txt")  # oldest, but a user put a file in it
    other = reports / "baseline-runs"
    other.mkdir()
    (reports / "README.md").write_text("mine", encoding="utf-8")
    held = claim_folder(runs[0], "--report-dir")  # another run still writes there
    try:
        removed = keep_newest(reports, runs[-1], keep=20)
    finally:
        held.release()
    assert sorted(removed) == sorted(runs[1:5]), "the oldest beyond 20, but not the one in use"
    left = {p.name for p in reports.iterdir()}
    assert {r.name for r in runs[5:]} <= left and runs[0].name in left
    assert {mine.name, other.name, "README.md", LATEST} <= left
    latest = reports / LATEST
    assert latest.is_symlink() and os.readlink(latest) == runs[-1].name, "relative: the folder may move"
    assert (latest / "results.json").is_file()
    assert keep_newest(reports, runs[-1], keep=0) == [] and len(list(reports.iterdir())) == len(left)


def test_latest_is_a_file_naming_the_folder_where_no_symlink_can_be_made(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    reports = tmp_path / "reports"
    first, second = _run(reports, "20260101-120000"), _run(reports, "20260102-120000")
    keep_newest(reports, first, keep=5)
    assert (reports / LATEST).is_symlink()

    def refused(*args, **kwargs):
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(os, "symlink", refused)
    keep_newest(reports, second, keep=5)
    latest = reports / LATEST
    assert not latest.is_symlink() and latest.read_text(encoding="utf-8") == f"{second.name}\n"


def test_a_latest_that_is_a_user_s_folder_is_left_alone(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    run = _run(reports, "20260101-120000")
    (reports / LATEST).mkdir()
    (reports / LATEST / "keep.txt").write_text("mine", encoding="utf-8")
    keep_newest(reports, run, keep=5)
    assert (reports / LATEST / "keep.txt").read_text(encoding="utf-8") == "mine"


def test_runs_point_latest_at_themselves_and_keep_the_newest(pytester: pytest.Pytester, tmp_path: Path) -> None:
    cases = case_set(tmp_path / "mini", 1)
    exact = write_pages(tmp_path / "exact", cases)
    common = [*PLUGIN, f"--cases={cases}", f"--parser=mine=dir:{exact}", "--metrics=teds", "-p", "no:cacheprovider",
              "-p", "no:xdist", f"--parse-cache={tmp_path / 'cache'}"]
    reports = pytester.path / "reports"
    for n in range(3):
        assert pytester.runpytest(*common, "--report-keep=2").ret == 0
        names = sorted(p.name for p in reports.iterdir() if p.name != LATEST)
        assert len(names) == min(n + 1, 2), names
        assert os.readlink(reports / LATEST) == names[-1]
        rows = json.loads((reports / LATEST / "results.json").read_text(encoding="utf-8"))["results"]
        assert rows and rows[0]["id"].startswith("mini/p001::")
    refused = pytester.runpytest(*common, "--report-keep=-1")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    assert "--report-keep must be 0 (keep every run folder) or a positive integer, got '-1'" in refused.stderr.str()
