"""report.html's pictures in headless Chromium, on a real run: the scatter, the kind and baseline
filters, the per-parser bars by group, the histograms of every kind's metrics and their bars'
links, the crops' click-to-zoom.

The run is real: pypdf and pymupdf4llm parse three committed synth-v1 pages, tables and text
scored by the evaluator; the changes against a baseline come from the gate's own comparison, with
a baseline that held some cases higher. The report is the one `write_report` writes; a driver
script (the CSP-free variant, as in tests/test_report_browser.py) acts as a user would and reads
back what the page shows.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from tablebench.cases import INSTALLED_CASES, load_case_set
from tablebench.core.results import ItemResult
from tablebench.evaluate.page import evaluate_page
from tablebench.gating.baseline import Baseline, Entry
from tablebench.gating.regressions import attach, case_changes
from tablebench.gating.rules import Gate
from tablebench.parse.prefetch import ParsePool
from tablebench.report.aggregate import boards
from tablebench.report.regressions import card_anchor
from tablebench.report.write import write_report
from tests.test_report_browser import WAIT, _dump_dom

PARSERS = ("pypdf", "pymupdf4llm")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[ItemResult], str]:
    """The results of a real run of two parsers on three pages (tables and text), and its
    report.html without the CSP (a driver script is added to it)."""
    tmp = tmp_path_factory.mktemp("pictures")
    pages = load_case_set("synth-v1", only={"p001", "p002", "p004"}, kinds="table,text").pages
    pool = ParsePool()
    try:
        results = [r for parser in PARSERS for page in pages
                   for r in evaluate_page(page, parser, None, cache_dir=tmp / "cache", pool=pool)]
    finally:
        pool.close()
    higher = {r.test_id: Entry("ok", {"semantic": 10.0}) for r in results if r.kind == "table" and r.index == 0}
    attach(results, case_changes(results, Gate({}, baseline=Baseline(Path("base.json"), "tablebench", higher))))
    meta = {"case_set": "synth-v1", "case_set_path": str(INSTALLED_CASES / "synth-v1")}  # crops from its PDFs
    html = write_report(results, tmp / "report", meta)["html"].read_text(encoding="utf-8")
    return results, re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", html)


def _drive(run: tuple, tmp_path: Path, script: str) -> dict:
    page = tmp_path / "driven.html"
    page.write_text(run[1].replace("</body>", f"<script>{WAIT}{script}</script></body>", 1), encoding="utf-8")
    return json.loads(_dump_dom(page, tmp_path).get_element_by_id("driver").text)


# the points drawn, then a click on the point of TARGET: the card laid out and where it is
SCATTER_DRIVER = """
var state = {};
rendered(function () {
  var points = document.querySelectorAll("#scatter svg a");
  state.metric = document.getElementById("scatter-metric").value;
  state.points = Array.prototype.map.call(points, function (a) {
    return [a.getAttribute("href"), a.querySelector("title").textContent]; });
  var target = document.querySelector("#scatter svg a[href='#" + TARGET + "']");
  rendered(function () {
    state.hash = location.hash;
    var card = document.getElementById(TARGET);
    state.shown = !!card && card.closest("#cases") !== null;
    state.top = card ? card.getBoundingClientRect().top : null; state.viewport = window.innerHeight;
    done(state);
  });
  target.dispatchEvent(new MouseEvent("click", {bubbles: true, cancelable: true, view: window}));
});
"""


def test_the_scatter_has_a_point_per_found_table_and_a_click_opens_its_card(run: tuple, tmp_path: Path) -> None:
    """semantic against TEDS by default, each found table a point titled with both values; the
    point where the two disagree most (pypdf: the values read, the structure lost) opens its card."""
    results = run[0]
    found = [r for r in results if r.kind == "table" and r.outcome == "ok"]
    gap = max(found, key=lambda r: r.scores["semantic"] / 10 - r.scores["teds"])
    anchor = card_anchor(gap.test_id)
    state = _drive(run, tmp_path, SCATTER_DRIVER.replace("TARGET", json.dumps(anchor)))
    assert state["metric"] == "table|teds"
    assert sorted(href for href, _ in state["points"]) == sorted(f"#{card_anchor(r.test_id)}" for r in found)
    titles = dict(state["points"])
    assert titles[f"#{anchor}"] == (f"{gap.test_id.lower()}: semantic {gap.scores['semantic']:.2f}, "
                                   f"teds {gap.scores['teds']:.3f}")
    assert gap.parser == "pypdf" and gap.scores["semantic"] - 10 * gap.scores["teds"] > 4, "the picture's point"
    assert state["hash"] == f"#{anchor}" and state["shown"] is True
    assert 0 <= state["top"] < state["viewport"], "scrolled to the card"


# each filter set alone in turn: the cards then shown, and the options the filter offers
FILTER_DRIVER = """
var state = {}, steps = [["kind", "text"], ["kind", "table"], ["change", "regressed"]];
function step(i) {
  if (i === steps.length) { done(state); return; }
  var sel = document.querySelector("select[data-filter=" + steps[i][0] + "]");
  state[steps[i][0] + "Options"] = Array.prototype.map.call(sel.options, function (o) { return o.textContent; });
  rendered(function () {
    state[steps[i].join("=")] = shownCards().map(function (a) { return a.id; });
    sel.value = ""; step(i + 1);
  });
  sel.value = steps[i][1]; sel.dispatchEvent(new Event("change"));
}
rendered(function () { step(0); });
"""


def test_the_kind_filter_hides_other_kinds_and_the_regressed_filter_shows_only_regressions(
        run: tuple, tmp_path: Path) -> None:
    results = run[0]
    state = _drive(run, tmp_path, FILTER_DRIVER)
    of = {card_anchor(r.test_id): r for r in results}
    assert state["kindOptions"] == ["all", "tables", "text pages"]
    text = [r for r in results if r.kind == "text"]
    assert sorted(state["kind=text"]) == sorted(card_anchor(r.test_id) for r in text)
    assert {of[a].kind for a in state["kind=table"]} == {"table"} and len(state["kind=table"]) == min(
        60, len(results) - len(text))
    regressed = [r for r in results if (r.baseline_change or {}).get("verdict") == "regressed"]
    assert 0 < len(regressed) < len(results) and state["changeOptions"][:2] == ["all", "regressed"]
    assert sorted(state["change=regressed"]) == sorted(card_anchor(r.test_id) for r in regressed)


# the bars drawn (parser, group per link), then a click on pypdf's bar of TARGET_GROUP
BARS_DRIVER = """
var state = {};
rendered(function () {
  state.bars = Array.prototype.map.call(document.querySelectorAll(".bars svg a.to-cards"), function (a) {
    return [a.getAttribute("data-parser"), a.getAttribute("data-group"), a.querySelector("title").textContent]; });
  var bar = document.querySelector(".bars svg a[data-parser=pypdf][data-group=" + TARGET_GROUP + "]");
  rendered(function () {
    state.shown = shownCards().map(function (a) { return [a.getAttribute("data-parser"),
      a.getAttribute("data-group"), a.getAttribute("data-score")]; });
    state.order = document.getElementById("case-order").value;
    state.headTop = document.getElementById("cases-head").getBoundingClientRect().top;
    done(state);
  });
  bar.dispatchEvent(new MouseEvent("click", {bubbles: true, cancelable: true, view: window}));
});
"""


def test_a_bar_per_parser_and_group_shows_its_mean_and_a_click_shows_those_cards_worst_first(
        run: tuple, tmp_path: Path) -> None:
    results = run[0]
    tracks = boards(results)
    table = tracks["table"]
    group = table.groups[-1]
    state = _drive(run, tmp_path, BARS_DRIVER.replace("TARGET_GROUP", json.dumps(group)))
    expected = [(row.parser, g) for track in tracks.values() for g in track.groups for row in track.rows]
    assert [(p, g) for p, g, _ in state["bars"]] == expected, "every kind: per group, a bar per parser"
    pypdf = next(row for row in table.rows if row.parser == "pypdf")
    mean = pypdf.by("group")[group].metrics["semantic"].include_missing
    assert f"pypdf, {group}: mean semantic {mean:.2f} (missing as 0)" in [t for *_, t in state["bars"]]
    mine = [r for r in results if r.parser == "pypdf" and r.group == group and r.kind == "table"]
    assert sorted((p, g) for p, g, _ in state["shown"]) == [("pypdf", group)] * len(mine)
    scores = [float(s) if s else -1 for *_, s in state["shown"]]
    assert state["order"] == "worst" and scores == sorted(scores), "worst first"
    assert -2 <= state["headTop"] < 900, "scrolled to the cards"


# the histograms' metric options, then the text metric chosen: each parser's card
HIST_DRIVER = """
var state = {};
rendered(function () {
  var sel = document.getElementById("hist-metric");
  state.options = Array.prototype.map.call(sel.options, function (o) { return o.textContent; });
  var opt = Array.prototype.filter.call(sel.options, function (o) { return /text_fidelity$/.test(o.value); })[0];
  sel.value = opt.value; sel.dispatchEvent(new Event("change"));
  state.hists = Array.prototype.map.call(document.querySelectorAll("#hists .hist"), function (h) {
    return [h.querySelector("h3").textContent, h.querySelector(".sub").textContent,
            h.querySelector("svg title").textContent]; });
  done(state);
});
"""


def test_histograms_offer_every_kind_s_metrics(run: tuple, tmp_path: Path) -> None:
    results = run[0]
    state = _drive(run, tmp_path, HIST_DRIVER)
    assert "tables: semantic (0-10)" in state["options"] and "text pages: text_fidelity" in state["options"]
    assert state["options"][0] == "tables: semantic (0-10)", "the first kind's ranking metric first"
    for parser, sub, title in state["hists"]:
        mine = [r.scores["text_fidelity"] for r in results if r.parser == parser and r.kind == "text"]
        assert title == f"{parser}: text_fidelity histogram"
        assert sub == f"{len(mine)} found, 0 without a value, mean over found {sum(mine) / len(mine):.3f}"
    assert sorted(p for p, *_ in state["hists"]) == sorted(PARSERS)


# a click on pypdf's histogram bar TARGET_BIN (of the default metric): the cards then shown, in order
HIST_LINK_DRIVER = """
var state = {};
rendered(function () {
  var bar = document.querySelector("#hists svg a[data-parser=pypdf][data-bin='" + TARGET_BIN + "']");
  state.title = bar.querySelector("title").textContent;
  rendered(function () {
    state.shown = shownCards().map(function (a) { return [a.id, a.getAttribute("data-score")]; });
    state.order = document.getElementById("case-order").value;
    state.note = document.querySelector(".bin-pick").textContent;
    state.headTop = document.getElementById("cases-head").getBoundingClientRect().top;
    rendered(function () { state.cleared = shownCards().length; done(state); });
    document.querySelector(".bin-pick button").click();
  });
  bar.dispatchEvent(new MouseEvent("click", {bubbles: true, cancelable: true, view: window}));
});
"""


def test_a_histogram_bar_shows_that_parser_s_cards_of_its_bin_worst_first(run: tuple, tmp_path: Path) -> None:
    """pypdf's fullest semantic bin: its bar's link shows exactly the tables the bar counts, worst
    first, and says which bin it shows until cleared."""
    results = run[0]
    mine = [r for r in results if r.parser == "pypdf" and r.kind == "table" and r.outcome == "ok"]
    bins: dict[int, list[ItemResult]] = {}
    for r in mine:
        bins.setdefault(1 + min(9, math.floor(round(r.scores["semantic"], 4) / 10 * 10)), []).append(r)  # on 0-10
    target = max(bins, key=lambda b: len(bins[b]))
    state = _drive(run, tmp_path, HIST_LINK_DRIVER.replace("TARGET_BIN", str(target)))
    assert state["title"] == f"pypdf: {len(bins[target])} tables, semantic {target - 1}-{target}"
    assert sorted(a for a, _ in state["shown"]) == sorted(card_anchor(r.test_id) for r in bins[target])
    scores = [float(s) for _, s in state["shown"]]
    assert state["order"] == "worst" and scores == sorted(scores), "worst first"
    assert state["note"].startswith(f"semantic {target - 1}-{target}")
    assert -2 <= state["headTop"] < 900, "scrolled to the cards"
    assert state["cleared"] > len(bins[target]), "cleared: every bin of the parser's cards"


# the first crop shown: its width in the card, then clicked (enlarged: the overlay's image), then
# Escape; opened again and closed by a click on the overlay
ZOOM_DRIVER = """
var state = {};
rendered(function () {
  var button = document.querySelector("#cases figure.crop button.zoom-in"), img = button.querySelector("img");
  img.decode().then(function () {
    state.small = img.getBoundingClientRect().width;
    state.label = button.getAttribute("aria-label");
    button.focus(); button.click();
    var zoom = document.querySelector(".zoom"), big = zoom.querySelector("img"), box = big.getBoundingClientRect();
    state.open = !zoom.hidden; state.big = box.width; state.bigSrc = big.src === img.src;
    state.fits = box.left >= 0 && box.top >= 0 && box.right <= innerWidth && box.bottom <= innerHeight;
    state.focusIn = document.activeElement === zoom;
    document.activeElement.dispatchEvent(new KeyboardEvent("keydown", {key: "Escape", bubbles: true}));
    state.closed = zoom.hidden; state.focusBack = document.activeElement === button;
    button.click(); state.reopened = !zoom.hidden;
    zoom.click(); state.clickClosed = zoom.hidden;
    done(state);
  });
});
"""


def test_a_crop_opens_larger_on_click_and_escape_closes_it(run: tuple, tmp_path: Path) -> None:
    """A card's crop is a button; clicked, the same image is shown in an overlay, wider and within
    the window; Escape closes it and gives the focus back, as a click on the overlay does."""
    state = _drive(run, tmp_path, ZOOM_DRIVER)
    assert state["label"] == "enlarge the page crop"
    assert state["open"] is True and state["bigSrc"] is True and state["focusIn"] is True
    assert state["big"] > 1.2 * state["small"], state
    assert state["fits"] is True, "fitted to the window"
    assert state["closed"] is True and state["focusBack"] is True
    assert state["reopened"] is True and state["clickClosed"] is True
