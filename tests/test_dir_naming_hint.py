"""`dir:` with files named after something else: the run refuses to start, with one line saying what names it reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablebench.parse.directory import naming_hint
from tests.test_plugin import args, bench, warm_metrics  # noqa: F401 - fixtures

pytest_plugins = ["pytester"]


def test_a_folder_with_no_page_named_says_the_pattern_and_what_it_holds(tmp_path: Path) -> None:
    for name in ("out_002.md", "out_074.md", "notes.txt", "zz.html"):
        (tmp_path / name).write_text("x")
    hint = naming_hint(f"dir:{tmp_path}", [Path("/cases/002.pdf"), Path("/cases/074.pdf")])
    assert hint is not None and "\n" not in hint
    assert "no output file for any of the 2 pages" in hint
    assert "PAGE{.md|.html|.txt|.tex} (e.g. 002.md for 002.pdf)" in hint
    assert hint.endswith("it holds 4 files: notes.txt, out_002.md, out_074.md, ...")


def test_no_hint_when_one_page_matches_or_for_other_parsers(tmp_path: Path) -> None:
    (tmp_path / "074.txt").write_text("x")
    assert naming_hint(f"dir:{tmp_path}", [Path("002.pdf"), Path("074.pdf")]) is None
    assert naming_hint("pypdf", [Path("002.pdf")]) is None
    (tmp_path / "074.txt").unlink()
    assert naming_hint(f"dir:{tmp_path}", [Path("002.pdf")]).endswith("it is empty")


def test_the_run_refuses_to_start_with_one_line_and_exit_code_4(pytester: pytest.Pytester, bench: Path,
                                                                tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "page-002.md").write_text("| a | b |\n|---|---|\n| 1 | 2 |\n")
    result = pytester.runpytest(*args(bench, tmp_path / "cache", f"--parser=mine=dir:{out}", "-p", "no:xdist"))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    lines = [line for line in result.stderr.lines if "no output file for any of the 2 pages" in line]
    assert len(lines) == 1 and lines[0].startswith("ERROR: --parser mine: dir:")
    assert "it holds 1 file: page-002.md" in lines[0] and "e.g. 002.md for 002.pdf" in lines[0]
    assert not any(line.startswith("collected") for line in result.stdout.lines), "refused before collection"
