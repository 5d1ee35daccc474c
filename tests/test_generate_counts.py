"""`generate`'s progress line counts each kind the pages hold on its own (was "N tables + formulas")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablebench.cli import main
from tablebench.generate.commands import counted
from tablebench.tex.runner import have_pdflatex


def test_each_kind_is_counted_on_its_own() -> None:
    assert counted({"tables": 3, "formulas": 11}) == "3 tables + 11 formulas"
    assert counted({"tables": 4}) == "4 tables"


@pytest.mark.skipif(not have_pdflatex(), reason="pdflatex is not installed (apt texlive-latex-base)")
def test_a_mixed_page_reports_its_tables_and_formulas(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["generate", "--pages", "1", "--track", "mixed", "--seed", "3", "--out", str(tmp_path / "set")]) == 0
    err = " ".join(capsys.readouterr().err.split())
    manifest = json.loads((tmp_path / "set" / "manifest.json").read_text(encoding="utf-8"))
    formulas = sum(manifest["formulas"].values())
    assert manifest["tables"] > 0 and formulas > 0
    assert f"{manifest['tables']} tables + {formulas} formulas" in err, err
