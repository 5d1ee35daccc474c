"""T-LAG: F1 over optimally matched cell-adjacency edges (PulseBench-Tab, exponent 7).

A table becomes a directed graph: every pair of distinct cells that touch on the grid
gives one RIGHT or BELOW edge. A ground-truth edge and a predicted edge of the same
direction match with weight ``psi(sources) * psi(targets)``, where

    psi(a, b) = (1 - Lev(a, b) / max(|a|, |b|)) ** k      (texts normalised first),

both-[NULL] is 1 and one-[NULL] is 0. S is the weight of a maximum-weight one-to-one
matching, precision = S / |E_pred|, recall = S / |E_gt|, F1 their harmonic mean.

This reproduces the reference ``tlag_scorer.score_single`` to float rounding, but fast:
Levenshtein runs once per pair of *distinct* normalised texts (rapidfuzz ``cdist``), each
direction's edge-weight matrix is gathered from that by fancy indexing, and the
assignment is solved per direction. The split is exact: weights are >= 0 and a RIGHT edge
never matches a BELOW one, so the optimum is the sum of the two directions' optima.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TypedDict

import numpy as np
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cdist

from tablebench.core.assignment import linear_sum_assignment
from tablebench.core.table import MAX_SPAN, Table, TableLike
from tablebench.readers.html import as_table
from tablebench.readers.textnorm import Processor, as_written, read_as

NULL = "[NULL]"  # the reference's marker; a cell whose text normalises to it is null
_NULL_FORMS = frozenset(["", "-", "\u2013", "\u2014", "...", "\u2026", "n/a", "na", "none", "nil", "--", "---"])
_DASHES = re.compile("[\u2012\u2013\u2014\u2015\u2212]")
_SPACES = re.compile(r"\s+")


@lru_cache(maxsize=65536)
def normalize_text(text: str) -> str:
    """Cell text as T-LAG compares it: null forms -> [NULL], then dashes/nbsp/whitespace folded.

    The null test runs before the dash folding, so "‒" (U+2012) is text, "–" is null. The
    reference's folding, no more: apart from the semantic score's `normalize` (which reads markup,
    math and look-alike glyphs) on purpose, so T-LAG reproduces the reference scorer.
    """
    t = text.strip()
    if t.lower() in _NULL_FORMS or not t.replace(" ", "").replace("\u00a0", ""):
        return NULL
    t = _DASHES.sub("-", t).replace("\u00a0", " ")
    return _SPACES.sub(" ", t).strip()


def tlag_grid(table: Table) -> np.ndarray:
    """The slot grid T-LAG sees (cell id per slot, -1 for holes), built the reference's way.

    This differs from `Table.layout()` on overlapping spans: a rowspan is carried down as a
    per-column counter that only advances while the row's cursor walks over that column,
    and a later cell overwrites slots an earlier span claimed. Reproducing the quirk is
    what keeps scores identical on ragged and malformed parser output.
    """
    if not any(cell.rowspan != 1 or cell.colspan != 1 for row in table.rows for cell in row):
        return _plain_grid([len(row) for row in table.rows])
    return walked_grid(table)


def walked_grid(table: Table) -> np.ndarray:
    """`tlag_grid` the general way: cells written in order, rowspans carried per column."""
    blocks: list[tuple[int, int, int, int, int]] = []  # (row, col, rowspan, colspan, id) in write order
    carried: dict[int, tuple[int, int]] = {}  # column -> (cell id, rows still to cover)

    def carry(r: int, c: int) -> int:
        while c in carried:
            cid, left = carried[c]
            blocks.append((r, c, 1, 1, cid))
            if left == 1:
                del carried[c]
            else:
                carried[c] = (cid, left - 1)
            c += 1
        return c

    cid = 0
    for r, row in enumerate(table.rows):
        c = carry(r, 0) if carried else 0
        for cell in row:
            rs, cs = cell.rowspan, cell.colspan
            if rs != 1 or cs != 1:
                rs, cs = _span(rs), _span(cs)
            blocks.append((r, c, rs, cs, cid))
            if rs > 1:
                for dc in range(cs):
                    carried[c + dc] = (cid, rs - 1)
            c = carry(r, c + cs) if carried else c + cs
            cid += 1
    if not blocks:
        return np.full((0, 0), -1, dtype=np.int64)
    width = max(c + cs for _, c, _, cs, _ in blocks)
    rows = [[-1] * width for _ in range(max(r + rs for r, _, rs, _, _ in blocks))]
    for r, c, rs, cs, i in blocks:  # in write order: a later cell overwrites (lists: no numpy call per cell)
        for line in rows[r : r + rs]:
            line[c : c + cs] = [i] * cs
    return np.array(rows, dtype=np.int64)


def _plain_grid(lengths: list[int]) -> np.ndarray:
    """The grid of a table without spans: cell ids row by row, -1 after a short row's end.

    As the general walk gives it: no carried span, no overwrite; rows after the last cell are none."""
    n_rows = next((r + 1 for r in range(len(lengths) - 1, -1, -1) if lengths[r]), 0)
    if not n_rows:
        return np.full((0, 0), -1, dtype=np.int64)
    counts = np.array(lengths[:n_rows], dtype=np.int64)
    grid = np.full((n_rows, int(counts.max())), -1, dtype=np.int64)
    grid[np.arange(grid.shape[1]) < counts[:, None]] = np.arange(int(counts.sum()), dtype=np.int64)
    return grid


def tlag_edges(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Deduplicated (source, target) id pairs, shape (n, 2), for RIGHT and for BELOW.

    Only slots that touch count: a hole breaks adjacency, nothing is skipped over it.
    """
    return _pairs(grid[:, :-1], grid[:, 1:]), _pairs(grid[:-1, :], grid[1:, :])


def _pairs(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    keep = (a != b) & (np.minimum(a, b) >= 0)
    source, target = a[keep], b[keep]
    if not source.size:
        return np.zeros((0, 2), dtype=np.int64)
    # one integer per (source, target), ordered as the pairs are: a 1-D unique, not a row-wise one
    base = int(target.max()) + 1
    keys = np.unique(source * base + target)
    return np.stack(np.divmod(keys, base), axis=1)


def psi_matrix(a: list[str], b: list[str], k: int = 7) -> np.ndarray:
    """psi between every normalised text of `a` and of `b` (one Levenshtein per pair).

    Two empty strings (never produced by `normalize_text`) get 1, as in the reference.
    """
    if not a or not b:
        return np.zeros((len(a), len(b)))
    dist = cdist(a, b, scorer=Levenshtein.distance, dtype=np.int64)
    longest = np.maximum.outer(np.fromiter(map(len, a), np.int64, len(a)), np.fromiter(map(len, b), np.int64, len(b)))
    longest = np.maximum(longest, 1)
    if int(longest.max()) <= _TABLED:  # short texts (nearly all cells): psi looked up, not one pow() per pair
        sim = _psi_table(k)[longest, dist]
    else:
        sim = (1.0 - dist / longest) ** k
    null_a = np.array([t == NULL for t in a])
    null_b = np.array([t == NULL for t in b])
    sim[null_a, :] = 0.0
    sim[:, null_b] = 0.0
    sim[np.ix_(null_a, null_b)] = 1.0
    return sim


def max_matching_weight(weight: np.ndarray) -> float:
    """Weight of a maximum-weight one-to-one matching of a nonnegative matrix.

    One dense `linear_sum_assignment`: splitting it by connected components of nonzero
    weight is exact too, but measured 2-4x slower on 60x20 tables (finding the components
    costs more than the solver saves), so it is not done.
    """
    if not weight.size:
        return 0.0
    r, c = linear_sum_assignment(weight, maximize=True)
    return float(weight[r, c].sum())


_TABLED = 64  # texts up to this length have psi tabled by (longest, distance)


@lru_cache(maxsize=8)
def _psi_table(k: int) -> np.ndarray:
    """psi for every (longest, distance) with both <= _TABLED, computed as `psi_matrix` computes it
    (the same float operations on the same values: the same bits), read-only."""
    longest, dist = np.meshgrid(np.arange(_TABLED + 1, dtype=np.int64), np.arange(_TABLED + 1, dtype=np.int64),
                                indexing="ij")
    table = (1.0 - dist / np.maximum(longest, 1)) ** k
    table.flags.writeable = False
    return table


class TlagDetails(TypedDict):
    """T-LAG's F1 of matched adjacency edges, with its precision and recall, in [0, 1]."""

    f1: float
    precision: float
    recall: float


def tlag(gt: TableLike, pred: TableLike, *, k: int = 7, processor: Processor = as_written) -> float:
    """T-LAG (F1) of `pred` against `gt`, in [0, 1]."""
    return tlag_details(gt, pred, k=k, processor=processor)["f1"]


def tlag_details(gt: TableLike, pred: TableLike, *, k: int = 7, processor: Processor = as_written) -> TlagDetails:
    """T-LAG of `pred` against `gt`: ``{"f1", "precision", "recall"}``, each in [0, 1].

    Tables without any edge (a single cell, or one column of one span): when both sides
    have none, all three are psi of the first cells' texts; when only one side has none,
    all three are 0.
    """
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise ValueError(f"T-LAG exponent k must be a positive integer, got {k!r}")
    gt_t, pred_t = read_as(as_table(gt), processor), read_as(as_table(pred), processor)  # then `normalize_text`
    gt_right, gt_below = tlag_edges(tlag_grid(gt_t))
    pr_right, pr_below = tlag_edges(tlag_grid(pred_t))
    n_gt, n_pred = len(gt_right) + len(gt_below), len(pr_right) + len(pr_below)
    if n_gt == 0 and n_pred == 0:
        s = float(psi_matrix([_first_text(gt_t)], [_first_text(pred_t)], k)[0, 0])
        return TlagDetails(f1=s, precision=s, recall=s)
    if n_gt == 0 or n_pred == 0:
        return TlagDetails(f1=0.0, precision=0.0, recall=0.0)

    gt_codes, gt_texts = _text_codes(gt_t)
    pr_codes, pr_texts = _text_codes(pred_t)
    sim = psi_matrix(gt_texts, pr_texts, k)
    matched = 0.0
    for g, p in ((gt_right, pr_right), (gt_below, pr_below)):
        if len(g) and len(p):
            gs, gd = gt_codes[g[:, 0]], gt_codes[g[:, 1]]
            ps, pd = pr_codes[p[:, 0]], pr_codes[p[:, 1]]
            matched += max_matching_weight(sim[np.ix_(gs, ps)] * sim[np.ix_(gd, pd)])
    precision, recall = matched / n_pred, matched / n_gt
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return TlagDetails(f1=f1, precision=precision, recall=recall)


def _first_text(table: Table) -> str:
    cells = table.cells()
    return normalize_text(cells[0].text) if cells else NULL


def _text_codes(table: Table) -> tuple[np.ndarray, list[str]]:
    """Per cell id, the index of its normalised text among the table's distinct texts."""
    index: dict[str, int] = {}
    codes = [index.setdefault(normalize_text(cell.text), len(index)) for cell in table.cells()]
    return np.array(codes, dtype=np.int64), list(index)


def _span(value: int) -> int:
    """Spans as `Table.layout()` reads them: at least 1, at most MAX_SPAN."""
    return min(max(int(value), 1), MAX_SPAN)
