"""report.html in a real browser (headless Chromium): injected payloads stay inert, our script works.

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

from harness.report.aggregate import leaderboard
from harness.report.html import render_html
from tests.test_report_samples import sample_results

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# run after our script in the CSP-free variant: click headers and change filters as a user would
DRIVER = """<script>
var th = document.querySelectorAll("table.sortable-table th");
th[2].click();
var order1 = Array.prototype.map.call(document.querySelectorAll("table.sortable-table tbody tr td.name"),
  function (td) { return td.textContent; }).join("|");
th[2].click();
var order2 = Array.prototype.map.call(document.querySelectorAll("table.sortable-table tbody tr td.name"),
  function (td) { return td.textContent; }).join("|");
var sel = document.querySelector("select[data-filter=outcome]");
sel.value = "timeout"; sel.dispatchEvent(new Event("change"));
var hidden = Array.prototype.filter.call(document.querySelectorAll("article.case"), function (a) { return !a.hidden; })
  .every(function (a) { return a.getAttribute("data-outcome") === "timeout"; });
var count = document.getElementById("case-count").textContent;
sel.value = ""; sel.dispatchEvent(new Event("change"));
function firstScore(how) {
  var order = document.getElementById("case-order");
  order.value = how; order.dispatchEvent(new Event("change"));
  var first = Array.prototype.filter.call(document.querySelectorAll("article.case"), function (a) { return !a.hidden; })[0];
  return first.getAttribute("data-score");
}
var out = document.createElement("pre"); out.id = "driver";
out.textContent = JSON.stringify({order1: order1, order2: order2, count: count, onlyTimeouts: hidden,
  worst: firstScore("worst"), best: firstScore("best")});
document.body.appendChild(out);
</script></body>"""


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no Chromium on PATH (apt-get install -y chromium): the browser checks need one")


def _dump_dom(page: Path, tmp_path: Path, fragment: str = "") -> lxml.html.HtmlElement:
    profile = tmp_path / f"profile-{page.stem}"
    url = page.as_uri() + (f"#{fragment}" if fragment else "")
    proc = subprocess.run([_chromium(), *FLAGS, f"--user-data-dir={profile}", "--dump-dom", url],
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
    assert not dom.xpath("//img | //iframe | //a[not(starts-with(@href, '#c-'))]")


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
    from harness.report.regressions import RegressionView

    results = sample_results(n_pages=10, payloads=True)
    board = leaderboard(results)
    last = results[-1]  # laid out hidden: the page shows the first 60 cards at load
    for r in results:
        r.extra["baseline"] = {"metric": "teds", "baseline": 1.0, "now": 0.5, "delta": -0.1, "verdict": "regressed"}
    last.extra["baseline"] = {**last.extra["baseline"], "delta": -0.9}
    page = tmp_path / "linked.html"
    page.write_text(render_html(board, results, {}, regressions=RegressionView.of(results)), encoding="utf-8")
    link = lxml.html.document_fromstring(page.read_text()).get_element_by_id("regressions").find(".//a")
    assert link.text == last.test_id, "the most regressed case comes first"
    static = lxml.html.document_fromstring(page.read_text()).get_element_by_id(link.get("href")[1:])
    assert static.get("hidden") is not None
    dom = _dump_dom(page, tmp_path, link.get("href")[1:])
    card = dom.get_element_by_id(link.get("href")[1:])
    assert card.get("hidden") is None and last.test_id in card.find(".//header").text_content()


# run after our script (CSP-free variant): open a card's page output, search for the card, follow a regression link
EVIDENCE_DRIVER = """<script>
var state = {};
var target = document.getElementById(TARGET);
target.querySelector(".output button").click();
var marks = target.querySelectorAll(".output mark");
state.marked = Array.prototype.map.call(marks, function (m) { return m.textContent; }).join("");
state.cropImages = target.querySelectorAll("figure.crop img").length;
state.diffCells = target.querySelectorAll("table.celldiff td").length;
var box = document.getElementById("case-search");
box.value = SEARCH; box.dispatchEvent(new Event("input"));
state.found = Array.prototype.filter.call(document.querySelectorAll("article.case"), function (a) { return !a.hidden; })
  .map(function (a) { return a.id; });
box.value = ""; box.dispatchEvent(new Event("input"));
state.targetHiddenAfterClear = target.hidden;
window.addEventListener("hashchange", function () {
  state.hash = location.hash; state.targetShown = !target.hidden;
  var out = document.createElement("pre"); out.id = "driver"; out.textContent = JSON.stringify(state);
  document.body.appendChild(out);
});
document.querySelector("#regressions a[href='#" + TARGET + "']").click();
</script></body>"""


def test_a_card_shows_its_crop_span_and_cell_diff_and_is_found_by_search_and_by_its_regression_link(
        tmp_path: Path) -> None:
    """A card with all its evidence: the page crop (rendered from a real case set's PDF), the
    matched span highlighted in the page's output, the cell diff; the search box finds it by id
    and the "Regressions" section's link opens it although paging hides it at load."""
    from harness.cases import REPO_CASES
    from harness.report.crops import page_crops
    from harness.report.regressions import RegressionView, card_anchor

    if shutil.which("pdftoppm") is None:
        pytest.skip("no pdftoppm (apt-get install -y poppler-utils): crops need it")
    results = sample_results(n_pages=30)
    for r in results:  # the sample pages, as pages of the repository's synth-v1 (which has bboxes)
        r.case_set, r.page = "synth-v1", f"p{int(r.page[1:]) + 1:03d}"
    board = leaderboard(results)
    crops = page_crops(results, {"case_set_path": str(REPO_CASES / "synth-v1")}, board.primary)
    candidates = [r for r in reversed(results) if (r.case_set, r.page, r.table) in crops
                  and "gt" in r.extra.get("cell_diff", {}) and r.matched_text]
    assert candidates, "the sample should hold a found, imperfect table with a crop"
    target = candidates[0]
    target.extra["baseline"] = {"metric": "teds", "baseline": 1.0, "now": 0.2, "delta": -0.8, "verdict": "regressed"}
    view = RegressionView.of(results)
    anchor = card_anchor(target.test_id)

    page = tmp_path / "evidence.html"
    page.write_text(render_html(board, results, {}, regressions=view, crops=crops), encoding="utf-8")
    static = lxml.html.document_fromstring(page.read_text()).get_element_by_id(anchor)
    assert static.get("hidden") is not None, "the card should be beyond the first page at load"
    dom = _dump_dom(page, tmp_path, anchor)  # with the CSP: data: images allowed, our script runs
    card = dom.get_element_by_id(anchor)
    assert card.get("hidden") is None
    assert card.xpath(".//figure[@class='crop']/img[starts-with(@src, 'data:image/webp;base64,')]")
    assert card.xpath(".//table[@class='celldiff']//td[@class='d-chg' or @class='d-miss']")

    driven = tmp_path / "evidence-driven.html"
    script = EVIDENCE_DRIVER.replace("TARGET", json.dumps(anchor)).replace("SEARCH", json.dumps(target.test_id))
    html = render_html(board, results, {}, csp=False, regressions=view, crops=crops)
    driven.write_text(html.replace("</body>", script, 1), encoding="utf-8")
    state = json.loads(_dump_dom(driven, tmp_path).get_element_by_id("driver").text)
    assert state["marked"] == target.matched_text  # the span, highlighted in the whole output
    assert state["cropImages"] == 1 and state["diffCells"] > 0
    assert state["found"] == [anchor]  # the search box keeps only the card with that id
    assert state["targetHiddenAfterClear"] is True  # cleared: paging again
    assert state["hash"] == f"#{anchor}" and state["targetShown"] is True
