"""Scan/photo page variants: image-only PDFs, seeded and byte-stable, recorded in the ground truth."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tablebench.cases import INSTALLED_CASES, load_case_set
from tablebench.cli import main
from tablebench.core.raster import image_pdf, jpeg_bytes, page_sizes, rasterise
from tablebench.generate.caseset import load_pages, verify_caseset
from tablebench.generate.twin import variant_twin
from tablebench.generate.variants import check_variant, draw_params, variant_pdf
from tablebench.tex.runner import have_pdflatex

pytestmark = pytest.mark.skipif(shutil.which("pdftoppm") is None or shutil.which("pdftotext") is None,
                                reason="poppler-utils (pdftoppm, pdftotext) is not installed")

SOURCE = INSTALLED_CASES / "synth-v1"
PAGE = SOURCE / "001.pdf"
DPI = 60  # byte identity and the missing text layer do not depend on resolution; tests stay fast


def pdftotext(path: Path) -> str:
    return subprocess.run(["pdftotext", str(path), "-"], capture_output=True, check=True).stdout.decode()


@pytest.mark.parametrize("variant", ["scan", "photo"])
def test_same_seed_same_bytes_other_seed_other_bytes(variant: str) -> None:
    first, record = variant_pdf(PAGE, variant, seed=11, dpi=DPI)
    again, record_again = variant_pdf(PAGE, variant, seed=11, dpi=DPI)
    other, record_other = variant_pdf(PAGE, variant, seed=12, dpi=DPI)
    assert first == again and record == record_again
    assert other != first and record_other["params"] != record["params"]
    assert b"CreationDate" not in first and b"ModDate" not in first


@pytest.mark.parametrize("variant", ["scan", "photo"])
def test_variant_has_no_text_layer_and_keeps_the_page_size(variant: str, tmp_path: Path) -> None:
    data, _ = variant_pdf(PAGE, variant, seed=3, dpi=DPI)
    out = tmp_path / "v.pdf"
    out.write_bytes(data)
    assert len(pdftotext(PAGE).split()) > 100  # the born-digital page has a text layer
    assert pdftotext(out).strip() == ""
    assert page_sizes(out)[0] == pytest.approx(page_sizes(PAGE)[0], abs=0.01)
    image = rasterise(out, DPI, gray=variant == "scan")[0]
    assert image.mode == ("L" if variant == "scan" else "RGB")


def test_record_names_variant_seed_dpi_source_and_drawn_parameters() -> None:
    _, scan = variant_pdf(PAGE, "scan", seed=5, dpi=DPI)
    assert scan["name"] == "scan" and scan["seed"] == 5 and scan["dpi"] == DPI
    assert scan["source_sha256"] == hashlib.sha256(PAGE.read_bytes()).hexdigest()
    assert {"skew_deg", "blur_sigma_px", "noise_sigma", "jpeg_quality", "light_strength"} <= set(scan["params"])
    assert "corners" not in scan["params"]
    _, photo = variant_pdf(PAGE, "photo", seed=5, dpi=DPI)
    assert len(photo["params"]["corners"]) == 8 and "tint" in photo["params"]
    json.dumps(photo)  # JSON-ready as it goes into the ground truth


def test_parameters_stay_in_their_ranges() -> None:
    rng = np.random.default_rng(0)
    for _ in range(200):
        scan, photo = draw_params("scan", rng), draw_params("photo", rng)
        assert 0.3 <= abs(scan["skew_deg"]) <= 1.0 and 60 <= scan["jpeg_quality"] <= 85
        assert 0.25 <= photo["light_strength"] <= 0.4 and max(map(abs, photo["corners"])) <= 0.012


def test_bad_variant_or_dpi_is_a_one_line_error() -> None:
    with pytest.raises(ValueError, match="unknown variant 'blur'; known: scan, photo"):
        check_variant("blur")
    with pytest.raises(ValueError, match="--dpi must be between 50 and 600, got 20"):
        check_variant("scan", 20)


def test_image_pdf_writes_every_page(tmp_path: Path) -> None:
    from PIL import Image

    pages = [(jpeg_bytes(Image.new(mode, (40, 60), 200), 80, 72), (40, 60), mode, (40.0, 60.0)) for mode in ("L", "RGB")]
    out = tmp_path / "two.pdf"
    out.write_bytes(image_pdf(pages))
    assert page_sizes(out) == [(40.0, 60.0), (40.0, 60.0)]
    assert [im.size for im in rasterise(out, 72)] == [(40, 60), (40, 60)]


# -- scanned twins of a case set ----------------------------------------------------------


@pytest.fixture(scope="module")
def twin(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("twin") / "scan"
    variant_twin(SOURCE, out, "scan", pages=2, dpi=DPI)
    return out


def test_twin_keeps_ground_truth_and_records_the_variant(twin: Path) -> None:
    source = {p["index"]: p for p in load_pages(SOURCE)[:2]}
    pages = load_pages(twin)
    assert [p["index"] for p in pages] == [1, 2]
    for page in pages:
        variant = page.pop("variant")
        assert page == source[page["index"]]  # the tables (and everything else) are unchanged
        assert variant["name"] == "scan" and variant["dpi"] == DPI
        assert variant["source_sha256"] == hashlib.sha256((SOURCE / f"{page['index']:03d}.pdf").read_bytes()).hexdigest()
    manifest = json.loads((twin / "manifest.json").read_text())
    assert manifest["variant"] == {"pages": {"scan": 2}, "dpi": [DPI], "version": ["1"], "digital_pages": 0}
    source_seed = json.loads((SOURCE / "manifest.json").read_text())["seed"]
    assert manifest["variant_of"] == {"set": "synth-v1", "seed": source_seed, "pages": 2}
    assert verify_caseset(twin) == []
    loaded = load_case_set(twin)
    assert loaded.n_tables == sum(b["type"] == "table" for p in pages for b in p["blocks"])
    assert all(pdftotext(p.pdf).strip() == "" for p in loaded.pages)


def test_twin_is_reproducible(twin: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    variant_twin(SOURCE, again, "scan", pages=2, dpi=DPI)
    assert {p.name: p.read_bytes() for p in again.iterdir()} == {p.name: p.read_bytes() for p in twin.iterdir()}


def test_twin_refusals_are_one_line_errors(twin: Path, tmp_path: Path, capsys) -> None:
    assert main(["cases", "variant", str(twin), "--variant", "scan", "--out", str(tmp_path / "x")]) == 1
    assert "already a variant set" in capsys.readouterr().err
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "note.txt").write_text("keep")
    assert main(["cases", "variant", "synth-v1", "--variant", "photo", "--out", str(tmp_path / "full"), "--pages", "1"]) == 1
    assert "is not empty" in capsys.readouterr().err
    assert main(["cases", "variant", "synth-v1", "--variant", "scan", "--out", str(tmp_path / "y"), "--pages", "0"]) == 1
    assert "--pages must be >= 1" in capsys.readouterr().err
    assert not (tmp_path / "y").exists()


def test_cli_twin_prints_its_size(tmp_path: Path, capsys) -> None:
    out = tmp_path / "photo"
    assert main(["cases", "variant", "synth-v1", "--variant", "photo", "--out", str(out), "--pages", "1",
                 "--dpi", str(DPI), "--seed", "4"]) == 0
    assert "photo twin of" in capsys.readouterr().out
    page = load_pages(out)[0]
    assert page["variant"]["name"] == "photo" and page["variant"]["seed"] != 4  # per-page seed derived from 4


# -- generate --variant -------------------------------------------------------------------


@pytest.mark.skipif(not have_pdflatex(), reason="pdflatex is not installed (apt texlive-latex-base)")
def test_generate_variant_equals_twin_of_born_digital_pages(tmp_path: Path, capsys) -> None:
    scanned, digital, twin = tmp_path / "scan", tmp_path / "digital", tmp_path / "twin"
    assert main(["generate", "--pages", "1", "--seed", "9", "--out", str(scanned), "--variant", "scan",
                 "--dpi", str(DPI)]) == 0
    assert f"every page as a scan at {DPI} dpi" in capsys.readouterr().err
    assert main(["generate", "--pages", "1", "--seed", "9", "--out", str(digital)]) == 0
    capsys.readouterr()
    page = load_pages(scanned)[0]
    assert page["variant"]["name"] == "scan" and page["variant"]["dpi"] == DPI
    assert page["variant"]["source_sha256"] == hashlib.sha256((digital / "001.pdf").read_bytes()).hexdigest()
    assert {k: v for k, v in page.items() if k != "variant"} == load_pages(digital)[0]  # same tables
    assert pdftotext(scanned / "001.pdf").strip() == "" and pdftotext(digital / "001.pdf").strip()
    assert json.loads((scanned / "manifest.json").read_text())["variant"]["pages"] == {"scan": 1}
    assert "variant" not in json.loads((digital / "manifest.json").read_text())
    variant_twin(digital, twin, "scan", dpi=DPI)  # the twin's default seed is the source set's (9)
    assert (twin / "001.pdf").read_bytes() == (scanned / "001.pdf").read_bytes()
    assert main(["cases", "info", str(scanned)]) == 0
    assert "scan" in capsys.readouterr().out


def _small_set(folder: Path, names: tuple[str, ...]) -> Path:
    """A two-page born-digital case set copied from SOURCE, its pages named `names`, with its manifest."""
    from tablebench.generate.caseset import build_manifest, dump_json

    folder.mkdir(parents=True)
    records = []
    for name, src in zip(names, ("001", "002")):
        (folder / f"{name}.pdf").write_bytes((SOURCE / f"{src}.pdf").read_bytes())
        record = json.loads((SOURCE / f"{src}.json").read_text(encoding="utf-8"))
        (folder / f"{name}.json").write_text(dump_json(record), encoding="utf-8")
        records.append(record)
    seed = json.loads((SOURCE / "manifest.json").read_text())["seed"]
    (folder / "manifest.json").write_text(dump_json(build_manifest(folder, seed, records)), encoding="utf-8")
    return folder


def test_a_tampered_source_is_refused_not_laundered(tmp_path: Path, capsys) -> None:
    src = _small_set(tmp_path / "src", ("001", "002"))
    record = json.loads((src / "002.json").read_text(encoding="utf-8"))
    record["blocks"] = record["blocks"][:1]  # a page edited after its manifest was written
    (src / "002.json").write_text(json.dumps(record), encoding="utf-8")
    assert main(["cases", "variant", str(src), "--variant", "scan", "--out", str(tmp_path / "t")]) == 1
    assert "sha256 mismatch" in capsys.readouterr().err and not (tmp_path / "t").exists()


def test_four_digit_page_names_are_twinned(tmp_path: Path) -> None:
    src = _small_set(tmp_path / "src", ("999", "1000"))
    out = tmp_path / "t"
    variant_twin(src, out, "scan", dpi=DPI)
    assert sorted(p.name for p in out.glob("*.json") if p.name != "manifest.json") == ["1000.json", "999.json"]
    assert verify_caseset(out) == []
