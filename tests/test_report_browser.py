"""report.html in a real browser (headless Chromium): injected payloads stay inert, our script works.

The script lays out cards asynchronously (it decodes them from the page's data), so the
drivers below wait for its "tb-rendered" event, and Chromium runs with a virtual time budget
(`--virtual-time-budget`: the dump waits until the page is idle, without waiting in real time).

Skipped when no Chromium is installed (Debian: `apt-get install -y chromium`).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import lxml.html
import pytest

from tablebench.report.aggregate import leaderboard
from tablebench.report.html import render_html
from tablebench.report.html_data import decode_index
from tests.test_report_samples import sample_results

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# waits for our script's next render of the cards (each change of a filter, the search, the order renders)
WAIT = """function rendered(fn) { document.addEventListener("tb-rendered", fn, {once: true}); }
function shownCards() { return Array.prototype.slice.call(document.querySelectorAll("#cases article.case")); }
function done(state) {
  var out = document.createElement("pre"); out.id = "driver"; out.textContent = JSON.stringify(state);
  document.body.appendChild(out);
}
"""
# run after our script in the CSP-free variant: click headers and change filters as a user would
DRIVER = """<script>""" + WAIT + """
rendered(function () {
var th = document.querySelectorAll("table.sortable-table th");
th[2].click();
var order1 = Array.prototype.map.call(document.querySelectorAll("table.sortable-table tbody tr td.name"),
  function (td) { return td.textContent; }).join("|");
th[2].click();
var order2 = Array.prototype.map.call(document.querySelectorAll("table.sortable-table tbody tr td.name"),
  function (td) { return td.textContent; }).join("|");
var sel = document.querySelector("select[data-filter=outcome]"), order = document.getElementById("case-order");
var state = {order1: order1, order2: order2};
rendered(function () {
  state.onlyTimeouts = shownCards().every(function (a) { return a.getAttribute("data-outcome") === "timeout"; });
  state.count = document.getElementById("case-count").textContent;
  rendered(function () {
    rendered(function () {
      state.worst = shownCards()[0].getAttribute("data-score");
      rendered(function () { state.best = shownCards()[0].getAttribute("data-score"); done(state); });
      order.value = "best"; order.dispatchEvent(new Event("change"));
    });
    order.value = "worst"; order.dispatchEvent(new Event("change"));
  });
  sel.value = ""; sel.dispatchEvent(new Event("change"));
});
sel.value = "timeout"; sel.dispatchEvent(new Event("change"));
});
</script></body>"""


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no Chromium on PATH (apt-get install -y chromium): the browser checks need one")


def _dump_dom(page: Path, tmp_path: Path, fragment: str = "", *flags: str) -> lxml.html.HtmlElement:
    profile = tmp_path / f"profile-{page.stem}"
    url = page.as_uri() + (f"#{fragment}" if fragment else "")
    proc = subprocess.run([_chromium(), *FLAGS, *flags, f"--user-data-dir={profile}", "--virtual-time-budget=20000",
                           "--dump-dom", url],
                          capture_output=True, text=True, timeout=90, check=False)
    assert proc.returncode == 0 and proc.stdout.strip(), proc.stderr[-2000:]
    return lxml.html.document_fromstring(proc.stdout)


@pytest.fixture(scope="module")
def hostile_board() -> tuple:
    results = sample_results(n_pages=6, payloads=True)
    return leaderboard(results), results


def test_positive_control_payload_runs_in_an_unsafe_page(tmp_path: Path) -> None:
    """Proves the check below can fail: the same payload, unescaped, does change the title."""
    page = tmp_path / "unsafe.html"
    page.write_text("<html><head><title>t</title></head><body><img src=x onerror=\"document.title='pwned'\">"
                    "</body></html>", encoding="utf-8")
    assert _dump_dom(page, tmp_path).find(".//title").text == "pwned"


@pytest.mark.parametrize("csp", [False, True], ids=["escaping-alone", "with-csp"])
def test_payloads_do_not_run_and_our_script_does(hostile_board: tuple, tmp_path: Path, csp: bool) -> None:
    board, results = hostile_board
    page = tmp_path / "report.html"
    page.write_text(render_html(board, results, {"case_set": "demo"}, csp=csp), encoding="utf-8")
    dom = _dump_dom(page, tmp_path)
    assert "pwned" not in dom.find(".//title").text
    assert dom.get("data-ready") == "1"  # our script ran to the end (the CSP hash lets it)
    assert len(dom.xpath("//div[@id='hists']/div[@class='hist']")) == len(board.rows)
    assert len(dom.xpath("//div[@id='hists']//*[local-name()='rect']")) == 11 * len(board.rows)
    shown = [a for a in dom.iter("article") if a.get("hidden") is None]
    assert len(shown) == min(60, len(results))
    assert not dom.xpath("//img | //iframe | //a[not(starts-with(@href, '#c-')) and "
                         "not(@class='to-cards' and @href='#cases-head')]")  # a card, or a parser's cards


def test_sorting_and_filters_work(hostile_board: tuple, tmp_path: Path) -> None:
    board, results = hostile_board
    page = tmp_path / "driven.html"
    html = render_html(board, results, csp=False)
    page.write_text(html.replace("</body>", DRIVER, 1), encoding="utf-8")
    state = json.loads(_dump_dom(page, tmp_path).get_element_by_id("driver").text)
    by_found = sorted(board.rows, key=lambda r: (-r.coverage, r.rank))
    assert state["order1"] == "|".join(r.parser for r in by_found)  # first click: descending
    by_found_up = sorted(board.rows, key=lambda r: (r.coverage, r.rank))  # ties keep the leaderboard order
    assert state["order2"] == "|".join(r.parser for r in by_found_up)
    n_timeouts = sum(r.outcome == "timeout" for r in results)
    assert re.fullmatch(rf"{n_timeouts} of {n_timeouts} matching tables shown", state["count"])
    assert state["onlyTimeouts"] is True
    scores = [r.scores[board.primary] for r in results if r.outcome == "ok"]
    assert state["worst"] == "" and float(state["best"]) == max(scores)  # not found counts as worst


def test_a_regression_link_opens_its_card_even_beyond_the_first_page(tmp_path: Path) -> None:
    from tablebench.report.regressions import RegressionView

    results = sample_results(n_pages=10, payloads=True)
    board = leaderboard(results)
    last = results[-1]  # not laid out at load: the page shows the first 60 cards
    for r in results:
        r.baseline_change = {"metric": "teds", "baseline": 1.0, "now": 0.5, "delta": -0.1, "verdict": "regressed"}
    last.baseline_change = {**last.baseline_change, "delta": -0.9}
    page = tmp_path / "linked.html"
    page.write_text(render_html(board, results, {}, regressions=RegressionView.of(results)), encoding="utf-8")
    link = lxml.html.document_fromstring(page.read_text()).get_element_by_id("regressions").find(".//a")
    assert link.text == last.test_id, "the most regressed case comes first"
    assert 'id="' + link.get("href")[1:] not in page.read_text(), "cards are data until shown"
    dom = _dump_dom(page, tmp_path, link.get("href")[1:])
    card = dom.get_element_by_id(link.get("href")[1:])
    assert card.get("hidden") is None and last.test_id in card.find(".//header").text_content()
    shown = dom.xpath("//div[@id='cases']/article")
    assert len(shown) == 61 and shown[0] is card, "the first page, and the card linked to, first"


# run after our script (CSP-free variant): search for the card, open its page output, clear the
# search, follow its regression link
EVIDENCE_DRIVER = """<script>""" + WAIT + """
var state = {}, box = document.getElementById("case-search");
rendered(function () {
  rendered(function () {
    state.found = shownCards().map(function (a) { return a.id; });
    var target = document.getElementById(TARGET);
    target.querySelector(".output button").click();
    (function () {
      var marks = target.querySelectorAll(".output mark");
      state.marked = Array.prototype.map.call(marks, function (m) { return m.textContent; }).join("");
      state.cropImages = target.querySelectorAll("figure.crop img").length;
      state.diffCells = target.querySelectorAll("table.celldiff td").length;
      rendered(function () {
        state.targetAbsentAfterClear = !document.getElementById(TARGET);
        rendered(function () {
          state.hash = location.hash; state.targetShown = !!document.getElementById(TARGET);
          state.firstShown = shownCards()[0].id;
          var link = document.querySelector("#regressions a[href='#" + TARGET + "']");
          var sel = document.querySelector("select[data-filter=outcome]");
          rendered(function () {  /* a filter drops the card; its link, clicked again (same location), shows it */
            state.droppedByFilter = !document.getElementById(TARGET);
            rendered(function () { state.reopened = !!document.getElementById(TARGET); done(state); });
            link.click();
          });
          sel.value = "timeout"; sel.dispatchEvent(new Event("change"));
        });
        document.querySelector("#regressions a[href='#" + TARGET + "']").click();
      });
      box.value = ""; box.dispatchEvent(new Event("input"));
    })();
  });
  box.value = SEARCH; box.dispatchEvent(new Event("input"));
});
</script></body>"""


def test_a_card_shows_its_crop_span_and_cell_diff_and_is_found_by_search_and_by_its_regression_link(
        tmp_path: Path) -> None:
    """A card with all its evidence: the page crop (rendered from a real case set's PDF), the
    matched span highlighted in the page's output, the cell diff; the search box finds it by id
    and the "Regressions" section's link opens it although paging hides it at load."""
    from tablebench.cases import INSTALLED_CASES
    from tablebench.report.crops import pictures
    from tablebench.report.regressions import RegressionView, card_anchor

    if shutil.which("pdftoppm") is None:
        pytest.skip("no pdftoppm (apt-get install -y poppler-utils): crops need it")
    results = sample_results(n_pages=30)
    for r in results:  # the sample pages, as pages of the repository's synth-v1 (which has bboxes)
        r.case_set, r.page = "synth-v1", f"p{int(r.page[1:]) + 1:03d}"
    board = leaderboard(results)
    crops, _ = pictures(results, {"case_set_path": str(INSTALLED_CASES / "synth-v1")}, [board])
    candidates = [r for r in reversed(results) if (r.kind, r.case_set, r.page, r.index) in crops
                  and "gt" in r.evidence.get("cell_diff", {}) and r.matched_text]
    assert candidates, "the sample should hold a found, imperfect table with a crop"
    target = candidates[0]
    target.baseline_change = {"metric": "teds", "baseline": 1.0, "now": 0.2, "delta": -0.8, "verdict": "regressed"}
    view = RegressionView.of(results)
    anchor = card_anchor(target.test_id)

    page = tmp_path / "evidence.html"
    page.write_text(render_html(board, results, {}, regressions=view, crops=crops), encoding="utf-8")
    anchors = [row[0] for row in decode_index(page.read_text())["cards"]]
    assert anchors.index(anchor) >= 60, "the card should be beyond the first page at load"
    dom = _dump_dom(page, tmp_path, anchor)  # with the CSP: data: images allowed, our script runs
    card = dom.get_element_by_id(anchor)
    assert card.get("hidden") is None
    assert card.xpath(".//figure[@class='crop']/button[@class='zoom-in']"
                      "/img[starts-with(@src, 'data:image/webp;base64,')]")
    assert card.xpath(".//table[@class='celldiff']//td[@class='d-chg' or @class='d-miss']")
    matched = card.xpath(".//pre[@class='matched']")  # the matched text: read from the page's output, not stored twice
    assert len(matched) == 1 and matched[0].text_content() == target.matched_text

    driven = tmp_path / "evidence-driven.html"
    script = EVIDENCE_DRIVER.replace("TARGET", json.dumps(anchor)).replace("SEARCH", json.dumps(target.test_id))
    html = render_html(board, results, {}, csp=False, regressions=view, crops=crops)
    driven.write_text(html.replace("</body>", script, 1), encoding="utf-8")
    state = json.loads(_dump_dom(driven, tmp_path).get_element_by_id("driver").text)
    assert state["marked"] == target.matched_text  # the span, highlighted in the whole output
    assert state["cropImages"] == 1 and state["diffCells"] > 0
    assert state["found"] == [anchor]  # the search box keeps only the card with that id
    assert state["targetAbsentAfterClear"] is True  # cleared: paging again
    assert state["hash"] == f"#{anchor}" and state["targetShown"] is True and state["firstShown"] == anchor
    assert state["droppedByFilter"] is True and state["reopened"] is True


# run after our script (CSP-free variant): what the first render laid out, then a filter, "show
# more", a search by id and one by text of a card's markup (beyond the first page both)
SCALE_DRIVER = """<script>""" + WAIT + """
var state = {}, box = document.getElementById("case-search");
var sel = document.querySelector("select[data-filter=parser]"), cases = document.getElementById("cases");
function search(words, then) {
  rendered(function () { then(shownCards().map(function (a) { return a.id; })); });
  box.value = words; box.dispatchEvent(new Event("input"));
}
rendered(function () {
  state.first = shownCards().length; state.decodedFirst = cases.getAttribute("data-decoded");
  state.count = document.getElementById("case-count").textContent;
  rendered(function () {
    state.parsers = shownCards().map(function (a) { return a.getAttribute("data-parser"); });
    state.filtered = document.getElementById("case-count").textContent;
    rendered(function () {
      state.more = shownCards().length;
      sel.value = ""; sel.dispatchEvent(new Event("change"));
      /* the markup's text is searched once every chunk is decoded (on the first search): a
         render from the index first, then one with every card's text; read when the page is idle */
      box.value = BY_TEXT; box.dispatchEvent(new Event("input"));
      setTimeout(function () {
        state.byText = shownCards().map(function (a) { return a.id; });
        state.decodedAll = cases.getAttribute("data-decoded");
        search(BY_ID, function (found) { state.byId = found; done(state); });
      }, 5000);
    });
    document.getElementById("more").click();
  });
  sel.value = PARSER; sel.dispatchEvent(new Event("change"));
});
</script></body>"""


def test_hundreds_of_cards_are_laid_out_a_page_at_a_time_and_every_one_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """360 cards in small chunks: the first render lays out one page (60 cards) from the first
    chunks only; a filter, "show more", the search by id and by a word only in a card's markup
    (its message) reach cards beyond the first page; an anchor opens its card at load."""
    import tablebench.report.html_data as html_data
    from tablebench.report.regressions import card_anchor

    monkeypatch.setattr(html_data, "CHUNK_CHARS", 20_000)  # several chunks at this size, as at 40,000 cards
    results = sample_results(n_pages=40)
    board = leaderboard(results)
    far, deep = results[-7], results[200]
    deep.message = "quetzalcoatl wandered here"
    html = render_html(board, results, csp=False)
    n_chunks = len(json.loads(html.split('id="tb-data">', 1)[1].split("</script>", 1)[0])["cards"]["chunks"])
    assert n_chunks > 4
    order = [row[0] for row in decode_index(html)["cards"]]
    assert order.index(card_anchor(far.test_id)) >= 60 and order.index(card_anchor(deep.test_id)) >= 60
    parser = board.rows[-1].parser
    script = (SCALE_DRIVER.replace("BY_ID", json.dumps(far.test_id)).replace("BY_TEXT", json.dumps("QUETZALCOATL"))
              .replace("PARSER", json.dumps(parser)))
    page = tmp_path / "many.html"
    page.write_text(html.replace("</body>", script, 1), encoding="utf-8")
    state = json.loads(_dump_dom(page, tmp_path).get_element_by_id("driver").text)
    assert state["first"] == 60 and state["count"] == f"60 of {len(results)} matching tables shown"
    decoded, total = map(int, state["decodedFirst"].split("/"))
    assert total == n_chunks and decoded < total, "the first page needs only the first chunks"
    n_parser = sum(r.parser == parser for r in results)
    assert set(state["parsers"]) == {parser} and state["filtered"] == f"60 of {n_parser} matching tables shown"
    assert state["more"] == min(120, n_parser)
    assert state["byId"] == [card_anchor(far.test_id)]
    assert state["byText"] == [card_anchor(deep.test_id)] and state["decodedAll"] == f"{n_chunks}/{n_chunks}"

    linked = tmp_path / "linked.html"
    linked.write_text(html, encoding="utf-8")
    dom = _dump_dom(linked, tmp_path, card_anchor(deep.test_id))
    assert dom.xpath("//div[@id='cases']/article")[0].get("id") == card_anchor(deep.test_id)


# run after our script (CSP-free variant): show failed cases only, then order every case by its drop
VERDICT_DRIVER = """<script>""" + WAIT + """
var state = {};
rendered(function () {
  var sel = document.querySelector("select[data-filter=verdict]"), order = document.getElementById("case-order");
  rendered(function () {
    var shown = shownCards();
    state.verdicts = shown.map(function (a) { return a.getAttribute("data-verdict"); });
    state.badges = shown.map(function (a) { return (a.querySelector("header .verdict-fail") || {}).textContent; });
    state.reasons = shown.map(function (a) { return (a.querySelector("div.verdict") || {}).textContent; });
    state.count = document.getElementById("case-count").textContent;
    rendered(function () {
      rendered(function () { state.firstByDrop = shownCards()[0].id; done(state); });
      order.value = "delta"; order.dispatchEvent(new Event("change"));
    });
    sel.value = ""; sel.dispatchEvent(new Event("change"));
  });
  sel.value = "failed"; sel.dispatchEvent(new Event("change"));
});
</script></body>"""


def test_a_failed_card_shows_its_verdict_and_the_failed_filter_hides_passing_cards(tmp_path: Path) -> None:
    from tablebench.gating.rules import Gate, keep_verdict
    from tablebench.report.regressions import card_anchor

    results = sample_results(n_pages=6, payloads=True)
    gate = Gate({"teds": 0.8})
    for i, r in enumerate(results):
        keep_verdict(r, gate.check(r))
        r.baseline_change = {"metric": "teds", "baseline": 1.0, "now": 0.9, "delta": -0.1 * (i % 3),
                               "verdict": "unchanged"}
    dropped = results[len(results) // 2]
    dropped.baseline_change["delta"] = -0.7
    failed = [r for r in results if r.verdict["status"] == "fail"]
    assert 0 < len(failed) < len(results)
    page = tmp_path / "verdicts.html"
    page.write_text(render_html(leaderboard(results), results, csp=False).replace("</body>", VERDICT_DRIVER, 1),
                    encoding="utf-8")
    state = json.loads(_dump_dom(page, tmp_path).get_element_by_id("driver").text)
    n = min(60, len(failed))
    assert state["count"] == f"{n} of {len(failed)} matching tables shown"
    assert state["verdicts"] == ["failed"] * n, "the failed filter hides every passing card"
    assert state["badges"] == ["failed"] * n
    assert all(text.startswith("failed") and len(text) > len("failed") for text in state["reasons"]), state["reasons"]
    assert state["firstByDrop"] == card_anchor(dropped.test_id), "ordered by delta: the largest drop first"


# run after our script (CSP-free variant): opened at a card's anchor, then a "Most regressed" link
# clicked; each time, where the card's header is against the sticky controls bar
ANCHOR_DRIVER = """<script>""" + WAIT + """
function place(id) {
  var header = document.getElementById(id).querySelector("header");
  var bar = document.querySelector(".controls").getBoundingClientRect();
  return {header: header.getBoundingClientRect().top, barBottom: bar.bottom, barTop: bar.top,
          scrolled: window.scrollY};
}
var state = {};
rendered(function () {
  state.opened = place(FIRST);
  rendered(function () { state.clicked = place(SECOND); done(state); });
  document.querySelector("#regressions a[href='#" + SECOND + "']").click();
});
</script></body>"""


def test_a_linked_card_s_header_is_not_hidden_under_the_sticky_bar(tmp_path: Path) -> None:
    """Opening a card by its anchor, at load or from a "Most regressed" link, scrolls it below
    the sticky filter bar, not under it (anchor targets keep a scroll margin of the bar's height)."""
    from tablebench.report.regressions import RegressionView, card_anchor

    results = sample_results(n_pages=20)
    board = leaderboard(results)
    first, second = results[-3], results[70]  # beyond the first page of cards, and within it
    for r in results:
        r.baseline_change = {"metric": "teds", "baseline": 1.0, "now": 0.9, "delta": -0.01, "verdict": "regressed"}
    for r, delta in ((first, -0.8), (second, -0.9)):
        r.baseline_change = {**r.baseline_change, "delta": delta}
    html = render_html(board, results, {}, csp=False, regressions=RegressionView.of(results))
    script = (ANCHOR_DRIVER.replace("FIRST", json.dumps(card_anchor(first.test_id)))
              .replace("SECOND", json.dumps(card_anchor(second.test_id))))
    page = tmp_path / "anchors.html"
    page.write_text(html.replace("</body>", script, 1), encoding="utf-8")
    state = json.loads(_dump_dom(page, tmp_path, card_anchor(first.test_id)).get_element_by_id("driver").text)
    for how in ("opened", "clicked"):
        place = state[how]
        assert place["scrolled"] > 0 and place["barTop"] == 0, (how, place)  # the bar is stuck at the top
        assert place["header"] >= place["barBottom"], (how, place)
        assert place["header"] - place["barBottom"] < 40, (how, place)  # just below it, not far down
    strict = tmp_path / "anchors-csp.html"  # the page as written: its CSP lets the script set the margin
    strict.write_text(render_html(board, results, {}, regressions=RegressionView.of(results)), encoding="utf-8")
    root = _dump_dom(strict, tmp_path, card_anchor(first.test_id))
    assert re.search(r"--bar:\s*\d+(\.\d+)?px", root.get("style") or ""), root.get("style")


# run after our script (CSP-free variant): where the leaderboard's heading is at load, then a click
# on a parser's leaderboard row and which card comes first
FIRST_SCREEN_DRIVER = """<script>""" + WAIT + """
var state = {};
rendered(function () {
  var head = Array.prototype.filter.call(document.querySelectorAll("h2"), function (h) {
    return h.textContent === "Leaderboard"; })[0];
  state.top = head ? head.getBoundingClientRect().top + window.scrollY : null;
  state.viewport = window.innerHeight;
  var row = Array.prototype.filter.call(document.querySelectorAll("table.sortable-table tbody tr"), function (tr) {
    return tr.cells[1] && tr.cells[1].textContent === PARSER; })[0];
  if (!row) { done(state); return; }
  rendered(function () {
    var shown = shownCards();
    state.first = shown.length ? shown[0].id : null;
    state.parsers = shown.map(function (a) { return a.getAttribute("data-parser"); });
    state.headTop = document.getElementById("cases-head").getBoundingClientRect().top;
    done(state);
  });
  row.click();
  setTimeout(function () { done(state); }, 5000);  /* no render after the click: say so */
});
</script></body>"""


def test_a_failing_run_with_a_baseline_shows_its_leaderboard_first_and_a_row_opens_its_worst_card(
        tmp_path: Path) -> None:
    """Acceptance (issue 45): report.html of a run with failures and a baseline, as written (the
    regressions, 70 failed cases): the leaderboard's heading is within the first screen of a
    1280 x 900 window; a click on a parser's row lays out that parser's cards, its worst first
    (a table not found, as the "worst" order counts it), scrolled to."""
    from tablebench.gating.aggregate import Comparison
    from tablebench.gating.baseline import Baseline, Entry
    from tablebench.gating.rules import Gate, keep_verdict
    from tablebench.report.regressions import card_anchor
    from tablebench.report.write import write_report

    results = sample_results(n_pages=30)
    base = Baseline(Path("base.json"), "tablebench",
                    {r.test_id: Entry("ok", {"teds": min(1.0, r.scores["teds"] + 0.1)}) for r in results
                     if r.outcome == "ok"})
    gate = Gate({"teds": 0.5}, baseline=base, tolerance=0.01)
    for r in results:
        keep_verdict(r, gate.check(r))
        if r.outcome == "ok":
            r.baseline_change = {"metric": "teds", "baseline": r.scores["teds"] + 0.1, "now": r.scores["teds"],
                                 "delta": -0.1, "verdict": "regressed"}
    failing = sum(r.verdict["status"] == "fail" for r in results)
    assert failing > 60
    comparisons = [Comparison(p, "teds", None, 60, 0.9, 0.8, -0.1, -0.12, -0.08, 0.001, 0.999, 0.02, 0.05,
                              "regression") for p in dict.fromkeys(r.parser for r in results)]
    paths = write_report(results, tmp_path / "run", {"case_set": "synth-demo", "baseline": "base.json"},
                         comparisons=comparisons)
    board = leaderboard(results)
    parser = board.rows[-1].parser
    mine = [r for r in results if r.parser == parser]
    worst = next(r for r in mine if r.outcome != "ok")  # page order; not found counts as the worst
    html = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", paths["html"].read_text(encoding="utf-8"))  # the driver is a script of its own
    page = tmp_path / "first-screen.html"
    page.write_text(html.replace("</body>", FIRST_SCREEN_DRIVER.replace("PARSER", json.dumps(parser)), 1),
                    encoding="utf-8")
    state = json.loads(_dump_dom(page, tmp_path, "", "--window-size=1280,900").get_element_by_id("driver").text)
    assert state["top"] is not None and state["top"] <= 900, state
    assert state.get("first") == card_anchor(worst.test_id), state
    assert set(state["parsers"]) == {parser}
    assert -2 <= state["headTop"] < state["viewport"], "the cards are scrolled to"
