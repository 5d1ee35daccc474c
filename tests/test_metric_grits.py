"""GriTS: conformance with table-transformer's grits_from_html, difflib parity, holes, hand cases."""

from __future__ import annotations

import random
import sys
from difflib import SequenceMatcher

import numpy as np
import pytest

import tablebench.metrics.tables.grits  # noqa: F401  (the package re-exports the function under the same name)
from tablebench.core.table import Cell, NoTableError, Table
from tablebench.readers.html import table_from_html

G = sys.modules["tablebench.metrics.tables.grits"]
grits_details = G.grits_details
TOL = 1e-9
KEYS = ("top", "precision_top", "recall_top", "con", "precision_con", "recall_con")


def _difflib(a: str, b: str, autojunk: bool = True) -> float:
    if not a and not b:
        return 1.0
    matched = sum(m.size for m in SequenceMatcher(None, a, b, autojunk=autojunk).get_matching_blocks())
    return 2 * matched / (len(a) + len(b))


def _row(*texts: str) -> list[Cell]:
    return [Cell(t) for t in texts]


def _pad(table: Table) -> Table:
    """The table with every hole filled by an empty cell (appended cells take a row's free slots)."""
    grid = table.layout().grid
    rows = [[Cell(c.text, c.rowspan, c.colspan) for c in row] for row in table.rows]
    rows += [[] for _ in range(grid.shape[0] - len(rows))]
    for r, line in enumerate(grid):
        rows[r] += [Cell("") for _ in range(int((line < 0).sum()))]
    return Table(rows)


# -- conformance -------------------------------------------------------------------------------


@pytest.mark.shared
def test_reproduces_reference_on_every_conformance_pair(conformance_pairs: list[dict]) -> None:
    scored, off = 0, []
    for pair in conformance_pairs:
        if pair["grits_con"] is None:
            continue
        got = grits_details(pair["gt_html"], pair["pred_html"])
        diff = max(abs(got[k] - pair[f"grits_{k}"]) for k in KEYS)
        scored += 1
        if diff > TOL:
            off.append(f"{pair['id']}: off by {diff:.3g}: {got}")
    assert scored == 312 - 15
    assert not off, "\n".join(off[:10])


@pytest.mark.shared
def test_where_the_reference_raises_holes_score_as_empty_cells(conformance_pairs: list[dict]) -> None:
    raising = [p for p in conformance_pairs if p.get("grits_reference_error")]
    assert len(raising) == 15
    for pair in raising:
        gt, pred = table_from_html(pair["gt_html"]), table_from_html(pair["pred_html"])
        assert (gt.layout().grid < 0).any() or (pred.layout().grid < 0).any(), pair["id"]
        got = grits_details(gt, pred)
        assert all(0.0 <= got[k] <= 1.0 for k in KEYS), pair["id"]
        for kind in ("top", "con"):
            p, r = got[f"precision_{kind}"], got[f"recall_{kind}"]
            assert got[kind] == pytest.approx(2 * p * r / (p + r) if p + r else 0.0, abs=TOL)
        padded = grits_details(_pad(gt), _pad(pred))
        assert max(abs(got[k] - padded[k]) for k in KEYS) <= TOL, pair["id"]
        assert grits_details(gt, gt) == dict.fromkeys(KEYS, 1.0)
        assert grits_details(pred, pred) == dict.fromkeys(KEYS, 1.0)


# -- the difflib similarity --------------------------------------------------------------------


ALPHABETS = ["ab", "abc", "0123456789.", "12.5 ±", "ab\u00e9\U0001f600", "abcdefghijklmnopqrstuvwxyz "]


@pytest.mark.parametrize("alphabet", ALPHABETS)
def test_lcs_similarity_matrix_equals_difflib_bit_for_bit(alphabet: str) -> None:
    rng = random.Random(alphabet)
    a = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40))) for _ in range(60)]
    b = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 70))) for _ in range(60)]
    b += ["".join(rng.choice(alphabet) for _ in range(n)) for n in (190, 199, 200, 201, 230)]
    a += [b[-1], b[-3][:150], ""]
    got = G.lcs_similarity_matrix(a, b)
    want = np.array([[_difflib(x, y) for y in b] for x in a])
    assert np.array_equal(got, want)


def test_lcs_similarity_keeps_difflibs_asymmetry_and_autojunk() -> None:
    assert G.lcs_similarity("aba", "babba") == 0.75  # difflib finds 3 of the true LCS 3
    assert G.lcs_similarity("babba", "aba") == 0.5  # ... but only 2 the other way round
    a, b = "aaaa bbbb", "a b " * 60  # b has 240 chars: autojunk drops its popular characters
    assert G.lcs_similarity(a, b) == _difflib(a, b) == 2 * 1 / 249
    assert _difflib(a, b, autojunk=False) == 2 * 6 / 249
    assert G.lcs_similarity("", "") == 1.0
    assert G.lcs_similarity("", "x") == G.lcs_similarity("x", "") == 0.0
    assert G.lcs_similarity("62.6 ± 3.3", "62.6 ± 3.3") == 1.0


# -- hand-computed cases -----------------------------------------------------------------------


def test_top_iou_divides_by_the_enclosing_box() -> None:
    # gt slot (1, 0) has box [0, 0, 2, 1] (colspan 2); pred slot (1, 0) has [0, -1, 1, 1]
    # (bottom of a rowspan 2). Their IoU is 1 / 4 over the enclosing box (1 / 3 over the union).
    gt = Table([_row("x", "y"), [Cell("z", colspan=2)]])
    pred = Table([[Cell("x", rowspan=2), Cell("y")], _row("w")])
    got = grits_details(gt, pred)
    # identity alignment; rewards 0.5 (unit vs rowspan top) + 1 + 0.25 + 0.5 = 2.25 of 4 slots
    assert got["top"] == got["precision_top"] == got["recall_top"] == 2.25 / 4
    # texts x, y, z, z against x, y, x, w: two exact matches of four slots
    assert got["con"] == got["precision_con"] == got["recall_con"] == 0.5


def test_dropped_row_lowers_recall_not_precision() -> None:
    gt = Table([_row("a", "b"), _row("c", "d"), _row("e", "f")])
    pred = Table([_row("a", "b"), _row("e", "f")])
    got = grits_details(gt, pred)
    assert got["precision_con"] == 1.0 and got["recall_con"] == 4 / 6
    assert got["con"] == pytest.approx(0.8, abs=TOL)
    assert got["precision_top"] == 1.0 and got["recall_top"] == 4 / 6


def test_partial_text_uses_difflib_similarity() -> None:
    got = grits_details(Table([_row("12.5", "ab")]), Table([_row("12.8", "ab")]))
    assert got["con"] == pytest.approx((0.75 + 1.0) / 2, abs=TOL)
    assert got["top"] == 1.0


def test_outer_alignment_breaks_ties_like_the_reference() -> None:
    # equal scores: the diagonal wins, so a lone gt row pairs with the *last* pred row
    assert [x.tolist() for x in G._outer_alignment(np.array([[1.0, 1.0]]))] == [[0], [1]]
    assert [x.tolist() for x in G._outer_alignment(np.array([[1.0], [1.0]]))] == [[1], [0]]
    # diagonal below both gaps, gaps tied: skipping the gt line comes first
    assert [x.tolist() for x in G._outer_alignment(np.array([[0.0, 1.0], [1.0, 0.0]]))] == [[0], [1]]
    # a zero-reward diagonal still aligns
    assert [x.tolist() for x in G._outer_alignment(np.array([[1.0, 0.0], [0.0, 0.0]]))] == [[0, 1], [0, 1]]


# -- grids: placement, holes, overlaps, empty tables --------------------------------------------


def test_identical_tables_score_one_with_spans_and_holes() -> None:
    rng = random.Random(3)
    for _ in range(20):
        rows = []
        for _ in range(rng.randrange(1, 7)):
            rows.append([Cell(rng.choice(["", "1.5", "a b", "±"]), rowspan=rng.choice([1, 1, 1, 2]),
                              colspan=rng.choice([1, 1, 2])) for _ in range(rng.randrange(0, 5))])
        table = Table(rows)
        if table.is_empty():
            continue
        assert grits_details(table, table) == dict.fromkeys(KEYS, 1.0)


def test_ragged_table_scores_as_its_padded_twin() -> None:
    ragged = Table([_row("a", "b", "c"), _row("d"), _row("e", "f")])
    padded = Table([_row("a", "b", "c"), _row("d", "", ""), _row("e", "f", "")])
    assert grits_details(ragged, padded) == dict.fromkeys(KEYS, 1.0)
    other = Table([_row("a", "b", "x"), _row("d", "y")])
    assert grits_details(ragged, other) == grits_details(padded, other)
    assert grits_details(other, ragged) == grits_details(other, padded)


def test_empty_rows_trailing_are_ignored_middle_are_empty_cells() -> None:
    base = "<table><tr><td>a</td><td>b</td></tr>{}</table>"
    assert grits_details(base.format("<tr></tr>"), base.format("")) == dict.fromkeys(KEYS, 1.0)
    middle = grits_details(base.format("<tr></tr><tr><td>c</td><td>d</td></tr>"),
                   base.format("<tr><td></td><td></td></tr><tr><td>c</td><td>d</td></tr>"))
    assert middle == dict.fromkeys(KEYS, 1.0)


def test_rowspan_placeholder_rows_are_not_holes() -> None:
    html = '<table><tr><td rowspan="2">a</td><td>b</td></tr><tr><td>c</td></tr><tr></tr></table>'
    grid = G.SlotGrid.of(table_from_html(html))
    assert [[grid.texts[i] for i in row] for row in grid.text_ids.tolist()] == [["a", "b"], ["a", "c"]]


def test_overlapping_spans_give_the_slot_to_the_later_cell() -> None:
    overlap = Table([[Cell("a"), Cell("b", rowspan=2)], [Cell("c", colspan=2)]])
    grid = G.SlotGrid.of(overlap)
    assert [[grid.texts[i] for i in row] for row in grid.text_ids.tolist()] == [["a", "b"], ["c", "c"]]
    boxes = grid.boxes[grid.box_ids].tolist()
    assert boxes[1] == [[0, 0, 2, 1], [-1, 0, 1, 1]]
    plain = Table([[Cell("a"), Cell("b")], [Cell("c", colspan=2)]])
    got = grits_details(overlap, plain)  # only slot (0, 1) differs: b's rowspan box against a unit box
    assert got["top"] == got["precision_top"] == 3.5 / 4
    assert got["con"] == 1.0


def test_empty_tables_follow_the_reference_conventions() -> None:
    one = Table([_row("a")])
    assert grits_details(Table(), Table()) == dict.fromkeys(KEYS, 1.0)
    assert grits_details(Table(), one) == {"top": 0.0, "precision_top": 0.0, "recall_top": 1.0,
                                   "con": 0.0, "precision_con": 0.0, "recall_con": 1.0}
    assert grits_details(one, Table())["recall_con"] == 0.0


def test_bad_input_raises_clear_errors() -> None:
    with pytest.raises(NoTableError):
        grits_details("no table here", "<table><tr><td>a</td></tr></table>")
    with pytest.raises(TypeError, match="Table or an HTML string"):
        grits_details(3, "<table><tr><td>a</td></tr></table>")  # type: ignore[arg-type]


def test_html_whitespace_is_kept_verbatim() -> None:
    got = grits_details("<table><tr><td> a  b </td></tr></table>", "<table><tr><td>a b</td></tr></table>")
    assert got["con"] == _difflib(" a  b ", "a b")
    assert got["top"] == 1.0
