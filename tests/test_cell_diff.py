"""The semantic score's cell diff: computed while scoring, stored compactly, drawn in the card."""

from __future__ import annotations

import json

import lxml.html

from tablebench.core.results import ItemResult
from tablebench.core.table import Table
from tablebench.metrics.tables.semantic import DEFAULT, combine, read_and_count, semantic_details
from tablebench.metrics.tables.semantic_diff import MAX_CELLS
from tablebench.report.evidence import cell_diff_html

GT = [["name", "a", "b"], ["x", "1", "2"], ["y", "3", "4"], ["z", "5", "6"]]


def _diff(pred_rows: list[list[str]], gt_rows: list[list[str]] = GT) -> dict:
    return semantic_details(Table.from_rows(gt_rows, header_rows=1), Table.from_rows(pred_rows, header_rows=1)).diff


def test_an_exact_table_keeps_counts_only() -> None:
    assert _diff(GT) == {"counts": {"equal": 9, "changed": 0, "missing": 0, "extra": 0}}


def test_changed_missing_and_extra_cells_follow_the_alignment() -> None:
    """Rows are given out of order: the diff pairs them as the score does (by key and content),
    so the reordered row reads equal, the changed value changed, the dropped row missing, and the
    invented row and column extra."""
    pred = [["name", "a", "b", "c"], ["y", "3", "4", "q"], ["x", "1", "9", "r"], ["w", "7", "8", "s"]]
    diff = _diff(pred)
    assert diff["st"] == ["==~", "===", "---"]  # x: b changed; y equal; z lost
    assert diff["pred"] == {"0,2": "9"}
    assert diff["xcols"] == ["c"] and diff["x"] == {"0": ["r"], "1": ["q"]}
    assert diff["xrows"] == [["w", "7", "8", "s"]]
    assert diff["counts"] == {"equal": 5, "changed": 1, "missing": 3, "extra": 2 + 4}
    json.dumps(diff)  # plain data for results.json


def test_the_score_is_what_it_was_without_the_diff() -> None:
    """The diff only reads the alignment: the score is the one the comparison's features give
    without any diff being drawn (`read_and_count` makes none)."""
    pred = [["name", "a", "b"], ["x", "1", "9"], ["y", "3", "4"]]
    gt, p = Table.from_rows(GT, header_rows=1), Table.from_rows(pred, header_rows=1)
    result = semantic_details(gt, p)
    assert 0 < result.score < 10 and result.score == round(combine(read_and_count(gt, p).row, DEFAULT.vector), 4)
    assert result.diff["counts"]["missing"] == 3


def test_a_large_differing_table_keeps_counts_only() -> None:
    n = MAX_CELLS // 3 + 1
    gt = [["k", "a", "b"]] + [[f"r{i}", str(i), str(2 * i)] for i in range(n)]
    pred = [row[:2] + ["?"] for row in gt]
    diff = _diff(pred, gt)
    assert "gt" not in diff and diff["counts"]["changed"] == n


def test_the_card_colours_each_cell_and_escapes_every_text() -> None:
    payload = "</td><b>2 & 'q'"
    pred = [["name", "a", "b"], ["x", "1", payload], ["y", "3", "4"], ["z", "5", "6"], ["w", "0", "0"]]
    r = ItemResult(parser="p", case_set="s", page="p001", index=0, group="simple", outcome="ok",
                   evidence={"cell_diff": _diff(pred)})
    markup = cell_diff_html(r)
    assert "<b>" not in markup and "</td><b>" not in markup
    doc = lxml.html.fragment_fromstring(markup, create_parent="div")
    classes = [td.get("class") for td in doc.iter("td")]
    assert classes.count("d-chg") == 1 and classes.count("d-eq") == 8 and classes.count("d-ext") == 3
    changed = next(td for td in doc.iter("td") if td.get("class") == "d-chg")
    assert changed.find("del").text == "2" and changed.find("ins").text == payload


def test_a_malformed_diff_shows_no_table_and_does_not_raise() -> None:
    for bad in ({"counts": "x"}, {"counts": {}, "gt": 3, "st": [], "cols": []}, {"counts": {}, "gt": [["a"]]}, 5):
        r = ItemResult(parser="p", case_set="s", page="p001", index=0, group="simple", outcome="ok",
                       evidence={"cell_diff": bad})
        assert "<table" not in cell_diff_html(r)
