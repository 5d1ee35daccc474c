"""`--report-crops=folder` (pytest, `tablebench report --out`, `report merge`): every page crop in crops/ too."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tablebench.cases import INSTALLED_CASES, load_case_set
from tablebench.cli import main
from tablebench.report.crops import CROPS_FOLDER
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]
SYNTH = INSTALLED_CASES / "synth-v1"


@pytest.fixture(autouse=True)
def _poppler() -> None:
    if shutil.which("pdftoppm") is None:
        pytest.skip("no pdftoppm (apt-get install -y poppler-utils)")


def _crops(folder: Path) -> list[Path]:
    return sorted((folder / CROPS_FOLDER).rglob("*.webp"))


def test_pytest_writes_the_crop_folder_only_when_asked(pytester: pytest.Pytester, tmp_path: Path) -> None:
    page = load_case_set(SYNTH).pages[0]
    (tmp_path / "none").mkdir()
    other = load_case_set(SYNTH).pages[1].pdf.stem  # an output for another page only: every case here is empty
    (tmp_path / "none" / f"{other}.md").write_text("no table", encoding="utf-8")
    runs = {}
    for form in ("inline", "folder"):
        runs[form] = tmp_path / form
        result = pytester.runpytest(*PLUGIN, "--cases=synth-v1", f"--parser=none=dir:{tmp_path / 'none'}",
                                    f"--parse-cache={tmp_path / 'cache'}", f"--report-dir={runs[form]}",
                                    "--report-only", "-p", "no:cacheprovider", "-k", f"{page.page_id}::",
                                    f"--report-crops={form}")
        assert result.ret == 0, result.stdout.str()
    assert _crops(runs["inline"]) == []
    assert len(_crops(runs["folder"])) == len(page.tables) > 0
    bad = pytester.runpytest(*PLUGIN, "--cases=synth-v1", "--parser=pypdf", "--report-crops=zip")
    assert bad.ret != 0 and "--report-crops: invalid choice: 'zip'" in bad.stderr.str()


def test_report_and_merge_write_the_crop_folder_when_asked(pytester: pytest.Pytester, tmp_path: Path) -> None:
    page = load_case_set(SYNTH).pages[0]
    (tmp_path / "none").mkdir()
    other = load_case_set(SYNTH).pages[1].pdf.stem  # an output for another page only: every case here is empty
    (tmp_path / "none" / f"{other}.md").write_text("no table", encoding="utf-8")
    run = tmp_path / "run"
    result = pytester.runpytest(*PLUGIN, "--cases=synth-v1", f"--parser=none=dir:{tmp_path / 'none'}",
                                f"--parse-cache={tmp_path / 'cache'}", f"--report-dir={run}", "--report-only",
                                "-p", "no:cacheprovider", "-k", f"{page.page_id}::")
    assert result.ret == 0, result.stdout.str()
    assert main(["report", str(run), "--out", str(tmp_path / "again")]) == 0
    assert _crops(tmp_path / "again") == []
    assert main(["report", str(run), "--out", str(tmp_path / "folder"), "--report-crops=folder"]) == 0
    assert len(_crops(tmp_path / "folder")) == len(page.tables)
    assert main(["report", "merge", str(run), "--out", str(tmp_path / "merged"), "--report-crops=folder"]) == 0
    assert len(_crops(tmp_path / "merged")) == len(page.tables)
