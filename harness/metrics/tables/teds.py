"""TEDS (PubTabNet's tree-edit-distance similarity), exact and fast for table -> tr -> td trees.

The reference (`src/metric.py`, `TEDS().evaluate(pred, gt)`) runs a general tree edit
distance (APTED) and needs seconds per 10x10 table. Our tables are always
`table -> tr -> td` with leaf cells, which makes an exact O(n1 * n2) dynamic programme
possible (n = rows + cells):

* Mapping root to root is optimal: a mapping that sends a root elsewhere can be changed to
  map the roots instead for one edit less (a root-to-other rename costs 1, root-to-root 0).
* The forest under the root, taken apart by its rightmost node (Zhang-Shasha), only ever
  becomes "rows 1..k intact + the first a cells of row k+1 loose". Numbering those states
  by their node count puts them in postorder, so the rightmost node of state p is node p.
* At state pair (x, y): delete node x or insert node y (cost 1), or match them:
  cell/cell -> rename cost, from (x-1, y-1); cell/row -> 1 + |row| (the row's cells
  inserted or deleted), from (x-1, start of row y); row/row -> the plain edit distance R
  between the two rows' cell sequences, from (start of row x, start of row y).

Costs are the reference's: insert = delete = 1; a rename costs 1 when tag, colspan or
rowspan differ, else Levenshtein distance over the text's characters / the longer length
(0 when both are empty; structure-only: content ignored). Score = 1 - distance / n, where
n is the larger count of elements under `<table>` (rows + cells); not clamped.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cdist

from tablebench.core.table import MAX_SPAN, Cell, TableLike, _clamp
from tablebench.readers.html import as_table
from tablebench.readers.textnorm import Processor, as_written, read_as

__all__ = ["teds", "tree_edit_distance"]


def teds(gt: TableLike, pred: TableLike, *, structure_only: bool = False,
         processor: Processor = as_written) -> float:
    """Tree-edit-distance similarity of two tables, as PubTabNet's reference computes it.

    `gt` and `pred` are `Table`s or HTML strings (read verbatim: no whitespace folding).
    The value is that of the reference on the tables' canonical HTML (`Table.to_html()`,
    so `th` counts as `td` and cell text as plain characters).

    Tables without elements: the reference divides by zero when neither table has a row;
    here two such tables score 1.0 (nothing differs). When only one side has no elements the
    distance is the other side's node count, so the score is 0.0, as in the reference.
    """
    distance, n_nodes = tree_edit_distance(gt, pred, structure_only, processor)
    if n_nodes == 0:
        return 1.0
    return 1.0 - distance / n_nodes


def tree_edit_distance(gt: TableLike, pred: TableLike, structure_only: bool = False,
                       processor: Processor = as_written) -> tuple[float, int]:
    """(tree edit distance, larger element count) of two tables' `table -> tr -> td` trees, cell
    text read by `processor` (the reference's: as written)."""
    rows_a, rows_b = read_as(as_table(gt), processor).rows, read_as(as_table(pred), processor).rows
    n_a = len(rows_a) + sum(map(len, rows_a))
    n_b = len(rows_b) + sum(map(len, rows_b))
    n_nodes = max(n_a, n_b)
    if n_a == 0 or n_b == 0:
        return float(n_nodes), n_nodes  # every node of the other side is inserted / deleted
    cells_a = [c for row in rows_a for c in row]
    cells_b = [c for row in rows_b for c in row]
    if len(rows_a) == len(rows_b) and _same(rows_a, rows_b, cells_a, cells_b, structure_only):
        return 0.0, n_nodes
    lens_a = np.fromiter(map(len, rows_a), dtype=np.int64, count=len(rows_a))
    lens_b = np.fromiter(map(len, rows_b), dtype=np.int64, count=len(rows_b))
    if structure_only:
        dist = np.zeros((0, 0), dtype=np.int32)
    else:  # integer distances, divided later, so the float matches the reference's lev / max exactly
        dist = cdist([c.text for c in cells_a], [c.text for c in cells_b], scorer=Levenshtein.distance,
                     dtype=np.int32)
    return float(_distance(dist, _cell_info(cells_a), _cell_info(cells_b), lens_a, lens_b,
                           not structure_only)), n_nodes


def _same(rows_a: list[list[Cell]], rows_b: list[list[Cell]], cells_a: list[Cell],
          cells_b: list[Cell], structure_only: bool) -> bool:
    """Whether both trees are equal under the metric's labels (distance 0 without the DP)."""
    if len(cells_a) != len(cells_b) or any(len(ra) != len(rb) for ra, rb in zip(rows_a, rows_b)):
        return False
    for a, b in zip(cells_a, cells_b):
        if (a.rowspan != b.rowspan or a.colspan != b.colspan) and (
                _clamp(a.rowspan) != _clamp(b.rowspan) or _clamp(a.colspan) != _clamp(b.colspan)):
            return False
        if not structure_only and a.text != b.text:
            return False
    return True


def _cell_info(cells: list[Cell]) -> np.ndarray:
    """(rowspan, colspan, text length) per cell; spans as given (`_span_keys` clamps them)."""
    try:
        info = np.array([v for c in cells for v in (c.rowspan, c.colspan, len(c.text))], dtype=np.int64)
    except (OverflowError, TypeError, ValueError):  # a span past int64 or not an int: clamp it here
        info = np.array([v for c in cells for v in (_clamp(c.rowspan), _clamp(c.colspan), len(c.text))],
                        dtype=np.int64)
    return info.reshape(-1, 3)


@njit(cache=True, nogil=True)
def _distance(dist: np.ndarray, info_a: np.ndarray, info_b: np.ndarray, lens_a: np.ndarray,
              lens_b: np.ndarray, with_text: bool) -> float:
    """The tree edit distance from cell Levenshtein distances, cell info and row lengths (one call:
    the per-call overhead matters for the thousands of small tables a run scores)."""
    return _forest_distance(lens_a, lens_b, _rename_matrix(dist, info_a, info_b, with_text))


@njit(cache=True, nogil=True)
def _rename_matrix(dist: np.ndarray, info_a: np.ndarray, info_b: np.ndarray, with_text: bool) -> np.ndarray:
    """Rename costs: 1 when (clamped) spans differ, else lev / longer text (0 if both are empty).

    Without text (structure only) `dist` is unused: renames with equal spans are free.
    """
    keys_a = _span_keys(info_a)
    keys_b = _span_keys(info_b)
    out = np.empty((keys_a.shape[0], keys_b.shape[0]))
    for i in range(keys_a.shape[0]):
        for j in range(keys_b.shape[0]):
            if keys_a[i] != keys_b[j]:
                out[i, j] = 1.0
            elif not with_text:
                out[i, j] = 0.0
            else:
                longest = max(info_a[i, 2], info_b[j, 2])
                out[i, j] = dist[i, j] / longest if longest > 0 else 0.0
    return out


@njit(cache=True, nogil=True)
def _span_keys(info: np.ndarray) -> np.ndarray:
    """One integer per cell for its spans, each clamped to [1, MAX_SPAN] like `Table.to_html`."""
    keys = np.empty(info.shape[0], dtype=np.int64)
    for i in range(info.shape[0]):
        rowspan = min(max(info[i, 0], 1), MAX_SPAN)
        colspan = min(max(info[i, 1], 1), MAX_SPAN)
        keys[i] = rowspan * (MAX_SPAN + 1) + colspan
    return keys


@njit(cache=True, nogil=True)
def _row_distances(lens_a: np.ndarray, lens_b: np.ndarray, costs: np.ndarray) -> np.ndarray:
    """Edit distance between the cell sequences of every row pair (insert = delete = 1)."""
    m_a, m_b = lens_a.shape[0], lens_b.shape[0]
    out = np.empty((m_a, m_b))
    width = 0
    for j in range(m_b):
        width = max(width, lens_b[j])
    prev = np.empty(width + 1)
    cur = np.empty(width + 1)
    off_a = 0
    for i in range(m_a):
        la = lens_a[i]
        off_b = 0
        for j in range(m_b):
            lb = lens_b[j]
            for v in range(lb + 1):
                prev[v] = v
            for u in range(1, la + 1):
                cur[0] = u
                ca = off_a + u - 1
                for v in range(1, lb + 1):
                    best = min(prev[v], cur[v - 1]) + 1.0
                    sub = prev[v - 1] + costs[ca, off_b + v - 1]
                    cur[v] = min(best, sub)
                prev, cur = cur, prev
            out[i, j] = prev[lb]
            off_b += lb
        off_a += la
    return out


@njit(cache=True, nogil=True)
def _postorder(lens: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per postorder node p (1-based; a row's cells come before the row): its row index (-1 for
    a cell), its cell index (-1 for a row), and the state left when its whole subtree goes."""
    n = lens.shape[0] + lens.sum()
    row = np.full(n + 1, -1, dtype=np.int64)
    cell = np.full(n + 1, -1, dtype=np.int64)
    start = np.zeros(n + 1, dtype=np.int64)
    p, c = 0, 0
    for k in range(lens.shape[0]):
        base = p
        for _ in range(lens[k]):
            p += 1
            cell[p] = c
            start[p] = p - 1
            c += 1
        p += 1
        row[p] = k
        start[p] = base
    return row, cell, start


@njit(cache=True, nogil=True)
def _forest_distance(lens_a: np.ndarray, lens_b: np.ndarray, costs: np.ndarray) -> float:
    """Edit distance between the two forests of rows (the roots are matched at cost 0).

    DP line x is state x of side a (its first x postorder nodes) against every state y of
    side b. Besides the previous line only lines at "k rows intact" states are read again, so
    memory is (rows_a + 2) * (n_b + 1) rather than (n_a + 1) * (n_b + 1). (Walking the rows
    with nested loops instead of these postorder arrays measured ~20% slower.)
    """
    rdist = _row_distances(lens_a, lens_b, costs)
    row_a, cell_a, start_a = _postorder(lens_a)
    row_b, cell_b, start_b = _postorder(lens_b)
    n_a, n_b = row_a.shape[0] - 1, row_b.shape[0] - 1
    kept = np.empty((lens_a.shape[0] + 1, n_b + 1))  # kept[k] = line of state "k rows intact"
    prev = np.arange(n_b + 1).astype(np.float64)
    kept[0, :] = prev
    cur = np.empty(n_b + 1)
    base = kept[0]
    size_a = 0
    for x in range(1, n_a + 1):
        cur[0] = x
        ra, ca = row_a[x], cell_a[x]
        if ra >= 0:
            base = kept[ra]  # the line left when row ra goes as a whole
            size_a = x - 1 - start_a[x]  # its cell count
        for y in range(1, n_b + 1):
            best = min(prev[y], cur[y - 1]) + 1.0  # delete x / insert y
            rb = row_b[y]
            if ca >= 0:
                if rb >= 0:  # cell x -> row y: rename 1, the row's cells inserted
                    m = prev[start_b[y]] + 1.0 + (y - 1 - start_b[y])
                else:  # cell -> cell
                    m = prev[y - 1] + costs[ca, cell_b[y]]
            else:
                if rb >= 0:  # row -> row: edit distance of their cell sequences
                    m = base[start_b[y]] + rdist[ra, rb]
                else:  # row x -> cell y: rename 1, the row's cells deleted
                    m = base[y - 1] + 1.0 + size_a
            cur[y] = min(best, m)
        if ra >= 0:
            kept[ra + 1, :] = cur
        prev, cur = cur, prev
    return prev[n_b]
