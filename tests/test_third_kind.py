"""A third item kind (tests/kinds/keywords.py) runs through the library by adding its module only."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.cases import load_case_set
from harness.evaluate.page import evaluate_page
from harness.parse.prefetch import ParsePool
from harness.report.write import write_report
from tests.kinds import keywords
from tests.test_run import copy_pages, write_outputs

WORDS = ["Lorem", "Ipsum", "Zebra"]  # found as written, found as "ipsum", not in the output


@pytest.fixture()
def keyword_kind() -> Iterator[None]:
    keywords.install()
    yield
    keywords.uninstall()


def keyword_cases(dest: Path) -> Path:
    """Two sample pages, the first with three keyword blocks added."""
    root = copy_pages(dest)
    gt = sorted((root / "ground_truth").glob("*.json"))[0]
    blocks = json.loads(gt.read_text(encoding="utf-8"))
    gt.write_text(json.dumps(blocks + [{"type": "keyword", "data": w} for w in WORDS]), encoding="utf-8")
    return root


def keyword_outputs(folder: Path, cases) -> Path:
    """Perfect table outputs, the first page also saying "Lorem ipsum"."""
    out = write_outputs(folder, cases)
    first = out / f"{cases.pages[0].pdf.stem}.md"
    first.write_text(first.read_text(encoding="utf-8") + "\nLorem ipsum dolor sit amet.\n", encoding="utf-8")
    return out


def test_a_registered_kind_is_read_located_scored_and_reported(keyword_kind, tmp_path: Path) -> None:
    cases = load_case_set(keyword_cases(tmp_path / "kw"))
    assert cases.kinds == ["table", "keyword"] and cases.count("keyword") == 3
    out = keyword_outputs(tmp_path / "out", cases)
    pool = ParsePool()
    try:
        results = [r for page in cases.pages for r in evaluate_page(page, f"dir:{out}", None, cache_dir=None, pool=pool)]
    finally:
        pool.close()
    words = [r for r in results if r.kind == "keyword"]
    page = f"{cases.name}/{cases.pages[0].page_id}"
    assert [r.test_id for r in words] == [f"{page}/k{i}[dir:{out}]" for i in range(3)]
    assert [r.outcome for r in words] == ["ok", "ok", "missing"]
    assert words[0].scores == {"keyword_match": 1.0} and 0 < words[1].scores["keyword_match"] < 1
    assert words[1].semantic_errors == ["'Ipsum' written as 'ipsum'"] and words[1].matched_text == "ipsum"
    assert words[2].message == "not found in parser output: the word is not in the output"
    assert all(r.outcome == "ok" and r.scores["teds"] == 1.0 for r in results if r.kind == "table")

    paths = write_report(results, tmp_path / "report")
    data = json.loads(paths["json"].read_text(encoding="utf-8"))
    board = data["keyword_leaderboard"]
    assert board["kind"] == "keyword" and board["primary"] == "keyword_match"
    assert board["rows"][0]["overall"]["found"] == 2 and board["rows"][0]["overall"]["total"] == 3
    markdown = paths["markdown"].read_text(encoding="utf-8")
    assert "## Keywords" in markdown and "### Every keyword metric" in markdown and "### Keyword outcomes" in markdown
    html = paths["html"].read_text(encoding="utf-8")
    assert "Keyword leaderboard" in html and "written as" in html and "k2[dir:" in html


def test_an_unknown_kind_or_a_taken_prefix_is_a_one_line_error(keyword_kind) -> None:
    from harness.core.kinds import get, register

    with pytest.raises(ValueError, match="unknown item kind 'chart'; known: table, formula, keyword"):
        get("chart")
    clash = keywords.KeywordKind()
    clash.name = "keyword2"
    with pytest.raises(ValueError, match="share the id prefix 'k'"):
        register(clash)
