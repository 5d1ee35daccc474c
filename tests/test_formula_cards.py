"""Formula cards: no scrollbar on a one-line formula, the group filter named for formulas, a
found-as-text note that does not read as a warning, and a formula-only run's counts when merged."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import lxml.html
import pytest

from tablebench.cli import main
from tablebench.core.results import ItemResult
from tablebench.report.aggregate import boards
from tablebench.report.html import render_html
from tablebench.report.write import write_report

FORMULAS = [r"$x^{2} + y_{i}^{2} = r^{2}$", r"$\sum_{k=1}^{n} a_{k} \leq \frac{1}{2}$", r"$e^{i\pi} + 1 = 0$",
            r"$\int_{0}^{1} f(t)\, dt$", r"$\sqrt{a^{2} + b^{2}}$", r"$\hat{\theta}_{j} \in \mathbb{R}$"]


def _formula(i: int, latex: str, group: str = "inline") -> ItemResult:
    return ItemResult(parser="p", spec="p", case_set="s", page=f"{i:03d}", index=0, group=group, outcome="ok",
                      gt_latex=latex, matched_text=latex, matched_span=[0, len(latex)], kind="formula",
                      scores={"formula_score": 9.0}, message="found as text")


def _formulas() -> list[ItemResult]:
    return [_formula(i, latex, "inline" if i % 2 else "display") for i, latex in enumerate(FORMULAS)]


def _page(results: list[ItemResult], csp: bool = True) -> str:
    tracks = list(boards(results).values())
    return render_html(tracks[0], results, more=tracks[1:], csp=csp)


def test_the_group_filter_is_named_for_the_kinds_in_the_run() -> None:
    def label(results: list[ItemResult]) -> str:
        (select,) = lxml.html.fromstring(_page(results)).xpath("//select[@data-filter='group']")
        return select.getparent().text.strip()

    table = ItemResult(parser="p", spec="p", case_set="s", page="009", index=0, group="simple", outcome="ok",
                       gt_html="<table><tr><td>a</td></tr></table>", scores={"teds": 1.0})
    assert label(_formulas()) == "inline / display"
    assert label([table]) == "complexity"
    assert label([table, *_formulas()]) == "complexity, inline / display"


def test_a_formula_only_run_merges_with_its_own_count(tmp_path: Path) -> None:
    from tablebench.core.completeness import measure

    ids = [r.test_id for r in _formulas()]
    write_report(_formulas(), tmp_path / "run", {"formulas": 6, "cases": 6, "parsers": ["p"],
                                                 "completeness": measure(ids, ids).to_dict()})
    assert main(["report", "merge", str(tmp_path / "run"), "--out", str(tmp_path / "merged")]) == 0
    meta = json.loads((tmp_path / "merged" / "results.json").read_text(encoding="utf-8"))["meta"]
    assert (meta["formulas"], meta["cases"]) == (6, 6) and "tables" not in meta


PROBE = """<script>
document.addEventListener("tb-rendered", function () {  // the cards are laid out from the page's data first
  var boxes = Array.prototype.map.call(document.querySelectorAll(".rendered.formula"), function (el) {
    var style = getComputedStyle(el);
    return {scrolls: el.scrollHeight > el.clientHeight && style.overflowY !== "hidden" && style.overflowY !== "visible",
            height: el.clientHeight};
  });
  var note = document.querySelector("article.case[data-outcome=ok] > p.message");
  var out = document.createElement("pre"); out.id = "probe";
  out.textContent = JSON.stringify({boxes: boxes, note: getComputedStyle(note).backgroundColor});
  document.body.appendChild(out);
}, {once: true});
</script></body>"""


def test_one_line_formulas_show_no_scrollbar_and_a_found_as_text_note_is_not_yellow(tmp_path: Path) -> None:
    chromium = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
    if chromium is None:
        pytest.skip("no Chromium on PATH (apt-get install -y chromium): the browser checks need one")
    page = tmp_path / "formulas.html"
    page.write_text(_page(_formulas(), csp=False).replace("</body>", PROBE, 1), encoding="utf-8")
    proc = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1400,900", "--virtual-time-budget=20000",
                           "--dump-dom",
                           page.as_uri()], capture_output=True, text=True, timeout=90, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    probe = json.loads(lxml.html.document_fromstring(proc.stdout).get_element_by_id("probe").text_content())
    assert len(probe["boxes"]) == 2 * len(FORMULAS)  # ground truth and extraction of each card
    assert not [b for b in probe["boxes"] if b["scrolls"]], probe["boxes"]
    assert all(b["height"] > 0 for b in probe["boxes"])
    assert not re.fullmatch(r"rgba?\(255, 248, 197.*\)", probe["note"]), probe["note"]


def _failed(result: ItemResult) -> ItemResult:
    from tablebench.gating.rules import Gate, keep_verdict

    keep_verdict(result, Gate({"formula_score": 9.5, "teds": 0.99}).check(result))
    return result


def _card_texts(results: list[ItemResult]) -> tuple[str, dict[str, str]]:
    """(the page's text outside the cards, {kind: the text of its cards}), tags stripped."""
    from tablebench.report.html_data import expanded_html

    html = _page(results)
    body = re.sub(r"<script.*?</script>|<style.*?</style>", " ", html.split("<body>", 1)[1], flags=re.DOTALL)
    text = lxml.html.fromstring(body).text_content()
    cards = lxml.html.fromstring(expanded_html(html)).xpath("//article")
    by_kind: dict[str, str] = {}
    for card in cards:
        kind = "formula" if "::f" in card.get("id", "") + card.text_content() else "table"
        by_kind[kind] = by_kind.get(kind, "") + card.text_content()
    return text, by_kind


def test_card_wording_follows_the_item_kind() -> None:
    """A formula's card and its failure say "formula errors", never "semantic errors" (the table
    score's name) or "tables"; a table's keep theirs; a formula-only page counts formulas."""
    formula = _formula(0, FORMULAS[0])
    formula.scores, formula.errors = {"formula_score": 4.0}, [r"formula: \frac read as /"]
    _failed(formula)
    assert formula.verdict["reasons"][-1] == r"formula errors: formula: \frac read as /"
    table = ItemResult(parser="p", spec="p", case_set="s", page="009", index=0, group="simple", outcome="ok",
                       gt_html="<table><tr><td>a</td></tr></table>", scores={"teds": 0.5, "semantic": 4.0},
                       errors=["value 1 read as 7"])
    _failed(table)
    assert table.verdict["reasons"][-1] == "semantic errors: value 1 read as 7"

    page, cards = _card_texts([formula, *_formulas()[1:]])
    assert "formula errors" in cards["formula"]
    for text in (page, cards["formula"]):
        assert "semantic errors" not in text and not re.search(r"\btables?\b", text), text
    _, cards = _card_texts([table, formula])
    assert "semantic errors" in cards["table"] and "formula errors" in cards["formula"]
    assert "semantic errors" not in cards["formula"]


def test_the_case_counter_counts_the_run_s_items() -> None:
    def unit(results: list[ItemResult]) -> str | None:
        return lxml.html.fromstring(_page(results)).get_element_by_id("case-count").get("data-unit")

    table = ItemResult(parser="p", spec="p", case_set="s", page="009", index=0, group="simple", outcome="ok",
                       gt_html="<table><tr><td>a</td></tr></table>", scores={"teds": 1.0})
    assert unit(_formulas()) == "formulas" and unit([table]) == "tables" and unit([table, *_formulas()]) == "cases"
