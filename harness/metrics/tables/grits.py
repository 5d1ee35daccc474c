"""GriTS (Smock et al., 2023): grid table similarity, exactly as table-transformer computes it.

Each table becomes a matrix of grid slots (a spanning cell repeats in every slot it covers).
GriTS finds the most similar substructures of the two matrices — a subset of rows and of
columns of each, paired in order — and scores the summed slot rewards `S`:

    precision = S / |pred slots|,   recall = S / |gt slots|,   F = 2PR / (P + R)

(precision 1 when there are no predicted slots, recall 1 when there are no true slots, F 0
when P + R = 0). The reward of a (gt slot, pred slot) pair is:

- GriTS-Top: the IoU of the two slots' *relative-span boxes* (the box of the slot's cell in
  grid units, relative to the slot), over the enclosing box, not the union, as the reference;
- GriTS-Con: the "LCS similarity" `2 M / (|a| + |b|)` where `M` is the total size of
  `difflib.SequenceMatcher(None, gt_text, pred_text).get_matching_blocks()` (so its
  asymmetry and its autojunk heuristic on 200+ character predictions are kept); two empty
  texts score 1.

The substructures come from the reference's factored heuristic: rows are aligned by a DP
over (gt row, pred row) whose match reward is the 1-D DP alignment score of the two rows'
slots; columns likewise; the aligned positions come from the outer DP's traceback with the
reference's tie order (diagonal, then skipping a gt row, then skipping a pred row), and `S`
sums the rewards at the aligned (row, column) positions. Values equal the reference's
`grits_from_html` bit for bit: the same floating-point operations in the same order.

Where the reference cannot answer, this module decides:
- a *hole* (a slot no cell covers: ragged rows, an empty `<tr>` in the middle) makes the
  reference raise; here it is an empty cell of its own 1x1 extent: text "" for Con, the box
  [0, 0, 1, 1] for Top. An HTML renderer shows a hole exactly like an empty cell and parsers
  differ only in whether they write `<td></td>` for it, so a ragged table scores as its padded
  twin does (and identical ragged tables score 1);
- a Table with no cells has no slots (the reference's `[[]]` grid): the conventions above apply.
Grid placement is the reference's: each cell takes the first free slot of its row, the grid's
height is the lowest row any cell reaches (trailing empty `<tr>`s add nothing), and where spans
overlap the later cell owns the slot.
"""

from __future__ import annotations

from difflib import SequenceMatcher
from typing import TypedDict

import numba
import numpy as np

from tablebench.core.table import MAX_SPAN, Table, TableLike
from tablebench.readers.html import as_table
from tablebench.readers.textnorm import Processor, as_written, read_as

AUTOJUNK_MIN_LEN = 200  # difflib's autojunk heuristic applies from this length of the second text
_FIBONACCI = np.uint64(0x9E3779B97F4A7C15)
_BOX_KEY = (4 * MAX_SPAN) ** np.arange(3, -1, -1, dtype=np.int64)  # packs a shifted box into one int


class GritsDetails(TypedDict):
    """GriTS-Top and GriTS-Con, each as F-score, precision and recall, in [0, 1]."""

    top: float
    precision_top: float
    recall_top: float
    con: float
    precision_con: float
    recall_con: float


def grits(gt: TableLike, pred: TableLike, *, processor: Processor = as_written) -> float:
    """GriTS-Con (the F-score of cell contents) of `pred` against `gt`, in [0, 1]."""
    return grits_details(gt, pred, processor=processor)["con"]


def grits_details(gt: TableLike, pred: TableLike, *, processor: Processor = as_written) -> GritsDetails:
    """GriTS-Top and GriTS-Con (F, precision, recall) of `pred` against `gt`.

    Strings are read as HTML with whitespace kept verbatim (`tablebench.readers.html.as_table`);
    cell text as `processor` reads it (the reference's: as written).
    """
    g, p = SlotGrid.of(read_as(as_table(gt), processor)), SlotGrid.of(read_as(as_table(pred), processor))
    top = _factored_2dmss(box_iou_matrix(g.boxes, p.boxes), g.box_ids, p.box_ids)
    con = _factored_2dmss(lcs_similarity_matrix(g.texts, p.texts), g.text_ids, p.text_ids)
    return GritsDetails(top=top[0], precision_top=top[1], recall_top=top[2],
                        con=con[0], precision_con=con[1], recall_con=con[2])


# -- grids: each slot as an index into the table's distinct texts and distinct boxes ------------
class SlotGrid:
    """A table's slots, factored: `texts[text_ids[r, c]]` and `boxes[box_ids[r, c]]`.

    Rewards then need computing once per distinct (gt value, pred value) pair: most slots share
    the box [0, 0, 1, 1], and a spanning cell repeats its text in every slot it covers.
    """

    __slots__ = ("box_ids", "boxes", "text_ids", "texts")

    def __init__(self, texts: list[str], text_ids: np.ndarray, boxes: np.ndarray, box_ids: np.ndarray) -> None:
        self.texts, self.text_ids, self.boxes, self.box_ids = texts, text_ids, boxes, box_ids

    @classmethod
    def of(cls, table: Table) -> SlotGrid:
        origins, spans = _place(table)
        owner = _owners(origins, spans)
        n_rows, n_cols = owner.shape
        hole = owner < 0
        texts: dict[str, int] = {"": 0} if hole.any() else {}
        cell_text = np.array([texts.setdefault(c.text, len(texts)) for c in table.cells()] + [0], dtype=np.int64)
        text_ids = cell_text[owner]  # owner -1 picks the trailing entry: "" for holes
        # relative-span box of each slot; a hole (owner -1) reads the trailing unit cell at its own slot
        rr, cc = np.indices((n_rows, n_cols))
        r0 = np.append(origins[:, 0], 0)[owner] - np.where(hole, 0, rr)
        c0 = np.append(origins[:, 1], 0)[owner] - np.where(hole, 0, cc)
        rel = np.stack([c0, r0, c0 + np.append(spans[:, 1], 1)[owner], r0 + np.append(spans[:, 0], 1)[owner]],
                       axis=-1).reshape(-1, 4)
        keys = (rel + MAX_SPAN) @ _BOX_KEY  # one integer per distinct box, for a fast 1-D unique
        _, first, box_ids = np.unique(keys, return_index=True, return_inverse=True)
        return cls(list(texts), text_ids, rel[first], box_ids.reshape(n_rows, n_cols))


def _place(table: Table) -> tuple[np.ndarray, np.ndarray]:
    """(row, col) origin and (rowspan, colspan) of each cell: the first free slot of its row."""
    flat: list[int] = []  # row, column, rowspan, colspan of each cell in turn (one array at the end)
    claimed: dict[int, set[int]] = {}  # row -> columns taken by rowspans from rows above
    for r, row in enumerate(table.rows):
        taken = claimed.pop(r, ())
        c = 0
        for cell in row:
            if taken:
                while c in taken:
                    c += 1
            rs, cs = cell.rowspan, cell.colspan
            if rs != 1 or cs != 1:
                rs, cs = _clamp(rs), _clamp(cs)
                for below in range(r + 1, r + rs):
                    claimed.setdefault(below, set()).update(range(c, c + cs))
            flat += (r, c, rs, cs)
            c += cs
    placed = np.array(flat, dtype=np.int64).reshape(-1, 4)
    return placed[:, :2], placed[:, 2:]


def _owners(origins: np.ndarray, spans: np.ndarray) -> np.ndarray:
    """Grid of the cell index owning each slot (-1 for holes); a later cell wins an overlap.

    Only spanning cells can overlap (a 1x1 cell takes a free slot and a span never reaches
    back to earlier cells), so 1x1 cells are written at once and spanning cells in order.
    """
    ends = origins + spans
    n_rows, n_cols = (int(ends[:, 0].max()), int(ends[:, 1].max())) if len(ends) else (0, 0)
    owner = np.full((n_rows, n_cols), -1, dtype=np.int64)
    single = (spans == 1).all(axis=1)
    owner[origins[single, 0], origins[single, 1]] = np.flatnonzero(single)
    for i in np.flatnonzero(~single).tolist():
        (r, c), (r_end, c_end) = origins[i], ends[i]
        owner[r:r_end, c:c_end] = i
    return owner


def _clamp(span: int) -> int:
    return min(max(int(span), 1), MAX_SPAN)


# -- rewards between distinct values --------------------------------------------------------------
def box_iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of every pair of relative-span boxes, over the enclosing box (the reference's `iou`).

    Every relative-span box contains the unit slot [0, 0, 1, 1], so the intersection is never
    empty and the enclosing box has area >= 1.
    """
    a, b = a[:, None, :], b[None, :, :]
    inter = (np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0])) * \
        (np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]))
    enclosing = (np.maximum(a[..., 2], b[..., 2]) - np.minimum(a[..., 0], b[..., 0])) * \
        (np.maximum(a[..., 3], b[..., 3]) - np.minimum(a[..., 1], b[..., 1]))
    return inter / enclosing


def lcs_similarity(a: str, b: str) -> float:
    """`2 M / (|a| + |b|)` with M the matched size of `SequenceMatcher(None, a, b)`; 1 for two empties."""
    return float(lcs_similarity_matrix([a], [b])[0, 0])


def lcs_similarity_matrix(a_texts: list[str], b_texts: list[str]) -> np.ndarray:
    """`lcs_similarity` of every (a, b) pair, compiled; pairs whose b meets autojunk go to difflib."""
    out = np.empty((len(a_texts), len(b_texts)), dtype=np.float64)
    if out.size == 0:
        return out
    a_cp, a_off, a_mask = _code_points(a_texts)
    b_cp, b_off, b_mask = _code_points(b_texts)
    _similarity_kernel(a_cp, a_off, a_mask, b_cp, b_off, b_mask, AUTOJUNK_MIN_LEN, out)
    for i, j in zip(*np.nonzero(out < 0)):  # b long enough for autojunk: difflib itself decides
        out[i, j] = _difflib_similarity(a_texts[i], b_texts[j])
    return out


def _difflib_similarity(a: str, b: str) -> float:
    if not a and not b:
        return 1.0
    matched = sum(block.size for block in SequenceMatcher(None, a, b).get_matching_blocks())
    return 2 * matched / (len(a) + len(b))


def _code_points(texts: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Texts as one array of code points, their offsets, and a 64-bit character-set mask each."""
    lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    cp = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.int32)
    masks = np.zeros(len(texts), dtype=np.uint64)
    nonempty = lengths > 0
    if cp.size:  # a multiplicative hash spreads digits, letters and signs over the 64 bits
        bits = np.left_shift(np.uint64(1), (cp.astype(np.uint64) * _FIBONACCI) >> np.uint64(58))
        masks[nonempty] = np.bitwise_or.reduceat(bits, offsets[:-1][nonempty])
    return cp, offsets, masks


@numba.njit(cache=True, nogil=True)
def _similarity_kernel(a_cp, a_off, a_mask, b_cp, b_off, b_mask, autojunk_len, out):  # pragma: no cover
    """Fill `out[i, j]` with the similarity of a_i and b_j, or -1 where difflib must decide."""
    a_longest, b_longest = 1, 1
    for i in range(a_off.size - 1):
        a_longest = max(a_longest, a_off[i + 1] - a_off[i])
    for j in range(b_off.size - 1):
        b_longest = max(b_longest, b_off[j + 1] - b_off[j])
    runs = np.zeros((a_longest + 1, b_longest + 1), dtype=np.int32)
    stack = np.zeros((b_longest + 2, 4), dtype=np.int64)
    for i in range(a_off.size - 1):
        a0, la = a_off[i], a_off[i + 1] - a_off[i]
        for j in range(b_off.size - 1):
            b0, lb = b_off[j], b_off[j + 1] - b_off[j]
            if la == 0 and lb == 0:
                out[i, j] = 1.0
            elif la == 0 or lb == 0 or (a_mask[i] & b_mask[j]) == 0:
                out[i, j] = 0.0
            elif lb >= autojunk_len:
                out[i, j] = -1.0
            else:
                matched = _matched_size(a_cp[a0:a0 + la], b_cp[b0:b0 + lb], runs, stack)
                out[i, j] = 2.0 * matched / (la + lb)


@numba.njit(cache=True, nogil=True)
def _matched_size(a, b, runs, stack):  # pragma: no cover - compiled
    """Total size of difflib's matching blocks when b has no junk (shorter than autojunk).

    difflib takes the longest common block of a range — the earliest in a, then in b, on ties —
    and recurses into the ranges left and right of it; they are independent, so the total does
    not depend on the visiting order. `runs[i + 1, j + 1]` is the common run ending at (i, j),
    computed once; inside a sub-range it is cut at the range's top-left corner.
    """
    la, lb = a.size, b.size
    best, best_i, best_j = 0, 0, 0
    for i in range(la):
        ai = a[i]
        for j in range(lb):
            k = runs[i, j] + 1 if b[j] == ai else 0
            runs[i + 1, j + 1] = k
            if k > best:
                best, best_i, best_j = k, i - k + 1, j - k + 1
    total = 0
    top = 0
    alo, ahi, blo, bhi = 0, la, 0, lb
    while True:
        if best > 0:
            total += best
            if alo < best_i and blo < best_j:
                stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = alo, best_i, blo, best_j
                top += 1
            if best_i + best < ahi and best_j + best < bhi:
                stack[top, 0], stack[top, 1] = best_i + best, ahi
                stack[top, 2], stack[top, 3] = best_j + best, bhi
                top += 1
        if top == 0:
            return total
        top -= 1
        alo, ahi, blo, bhi = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        best, best_i, best_j = 0, alo, blo
        for i in range(alo, ahi):
            for j in range(blo, bhi):
                k = runs[i + 1, j + 1]
                if k > best:
                    k = min(k, i - alo + 1, j - blo + 1)
                    if k > best:
                        best, best_i, best_j = k, i - k + 1, j - k + 1


# -- factored 2-D most similar substructures --------------------------------------------------------
def _factored_2dmss(reward: np.ndarray, gt_ids: np.ndarray, pred_ids: np.ndarray) -> tuple[float, float, float]:
    """(F, precision, recall) of the factored 2-D MSS.

    The reward of gt slot (r, c) and pred slot (r', c') is `reward[gt_ids[r, c], pred_ids[r', c']]`.
    """
    num_true, num_pred = gt_ids.size, pred_ids.size
    if num_true == 0 or num_pred == 0:
        return _fscore(0.0, num_true, num_pred)
    row_scores = _inner_alignment_scores(reward, gt_ids, pred_ids)
    col_scores = _inner_alignment_scores(reward, np.ascontiguousarray(gt_ids.T), np.ascontiguousarray(pred_ids.T))
    t_rows, p_rows = _outer_alignment(row_scores)
    t_cols, p_cols = _outer_alignment(col_scores)
    matched = _aligned_sum(reward, gt_ids, pred_ids, t_rows, p_rows, t_cols, p_cols)
    return _fscore(matched, num_true, num_pred)


def _fscore(matched: float, num_true: int, num_pred: int) -> tuple[float, float, float]:
    precision = matched / num_pred if num_pred > 0 else 1.0
    recall = matched / num_true if num_true > 0 else 1.0
    f = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return float(f), float(precision), float(recall)


@numba.njit(cache=True, nogil=True)
def _inner_alignment_scores(reward, gt_ids, pred_ids):  # pragma: no cover - compiled
    """`out[u, v]`: 1-D alignment DP score of gt line u against pred line v (lines = rows of the id grids).

    The reference's DP: cell = max(diagonal + reward, up, left); the maximum is exact, so
    evaluating it in any order gives the reference's floats. All pred lines advance together
    through the gt line, so each step reads one row of `reward`.
    """
    n_u, n_i = gt_ids.shape
    n_v, n_j = pred_ids.shape
    out = np.empty((n_u, n_v))
    dp = np.empty((n_v, n_j + 1))
    for u in range(n_u):
        dp[:] = 0.0
        for i in range(n_i):
            rew = reward[gt_ids[u, i]]
            for v in range(n_v):
                line = pred_ids[v]
                diag = 0.0
                left = 0.0
                for j in range(n_j):
                    up = dp[v, j + 1]
                    best = diag + rew[line[j]]
                    best = max(best, up)
                    best = max(best, left)
                    diag = up
                    dp[v, j + 1] = best
                    left = best
        for v in range(n_v):
            out[u, v] = dp[v, n_j]
    return out


@numba.njit(cache=True, nogil=True)
def _outer_alignment(inner):  # pragma: no cover - compiled
    """Aligned (gt, pred) line indices of the outer DP over rewards `inner[gt, pred]`.

    Ties as the reference breaks them: the diagonal if it reaches the maximum, else skipping
    the gt line, else skipping the pred line; the traceback walks back from the last cell.
    """
    n_t, n_p = inner.shape
    scores = np.zeros((n_t + 1, n_p + 1))
    pointers = np.zeros((n_t + 1, n_p + 1), dtype=np.int8)  # 0 diagonal, -1 skip gt, 1 skip pred
    pointers[1:, 0] = -1
    pointers[0, 1:] = 1
    for i in range(1, n_t + 1):
        for j in range(1, n_p + 1):
            diag = scores[i - 1, j - 1] + inner[i - 1, j - 1]
            skip_gt = scores[i - 1, j]
            skip_pred = scores[i, j - 1]
            best = max(diag, skip_gt, skip_pred)
            scores[i, j] = best
            if diag == best:
                pointers[i, j] = 0
            elif skip_gt == best:
                pointers[i, j] = -1
            else:
                pointers[i, j] = 1
    gt_idx = np.empty(min(n_t, n_p), dtype=np.int64)
    pred_idx = np.empty(min(n_t, n_p), dtype=np.int64)
    n = 0
    i, j = n_t, n_p
    while i > 0 or j > 0:
        step = pointers[i, j]
        if step == -1:
            i -= 1
        elif step == 1:
            j -= 1
        else:
            i -= 1
            j -= 1
            gt_idx[n] = i
            pred_idx[n] = j
            n += 1
    return gt_idx[:n][::-1].copy(), pred_idx[:n][::-1].copy()


@numba.njit(cache=True, nogil=True)
def _aligned_sum(reward, gt_ids, pred_ids, t_rows, p_rows, t_cols, p_cols):  # pragma: no cover
    """Sum of rewards at the aligned (row, column) positions, in the reference's order."""
    total = 0.0
    for a in range(t_rows.size):
        for b in range(t_cols.size):
            total += reward[gt_ids[t_rows[a], t_cols[b]], pred_ids[p_rows[a], p_cols[b]]]
    return total
