"""report.html: structure, and no executable injection from hostile parser output or ground truth."""

from __future__ import annotations

import json
import re

import lxml.html
import pytest
from tablebench.report.aggregate import leaderboard
from tablebench.report.html import json_for_script, render_html, safe_table_html
from tablebench.report.html_assets import CSS, JS
from tablebench.report.html_data import decode_cards, expanded_html
from tablebench.report.regressions import card_anchor

from tests.test_report_samples import PAYLOADS, RAW_HOSTILE_HTML, sample_results

# every tag our page may contain; an injected <img>, <iframe>, <svg>, <object>... fails the test, and so
# does an <a> that is not our link to a card (`card_links_only`)
ALLOWED_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "h4", "dl", "dt", "dd", "p",
                "b", "div", "span", "table", "thead", "tbody", "tr", "th", "td", "label", "select", "option",
                "button", "article", "header", "details", "summary", "pre", "script", "ul", "li", "a", "section",
                "input", "del", "ins", "code",
                "svg", "rect", "line", "text"}  # the bars by group: SVG written here (no script, no link out)


def card_links_only(doc) -> None:
    """Every <a> links to a card of the page (`#c-...`, an id the page has), or is a parser's link
    to the cards' heading (its filter as data, for our script), nothing else."""
    ids = {el.get("id") for el in doc.iter() if isinstance(el.tag, str) and el.get("id")}
    for a in doc.iter("a"):
        href = a.get("href") or ""
        if a.get("class") == "to-cards":
            assert href == "#cases-head" and href[1:] in ids, href
            assert set(a.attrib) <= {"href", "class", "data-parser", "data-verdict", "data-group"}, a.attrib
            continue
        assert re.fullmatch(r"#c-[A-Za-z0-9_.-]+", href) and href[1:] in ids, href
        assert set(a.attrib) <= {"href", "class"}, a.attrib
URL_ATTRS = {"href", "src", "action", "formaction", "xlink:href", "data", "srcdoc", "background", "poster"}


@pytest.fixture(scope="module")
def hostile() -> tuple[list, str]:
    """The results and their page with every card laid out (`expanded_html`: as the script shows them)."""
    results = sample_results(n_pages=4, payloads=True)
    return results, expanded_html(render_html(leaderboard(results), results, {
        "case_set": "x</title><script>alert(1)</script>", "command": "pytest '<img src=x onerror=alert(1)>'"}))


def test_hostile_results_produce_no_executable_markup(hostile: tuple[list, str]) -> None:
    _, page = hostile
    doc = lxml.html.document_fromstring(page)
    tags = {el.tag for el in doc.iter() if isinstance(el.tag, str)}
    assert tags <= ALLOWED_TAGS, tags - ALLOWED_TAGS
    card_links_only(doc)
    scripts = doc.findall(".//script")
    assert len(scripts) == 2
    assert scripts[0].get("type") == "application/json" and scripts[1].get("type") is None
    assert scripts[1].text == JS  # the only executable script is ours, byte for byte
    assert [s.text for s in doc.findall(".//style")] == [CSS]
    for el in doc.iter():
        if not isinstance(el.tag, str):
            continue
        for name, value in el.attrib.items():
            assert not name.lower().startswith("on"), (el.tag, name)
            if name.lower() in URL_ATTRS:
                assert not value.strip().lower().startswith("javascript:"), (el.tag, name, value)
    assert doc.find(".//title").text.startswith("tablebench report — x</title><script>")


def test_payloads_are_shown_as_text(hostile: tuple[list, str]) -> None:
    results, page = hostile
    doc = lxml.html.document_fromstring(page)
    pre_text = " ".join(p.text_content() for p in doc.iter("pre"))
    cell_text = " ".join(td.text_content() for td in doc.xpath("//div[@class='rendered']//td"))
    assert all(payload in pre_text for payload in PAYLOADS)  # the literal matched text
    assert PAYLOADS[0] in cell_text and PAYLOADS[1] in cell_text  # the re-rendered ground-truth table
    assert "locator noticed " + PAYLOADS[1] in [p.text_content() for p in doc.iter("p")]
    names = {el.get("data-parser") for el in doc.iter("article")}
    assert names == {r.parser for r in results}  # attribute escaping round-trips
    items = [li.text_content() for li in doc.xpath("//div[@class='errors']//li")]
    assert f"value {PAYLOADS[0]} missing" in items, "semantic errors shown, as text"


def test_embedded_data_is_inert_and_round_trips(hostile: tuple[list, str]) -> None:
    results, page = hostile
    raw = page.split('<script type="application/json" id="tb-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in raw and ">" not in raw and "&" not in raw
    data = json.loads(raw)
    [tables] = data["hists"]
    assert set(tables["parsers"]) == {r.parser for r in results}
    ok = [r for r in results if r.parser == tables["parsers"][0] and r.outcome == "ok"]
    hist = tables["hist"][tables["parsers"][0]]
    assert hist["n"]["teds"] == len(ok) and hist["sum"]["teds"] == pytest.approx(sum(r.scores["teds"] for r in ok))
    assert hist["bins"]["teds"] == [sum(min(9, int(r.scores["teds"] * 10)) == b for r in ok) for b in range(10)]
    assert len(decode_cards(page)) == len(results)


def test_csp_allows_only_our_script_and_style(hostile: tuple[list, str]) -> None:
    _, page = hostile
    doc = lxml.html.document_fromstring(page)
    csp = doc.xpath("//meta[@http-equiv='Content-Security-Policy']/@content")[0]
    assert "default-src 'none'" in csp and "unsafe-inline" not in csp and csp.count("sha256-") == 2
    assert not lxml.html.document_fromstring(render_html(leaderboard([]), [], csp=False)).xpath(
        "//meta[@http-equiv='Content-Security-Policy']")


def test_json_for_script_escapes_breakouts() -> None:
    value = {"a": "</script><script>x</script>", "b": "<!-- & \u2028\u2029 -->", "c": [1.5, None]}
    text = json_for_script(value)
    assert not any(ch in text for ch in "<>&\u2028\u2029")
    assert json.loads(text) == value
    with pytest.raises(ValueError):
        json_for_script({"x": float("nan")})


def test_tables_are_re_rendered_from_parsed_cells() -> None:
    out = safe_table_html(RAW_HOSTILE_HTML)
    doc = lxml.html.fragment_fromstring(out)
    assert doc.tag == "table" and {el.tag for el in doc.iter()} <= {"table", "tr", "td", "th"}
    assert not any(el.attrib for el in doc.iter() if el.tag != "td")
    assert [td.text_content() for td in doc.iter("td")] == ["a", "b"]
    spans = safe_table_html('<table><tr><th colspan="2" onclick="x()">h</th></tr><tr><td>1</td><td>2</td></tr></table>')
    assert spans == '<table><tr><th colspan="2">h</th></tr><tr><td>1</td><td>2</td></tr></table>'
    fallback = safe_table_html("<b onmouseover=alert(1)>not a table</b>")
    assert "<b" not in fallback and "&lt;b onmouseover=alert(1)&gt;" in fallback
    assert "no table" in safe_table_html(None)


def test_page_lists_every_result_and_every_parser() -> None:
    results = sample_results(n_pages=6)
    board = leaderboard(results)
    page = render_html(board, results, {"timestamp": "t"})
    assert "<article" not in page, "cards travel as data, laid out by the script"
    doc = lxml.html.document_fromstring(expanded_html(page))
    assert len(doc.xpath("//article[@class='case']")) == len(results)
    board_rows = doc.xpath("//table[contains(@class,'sortable-table')]/tbody/tr")
    assert [r.xpath("./td[2]")[0].text_content() for r in board_rows] == [row.parser for row in board.rows]
    options = doc.xpath("//select[@data-filter='outcome']/option/@value")
    assert options[0] == "" and set(options[1:]) == {r.outcome for r in results}
    empty = lxml.html.document_fromstring(render_html(leaderboard([]), []))
    assert "No results." in empty.text_content()


def test_semantic_errors_and_error_cases_are_in_the_drilldown() -> None:
    from tablebench.core.results import ItemResult

    ok = ItemResult("A", "s", "p1", 0, "simple", "ok", scores={"semantic": 6.0, "teds": 0.7},
                     errors=["value 2 under (1, b) read as 3", "row 4 missing"])
    err = ItemResult("A", "s", "p1", 1, "simple", "error", message="error: ground truth unreadable (NoTableError: x)")
    doc = lxml.html.document_fromstring(expanded_html(render_html(leaderboard([ok, err]), [ok, err])))
    articles = {a.get("data-outcome"): a for a in doc.iter("article")}
    assert set(articles) == {"ok", "error"}
    assert [li.text_content() for li in articles["ok"].iter("li")] == ok.errors
    assert "ground truth unreadable" in articles["error"].text_content()
    heads = [th.text_content() for th in doc.xpath("//table[contains(@class, 'board')]//th")]
    assert "error" in heads and "parse error" in heads
    assert "Cases (2: 2 tables × 1 parser)" in [h.text_content() for h in doc.iter("h2")], "tables and cases apart"


def test_values_below_zero_are_exact_in_data_and_the_clamping_is_said() -> None:
    from tablebench.core.results import ItemResult

    rs = [ItemResult("A", "s", "p1", i, "simple", "ok", scores={"teds": v}) for i, v in enumerate((-0.125, 0.5))]
    page = render_html(leaderboard(rs), rs)
    doc = lxml.html.document_fromstring(page)
    data = json.loads(doc.get_element_by_id("tb-data").text)
    hist = data["hists"][0]["hist"]["A"]
    assert hist["bins"]["teds"] == [1, 0, 0, 0, 0, 1, 0, 0, 0, 0], "below the scale: drawn in the first bin"
    assert (hist["n"]["teds"], hist["sum"]["teds"]) == (2, 0.375), "the mean over found keeps the exact value"
    note = " ".join(p.text_content() for p in doc.iter("p"))
    assert "drawn in its end bin (teds: 1 table here" in note
    fine = [ItemResult("A", "s", "p1", 0, "simple", "ok", scores={"teds": 0.5})]
    assert "end bin" not in render_html(leaderboard(fine), fine)


def test_text_inside_a_formula_keeps_its_words() -> None:
    """\\text{...} becomes <mtext> with its words; the allowlist keeps them (and escapes them)."""
    from tablebench.report.formula_html import formula_mathml

    mathml = formula_mathml(r"$f(x) = 1 \text{ if } x > 0 \text{ and } a<b$", display=False)
    assert mathml is not None and "<mtext>\xa0if\xa0</mtext>" in mathml and "<mtext>\xa0and\xa0</mtext>" in mathml
    assert "<mo>&gt;</mo>" in mathml and "<mo>&lt;</mo>" in mathml


def test_an_item_found_as_fragments_shows_each_span_and_text_escaped() -> None:
    from tablebench.core.results import ItemResult

    one, gap, two = "| a | <script>alert(1)</script> |", "\n## <b>part two</b>\n", "| b | </pre><img src=x> |"
    text = one + gap + two
    start = 100
    spans = [[start, start + len(one)], [start + len(one) + len(gap), start + len(text)]]
    split = ItemResult("A", "s", "p1", 0, "simple", "ok", scores={"semantic": 9.0}, matched_text=text,
                       matched_span=[start, start + len(text)], matched_spans=spans, pred_html="<table></table>")
    whole = ItemResult("A", "s", "p1", 1, "simple", "ok", scores={"semantic": 9.0}, matched_text=one,
                       matched_span=[7, 7 + len(one)], pred_html="<table></table>")  # as a results.json from before
    doc = lxml.html.document_fromstring(expanded_html(render_html(leaderboard([split, whole]), [split, whole])))
    assert {el.tag for el in doc.iter() if isinstance(el.tag, str)} <= ALLOWED_TAGS
    card_links_only(doc)
    assert len(doc.findall(".//script")) == 2
    first, second = doc.iter("article")
    notes = [p.text_content() for p in first.xpath(".//p[@class='note']")]
    assert notes == [f"matched as 2 fragments: [{spans[0][0]}, {spans[0][1]}) + [{spans[1][0]}, {spans[1][1]})",
                     f"fragment 1 [{spans[0][0]}, {spans[0][1]})", f"fragment 2 [{spans[1][0]}, {spans[1][1]})"]
    assert [p.text_content() for p in first.iter("pre")][-2:] == [one, two]  # the text between is left out
    assert [p.text_content() for p in second.xpath(".//p[@class='note']")] == [f"matched text [7, {7 + len(one)})"]


def test_the_regressions_section_escapes_hostile_ids_and_links_only_to_cards() -> None:
    from tablebench.gating.aggregate import Comparison
    from tablebench.report.markdown import render_markdown
    from tablebench.report.regressions import RegressionView

    results = sample_results(n_pages=3, payloads=True)
    for i, r in enumerate(results):
        r.parser = PAYLOADS[i % len(PAYLOADS)]
        r.baseline_change = {"status": "fail", "reasons": [PAYLOADS[0]], "metric": "teds", "baseline": 1.0,
                               "now": 0.1, "delta": -0.9 + i / 100, "verdict": "regressed"}
    rows = [Comparison(group=p, metric="teds", subset=p, n=3, base_mean=1.0, run_mean=0.5, diff=-0.5, ci_low=-0.6,
                       ci_high=-0.4, p_drop=0.01, p_rise=1.0, min_effect=0.01, alpha=0.05, verdict="regression")
            for p in PAYLOADS]
    view = RegressionView.of(results, rows, baseline=PAYLOADS[1])
    page = expanded_html(render_html(leaderboard(results), results, {}, regressions=view))
    doc = lxml.html.document_fromstring(page)
    assert {el.tag for el in doc.iter() if isinstance(el.tag, str)} <= ALLOWED_TAGS
    card_links_only(doc)
    section = doc.get_element_by_id("regressions")
    assert len(section.findall(".//tr[@class='v-fail']")) == len(PAYLOADS)
    assert [a.text for a in section.findall(".//a")] == [r.test_id for r in results[:10]]
    assert PAYLOADS[0] in section.text_content(), "shown as text, not markup"
    md = render_markdown(leaderboard(results), {}, regressions=view)
    assert "<script>" not in md and "<img" not in md and "&lt;script&gt;" in md


def test_canonical_table_markup_is_shown_as_parsing_would_show_it_and_nothing_else_passes_unparsed() -> None:
    """Scored tables are stored as `Table.to_html` wrote them: the report shows such markup without
    parsing it again, byte for byte what parsing and re-rendering gives; anything else is parsed."""
    from tablebench.readers.html import table_from_html
    from tablebench.report import html as report_html

    results = sample_results(n_pages=6)
    markups = {m for r in results for m in (r.gt_html, r.pred_html) if m}
    assert markups and all(report_html._CANONICAL.fullmatch(m) for m in markups)
    assert all(safe_table_html(m) == table_from_html(m).to_html(headers=True) for m in markups)
    near = ['<table><tr><td onclick="x()">a</td></tr></table>', "<table><tr><td>a<img src=x></td></tr></table>",
            "<table><tr><td>&#60;script&#62;</td></tr></table>", '<table><tr><td colspan="99999">a</td></tr></table>',
            "<table><tr><td>a</th></tr></table>", "<table></table>", "<table><tr><td>a</td></tr></table><script>",
            RAW_HOSTILE_HTML]
    assert not any(report_html._CANONICAL.fullmatch(m) for m in near)
    assert "<script" not in safe_table_html(near[-2]) and "img" not in safe_table_html(near[1])


def test_a_leaderboard_without_any_score_says_it_is_not_ranked() -> None:
    from tablebench.core.results import ItemResult

    missing = [ItemResult("A", "s", "p1", 0, "simple", "missing", message="not found")]
    page = render_html(leaderboard(missing), missing)
    assert "Ranked by <b>None</b>" not in page and "Not ranked: no score was computed" in page


def test_a_found_case_that_failed_wears_its_verdict_not_a_green_ok() -> None:
    """The header's badges: a case found and scored but failed shows "failed" first and its outcome
    as a grey "found", never the green "ok" a passing case wears."""
    from tablebench.gating.rules import Gate, keep_verdict

    results = sample_results(n_pages=3)
    gate = Gate({"teds": 0.8})
    for r in results:
        keep_verdict(r, gate.check(r))
    doc = lxml.html.document_fromstring(expanded_html(render_html(leaderboard(results), results)))
    cards = {a.get("id"): a for a in doc.iter("article")}
    failed = [r for r in results if r.outcome == "ok" and r.verdict["status"] == "fail"]
    passed = [r for r in results if r.outcome == "ok" and r.verdict["status"] == "pass"]
    assert failed and passed
    for r, first in [(r, "failed") for r in failed] + [(r, "ok") for r in passed]:
        badges = cards[card_anchor(r.test_id)].xpath("./header/span[contains(@class, 'badge')]")
        assert badges[0].text == first, (r.test_id, [b.text for b in badges])
        assert any("o-ok" in b.get("class") for b in badges) == (first == "ok")
