"""Scan variants and the OCR parser: seconds per page, and where the OCR time goes.

Run: `.venv/bin/python -m pytest -p no:xdist --benchmark-only --benchmark-enable tests/benchmarks/test_bench_scan.py`
`extra_info["seconds_per_page"]` is the OCR parser's cost per page; the image steps are timed on
their own so a slowdown in our Python shows apart from Tesseract's time.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tablebench.cases import INSTALLED_CASES
from tablebench.core.raster import rasterise
from tablebench.generate.variants import variant_pdf
from tablebench.parsers.ocr_image import deskew, erase_lines, find_rules, flatten, skew_angle
from tablebench.parsers.tesseract_parser import TesseractParser

PAGES = [INSTALLED_CASES / "synth-v1" / f"{i:03d}.pdf" for i in (1, 2, 3)]
needs_tools = pytest.mark.skipif(shutil.which("tesseract") is None or shutil.which("pdftoppm") is None,
                                 reason="tesseract-ocr or poppler-utils is not installed")


@needs_tools
@pytest.mark.parametrize("variant", ["scan", "photo"])
def test_bench_variant_seconds_per_page(benchmark, variant: str) -> None:
    made = benchmark.pedantic(lambda: [variant_pdf(p, variant, seed=1, dpi=150) for p in PAGES], rounds=1, iterations=1)
    benchmark.extra_info["seconds_per_page"] = benchmark.stats.stats.mean / len(PAGES)
    benchmark.extra_info["kb_per_page"] = sum(len(pdf) for pdf, _ in made) / len(PAGES) / 1000


@needs_tools
def test_bench_ocr_image_steps(benchmark) -> None:
    image = rasterise(PAGES[0], 300)[0]

    def steps() -> int:
        page = flatten(image, 300)
        page = deskew(page, skew_angle(page, 300))
        rules = find_rules(page, 300)
        erase_lines(page, 300, rules)
        return len(rules)

    assert benchmark.pedantic(steps, rounds=2, iterations=1) > 10


@needs_tools
def test_bench_tesseract_seconds_per_page(benchmark, tmp_path: Path) -> None:
    scans = []
    for pdf in PAGES:
        scans.append(tmp_path / pdf.name)
        scans[-1].write_bytes(variant_pdf(pdf, "scan", seed=1, dpi=150)[0])
    parser = TesseractParser()
    outputs = benchmark.pedantic(lambda: [parser.parse(p) for p in scans], rounds=1, iterations=1)
    benchmark.extra_info["seconds_per_page"] = benchmark.stats.stats.mean / len(scans)
    assert all(o.meta["tables"] > 0 for o in outputs)
