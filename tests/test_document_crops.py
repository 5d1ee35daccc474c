"""A table broken across the pages of a document is cropped on every page it is on, whole.

Checked against the committed PDFs themselves: the rows the ground truth puts on each page
(its `breaks`) are found in that page's text layer (pdfplumber's words, as a reader of the PDF
sees them) and must lie inside the table's region there, every column of them (a tall glyph
on the first line may rise above the text block into the crop's margin); and each crop's
image has no ink on its left or right edge, which a column cut in two would leave. The
documents are chosen for what broke before: p001 and p004, whose bboxes cut off the first and
last columns; p003, two long tables on one page, headed by symbols; p010, a table over three
pages; p009 and p011, a long table that fits one page beside one that breaks. (All 30 hold.)
"""

from __future__ import annotations

import io
import json
import re
import shutil

import pytest

from tablebench.cases import INSTALLED_CASES, load_case_set
from tablebench.cases.regions import Region, text_block
from tablebench.core.results import ItemResult
from tablebench.report.crops import CROPS_FOLDER, DPI, MARGIN, page_crops
from tablebench.report.html_data import expanded_html
from tablebench.report.regressions import card_anchor
from tablebench.report.write import write_report

DOCS = INSTALLED_CASES / "docs-v1"
SAMPLE = ("p001", "p003", "p004", "p009", "p010", "p011")
needs_poppler = pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="poppler-utils is not installed")


def _lines(pdf_page) -> list[tuple[str, float, float, float, float]]:
    """The page's text lines as pdfplumber's words make them: (text without spaces, x0, top, x1, bottom)."""
    lines: list[list[dict]] = []
    for word in sorted(pdf_page.extract_words(), key=lambda w: w["bottom"]):  # a line's words share a baseline
        if lines and word["bottom"] - lines[-1][-1]["bottom"] < 3:  # a superscript sits a little higher
            lines[-1].append(word)
        else:
            lines.append([word])
    ordered = [sorted(line, key=lambda w: w["x0"]) for line in lines]
    return [("".join(w["text"] for w in line), min(w["x0"] for w in line), min(w["top"] for w in line),
             max(w["x1"] for w in line), max(w["bottom"] for w in line)) for line in ordered]


def _rows_on(table, n: int) -> list[int]:
    """The rows of `table` the ground truth puts on its `n`-th page (0-based): the header again
    on every page after the first, then the body rows up to the next break."""
    bounds = [0, *table.breaks, len(table.table.rows)]
    head = list(range(table.table.header_rows)) if n else []
    return head + list(range(bounds[n], bounds[n + 1]))


def test_a_long_table_is_on_the_pages_its_breaks_say_and_a_table_record_must_agree() -> None:
    pages = {p.page_id: p for p in load_case_set(DOCS, only=set(SAMPLE)).pages}
    three = next(t for t in pages["p010"].tables if len(t.breaks) == 2)
    assert three.pages == (1, 2, 3) and [r.page for r in pages["p010"].regions_of(three)] == [1, 2, 3]
    fits = next(t for t in pages["p009"].tables if t.long and not t.breaks)
    assert fits.pages == (fits.page,) and len(pages["p009"].regions_of(fits)) == 1
    plain = next(t for t in load_case_set(DOCS, only={"p002"}).pages[0].tables if not t.long)
    assert plain.pages == (plain.page,)
    assert load_case_set(DOCS, only={"p002"}).pages[0].regions_of(plain) == (Region(plain.page, plain.bbox),)


@pytest.mark.parametrize("page_id", SAMPLE)
def test_every_row_of_a_long_table_is_inside_its_region_on_its_page(page_id: str) -> None:
    pdfplumber = pytest.importorskip("pdfplumber")
    (page,) = load_case_set(DOCS, only={page_id}).pages
    with pdfplumber.open(page.pdf) as pdf:
        lines = {n: _lines(pdf.pages[n - 1]) for n in range(1, page.pdf_pages + 1)}
        for table in (t for t in page.tables if t.long):  # the others keep their measured bbox
            regions = page.regions_of(table)
            assert [r.page for r in regions] == list(table.pages)
            for n, (number, (x0, top, x1, bottom)) in enumerate(regions):
                at = top - 20  # each row is looked for below the one before, from about the region's top
                for row in _rows_on(table, n):
                    first = re.sub(r"\s", "", table.table.rows[row][0].text)
                    if not first:
                        continue  # an empty stub (a two-level header's top row): nothing to find it by
                    line = next(ln for ln in lines[number] if ln[2] >= at and ln[0].startswith(first))
                    at = line[2] + 1
                    assert x0 <= line[1] and line[3] <= x1, (page_id, table.index, number, row, "width")
                    # a tall glyph of the first line may rise above the text block: the crop's margin shows it
                    assert top - MARGIN <= line[2] and line[4] <= bottom, (page_id, table.index, number, row, "height")


@needs_poppler
def test_a_broken_table_is_cropped_on_every_page_and_no_crop_cuts_through_ink() -> None:
    from PIL import Image

    (page,) = load_case_set(DOCS, only={"p001"}).pages
    keys = [(page.set_name, page.page_id, t.index) for t in page.tables]
    crops = page_crops([], {"case_set_path": str(DOCS)}, None, keys=keys)
    block = text_block(page.layout)
    assert block is not None
    for t in page.tables:
        shots = crops[(page.set_name, page.page_id, t.index)]
        assert [c.page for c in shots] == list(t.pages)
        for crop in shots:
            with Image.open(io.BytesIO(crop.webp)) as image:
                gray = image.convert("L")
                if t.long:  # as wide as the text block, a margin either side
                    assert abs(gray.width - (block[2] - block[0] + 12) * DPI / 72) < 3
                for x in (0, 1, gray.width - 2, gray.width - 1):  # a column cut in two leaves ink on the edge
                    assert min(gray.getpixel((x, y)) for y in range(gray.height)) > 200, (t.index, crop.page, x)


def test_a_table_record_whose_pages_disagree_with_its_breaks_is_refused(tmp_path) -> None:
    record = json.loads((DOCS / "001.json").read_text(encoding="utf-8"))
    block = next(b for b in record["blocks"] if b.get("breaks"))
    block["pages"] = [block["page"], block["page"] + len(block["breaks"]) + 1]
    root = tmp_path / "set"
    root.mkdir()
    shutil.copy(DOCS / "001.pdf", root / "001.pdf")
    (root / "001.json").write_text(json.dumps(record), encoding="utf-8")
    (root / "manifest.json").write_text(json.dumps({"format": "tablebench-caseset/1"}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"a table's 'pages' must be \[its page, that page \+ one per break\]"):
        load_case_set(root)


@needs_poppler
def test_the_report_shows_each_page_of_a_broken_table_and_the_folder_holds_each(tmp_path) -> None:
    (page,) = load_case_set(DOCS, only={"p001"}).pages
    broken = next(t for t in page.tables if t.breaks)
    results = [ItemResult(parser="a", case_set=page.set_name, page=page.page_id, index=t.index, group=t.complexity,
                          outcome="missing") for t in page.tables]
    out = write_report(results, tmp_path, {"case_set_path": str(DOCS)}, crop_folder=True)
    html = expanded_html(out["html"].read_text(encoding="utf-8"))
    card = html.split(f'id="{card_anchor(results[broken.index].test_id)}"', 1)[1].split("</article>", 1)[0]
    assert [int(n) for n in re.findall(r"PDF page (\d+): the table", card)] == list(broken.pages) == [1, 2]
    assert sorted(p.name for p in (tmp_path / CROPS_FOLDER / page.set_name).glob(f"{page.page_id}-t{broken.index}*")) \
        == [f"{page.page_id}-t{broken.index}-page{n}.webp" for n in broken.pages]


@needs_poppler
def test_a_broken_table_whose_latex_does_not_read_has_no_crop_and_the_others_keep_theirs(tmp_path) -> None:
    record = json.loads((DOCS / "002.json").read_text(encoding="utf-8"))
    tables = [b for b in record["blocks"] if b["type"] == "table"]
    broken = next(i for i, b in enumerate(tables) if b.get("breaks"))
    tables[broken]["data"] = "no table here"  # its last page is measured in rows it no longer has
    root = tmp_path / "set"
    root.mkdir()
    shutil.copy(DOCS / "002.pdf", root / "002.pdf")
    (root / "002.json").write_text(json.dumps(record), encoding="utf-8")
    (root / "manifest.json").write_text(json.dumps({"format": "tablebench-caseset/1"}), encoding="utf-8")
    crops = page_crops([], {"case_set_path": str(root)}, None, keys=[("set", "p002", i) for i in range(len(tables))])
    assert sorted(crops) == [("set", "p002", i) for i in range(len(tables)) if i != broken]
