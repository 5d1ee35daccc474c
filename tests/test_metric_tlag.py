"""T-LAG: conformance with the PulseBench-Tab reference, hand-computed cases, and an oracle check."""

from __future__ import annotations

import random

import numpy as np
import pytest
from rapidfuzz.distance import Levenshtein
from scipy.optimize import linear_sum_assignment

from tablebench.core.table import Cell, NoTableError, Table
from tablebench.metrics.tables.tlag import NULL, normalize_text, psi_matrix, tlag_details, tlag_edges, tlag_grid

TOL = 1e-9


def _row(*texts: str) -> list[Cell]:
    return [Cell(t) for t in texts]


# -- conformance -------------------------------------------------------------------


@pytest.mark.shared
def test_reproduces_reference_on_every_conformance_pair(conformance_pairs: list[dict]) -> None:
    scored, off = 0, []
    for pair in conformance_pairs:
        if pair["tlag"] is None:
            continue
        got = tlag_details(pair["gt_html"], pair["pred_html"])
        want = {"f1": pair["tlag"], "precision": pair["tlag_precision"], "recall": pair["tlag_recall"]}
        diff = max(abs(got[key] - want[key]) for key in want)
        scored += 1
        if diff > TOL:
            off.append(f"{pair['id']}: {got} != {want}")
    assert scored == 312
    assert not off, "\n".join(off[:10])


# -- normalisation -----------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "  ", "-", "\u2013", "\u2014", "...", "\u2026", "N/A", "na", "None",
                                  "NIL", "--", "---", " \u00a0 ", "\t-\n", "[NULL]"])
def test_null_forms(text: str) -> None:
    assert normalize_text(text) == NULL


@pytest.mark.parametrize(("text", "want"), [
    ("\u2012", "-"),  # not a null form before folding, so it stays text
    ("\u2212", "-"),
    ("\u2015", "-"),
    ("a \u2013 b", "a - b"),
    ("1\u00a0000", "1 000"),
    ("  a \n\t b  ", "a b"),
    ("----", "----"),
    ("NaN", "NaN"),
])
def test_text_folding(text: str, want: str) -> None:
    assert normalize_text(text) == want


# -- grid and edges ------------------------------------------------------------------


def test_rowspan_counter_only_advances_under_the_cursor() -> None:
    # A rowspan carried over an empty row is not consumed there and resurfaces below it.
    table = Table([[Cell("A"), Cell("B", rowspan=2)], [], _row("C", "D")])
    assert tlag_grid(table).tolist() == [[0, 1, -1], [-1, 1, -1], [2, 1, 3]]
    assert table.layout().grid.tolist() == [[0, 1], [-1, 1], [2, 3]]


def test_later_colspan_overwrites_a_carried_rowspan() -> None:
    table = Table([[Cell("A"), Cell("B", rowspan=2)], [Cell("C", colspan=3)]])
    assert tlag_grid(table).tolist() == [[0, 1, -1], [2, 2, 2]]


def test_holes_break_adjacency_and_spans_dedupe() -> None:
    right, below = tlag_edges(tlag_grid(Table([_row("a", "b", "c"), _row("d")])))
    assert right.tolist() == [[0, 1], [1, 2]]
    assert below.tolist() == [[0, 3]]
    right, below = tlag_edges(tlag_grid(Table([[Cell("h", colspan=2)], _row("x", "y")])))
    assert right.tolist() == [[1, 2]]
    assert below.tolist() == [[0, 1], [0, 2]]


def test_empty_table_has_no_grid() -> None:
    assert tlag_grid(Table()).shape == (0, 0)


# -- scores --------------------------------------------------------------------------


def test_one_edit_in_an_edge_endpoint() -> None:
    r = tlag_details(Table.from_rows([["abc", "x"]]), Table.from_rows([["abd", "x"]]))
    assert r == pytest.approx({"f1": (2 / 3) ** 7, "precision": (2 / 3) ** 7, "recall": (2 / 3) ** 7}, abs=1e-15)


def test_exponent_is_a_parameter() -> None:
    r = tlag_details(Table.from_rows([["abcd", "x"]]), Table.from_rows([["abce", "x"]]), k=2)
    assert r["f1"] == pytest.approx(0.75**2, abs=1e-15)


def test_dropped_row() -> None:
    gt = Table.from_rows([["a", "b"], ["c", "d"], ["e", "f"]])  # 3 RIGHT + 4 BELOW edges
    pred = Table.from_rows([["a", "b"], ["e", "f"]])  # 2 RIGHT + 2 BELOW; only a-b, e-f match
    r = tlag_details(gt, pred)
    assert r["precision"] == pytest.approx(2 / 4, abs=1e-15)
    assert r["recall"] == pytest.approx(2 / 7, abs=1e-15)
    assert r["f1"] == pytest.approx(2 * 2 / (7 + 4), abs=1e-15)


def test_directions_never_match_each_other() -> None:
    r = tlag_details(Table.from_rows([["a", "b"]]), Table.from_rows([["a"], ["b"]]))
    assert r == {"f1": 0.0, "precision": 0.0, "recall": 0.0}


def test_null_matches_only_null() -> None:
    assert tlag_details(Table.from_rows([["n/a", "x"]]), Table.from_rows([["\u2014", "x"]]))["f1"] == pytest.approx(1.0)
    assert tlag_details(Table.from_rows([["", "x"]]), Table.from_rows([["0", "x"]]))["f1"] == 0.0


def test_edgeless_tables() -> None:
    one = tlag_details("<table><tr><td>abcd</td></tr></table>", "<table><tr><td>abce</td></tr></table>")
    assert one == pytest.approx({"f1": 0.75**7, "precision": 0.75**7, "recall": 0.75**7}, abs=1e-15)
    assert tlag_details(Table.from_rows([["x"]]), Table.from_rows([["x", "y"]]))["f1"] == 0.0
    assert tlag_details(Table.from_rows([["-"]]), Table.from_rows([[""]]))["f1"] == 1.0
    assert tlag_details(Table(), Table())["f1"] == 1.0  # both first texts default to [NULL], as the reference's


def test_identical_html_strings_score_one() -> None:
    html = '<table><tr><td rowspan="2">k</td><td>1.5 \u00b1 0.2</td></tr><tr><td>\u22123</td></tr></table>'
    assert tlag_details(html, html) == {"f1": 1.0, "precision": 1.0, "recall": 1.0}


def test_bad_input() -> None:
    with pytest.raises(NoTableError):
        tlag_details("no table here", "<table><tr><td>a</td></tr></table>")
    with pytest.raises(TypeError):
        tlag_details(3, Table.from_rows([["a"]]))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="exponent"):
        tlag_details(Table.from_rows([["a"]]), Table.from_rows([["a"]]), k=0)


# -- against a direct, slow formulation -------------------------------------------------


def _oracle(gt: Table, pred: Table, k: int = 7) -> tuple[float, float]:
    """Precision and recall from one full (all edges x all edges) assignment, pair by pair."""

    def edges(table: Table) -> list[tuple[str, str, str]]:
        grid, texts = tlag_grid(table), [c.text for c in table.cells()]
        found: dict[tuple[int, int, str], None] = {}
        rows, cols = grid.shape
        for r in range(rows):
            for c in range(cols):
                u = grid[r, c]
                if u < 0:
                    continue
                if c + 1 < cols and grid[r, c + 1] >= 0 and grid[r, c + 1] != u:
                    found[(u, grid[r, c + 1], "R")] = None
                if r + 1 < rows and grid[r + 1, c] >= 0 and grid[r + 1, c] != u:
                    found[(u, grid[r + 1, c], "B")] = None
        return [(texts[u], texts[v], d) for u, v, d in found]

    def psi(a: str, b: str) -> float:
        a, b = normalize_text(a), normalize_text(b)
        if NULL in (a, b):
            return float(a == b)
        return (1.0 - Levenshtein.distance(a, b) / max(len(a), len(b))) ** k

    ge, pe = edges(gt), edges(pred)
    w = np.array([[psi(g[0], p[0]) * psi(g[1], p[1]) if g[2] == p[2] else 0.0 for p in pe] for g in ge])
    r, c = linear_sum_assignment(-w)
    s = w[r, c].sum()
    return s / len(pe), s / len(ge)


def _random_table(rng: random.Random, vocab: list[str]) -> Table:
    rows = []
    for _ in range(rng.randint(1, 6)):
        row = []
        for _ in range(rng.randint(0, 5)):
            row.append(Cell(rng.choice(vocab), rowspan=rng.choice([1, 1, 1, 2, 3]), colspan=rng.choice([1, 1, 1, 2])))
        rows.append(row)
    return Table(rows)


def test_matches_direct_formulation_on_random_spanned_tables() -> None:
    rng = random.Random(7)
    vocab = ["", "-", "n/a", "12.5", "12.6", "12.56", "1.2 \u00b1 0.3", "Model", "Modle", "Acc", "\u22120.4", "-0.4"]
    checked = 0
    for _ in range(300):
        gt, pred = _random_table(rng, vocab), _random_table(rng, vocab)
        n_gt = sum(map(len, tlag_edges(tlag_grid(gt))))
        n_pred = sum(map(len, tlag_edges(tlag_grid(pred))))
        if not n_gt or not n_pred:
            continue
        precision, recall = _oracle(gt, pred)
        got = tlag_details(gt, pred)
        assert got["precision"] == pytest.approx(precision, abs=TOL)
        assert got["recall"] == pytest.approx(recall, abs=TOL)
        checked += 1
    assert checked > 200


def test_psi_of_two_empty_strings_is_one() -> None:
    assert psi_matrix(["", "ab"], ["", NULL]).tolist() == [[1.0, 0.0], [0.0, 0.0]]


def test_the_grid_of_a_table_without_spans_is_the_walked_grid() -> None:
    """The span-free shortcut gives exactly what the general walk gives, ragged and empty rows included."""
    from tablebench.metrics.tables.tlag import walked_grid

    rng = random.Random(3)
    for _ in range(3000):
        rows = [[Cell(str(rng.randint(0, 9))) for _ in range(rng.choice([0, 0, 1, 2, 3, 5]))]
                for _ in range(rng.randint(0, 6))]
        fast, walked = tlag_grid(Table(rows)), walked_grid(Table(rows))
        assert fast.shape == walked.shape and (fast == walked).all(), rows


def test_tabled_psi_is_bit_for_bit_the_computed_psi() -> None:
    """Short texts read psi from a table by (longest, distance): the same bits as computing it."""
    rng = random.Random(4)
    for _ in range(300):
        a = ["".join(rng.choice("ab1.- x") for _ in range(rng.randint(1, 70))) for _ in range(rng.randint(1, 8))]
        b = ["".join(rng.choice("ab1.- x") for _ in range(rng.randint(1, 70))) for _ in range(rng.randint(1, 8))]
        dist = np.array([[Levenshtein.distance(x, y) for y in b] for x in a], dtype=np.int64)
        longest = np.maximum(np.array([[max(len(x), len(y), 1) for y in b] for x in a], dtype=np.int64), 1)
        computed = (1.0 - dist / longest) ** 7
        assert np.array_equal(psi_matrix(a, b).view(np.int64), computed.view(np.int64))
