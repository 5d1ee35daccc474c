"""The judge's own words in a card: its error list beside its score, or why it gave none."""

from __future__ import annotations

import lxml.html

from tablebench.core.results import ItemResult
from tablebench.report.aggregate import leaderboard
from tablebench.report.html import render_html
from tablebench.report.html_data import expanded_html


def _card(facts: dict, scores: dict) -> lxml.html.HtmlElement:
    r = ItemResult(parser="p", spec="p", case_set="s", page="001", index=0, group="simple", outcome="ok",
                   gt_latex="", gt_html="<table><tr><td>a</td></tr></table>", scores=scores, **facts)
    (card,) = lxml.html.fromstring(expanded_html(render_html(leaderboard([r]), [r]))).xpath("//article[@class='case']")
    return card


def test_the_judges_error_list_is_in_the_card_escaped_and_bounded() -> None:
    errors = ["a value moved <script>alert(1)</script>", "row 3 lost", *[f"e{i}" for i in range(20)]]
    card = _card({"judge_errors": errors}, {"teds": 0.9, "judge": 7.0})
    (box,) = card.xpath(".//div[contains(@class, 'judge-errors')]")
    items = [li.text_content() for li in box.xpath(".//li")]
    assert items[:2] == errors[:2] and items[-1] == "… 12 more" and len(items) == 11
    assert not card.xpath(".//script")


def test_a_judge_that_failed_says_why_in_the_card() -> None:
    card = _card({"metric_errors": {"judge": "judge unreachable: ConnectionError: refused (circuit open)"}},
                 {"teds": 0.9})
    (line,) = card.xpath(".//p[contains(@class, 'judge-failed')]")
    assert line.text_content() == "judge failed: judge unreachable: ConnectionError: refused (circuit open)"


def test_a_card_without_a_judge_has_no_judge_box() -> None:
    card = _card({}, {"teds": 0.9})
    assert not card.xpath(".//*[contains(@class, 'judge')]")
