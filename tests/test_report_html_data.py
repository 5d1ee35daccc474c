"""The drill-down's cards as data (`tablebench.report.html_data`): what goes in comes back, once per fragment."""

from __future__ import annotations

import json

import pytest

from tablebench.report import html_data
from tablebench.report.aggregate import leaderboard
from tablebench.report.html import render_html
from tablebench.report.html_data import Card, card_data, decode_cards, decode_index, expanded_html, pack, unpack
from tests.test_report_samples import sample_results


def _page(data: dict) -> str:
    return f'<div id="cases"></div><script type="application/json" id="tb-data">{json.dumps({"cards": data})}</script>'


def test_pack_round_trips_and_is_reproducible() -> None:
    text = "<td>a &amp; b</td> ünïcödé \u2028 " * 50
    assert unpack(pack(text)) == text and pack(text) == pack(text)
    assert set(pack(text)) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")


def test_repeated_fragments_are_stored_once_and_every_card_comes_back_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(html_data, "CHUNK_CHARS", 50)  # a chunk every few fragments
    gt = '<div class="side">the same ground truth, ' + "x" * 40 + "</div>"
    values = ("A", "simple", "en", "digital", "single-page", "ok", "passed", "table", "")
    cards = [Card(f"c-{i}", f"Set/P{i}::T0[A]", values, i / 10,
                  [f'<article class="case" id="c-{i}">', gt, f"<p>extraction {i % 3}</p>", "</article>"])
             for i in range(12)]
    data = card_data(cards)
    fragments = [f for chunk in data["chunks"] for f in json.loads(unpack(chunk))]
    assert len(fragments) == 12 + 1 + 3 + 1, "each distinct fragment once"
    assert len(data["chunks"]) > 3 and data["starts"][0] == 0 and data["starts"] == sorted(data["starts"])
    page = _page(data)
    assert decode_cards(page) == ["".join(c.parts) for c in cards]
    index = decode_index(page)
    assert [row[0] for row in index["cards"]] == [c.anchor for c in cards]
    assert index["cards"][3][1] == "set/p3::t0[a]", "searched lower-case"
    assert index["values"]["parser"] == ["A"] and index["cards"][3][11] == 0.3  # after the nine filter codes
    assert expanded_html(page).startswith('<div id="cases"><article class="case" id="c-0">')


def test_a_page_output_is_stored_once_and_fills_the_matched_text_it_holds() -> None:
    output = "# page\n| a | <b> |\nthe end"
    pred = '<div class="side"><pre class="matched" data-span="7,18"></pre></div>'
    cards = [Card(f"c-{i}", "t", ("A", "simple", "en", "digital", "single-page", "ok", "passed", "table", ""), None,
                  ["<article>", pred, "</article>"], outputs=[0]) for i in range(2)]
    data = card_data(cards, [output, "never referred to"])
    assert data["outputs"][1] == -1 and data["outputs"][0] >= 0
    fragments = [f for chunk in data["chunks"] for f in json.loads(unpack(chunk))]
    assert fragments.count(output) == 1 and "never referred to" not in fragments
    assert decode_cards(_page(data)) == ['<article><div class="side"><pre class="matched" data-span="7,18">'
                                         "| a | &lt;b&gt; |</pre></div></article>"] * 2


def test_a_report_stores_the_ground_truth_once_for_every_parser() -> None:
    results = sample_results(n_pages=4)
    page = render_html(leaderboard(results), results)
    data = json.loads(page.split('id="tb-data">', 1)[1].split("</script>", 1)[0])["cards"]
    fragments = [f for chunk in data["chunks"] for f in json.loads(unpack(chunk))]
    gt_sides = [f for f in fragments if f.startswith('<div class="sides"><div class="side"><h4>ground truth')]
    assert len(gt_sides) == len({(r.page, r.index) for r in results}) < len(results)
    assert len(decode_cards(page)) == len(results)
