"""Semantic table score: does the prediction tell a reader the same things as the ground truth?

Both tables are read as a reader reads them (`semantic_struct`): header rows give each
column a header path, stub columns give each body row a key, and every cell text is
normalised (`semantic_text`), so formatting, entities, math markup, null markers, flattened
multi-level headers, title rows written once and resolved spans cost nothing. Rows, then
columns, of the two tables are aligned one-to-one (`linear_sum_assignment`) by header keys
and content together. A ground-truth body cell then agrees with its aligned cell by

    value similarity x (CONTEXT_FLOOR + (1 - CONTEXT_FLOOR) x row association x column association)

where a changed number (1.12 -> 112, a lost minus) has value similarity 0, and an association
is the agreement of the header keys, or 0 when the predicted header names another row or
column better than its own: a right value under a wrong header loses the context share.
Column headers are facts of their own.

The score is `10 * F ** GAMMA * exp(-PER_ERROR * E)`: F is the soft F1 over all facts (a
missing row costs its share of recall, invented cells and blank rows/columns their share of
precision), E the number of errors a reader would name (a wrong cell or misread header by its
shortfall, a lost or invented row or column as one each). Both parts are needed: readers
judge a table by its errors, not by its share of right cells, so the share is sharpened
(GAMMA = 3: a table with 10% of its facts wrong keeps 73%); and a share alone makes one wrong
number nearly free in a large table (under the earlier F ** 6 it cost 3.2 points in a
12-cell table and 0.2 in a 300-cell one, a range the dev tables, at most 70 cells, never
tested), whereas a reader who finds a wrong value distrusts the table whatever its size:
each error takes about a tenth of that trust (PER_ERROR = 0.1), so one wrong number now
costs 2.5 to 1.0 points over the same range, and a lost row costs one error, not one per cell.

The parameters CONTEXT_FLOOR, KEY_WEIGHT and SUBSET come from leave-one-ground-truth-table-out
cross-validation on the table-metric-study dev split (15 tables, 205 rated pairs), where
14 of 15 folds picked them; GAMMA and PER_ERROR are the round values above, not fitted.
Dev Pearson 0.946, Spearman 0.888, Kendall 0.810; leave-one-table-out Pearson 0.946 on
average, 0.939 at worst (TEDS 0.711, GriTS-Con 0.725, best LLM judge 0.948)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from harness.metrics.semantic_struct import Grid, View, header_rows, inferred_header_rows, to_grid, view
from harness.metrics.semantic_text import NULL, key_similarity_matrix, numbers, similarity_matrix
from harness.table import NoTableError, TableLike, as_table

GAMMA = 3.0  # how much harsher than its share the share of errors weighs (see the module docstring)
PER_ERROR = 0.1  # each error a reader finds takes this much of their trust (exp(-0.1) ~ -10%), whatever the size
CONTEXT_FLOOR = 0.75  # a right value under a wrong header keeps this much: it is there, its meaning is not
KEY_WEIGHT = 0.3  # rows/columns are aligned 30% by their header keys, 70% by their content
MAX_ERRORS = 5
# Cell pairs (gt body cells x pred body cells) up to which every cell is compared with every
# cell to align rows; beyond it (about 500 cells a side) rows are aligned on the cells they
# share exactly, and cells are compared only within aligned rows. A matter of speed, not of scoring.
FULL_COMPARISON = 250_000


@dataclass(slots=True)
class SemanticResult:
    """A 0-10 score, its most significant errors in words (most severe first), and its parts."""

    score: float
    errors: list[str] = field(default_factory=list)
    recall: float = 0.0  # share of the ground truth's facts found (soft)
    precision: float = 0.0  # share of the prediction's facts that are true (soft)
    n_gt: int = 0
    n_pred: int = 0


def semantic(gt: TableLike, pred: TableLike) -> SemanticResult:
    """Score `pred` against `gt` on the 0-10 scale with its main errors in words."""
    g = to_grid(as_table(gt))
    if not g.cells:
        raise NoTableError("the ground-truth table has no cells")
    p = to_grid(as_table(pred))
    gv = view(g, header_rows(g))
    if not p.cells:
        return SemanticResult(0.0, ["the prediction has no cells"], 0.0, 0.0, gv.n_facts, 0)
    best = max((_align(gv, view(p, h), p.blank_lines - g.blank_lines) for h in _readings(p, gv.header_rows)),
               key=_score)
    return SemanticResult(round(_score(best), 4), _errors(best), best.recall, best.precision,
                          best.g.n_facts, best.p.n_facts)


def _score(a: _Alignment) -> float:
    """The 0-10 score of an alignment (see the module docstring)."""
    return float(10.0 * a.f1 ** GAMMA * np.exp(-PER_ERROR * a.n_errors))


def _readings(p: Grid, gt_h: int) -> list[int]:
    """Header-row counts to try for the prediction: its own reading first, then the inferred
    one and the ground truth's (a parser may mark no header, or mark it differently)."""
    out = [header_rows(p)]
    for h in (inferred_header_rows(p), gt_h):
        if h not in out and 0 <= h < len(p.cells):
            out.append(h)
    return out


@dataclass(slots=True)
class _Alignment:
    """Which predicted row/column/header stands for which of the ground truth's, and how well."""

    g: View
    p: View
    pair_value: np.ndarray  # value similarity per aligned row pair: aligned pairs x gt cols x pred cols
    row_pairs: tuple[np.ndarray, np.ndarray]
    col_pairs: tuple[np.ndarray, np.ndarray]
    head_pairs: tuple[np.ndarray, np.ndarray, np.ndarray]  # gt header idx, pred header idx, agreement
    row_assoc: np.ndarray  # per aligned row pair: does the predicted row key name this row (see _association)
    col_assoc: np.ndarray
    cell_q: np.ndarray  # agreement of each aligned body cell (aligned gt rows x aligned gt cols)
    f1: float
    recall: float
    precision: float
    n_errors: float  # wrong cells and headers, lost and invented rows and columns (see _align)
    value: np.ndarray | None = None  # every gt cell against every pred cell (rows x cols x rows x cols), if computed

    def cell_vs_all(self, i: int, c: int) -> np.ndarray:
        """Value similarity of ground-truth body cell (i, c) to every predicted body cell."""
        if self.value is not None:
            return self.value[i, c]
        return similarity_matrix([self.g.body[i][c]], [t for row in self.p.body for t in row]).reshape(
            len(self.p.body), len(self.p.col_keys))


def _align(g: View, p: View, blank: int = 0) -> _Alignment:
    """Align rows, then columns, by header keys and content together; score the aligned cells.

    `blank` counts blank rows/columns the prediction has beyond the ground truth's: each is
    one thing a reader sees that is not in the table (one invented fact).
    """
    rg, cg, rp, cp = len(g.body), len(g.col_keys), len(p.body), len(p.col_keys)
    row_key = key_similarity_matrix(g.row_keys, p.row_keys)
    col_key = key_similarity_matrix(g.col_keys, p.col_keys)
    value = None
    if rg and rp and cg and cp:
        if rg * cg * rp * cp <= FULL_COMPARISON:
            value = similarity_matrix([t for row in g.body for t in row], [t for row in p.body for t in row])
            value = value.reshape(rg, cg, rp, cp)
            content = value.max(axis=3).mean(axis=1)  # per row pair: how many gt cells the pred row holds
        else:
            content = _shared_cells(g.body, p.body)
        ri, rj = linear_sum_assignment(KEY_WEIGHT * row_key + (1 - KEY_WEIGHT) * content, maximize=True)
        if value is not None:
            pair_value = value[ri, :, rj, :]
        else:
            pair_value = np.stack([similarity_matrix(g.body[i], p.body[j]) for i, j in zip(ri.tolist(), rj.tolist())])
        col_fit = KEY_WEIGHT * col_key + (1 - KEY_WEIGHT) * pair_value.mean(axis=0)
        ci, cj = linear_sum_assignment(col_fit, maximize=True)
        cell_q = pair_value[:, ci, cj]
        row_assoc, col_assoc = _association(row_key, ri, rj), _association(col_key, ci, cj)
        cell_q = cell_q * (CONTEXT_FLOOR + (1 - CONTEXT_FLOOR) * np.outer(row_assoc, col_assoc))
    else:
        ri = rj = ci = cj = np.zeros(0, dtype=int)
        row_assoc = col_assoc = np.zeros(0)
        cell_q = np.zeros((0, 0))
        pair_value = np.zeros((0, cg, cp))
    gh = [i for i, k in enumerate(g.col_keys) if k]
    ph = [j for j, k in enumerate(p.col_keys) if k]
    if gh and ph:
        head = key_similarity_matrix([g.col_keys[i] for i in gh], [p.col_keys[j] for j in ph])
        hi, hj = linear_sum_assignment(head, maximize=True)
        head_pairs = (np.asarray(gh)[hi], np.asarray(ph)[hj], head[hi, hj])
    else:
        head_pairs = (np.zeros(0, int), np.zeros(0, int), np.zeros(0))
    agree = float(cell_q.sum() + head_pairs[2].sum())
    n_g, n_p = g.n_facts, p.n_facts + max(blank, 0)
    f1 = 2.0 * agree / (n_g + n_p) if n_g + n_p else 1.0
    # errors as a reader names them: each wrong aligned cell or misread header (by its shortfall),
    # each lost or invented row or column as one, each extra blank row or column as one
    n_errors = (cell_q.size - cell_q.sum()) + (len(head_pairs[2]) - head_pairs[2].sum()) \
        + (rg - len(ri)) + (cg - len(ci)) + (rp - len(rj)) + (cp - len(cj)) + max(blank, 0)
    return _Alignment(g, p, pair_value, (ri, rj), (ci, cj), head_pairs, row_assoc, col_assoc,
                      cell_q, f1, agree / max(n_g, 1), agree / max(n_p, 1), n_errors, value)


def _shared_cells(g_body: list[list[str]], p_body: list[list[str]]) -> np.ndarray:
    """Per (gt row, pred row): the share of the gt row's cells whose text the pred row holds
    exactly. For large tables this stands in for the full cell-by-cell comparison when rows
    are aligned (typos then count as misses there, but not in the aligned cells' scores)."""
    ids: dict[str, int] = {}
    g_ids = [[ids.setdefault(t.replace(" ", ""), len(ids)) for t in row] for row in g_body]
    p_ids = [[ids.setdefault(t.replace(" ", ""), len(ids)) for t in row] for row in p_body]
    held = np.zeros((len(p_body), len(ids)))
    for j, row in enumerate(p_ids):
        held[j, row] = 1.0
    counts = np.zeros((len(g_body), len(ids)))
    for i, row in enumerate(g_ids):
        np.add.at(counts[i], row, 1.0)
    return counts @ held.T / max(len(g_body[0]) if g_body else 1, 1)


def _association(key: np.ndarray, gi: np.ndarray, pj: np.ndarray) -> np.ndarray:
    """How well each aligned predicted header names its ground-truth row/column: the key
    agreement, or 0 when the predicted header names another row/column better (the values of
    "Dataset A / ResNet" under "Dataset B / ResNet" are a wrong association, however alike the
    two names are); a garbled label that names nothing else better is only garbled."""
    sim = key[gi, pj]
    return np.where(key[:, pj].max(axis=0) > sim + 1e-9, 0.0, sim)


def _errors(a: _Alignment) -> list[str]:
    """The costliest disagreements in words, most severe first: lost or misattached rows and
    columns, misread headers, then wrong, moved or missing values. Each cost is the number
    of facts it spoils, so a lost row outranks a typo."""
    rows, dead_rows, moved_rows = _row_errors(a)
    cols, misplaced_cols = _column_errors(a)
    cost = rows + cols
    ri, rj = a.row_pairs
    ci, cj = a.col_pairs
    for x, i in enumerate(ri.tolist()):
        if i in dead_rows:
            continue
        for y, c in enumerate(ci.tolist()):
            q = float(a.cell_q[x, y])
            same = a.pair_value[x, c, cj[y]] >= 0.999 or a.g.body[i][c] == NULL
            # a header misread (not one naming another row or column) is reported once, by itself
            explained = a.row_assoc[x] > 0 and a.col_assoc[y] > 0 or c in misplaced_cols or i in moved_rows
            if q >= 0.999 or same and explained:
                continue  # a right value whose header was misread: the header's error says it
            cost.append((1 - q, _cell_error(a, x, i, c, int(rj[x]), int(cj[y]))))
    cost.sort(key=lambda e: -e[0])
    return [text for _, text in cost[:MAX_ERRORS]]


def _row_errors(a: _Alignment) -> tuple[list[tuple[float, str]], set[int], set[int]]:
    """Rows lost (no aligned row shares their content) and rows whose values sit under another row's label."""
    g, p = a.g, a.p
    ri, rj = a.row_pairs
    ci, cj = a.col_pairs
    row_of = dict(zip(ri.tolist(), rj.tolist()))
    x_of = {i: x for x, i in enumerate(ri.tolist())}
    cost: list[tuple[float, str]] = []
    dead = set()
    for i in range(len(g.body)):
        name = g.row_shown[i] or g.body_shown[i][0]
        if i not in row_of:
            dead.add(i)
            cost.append((float(len(g.col_keys)), f"row '{name}' missing"))
        elif a.pair_value[x_of[i], ci, cj].mean() < 0.5 and a.row_assoc[x_of[i]] < 0.5:  # another row in its place
            dead.add(i)
            j = row_of[i]
            cost.append((float(len(g.col_keys)), f"row '{name}' missing; in its place row "
                         f"'{p.row_shown[j] or p.body_shown[j][0]}'"))
    aligned = set(rj.tolist())
    for j in range(len(p.body)):
        if j not in aligned:
            cost.append((float(len(p.col_keys)), f"row '{p.row_shown[j] or p.body_shown[j][0]}' is not in the table"))
    moved = set()
    for x, (i, j) in enumerate(zip(ri.tolist(), rj.tolist())):
        if i not in dead and g.row_keys[i] and a.row_assoc[x] < 0.5 and a.pair_value[x, ci, cj].mean() >= 0.8:
            moved.add(i)
            cost.append((len(g.col_keys) * (1 - a.row_assoc[x]),
                         f"values of row '{g.row_shown[i]}' attached to row '{p.row_shown[j]}'"))
    return cost, dead, moved


def _column_errors(a: _Alignment) -> tuple[list[tuple[float, str]], set[int]]:
    """Columns lost, column headers over the wrong values, and misread column headers."""
    g, p = a.g, a.p
    ri, rj = a.row_pairs
    ci, cj = a.col_pairs
    aligned = set(ci.tolist())
    cost = [(float(len(g.body)), f"column '{g.col_shown[c] or f'#{c + 1}'}' missing") for c in range(len(g.col_keys))
            if c not in aligned]
    misplaced = set()
    for y, (c, d) in enumerate(zip(ci.tolist(), cj.tolist())):
        content = float(a.pair_value[:, c, d].mean()) if len(ri) else 0.0
        if g.col_keys[c] and a.col_assoc[y] < 0.5 and content >= 0.8:
            misplaced.add(c)
            cost.append((len(g.body) * (1 - a.col_assoc[y]), f"column header '{g.col_shown[c]}' attached to "
                         f"wrong columns: its values stand under '{p.col_shown[d]}'"))
    for gi, pj, q in zip(*a.head_pairs):
        if q < 0.999 and gi not in misplaced:
            cost.append((1 - q, f"column header '{g.col_shown[gi]}' read as '{p.col_shown[pj]}'"))
    return cost, misplaced


def _cell_error(a: _Alignment, x: int, i: int, c: int, pi: int, pc: int) -> str:
    """One body cell's error: read as something else, moved elsewhere, or missing."""
    g, p = a.g, a.p
    shown = g.body_shown[i][c]
    where = f"({g.row_shown[i]}, {g.col_shown[c]})"
    got = p.body[pi][pc]
    if a.pair_value[x, c, pc] >= 0.999:
        return f"value '{shown}' under {where} attached to ({p.row_shown[pi]}, {p.col_shown[pc]})"
    flat = a.cell_vs_all(i, c).reshape(-1)
    best = int(np.argmax(flat))
    bi, bc = divmod(best, len(p.col_keys))
    if flat[best] >= 0.999 and g.body[i][c] != NULL and (p.row_keys[bi] != g.row_keys[i] or bc != pc):
        return f"value '{shown}' under {where} moved to ({p.row_shown[bi]}, {p.col_shown[bc]})"
    if got == NULL:
        return f"value '{shown}' under {where} missing"
    if numbers(g.body[i][c]) != numbers(got):
        return f"value {shown} under {where} read as {p.body_shown[pi][pc]}"
    return f"'{shown}' under {where} read as '{p.body_shown[pi][pc]}'"
