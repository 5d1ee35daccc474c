"""Documents are visible in every artefact of a run: which tables break across pages, on which
pages each is, what a case is (a document of several PDF pages), and time per PDF page.

A run of the built-in pypdf on two documents of docs-v1 (p001: a table over pages 1-2; p002: one
broken table and two on one page each), through pytest as a user runs it, and every file it
writes read back; with a floor no table reaches, so the failures by cause count documents too.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from tablebench.cases import INSTALLED_CASES, load_case_set
from tablebench.core.results import ItemResult
from tablebench.evaluate.page import evaluate_page
from tablebench.report.aggregate import leaderboard
from tablebench.report.html_data import expanded_html
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]
DOCS = INSTALLED_CASES / "docs-v1"


def test_results_carry_the_pages_a_table_is_on_and_time_is_per_pdf_page(tmp_path: Path) -> None:
    (page,) = load_case_set(DOCS, only={"p010"}).pages
    results = evaluate_page(page, "pypdf", None, cache_dir=tmp_path / "cache")
    assert [(r.pages, r.pdf_pages, r.broken) for r in results] == [([1, 1], 4, False), ([1, 3], 4, True)]
    assert [r.page_break for r in results] == ["single-page", "broken"]
    row = leaderboard(results).rows[0]
    assert (row.pages, row.pdf_pages) == (1, 4)
    assert row.seconds_per_page == pytest.approx(results[0].parse_seconds / 4)  # the document's time over its pages
    again = ItemResult.from_dict(json.loads(json.dumps(results[1].to_row())))
    assert (again.pages, again.pdf_pages) == ([1, 3], 4)


def test_a_result_written_before_documents_were_visible_reads_as_not_saying() -> None:
    old = ItemResult.from_dict({"parser": "p", "case_set": "s", "page": "p001", "index": 0, "group": "simple",
                                "outcome": "ok", "scores": {"teds": 0.5}, "parse_seconds": 2.0})
    assert (old.pages, old.pdf_pages, old.broken, old.page_break) == ([], 1, False, "unknown")
    new = ItemResult(parser="p", case_set="s", page="p002", index=0, group="simple", outcome="ok",
                     scores={"teds": 0.5}, pages=[1, 1], parse_seconds=4.0)
    board = leaderboard([old, new])
    assert board.page_breaks == [] and board.case_unit == "pages"  # no table breaks: no breakdown
    assert board.rows[0].seconds_per_page == pytest.approx(3.0)  # an old result's case counts one PDF page
    with pytest.raises(ValueError, match="pages"):
        ItemResult.from_dict({**new.to_row(), "pages": [0, 1]})


def test_every_artefact_of_a_run_on_documents_shows_broken_and_single_page_tables(
        pytester: pytest.Pytester, tmp_path: Path) -> None:
    report = tmp_path / "report"
    run = pytester.runpytest(*PLUGIN, "--cases=docs-v1", "--parser=pypdf", f"--parse-cache={tmp_path / 'cache'}",
                             f"--report-dir={report}", "--min-score=semantic=9.9", "-p", "no:cacheprovider",
                             "-k", "p001:: or p002::")
    out = run.stdout.str()
    assert run.ret == 1, out
    # the terminal: documents called documents, the breakdown, the failures counted in documents
    assert "tablebench: case set docs-v1: 30 documents on 94 PDF pages, 66 tables;" in out  # the set, before -k
    assert re.search(r"by page break\s+broken\s+single-page", out)
    assert "tablebench parse cache: 0 of 2 documents from the cache" in out
    assert "on 2/2 documents (4 cases)" in out and "s/page = parse seconds per PDF page" in out
    # results.json: each table's pages, each case's PDF pages, the leaderboard's breakdown
    data = json.loads((report / "results.json").read_text(encoding="utf-8"))
    pages = {r["id"]: (r["pages"], r["pdf_pages"]) for r in data["results"]}
    assert pages == {"docs-v1/p001::t0[pypdf]": ([1, 2], 3), "docs-v1/p002::t0[pypdf]": ([1, 2], 4),
                     "docs-v1/p002::t1[pypdf]": ([2, 2], 4), "docs-v1/p002::t2[pypdf]": ([3, 3], 4)}
    board = data["leaderboard"]
    assert board["page_breaks"] == ["broken", "single-page"] and board["case_unit"] == "documents"
    assert {k: v["total"] for k, v in board["rows"][0]["by_page_break"].items()} == {"broken": 2, "single-page": 2}
    # summary.json and leaderboard.csv: the same numbers per page break
    summary = json.loads((report / "summary.json").read_text(encoding="utf-8"))["parsers"]["pypdf"]["table"]
    broken = board["rows"][0]["by_page_break"]["broken"]["metrics"]["semantic"]["include_missing"]
    assert summary["by_page_break"]["broken"]["metrics"]["semantic"]["mean"] == broken
    (row,) = csv.DictReader(io.StringIO((report / "leaderboard.csv").read_text(encoding="utf-8")))
    assert (row["found_broken"], row["found_single-page"]) == ("2", "2")
    assert float(row["semantic_broken"]) == broken
    # leaderboard.md: a section per page break, cases counted as documents on their PDF pages
    md = (report / "leaderboard.md").read_text(encoding="utf-8")
    assert "## By page break" in md and "| parser |  | all | broken | single-page |" in md
    assert "| parser | tables | documents | PDF pages |" in md and "| pypdf | 4 | 2 | 7 |" in md
    # report.html: the section, a filter, and cards that say where in its document each table is
    html = expanded_html((report / "report.html").read_text(encoding="utf-8"))
    assert "<h2>By page break</h2>" in html
    assert re.search(r'page break <select data-filter="page_break"><option value="">all</option>'
                     r'<option value="broken">broken</option><option value="single-page">single-page</option>', html)
    assert html.count('<span class="pages">page 1 → page 2</span>') == 2
    assert '<span class="pages">page 3</span>' in html
