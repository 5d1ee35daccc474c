"""Whole pages with real pdflatex: exactly one page, clean, few runs, faithful ground truth."""

from __future__ import annotations

import re
import subprocess

import pytest

from tablebench.generate.layouts import PAPERS, PageLayout
from tablebench.generate.page import build_page
from tablebench.generate.seeds import derive_seed
from tablebench.readers.latex import read_latex
from tablebench.tex.runner import have_pdflatex

pytestmark = pytest.mark.skipif(not have_pdflatex(), reason="pdflatex is not installed (apt texlive-latex-base)")

TWO_COL = PageLayout(docclass="article", font="termes", fontsize=10, columns=2, language="en",
                     margins_mm=(20, 18, 22, 18), columnsep_mm=7)
ONE_COL = PageLayout(docclass="scrreprt", font="pagella", fontsize=12, columns=1, language="de",
                     spacing="onehalf", parindent_pt=0, parskip_pt=6, paper="letter")


def pdf_text(pdf: bytes) -> str:
    out = subprocess.run(["pdftotext", "-layout", "-", "-"], input=pdf, capture_output=True, check=True)
    return out.stdout.decode()


@pytest.fixture(scope="module", params=[TWO_COL, ONE_COL], ids=["two-column", "one-column"])
def page(request):
    return build_page(1234, request.param)


def test_exactly_one_clean_page_in_few_runs(page, tmp_path) -> None:
    (tmp_path / "p.pdf").write_bytes(page.pdf)
    out = subprocess.run(["pdfinfo", str(tmp_path / "p.pdf")], capture_output=True, check=True).stdout.decode()
    assert re.search(r"^Pages:\s+1$", out, re.M)
    assert 2 <= page.runs <= 3


def test_page_holds_tables_of_the_planned_classes(page) -> None:
    assert len(page.tables) >= 2
    assert {t["complexity"] for t in page.tables} <= {"simple", "moderate", "complex"}
    for t in page.tables:
        assert t["data"].lstrip().startswith(r"\begin{tabular}") and t["source"] == "builtin"
        assert 0.66 <= t["scale"] <= 1.0


def _word_boxes(pdf: bytes) -> list[tuple[float, str]]:
    """(yMax, word) of every word, from pdftotext -bbox."""
    xml = subprocess.run(["pdftotext", "-bbox", "-", "-"], input=pdf, capture_output=True, check=True).stdout.decode()
    return [(float(y), w) for y, w in re.findall(r'<word [^>]*yMax="([\d.]+)">([^<]*)</word>', xml)]


def test_text_blocks_are_on_the_page_and_the_page_is_full(page) -> None:
    text = " ".join(pdf_text(page.pdf).split()).replace("- ", "")
    texts = [b["data"] for b in page.blocks if b["type"] == "text"]
    assert texts[-1].split()[-1].rstrip(".") in text  # the page ends with the last text block
    lay = page.layout
    area_bottom = (PAPERS[lay.paper][1] - lay.margins_mm[2]) * 72 / 25.4
    body = [y for y, _ in _word_boxes(page.pdf) if y < area_bottom + 2]  # not the page number
    stretch = {"single": 1.0, "onehalf": 1.5, "double": 1.9}[lay.spacing]
    line = lay.fontsize * 1.2 * stretch
    assert max(body) > area_bottom - 3 * line  # filled to within a few lines of the bottom


def test_table_boxes_lie_inside_the_text_area(page) -> None:
    lay = page.layout
    w_bp, h_bp = (x * 72 / 25.4 for x in PAPERS[lay.paper])
    top, right, bottom, left = (m * 72 / 25.4 for m in lay.margins_mm)
    for t in page.tables:
        x0, y0, x1, y1 = t["bbox"]
        assert left - 1 <= x0 < x1 <= w_bp - right + 1
        assert top - 1 <= y0 < y1 <= h_bp - bottom + 1
    ys = [t["bbox"][1] for t in page.tables]
    if lay.columns == 1:
        assert ys == sorted(ys)  # reading order is top to bottom in one column


def test_table_html_comes_from_the_latex_reader(page) -> None:
    for t in page.tables:
        assert t["html"] == read_latex(t["data"])[0].to_html()


def test_same_seed_same_page() -> None:
    a, b = build_page(99, TWO_COL), build_page(99, TWO_COL)
    assert a.blocks == b.blocks and a.runs == b.runs
    assert pdf_text(a.pdf) == pdf_text(b.pdf)
    assert a.pdf == b.pdf  # SOURCE_DATE_EPOCH pins dates and IDs


def test_derived_seeds_are_stable() -> None:
    assert derive_seed(0, "page", 1, 0) == derive_seed(0, "page", 1, 0) != derive_seed(0, "page", 2, 0)
    assert derive_seed(1, "x") == 3071324166518438224  # sha256-based: the same on every platform
