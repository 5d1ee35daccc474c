"""TEDS: reference values of the conformance pairs, and an independent slow oracle elsewhere.

The oracle is the textbook Zhang-Shasha tree edit distance over the tree lxml builds from
the canonical HTML (as the reference does), with a plain-Python Levenshtein: it shares no
code with `tablebench.metrics.tables.teds`. It is itself checked against the reference values on the
small conformance pairs, then used where the reference has no value (the `large-*` pairs)
and on random tables with spans, ragged rows, empty rows and empty cells.
"""

from __future__ import annotations

import random
from functools import lru_cache

import lxml.html
import pytest

from tablebench.core.table import MAX_SPAN, Cell, NoTableError, Table
from tablebench.metrics import teds

TOL = 1e-9

# -- the independent oracle ---------------------------------------------------------------

Label = tuple[str, int | None, int | None, tuple[str, ...] | None]


def _html_tree(html: str, structure_only: bool) -> tuple[Label, list]:
    """(label, children) of the `<table>` element as the reference reads it (lxml, no tbody)."""
    doc = lxml.html.document_fromstring(f"<html><body>{html}</body></html>")
    table = doc.xpath("body/table")[0]

    def build(el) -> tuple[Label, list]:
        if el.tag == "td":
            assert len(el) == 0, "canonical cells hold text only"
            content = () if structure_only else tuple(el.text or "")
            return (("td", int(el.get("colspan", "1")), int(el.get("rowspan", "1")), content), [])
        return ((el.tag, None, None, None), [build(child) for child in el])

    return build(table)


@lru_cache(maxsize=1 << 16)
def _levenshtein(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        diag, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            diag, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diag + (ca != cb))
    return row[-1]


def _rename(a: Label, b: Label) -> float:
    if a[:3] != b[:3]:
        return 1.0
    if a[0] == "td" and (a[3] or b[3]):
        return _levenshtein(a[3], b[3]) / max(len(a[3]), len(b[3]))
    return 0.0


def _postorder(tree: tuple[Label, list]) -> tuple[list[Label], list[int]]:
    """Labels in postorder and each node's leftmost leaf descendant."""
    labels: list[Label] = []
    leftmost: list[int] = []

    def walk(node: tuple[Label, list]) -> int:
        label, children = node
        first = [walk(child) for child in children]
        labels.append(label)
        leftmost.append(first[0] if first else len(labels) - 1)
        return leftmost[-1]

    walk(tree)
    return labels, leftmost


def zhang_shasha(t1: tuple[Label, list], t2: tuple[Label, list]) -> float:
    """Tree edit distance (Zhang & Shasha 1989), insert = delete = 1, reference renames."""
    lab1, l1 = _postorder(t1)
    lab2, l2 = _postorder(t2)
    keyroots1 = sorted({l: i for i, l in enumerate(l1)}.values())  # highest node per leftmost leaf
    keyroots2 = sorted({l: j for j, l in enumerate(l2)}.values())
    ren = [[_rename(a, b) for b in lab2] for a in lab1]
    td = [[0.0] * len(lab2) for _ in lab1]
    for i in keyroots1:
        for j in keyroots2:
            li, lj = l1[i], l2[j]
            fd = [[0.0] * (j - lj + 2) for _ in range(i - li + 2)]
            for a in range(1, i - li + 2):
                fd[a][0] = fd[a - 1][0] + 1
            for b in range(1, j - lj + 2):
                fd[0][b] = fd[0][b - 1] + 1
            for a in range(1, i - li + 2):
                x = li + a - 1
                fa, fp, ren_x, td_x = fd[a], fd[a - 1], ren[x], td[x]
                fd_sub = fd[l1[x] - li]  # the forest left of x's subtree
                x_whole = l1[x] == li  # x's subtree spans the whole forest of this row
                for b in range(1, j - lj + 2):
                    y = lj + b - 1
                    best = min(fp[b] + 1, fa[b - 1] + 1)
                    if x_whole and l2[y] == lj:
                        best = min(best, fp[b - 1] + ren_x[y])
                        td_x[y] = best
                    else:
                        best = min(best, fd_sub[l2[y] - lj] + td_x[y])
                    fa[b] = best
    return td[-1][-1]


def oracle_teds(gt_html: str, pred_html: str, structure_only: bool = False) -> float:
    """TEDS from the oracle distance; the denominator counts elements under `<table>`."""
    t1, t2 = _html_tree(gt_html, structure_only), _html_tree(pred_html, structure_only)
    n = max(len(_postorder(t1)[0]), len(_postorder(t2)[0])) - 1
    return 1.0 - zhang_shasha(t1, t2) / n


# -- random tables ------------------------------------------------------------------------

_TEXTS = ["", "", "a", "ab", "b", "abc", "ba", " a", "a ", "1.5", "1.50", "x y", "é", "±3", "a\nb", "𝛼<b>"]


def _random_table(rng: random.Random) -> Table:
    rows = []
    for _ in range(rng.randint(1, 4)):
        rows.append([Cell(rng.choice(_TEXTS), rowspan=rng.choice([1, 1, 1, 2, 3]),
                          colspan=rng.choice([1, 1, 1, 2])) for _ in range(rng.randint(0, 4))])
    return Table(rows)


def _perturb(table: Table, rng: random.Random) -> Table:
    """A conformance-like change: edit, drop / insert a row, drop a cell, merge, change a span,
    or a row-structure change (all cells in one row, one row per cell, rows emptied)."""
    rows = [[Cell(c.text, c.rowspan, c.colspan) for c in row] for row in table.rows]
    reshape = rng.random()
    if reshape < 0.1:
        return Table([[c for row in rows for c in row]])
    if reshape < 0.2:
        return Table([[c] for row in rows for c in row])
    if reshape < 0.3:
        return Table([[] for row in rows for _ in range(len(row) or 1)])
    for _ in range(rng.randint(1, 3)):
        r = rng.randrange(len(rows))
        row = rows[r]
        kind = rng.choice(["edit", "drop_row", "insert_row", "drop_cell", "merge", "span"])
        if kind == "drop_row" and len(rows) > 1:
            del rows[r]
        elif kind == "insert_row":
            rows.insert(r, [Cell(rng.choice(_TEXTS)) for _ in range(rng.randint(0, 3))])
        elif row and kind == "edit":
            rng.choice(row).text = rng.choice(_TEXTS)
        elif row and kind == "drop_cell":
            del row[rng.randrange(len(row))]
        elif len(row) > 1 and kind == "merge":
            c = rng.randrange(len(row) - 1)
            row[c].colspan += row[c + 1].colspan
            row[c].text += row.pop(c + 1).text
        elif row and kind == "span":
            rng.choice(row).rowspan = rng.choice([1, 2])
    return Table(rows)


def _random_pairs(n: int, seed: int) -> list[tuple[Table, Table]]:
    rng = random.Random(seed)
    pairs = []
    for i in range(n):
        gt = _random_table(rng)
        pred = _perturb(gt, rng) if i % 2 else _random_table(rng)
        pairs.append((gt, pred) if i % 4 < 2 else (pred, gt))
    return pairs


# -- the oracle against the reference --------------------------------------------------------


def _size(html: str) -> int:
    return html.count("<td") + html.count("<tr")


@pytest.mark.shared
def test_oracle_matches_reference_on_small_pairs(conformance_pairs: list[dict]) -> None:
    small = [p for p in conformance_pairs if p["teds"] is not None
             and _size(p["gt_html"]) * _size(p["pred_html"]) <= 1600]
    assert len(small) >= 100
    for pair in small:
        for key, structure_only in (("teds", False), ("teds_struct", True)):
            value = oracle_teds(pair["gt_html"], pair["pred_html"], structure_only)
            assert abs(value - pair[key]) <= TOL, (pair["id"], key, pair[key], value)


# -- conformance -----------------------------------------------------------------------------


@pytest.mark.shared
@pytest.mark.parametrize("key, structure_only", [("teds", False), ("teds_struct", True)])
def test_conformance_with_reference(conformance_pairs: list[dict], key: str, structure_only: bool) -> None:
    failures = []
    checked = 0
    for pair in conformance_pairs:
        if pair[key] is None:
            continue
        checked += 1
        value = teds(pair["gt_html"], pair["pred_html"], structure_only=structure_only)
        if abs(value - pair[key]) > TOL:
            failures.append(f"{pair['id']}: reference {pair[key]!r}, ours {value!r}")
    assert checked >= 300
    assert not failures, f"{len(failures)} of {checked} pairs differ:\n" + "\n".join(failures)


# The oracle needs ~0.1 / 0.4 / 1.2 / 8 s for these: the 60x20 one is checked with content only.
LARGE_CASES = [("large-0-20x8", False), ("large-0-20x8", True), ("large-1-30x10", False),
               ("large-1-30x10", True), ("large-2-40x12", False), ("large-2-40x12", True),
               ("large-3-60x20", False)]


@pytest.mark.shared
@pytest.mark.parametrize("pair_id, structure_only", LARGE_CASES)
def test_large_pairs_match_oracle(conformance_pairs: list[dict], pair_id: str, structure_only: bool) -> None:
    pair = next(p for p in conformance_pairs if p["id"] == pair_id)
    assert pair["teds"] is None  # the reference has no value here: the oracle stands in
    expected = oracle_teds(pair["gt_html"], pair["pred_html"], structure_only)
    value = teds(pair["gt_html"], pair["pred_html"], structure_only=structure_only)
    assert abs(value - expected) <= TOL, (expected, value)


# -- random tables against the oracle ----------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_random_tables_match_oracle(seed: int) -> None:
    for gt, pred in _random_pairs(60, seed):
        for structure_only in (False, True):
            expected = oracle_teds(gt.to_html(), pred.to_html(), structure_only)
            value = teds(gt, pred, structure_only=structure_only)
            assert abs(value - expected) <= TOL, (gt.to_html(), pred.to_html(), structure_only, expected, value)


def test_symmetric_distance_and_html_input() -> None:
    for gt, pred in _random_pairs(40, 99):
        # same distance both ways; the denominator is the larger count either way
        assert abs(teds(gt, pred) - teds(pred, gt)) <= TOL
        if gt.cells() and pred.cells():  # the HTML reader refuses a table without cells
            assert teds(gt.to_html(), pred.to_html()) == teds(gt, pred)


# -- values worked out by hand -----------------------------------------------------------------


def test_hand_computed_values() -> None:
    one = Table.from_rows([["abc"]])
    assert teds(one, Table.from_rows([["abd"]])) == pytest.approx(1 - (1 / 3) / 2, abs=TOL)
    assert teds(one, one) == 1.0
    # whitespace is not normalised: "a b" -> "a  b" is one insertion over 4 characters
    assert teds(Table.from_rows([["a b"]]), Table.from_rows([["a  b"]])) == pytest.approx(1 - 0.25 / 2, abs=TOL)
    # a dropped row: 3 of 6 nodes deleted
    two = Table.from_rows([["1", "2"], ["3", "4"]])
    assert teds(two, Table.from_rows([["1", "2"]])) == pytest.approx(0.5, abs=TOL)
    # colspan differs: rename costs 1 even with equal text; structure-only ignores text only
    wide = Table([[Cell("abc", colspan=2)]])
    assert teds(one, wide) == pytest.approx(0.5, abs=TOL)
    assert teds(one, wide, structure_only=True) == pytest.approx(0.5, abs=TOL)
    assert teds(one, Table.from_rows([["xyz"]]), structure_only=True) == 1.0


def test_score_is_not_clamped() -> None:
    # one row of three cells vs four empty rows: best is 5 edits over 4 nodes
    gt = Table.from_rows([["a", "b", "c"]])
    pred = Table([[], [], [], []])
    assert oracle_teds(gt.to_html(), pred.to_html()) == pytest.approx(-0.25, abs=TOL)
    assert teds(gt, pred) == pytest.approx(-0.25, abs=TOL)


def test_canonical_form_is_what_counts() -> None:
    plain = Table.from_rows([["a", "b"], ["c", "d"]])
    headed = Table.from_rows([["a", "b"], ["c", "d"]], header_rows=1)
    assert teds(plain, headed) == 1.0  # th is written as td
    zero_span = Table([[Cell("a", colspan=0), Cell("b")], [Cell("c"), Cell("d", rowspan=-3)]])
    assert teds(plain, zero_span) == 1.0  # spans are clamped to >= 1 as the HTML writes them
    huge = Table([[Cell("ab", colspan=10**30)]])  # clamped to MAX_SPAN, also past int64
    assert teds(huge, Table([[Cell("ac", colspan=MAX_SPAN)]])) == pytest.approx(0.75, abs=TOL)
    assert teds(huge, Table([[Cell("ac", colspan=5)]])) == pytest.approx(0.5, abs=TOL)


def test_rowspans_out_of_bounds_count_as_the_html_writes_them_when_texts_differ() -> None:
    """With one text changed the edit distance is computed, not short-cut: a rowspan of 0 is
    written as 1 and one of 5000 as 1000, so the only cost is "ab" -> "ac", half a rename."""
    assert teds(Table([[Cell("ab", rowspan=0)]]), Table.from_rows([["ac"]])) == pytest.approx(0.75, abs=TOL)
    tall = Table([[Cell("ab", rowspan=5000), Cell("x")]])
    assert teds(tall, Table([[Cell("ac", rowspan=1000), Cell("x")]])) == pytest.approx(1 - 0.5 / 3, abs=TOL)


def test_tables_without_cells() -> None:
    empty = Table([])
    assert teds(empty, empty) == 1.0  # the reference divides 0 by 0 here; nothing differs
    assert teds(empty, Table.from_rows([["a", "b"]])) == 0.0
    assert teds(Table.from_rows([["a"]]), empty, structure_only=True) == 0.0
    # rows without cells are still nodes
    assert teds(Table([[]]), Table([[]])) == 1.0
    assert teds(Table([[]]), Table([[], []])) == pytest.approx(0.5, abs=TOL)
    assert oracle_teds(Table([[]]).to_html(), Table([[], []]).to_html()) == pytest.approx(0.5, abs=TOL)


def test_bad_input() -> None:
    with pytest.raises(NoTableError):
        teds("<p>no table here</p>", "<table><tr><td>a</td></tr></table>")
    with pytest.raises(TypeError, match="expected a Table or an HTML string"):
        teds(None, "<table><tr><td>a</td></tr></table>")  # type: ignore[arg-type]
