"""Case-set folders through the CLI: files, manifest, sha256 check, determinism, errors."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tablebench.cli import main
from tablebench.generate.caseset import caseset_info, load_pages, verify_caseset
from tablebench.tex.runner import have_pdflatex

pytestmark = pytest.mark.skipif(not have_pdflatex(), reason="pdflatex is not installed (apt texlive-latex-base)")


@pytest.fixture(scope="module")
def two_sets(tmp_path_factory) -> tuple[Path, Path]:
    """The same 2-page set generated twice: serially and with --jobs 2."""
    root = tmp_path_factory.mktemp("cases")
    assert main(["generate", "--pages", "2", "--seed", "5", "--out", str(root / "a")]) == 0
    assert main(["generate", "--pages", "2", "--seed", "5", "--out", str(root / "b"), "--jobs", "2"]) == 0
    return root / "a", root / "b"


def test_folder_holds_pdf_json_and_manifest(two_sets) -> None:
    a, _ = two_sets
    assert sorted(p.name for p in a.iterdir()) == ["001.json", "001.pdf", "002.json", "002.pdf", "manifest.json"]
    manifest = json.loads((a / "manifest.json").read_text())
    pages = load_pages(a)
    tables = [b for p in pages for b in p["blocks"] if b["type"] == "table"]
    assert manifest["seed"] == 5 and manifest["pages"] == 2 and manifest["tables"] == len(tables)
    assert sum(manifest["complexity"].values()) == len(tables)
    assert set(manifest["files"]) == {"001.json", "001.pdf", "002.json", "002.pdf"}
    assert all(len(h) == 64 for h in manifest["files"].values())
    page = pages[0]
    assert {"layout", "seed", "blocks", "pdflatex_runs", "generator"} <= set(page)
    assert page["blocks"][0]["type"] in ("text", "table")
    assert {"data", "html", "complexity", "source", "bbox"} <= set(tables[0])


def test_same_seed_gives_identical_json_and_pdf_text(two_sets) -> None:
    a, b = two_sets
    for name in ("001.json", "002.json", "manifest.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes()
    for name in ("001.pdf", "002.pdf"):
        texts = [subprocess.run(["pdftotext", str(d / name), "-"], capture_output=True, check=True).stdout
                 for d in (a, b)]
        assert texts[0] == texts[1] and len(texts[0]) > 500


def test_info_and_integrity_check(two_sets, tmp_path, capsys) -> None:
    a, _ = two_sets
    info = caseset_info(a)
    assert info["pages"] == 2 and info["problems"] == [] and info["bytes"] > 10_000
    assert main(["cases", "info", str(a)]) == 0
    assert "sha256 match" in capsys.readouterr().out
    # a tampered copy is caught
    c = tmp_path / "c"
    c.mkdir()
    for p in a.iterdir():
        (c / p.name).write_bytes(p.read_bytes())
    (c / "002.json").write_text("{}")
    (c / "001.pdf").unlink()
    assert verify_caseset(c) == ["001.pdf: missing", "002.json: sha256 mismatch"]
    assert main(["cases", "info", str(c)]) == 1


def test_clear_errors(two_sets, tmp_path, capsys) -> None:
    a, _ = two_sets
    assert main(["generate", "--pages", "1", "--out", str(a)]) == 1
    assert "already holds a case set" in capsys.readouterr().err
    assert main(["generate", "--pages", "0", "--out", str(tmp_path / "x")]) == 1
    assert "--pages must be >= 1" in capsys.readouterr().err
    assert main(["cases", "info", str(tmp_path)]) == 1
    assert "manifest.json is missing" in capsys.readouterr().err
