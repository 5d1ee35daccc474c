"""Documents longer than a page (`cases/docs-v1`, `tablebench generate --doc-pages`).

What must hold: a table split at a page break scores as the same table written whole, whether
the next page repeats its header or not, and whether the parser sets the header apart as a
piece of its own; a table whose second page is lost scores exactly as the table written with
only its first-page rows; the committed set loads, its recorded breaks are where the PDF breaks,
and it regenerates byte for byte from its seed.

The crafted outputs are built here from the committed ground truth (the table and the row at
which the PDF breaks it); the metrics are the kind's own, each compared value for value.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tablebench.cases import INSTALLED_CASES, GroundTruthTable, load_case_set
from tablebench.core.files import sha256_file
from tablebench.core.metric_specs import specs_of
from tablebench.core.table import Cell, Table
from tablebench.locate.tables import join_fragments, locate_tables, repeated_header
from tablebench.readers import read_tables
from tablebench.tex.runner import have_pdflatex

DOCS = INSTALLED_CASES / "docs-v1"
MANIFEST = json.loads((DOCS / "manifest.json").read_text(encoding="utf-8"))
needs_tex = pytest.mark.skipif(not have_pdflatex(), reason="pdflatex is not installed (apt texlive-latex-base)")
needs_poppler = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils is not installed")
PROSE = "The runs below were repeated on every dataset.\n\n"
PAGE_FOOT = "\n\n1\n\n"  # what a parser writes between two pages: the page number of the first


def _broken(moderate: bool) -> GroundTruthTable:
    """The first committed table broken across a page, with a two-level header or a one-row one."""
    for page in load_case_set(DOCS).pages:
        for t in page.tables:
            if t.breaks and (t.table.header_rows == 2) == moderate:
                return t
    raise AssertionError("docs-v1 has no such broken table")


def _rows(table: Table, start: int, end: int | None = None) -> list[list[Cell]]:
    return [[Cell(c.text, c.rowspan, c.colspan) for c in row] for row in table.rows[start:end]]


def _html(rows: list[list[Cell]]) -> str:
    return Table(rows).to_html()


def _markdown(rows: list[list[Cell]]) -> str:
    """Rows as a pipe table, spans written out as their text in every slot they cover."""
    grid = Table(rows).text_grid(fill="")
    lines = ["| " + " | ".join(grid[0]) + " |", "|" + "---|" * len(grid[0])]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in grid[1:]])


def _scores(gt: Table, predicted: Table | None) -> dict[str, float]:
    assert predicted is not None
    out: dict[str, float] = {}
    for spec in specs_of("table"):
        out.update(spec.scorer()(gt, predicted).values)
    return out


def _located(gt: Table, output: str):
    (loc,) = locate_tables([gt], PROSE + output + "\n\nThe results are discussed below.\n")
    return loc


CASES = [pytest.param(moderate, render, id=f"{'two-level' if moderate else 'one-row'}-header-{render.__name__[1:]}")
         for moderate in (False, True) for render in (_html, _markdown)]


@pytest.mark.parametrize(("moderate", "render"), CASES)
def test_a_table_split_at_the_page_break_with_its_header_repeated_scores_as_written_whole(moderate, render) -> None:
    gt = _broken(moderate)
    table, cut, head = gt.table, gt.breaks[0], gt.table.header_rows
    whole = _located(table, render(_rows(table, 0)))
    next_page = render(_rows(table, 0, head) + _rows(table, cut))
    split = _located(table, render(_rows(table, 0, cut)) + PAGE_FOOT + next_page)
    assert "joined from 2 fragments" in split.note
    assert _scores(table, split.table) == pytest.approx(_scores(table, whole.table), abs=1e-12)


@pytest.mark.parametrize(("moderate", "render"), CASES)
def test_a_table_split_at_the_page_break_without_its_header_scores_as_written_whole(moderate, render) -> None:
    """A continuation without the header (the parser dropped it, or the document never repeated
    it): no row is missing. A Markdown piece needs a header line, so there its first body row
    stands in the header line, as a parser writes it."""
    gt = _broken(moderate)
    table, cut = gt.table, gt.breaks[0]
    whole = _located(table, render(_rows(table, 0)))
    split = _located(table, render(_rows(table, 0, cut)) + PAGE_FOOT + render(_rows(table, cut)))
    assert "joined from 2 fragments" in split.note
    assert _scores(table, split.table) == pytest.approx(_scores(table, whole.table), abs=1e-12)


@pytest.mark.parametrize("moderate", [False, True], ids=["one-row-header", "two-level-header"])
def test_a_header_set_apart_on_every_page_scores_as_the_table_written_whole(moderate: bool) -> None:
    """pdfplumber's shape on ruled long tables: per page a table of the header rows, then one of
    the body rows; four pieces, the third saying the first again."""
    gt = _broken(moderate)
    table, cut, head = gt.table, gt.breaks[0], gt.table.header_rows
    whole = _located(table, _html(_rows(table, 0)))
    pieces = [_rows(table, 0, head), _rows(table, head, cut), _rows(table, 0, head), _rows(table, cut)]
    pages = ["\n\n".join(_html(p) for p in pieces[:2]), "\n\n".join(_html(p) for p in pieces[2:])]
    split = _located(table, PAGE_FOOT.join(pages))
    assert "joined from 4 fragments" in split.note
    assert _scores(table, split.table) == pytest.approx(_scores(table, whole.table), abs=1e-12)


@pytest.mark.parametrize(("moderate", "render"), CASES)
def test_a_table_whose_second_page_is_lost_scores_as_its_first_page_rows_alone(moderate, render) -> None:
    """The lost rows are charged: every score is exactly that of the table written (in the same
    form) with only the rows the PDF has on its first page, read without the locator, and below
    the whole table's."""
    gt = _broken(moderate)
    table, cut = gt.table, gt.breaks[0]
    half = _located(table, render(_rows(table, 0, cut)))
    (alone,) = read_tables(render(_rows(table, 0, cut)))
    first_page = _scores(table, alone)
    whole = _scores(table, _located(table, render(_rows(table, 0))).table)
    assert _scores(table, half.table) == pytest.approx(first_page, abs=1e-12)
    for spec in specs_of("table"):
        assert first_page[spec.headline] < whole[spec.headline], spec.name
    lost = 1 - (cut - table.header_rows) / (len(table.rows) - table.header_rows)  # share of body rows on later pages
    assert 0.1 < lost < 0.9  # the committed breaks fall inside the tables: "half missing", not nothing or all


def test_a_continuation_that_repeats_rows_of_data_is_not_excused() -> None:
    gt = _broken(False)
    table, cut, head = gt.table, gt.breaks[0], gt.table.header_rows
    pieces = [Table(_rows(table, 0, cut)), Table(_rows(table, 0, head) + _rows(table, cut - 2))]
    assert repeated_header(pieces) == [0, head]  # the header said again is read once ...
    joined = join_fragments(pieces)
    assert len(joined.rows) == len(table.rows) + 2  # ... the two data rows said again are not


def test_the_repeated_header_is_the_header_or_its_lower_levels() -> None:
    head = [[Cell(""), Cell("Validation", colspan=2)], [Cell("Run"), Cell("Acc"), Cell("F1")]]
    body = [[Cell(f"R{k:02d}"), Cell(f"{50 + k}.1"), Cell(f"{60 + k}.2")] for k in range(6)]
    first = Table(head + body[:3])
    assert repeated_header([first, Table(head + body[3:])]) == [0, 2]
    assert repeated_header([first, Table(head[1:] + body[3:])]) == [0, 1]
    assert repeated_header([first, Table(body[3:])]) == [0, 0]
    assert repeated_header([first, Table(head[:1] + body[3:])]) == [0, 0]  # the top level alone is no lower level


# -- the committed set -------------------------------------------------------------------------------
def test_docs_v1_loads_verifies_and_every_document_has_a_table_broken_across_pages() -> None:
    cases = load_case_set(DOCS, verify=True)
    assert len(cases.pages) == MANIFEST["pages"] == 30
    assert sum(p.pdf_pages for p in cases.pages) == MANIFEST["pdf_pages"]
    assert {p.pdf_pages for p in cases.pages} == {2, 3, 4}
    assert sum(1 for p in cases.pages for t in p.tables if t.breaks) == MANIFEST["broken_tables"]
    for page in cases.pages:
        assert any(t.breaks for t in page.tables), page.page_id
        for t in page.tables:
            assert 1 <= t.page <= page.pdf_pages and t.bbox is not None
            assert all(t.table.header_rows < b < len(t.table.rows) for b in t.breaks)


@needs_poppler
def test_the_recorded_breaks_are_where_the_pdf_breaks_the_table() -> None:
    """Read back from the PDF's text, page by page: the row opening each new page has its first
    cell (the run or sample identifier) there, and the row before it is on the page before."""
    for page in load_case_set(DOCS).pages:
        texts = [subprocess.run(["pdftotext", "-f", str(n), "-l", str(n), str(page.pdf), "-"], capture_output=True,
                                text=True, check=True).stdout for n in range(1, page.pdf_pages + 1)]
        for t in page.tables:
            for k, row in enumerate(t.breaks):
                before, after = t.table.rows[row - 1][0].text, t.table.rows[row][0].text
                on = t.page + k  # the page this break ends
                assert re.search(rf"(?<!\w){re.escape(before)}(?!\w)", texts[on - 1]), (page.page_id, before)
                assert re.search(rf"(?<!\w){re.escape(after)}(?!\w)", texts[on]), (page.page_id, after)
                assert not re.search(rf"(?<!\w){re.escape(after)}(?!\w)", texts[on - 1]), (page.page_id, after)


def test_the_readmes_state_docs_v1_as_its_manifest_counts_it() -> None:
    m = MANIFEST
    size = sum(p.stat().st_size for p in DOCS.iterdir() if p.is_file())
    section = (INSTALLED_CASES / "README.md").read_text(encoding="utf-8").split("## docs-v1", 1)[1].split("\n## ", 1)[0]
    prose = " ".join(section.split())
    assert f"tablebench generate --pages {m['pages']} --doc-pages 2-4 --seed {m['seed']} --out cases/docs-v1" in prose
    assert f"**{m['pages']} documents, {m['tables']} tables, {size / 1e6:.2f} MB on disk**" in prose
    assert f"on {m['pdf_pages']} PDF pages" in prose and f"{m['broken_tables']} tables are broken" in prose
    counts = dict(re.findall(r"^\| (\w+) \| (\d+) \|$", section, re.M))
    assert counts == {k: str(v) for k, v in m["complexity"].items()}
    readme = " ".join((Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8").split())
    assert f"`docs-v1` ({m['pages']} documents, {m['tables']} tables on {m['pdf_pages']} PDF pages" in readme


def test_a_one_page_set_reads_as_before() -> None:
    (page,) = load_case_set("synth-v1", only={"p001"}).pages
    assert page.pdf_pages == 1 and all(t.page == 1 and t.breaks == () for t in page.tables)
    assert "pdf_pages" not in json.loads((INSTALLED_CASES / "synth-v1" / "manifest.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(("key", "value", "message"), [
    ("pages", 0, r"'pages' must be a whole number >= 1"),
    ("page", "2", r"'page' must be a whole number >= 1"),
    ("breaks", [30, 12], r"'breaks' must be a list of increasing row indices"),
    ("breaks", [0], r"'breaks' must be a list of increasing row indices"),
])
def test_a_record_with_a_broken_page_count_or_break_list_is_refused(tmp_path: Path, key, value, message) -> None:
    record = json.loads((DOCS / "001.json").read_text(encoding="utf-8"))
    if key == "pages":
        record[key] = value
    else:
        next(b for b in record["blocks"] if b["type"] == "table")[key] = value
    root = tmp_path / "set"
    root.mkdir()
    shutil.copy(DOCS / "001.pdf", root / "001.pdf")
    (root / "001.json").write_text(json.dumps(record), encoding="utf-8")
    (root / "manifest.json").write_text(json.dumps({"format": "tablebench-caseset/1"}), encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        load_case_set(root)


@needs_poppler
def test_the_crop_of_a_table_that_starts_on_a_later_page_is_of_that_page() -> None:
    from tablebench.report.crops import Crop, _crop, _render, page_crops

    page, t = next((p, t) for p in load_case_set(DOCS).pages for t in p.tables if t.page > 1 and not t.long)
    key = (page.set_name, page.page_id, t.index)
    crops = page_crops([], {"case_set_path": str(DOCS)}, None, keys=[key])
    assert t.bbox is not None
    assert crops[key] == (Crop(t.page, _crop(_render(page.pdf, t.page), t.bbox)),)
    assert crops[key][0].webp != _crop(_render(page.pdf, 1), t.bbox)


# -- regeneration ------------------------------------------------------------------------------------
def test_doc_pages_are_checked() -> None:
    from tablebench.generate.caseset import parse_doc_pages

    assert parse_doc_pages("2-4") == (2, 4) and parse_doc_pages(" 3 ") == (3, 3)
    for bad in ("1-3", "4-2", "x", "2-", "2-99"):
        with pytest.raises(ValueError, match="--doc-pages"):
            parse_doc_pages(bad)


@needs_tex
@pytest.mark.parametrize("index", [1, 2])
def test_regenerating_a_document_reproduces_it_byte_for_byte(index: int) -> None:
    from tablebench.generate.caseset import dump_json, make_document, page_record

    seed = MANIFEST["seed"]
    doc, pages = make_document(seed, index, (2, 4))
    assert dump_json(page_record(doc, seed, index, pages)) == (DOCS / f"{index:03d}.json").read_text(encoding="utf-8")
    assert doc.pdf == (DOCS / f"{index:03d}.pdf").read_bytes()


@needs_tex
@pytest.mark.slow
def test_regenerating_docs_v1_reproduces_every_file(tmp_path: Path) -> None:
    """The whole set (about a minute on two cores): the command the README states, every file's sha256."""
    from tablebench.cli import main

    out = tmp_path / "docs-v1"
    assert main(["generate", "--pages", str(MANIFEST["pages"]), "--doc-pages", "2-4", "--seed", str(MANIFEST["seed"]),
                 "--out", str(out), "--jobs", "2"]) == 0
    assert {p.name: sha256_file(p) for p in out.iterdir() if p.name != "manifest.json"} == MANIFEST["files"]


# -- end to end --------------------------------------------------------------------------------------
def test_a_document_runs_end_to_end_with_a_real_parser(tmp_path: Path) -> None:
    """pdfplumber gets the whole PDF (both pages), sets each page's header and body apart, and the
    table broken across the pages is found joined from its four pieces."""
    pytest.importorskip("pdfplumber")
    from tablebench.evaluate.page import evaluate_page

    page = next(p for p in load_case_set(DOCS).pages if p.page_id == "p004")
    results = evaluate_page(page, "pdfplumber", None, cache_dir=tmp_path / "cache")
    assert [r.index for r in results] == [t.index for t in page.tables]
    assert all(r.outcome == "ok" for r in results)
    broken = next(r for r in results if page.tables[r.index].breaks)
    assert "joined from 4 fragments" in broken.message and len(broken.matched_spans) == 4
