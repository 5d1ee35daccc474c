"""A missing table's evidence: the best candidate the locator scored, recorded (bounded) and shown in its card."""

from __future__ import annotations

import lxml.html

from tablebench.core.results import ItemResult
from tablebench.core.table import Cell, Table
from tablebench.evaluate.page import MAX_BEST_TEXT, best_candidate
from tablebench.locate.tables import locate_tables
from tablebench.report.aggregate import leaderboard
from tablebench.report.html import render_html
from tablebench.report.html_data import expanded_html

GT = Table([[Cell("Model"), Cell("Accuracy"), Cell("Recall")], [Cell("alpha"), Cell("0.91"), Cell("0.55")],
            [Cell("beta"), Cell("0.87"), Cell("0.61")]])
WEAK = "| Model | Year |\n|---|---|\n| gamma | 2019 |\n| delta | 2020 |"
OUTPUT = f"Intro text.\n\n{WEAK}\n\nMore prose."


def _missing_result(output: str) -> ItemResult:
    (found,) = locate_tables([GT], output)
    assert not found.found and found.note.startswith("best candidate scored")
    r = ItemResult(parser="p", spec="p", case_set="s", page="001", index=0, group="simple", outcome="missing",
                   gt_latex="", gt_html=GT.to_html(headers=True), message=f"not found in parser output: {found.note}",
                   locate_score=found.score)
    r.best_candidate, r.page_output = best_candidate(found, output), output
    return r


def test_the_locator_keeps_a_missing_tables_best_candidate_and_its_span() -> None:
    (found,) = locate_tables([GT], OUTPUT)
    assert not found.found and found.best_span is not None
    assert OUTPUT[found.best_span[0]:found.best_span[1]] == WEAK
    best = best_candidate(found, OUTPUT)
    assert best["text"] == WEAK and best["score"] == found.score and "gamma" in best["html"]


def test_nothing_is_kept_when_no_candidate_scored_above_zero() -> None:
    (found,) = locate_tables([GT], "| x | y |\n|---|---|\n| 1 | 2 |")
    assert not found.found and found.best_span is None


def test_a_long_candidate_is_kept_bounded() -> None:
    rows = "\n".join(f"| Model{i} | {'word ' * 20}{i} |" for i in range(400))
    output = f"| Model | Year |\n|---|---|\n{rows}"
    (found,) = locate_tables([GT], output)
    best = best_candidate(found, output)
    assert len(best["text"]) == MAX_BEST_TEXT and best["cut"] == len(output[slice(*found.best_span)]) - MAX_BEST_TEXT


def test_the_card_shows_the_best_candidate_and_highlights_it_in_the_page_output() -> None:
    r = _missing_result(OUTPUT)
    page = lxml.html.fromstring(expanded_html(render_html(leaderboard([r]), [r])))
    (card,) = page.xpath("//article[@class='case']")
    (best,) = card.xpath(".//details[@class='best']")
    assert "best candidate scored 0.145" in best.text_content()
    assert best.xpath(".//pre")[0].text == WEAK
    assert [c.text for c in best.xpath(".//table//td")][:2] == ["gamma", "2019"]
    (out,) = card.xpath(".//div[@class='output']")
    start, end = r.best_candidate["span"]
    assert out.get("data-spans") == f"{start},{end}" and "best candidate highlighted" in out.text_content()
