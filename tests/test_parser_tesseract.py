"""The OCR baseline: table geometry from word boxes and rules, and real Tesseract runs on scans."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tablebench.cases import INSTALLED_CASES
from tablebench.core.raster import rasterise
from tablebench.generate.caseset import load_pages
from tablebench.generate.variants import variant_pdf
from tablebench.parse.protocol import ParserError
from tablebench.parse.registry import resolve
from tablebench.readers.html import read_html
from tablebench.parsers.ocr_image import Rule, deskew, erase_lines, find_rules, flatten, skew_angle
from tablebench.parsers.ocr_tables import Region, Word, build_table, rows_of, table_regions
from tablebench.parsers.tesseract_parser import TesseractParser, parse_tsv

needs_tesseract = pytest.mark.skipif(shutil.which("tesseract") is None or shutil.which("pdftoppm") is None,
                                     reason="tesseract-ocr or poppler-utils is not installed (./dev.sh setup)")
SOURCE = INSTALLED_CASES / "synth-v1"


def word(text: str, left: int, top: int, width: int | None = None, height: int = 30) -> Word:
    return Word(text, left, top, width or 15 * len(text), height)


# -- geometry on hand-made word boxes -------------------------------------------------------


def header_and_body() -> tuple[Region, list[Word]]:
    """A booktabs table: "MNLI" over a cmidrule over EM / Recall@5, row labels centred on their rows."""
    rules = [Rule(0, 1000, 0), Rule(500, 1000, 60), Rule(0, 1000, 120), Rule(0, 1000, 280)]
    words = [word("MNLI", 700, 20, 80),
             word("Category", 0, 45, 150), word("Method", 250, 45, 150),  # centred on both header rows
             word("EM", 520, 75, 50), word("Recall@5", 800, 75, 150),
             word("A", 250, 140), word("1.0", 520, 140, 60), word("2.0", 890, 140, 60),
             word("Open-source", 0, 180, 180), word("B", 250, 180), word("3.0", 520, 180, 60), word("4.0", 890, 180, 60),
             word("C", 250, 220), word("5.0", 520, 220, 60), word("6.0", 890, 220, 60)]
    return Region(0, 0, 1000, 280, rules), words


def test_spans_from_partial_rules_and_centred_labels() -> None:
    region, words = header_and_body()
    assert build_table(region, words).to_html() == (
        '<table><tr><td rowspan="2">Category</td><td rowspan="2">Method</td><td colspan="2">MNLI</td></tr>'
        "<tr><td>EM</td><td>Recall@5</td></tr>"
        '<tr><td rowspan="3">Open-source</td><td>A</td><td>1.0</td><td>2.0</td></tr>'
        "<tr><td>B</td><td>3.0</td><td>4.0</td></tr><tr><td>C</td><td>5.0</td><td>6.0</td></tr></table>")


def test_cells_split_at_column_gaps_not_at_word_spaces() -> None:
    words = [word("Random", 0, 0, 90), word("Forest", 100, 0, 90), word("36.8", 400, 0, 60),
             word("PPO", 0, 40, 45), word("42.4", 400, 40, 60)]
    table = build_table(Region(0, -10, 500, 80, []), words)
    assert table.text_grid() == [["Random Forest", "36.8"], ["PPO", "42.4"]]


def test_rows_group_subscripts_with_their_line() -> None:
    rows = rows_of([word("35.6", 0, 100), word("±0.6", 65, 112, 50, 22), word("GCN", 0, 140)])
    assert [[w.text for w in r] for r in rows] == [["35.6", "±0.6"], ["GCN"]]


def test_prose_between_rules_of_one_width_separates_two_tables() -> None:
    rules = [Rule(0, 1000, 0), Rule(0, 1000, 100), Rule(0, 1000, 300), Rule(0, 1000, 400)]
    table_row = lambda y: [word("Name", 0, y, 90), word("12.5", 600, y, 60)]  # noqa: E731
    prose = [word(w, 30 + i * 110, y, 100) for y in (160, 200) for i, w in enumerate("we did some work on this here ok".split())]
    words = table_row(40) + prose + table_row(340)
    regions = table_regions(rules, words, page_width=2000)
    assert [(r.top, r.bottom) for r in regions] == [(0, 100), (300, 400)]
    rows = table_row(40) + table_row(150) + table_row(200) + table_row(340)  # no prose: one table
    assert [(r.top, r.bottom) for r in table_regions(rules, rows, page_width=2000)] == [(0, 400)]


def test_vertical_rules_read_as_bars_are_dropped() -> None:
    tsv = ("level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"
           "5\t1\t1\t1\t1\t1\t10\t20\t30\t40\t90\t|\n"
           "5\t1\t1\t1\t1\t2\t50\t20\t30\t40\t90\t|Method\n"
           "4\t1\t1\t1\t1\t0\t10\t20\t300\t40\t-1\t\n"
           "5\t1\t1\t1\t1\t3\t90\t20\t30\t40\t95\t \n")
    assert [(w.text, w.left, w.line_key) for w in parse_tsv(tsv)] == [("Method", 50, (1, 1, 1))]


# -- page images ----------------------------------------------------------------------------


def test_rules_are_thin_long_lines_not_text_or_borders() -> None:
    page = np.ones((400, 600), dtype=np.float32)
    page[100:103, 50:550] = 0.0  # a rule
    page[200:203, 50:80] = 0.0  # too short
    page[260:280, 50:550] = 0.3  # a blurred line of text: thick
    page[396:400, 0:600] = 0.0  # the desk at the border of a photo
    (rule,) = find_rules(page, dpi=150)
    assert abs(rule.x0 - 50) <= 1 and abs(rule.x1 - 550) <= 1 and rule.y == 101
    erased = erase_lines(page, 150, find_rules(page, 150))
    assert erased[100:103, 50:550].min() == 1.0 and erased[260:280, 50:550].max() < 1.0


def test_flatten_removes_shading_and_deskew_finds_the_angle() -> None:
    page = rasterise(SOURCE / "001.pdf", 100)[0]
    shaded = np.asarray(page, dtype=np.float32) * np.linspace(0.6, 1.0, page.size[0], dtype=np.float32)
    flat = flatten(Image.fromarray(shaded.astype(np.uint8)), 100)
    assert np.median(flat[:, :40]) > 0.95 and np.median(flat[:, -40:]) > 0.95  # paper is paper on both sides
    tilted = page.rotate(1.5, resample=Image.Resampling.BICUBIC, fillcolor=255)
    angle = skew_angle(flatten(tilted, 100), 100)
    assert angle == pytest.approx(-1.5, abs=0.2)
    assert skew_angle(deskew(flatten(tilted, 100), angle), 100) == pytest.approx(0.0, abs=0.2)


# -- options and registry -------------------------------------------------------------------


def test_options_are_checked_and_the_registry_knows_the_parser() -> None:
    parser = resolve("tesseract?dpi=200&tables=markdown")
    assert isinstance(parser, TesseractParser) and parser.config == {"tables": "markdown", "dpi": 200, "lang": "eng"}
    with pytest.raises(ValueError, match="dpi='abc' must be an integer from 100 to 600"):
        TesseractParser(dpi="abc")
    with pytest.raises(ValueError, match="lang='eng; rm' must look like eng or eng"):
        TesseractParser(lang="eng; rm")


def test_missing_tesseract_is_a_one_line_error(monkeypatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(ParserError, match="tesseract is missing: apt-get install tesseract-ocr"):
        TesseractParser().parse(SOURCE / "001.pdf")


# -- real runs on a scanned page --------------------------------------------------------------


@pytest.fixture(scope="module")
def scanned_page(tmp_path_factory) -> tuple[Path, list[str]]:
    """Page 1 of synth-v1 as a 150-dpi scan, and the ground truth's table HTML."""
    data, _ = variant_pdf(SOURCE / "001.pdf", "scan", seed=1, dpi=150)
    path = tmp_path_factory.mktemp("scan") / "001.pdf"
    path.write_bytes(data)
    return path, [b["html"] for b in load_pages(SOURCE)[0]["blocks"] if b["type"] == "table"]


def cell_texts(html: str) -> set[str]:
    return {c.text for t in read_html(html) for c in t.cells() if re.fullmatch(r"[A-Za-z][\w.-]{3,}", c.text)}


@needs_tesseract
@pytest.mark.parametrize("kind", ["scan", "born-digital"])
def test_ocr_reads_the_tables_of_a_page(kind: str, scanned_page) -> None:
    path, truth = scanned_page
    out = TesseractParser(dpi="200").parse(path if kind == "scan" else SOURCE / "001.pdf")
    found = read_html(out.text)
    assert out.meta["tables"] >= len(truth) - 1 and len(found) >= len(truth) - 1
    expected = set().union(*map(cell_texts, truth))  # word-like cells: names, headers, labels
    read = {c.text for t in found for c in t.cells()}
    assert len(expected) > 20 and len(expected & read) / len(expected) > 0.7
    assert any(c.colspan > 1 for t in found for c in t.cells())  # spanning headers survive


@needs_tesseract
def test_text_layer_parsers_get_nothing_from_a_scan(scanned_page) -> None:
    path, _ = scanned_page
    for spec in ("pypdf", "pdfplumber"):
        assert resolve(spec).parse(path).text.strip() == "", spec
