"""Align a prediction with its ground truth and name what differs, each cause once.

Rows, then columns, are aligned one-to-one (`linear_sum_assignment`) by header keys and
content together (`key_weight` of the one, the rest of the other). What differs is then
counted as a reader counts mistakes, by cause, not by the cells a cause touches:

- `values`: each aligned ground-truth cell by its shortfall (a changed number is a whole error);
- `lines`: each row or column lost or invented, each extra blank row or column;
- `headers`: each distinct misreading of header text. Columns whose whole paths (title
  included) differ in the same words (a lost title or group level, a misspelt group header)
  are one cause, costing its largest shortfall; so are the texts of several header cells
  written into one ("Team Coverage Team"); a title read as a group header, or the reverse,
  is the same path and costs nothing;
- `attached`: rows or columns whose values stand under a label that names another ground-truth
  row or column better, one per displacement (labels shifted by one column over five columns
  are one mistake; two swapped labels are two);
- `unattributed`: the share of values that can no longer be attributed: their predicted row or
  column label is missing where the ground truth has one, garbled so that it names its own
  less than half, or names two or more ground-truth rows or columns equally well ("M3FD" where
  the ground truth has "Visible / M3FD" and "Infrared / M3FD"). Losing a level that leaves
  every label unique is only a `headers` cause;
- `share`: -log of the soft F1 over all facts (cells and column header paths; a path counts
  as right when its words are, so a lost level is not a wrong fact in every column), so a
  table mostly wrong is scored as such whatever its count of causes.

These are the features the score combines (`semantic.Params`); `Cause` keeps each in words.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from rapidfuzz.distance import LCSseq
from scipy.optimize import linear_sum_assignment

from harness.metrics.semantic_struct import View
from harness.metrics.semantic_text import NULL, key_similarity_matrix, numbers, similarity_matrix

FEATURES = ("share", "values", "lines", "headers", "attached", "unattributed")
# Cell pairs (gt body cells x pred body cells) up to which every cell is compared with every
# cell to align rows; beyond it (about 500 cells a side) rows are aligned on the cells they
# share exactly, and cells are compared only within aligned rows. A matter of speed, not of scoring.
FULL_COMPARISON = 250_000
_TIE = 1e-9
RECOGNISED = 0.8  # share of a header level's characters from which a reader recognises it (`_level_found`)
_FLOOR = 1e-3  # the share feature of a prediction with nothing right: -log(0.001) ~ 6.9, far past any score


@dataclass(slots=True)
class Cause:
    """One thing a reader would name: which feature it counts toward, by how much, in words."""

    feature: str
    amount: float
    text: str


@dataclass(slots=True)
class Comparison:
    """One reading of the prediction against the ground truth: its features and their causes."""

    features: np.ndarray  # per FEATURES
    causes: list[Cause] = field(default_factory=list)
    f1: float = 0.0
    recall: float = 0.0
    precision: float = 0.0
    n_gt: int = 0
    n_pred: int = 0


def nothing_read(n_gt: int) -> Comparison:
    """The comparison for a prediction with no cells: nothing is right."""
    features = np.zeros(len(FEATURES))
    features[FEATURES.index("share")] = -np.log(_FLOOR)
    return Comparison(features, [Cause("share", 1.0, "the prediction has no cells")], 0.0, 0.0, 0.0, n_gt, 0)


def compare(g: View, p: View, blank: int, key_weight: float) -> Comparison:
    """Align `p` with `g` and count their differences by cause (see the module docstring).

    `blank` counts blank rows/columns the prediction has beyond the ground truth's.
    """
    rg, cg, rp, cp = len(g.body), len(g.col_keys), len(p.body), len(p.col_keys)
    row_key = key_similarity_matrix(g.row_keys, p.row_keys)
    col_key = key_similarity_matrix(g.col_keys, p.col_keys)
    value = None
    causes: list[Cause] = []
    if rg and rp and cg and cp:
        if rg * cg * rp * cp <= FULL_COMPARISON:
            value = similarity_matrix([t for row in g.body for t in row], [t for row in p.body for t in row])
            value = value.reshape(rg, cg, rp, cp)
            content = value.max(axis=3).mean(axis=1)  # per row pair: how many gt cells the pred row holds
        else:
            content = _shared_cells(g.body, p.body)
        ri, rj = linear_sum_assignment(key_weight * row_key + (1 - key_weight) * content, maximize=True)
        if value is not None:
            pair_value = value[ri, :, rj, :]
        else:
            pair_value = np.stack([similarity_matrix(g.body[i], p.body[j]) for i, j in zip(ri.tolist(), rj.tolist())])
        ci, cj = linear_sum_assignment(key_weight * col_key + (1 - key_weight) * pair_value.mean(axis=0),
                                       maximize=True)
        cell_v = pair_value[:, ci, cj]
    else:
        ri = rj = ci = cj = np.zeros(0, dtype=int)
        cell_v = np.zeros((0, 0))
        pair_value = np.zeros((0, cg, cp))
    rows = _attribution(row_key, ri, rj, g.row_keys, p.row_keys)
    cols = _attribution(col_key, ci, cj, g.col_keys, p.col_keys)

    # lost and invented rows and columns: one each
    dead = _lost_lines(g, p, ri, rj, ci, cj, pair_value, rows[0], causes)
    # a row label only attributes the row's other values: none (one column of labels) or a row
    # already counted as replaced by another leaves nothing to attribute
    rows[2][[i in dead or cg <= g.stub_cols for i in ri.tolist()]] = False
    if blank > 0:
        causes.append(Cause("lines", float(blank), f"{blank} blank row{'s' if blank > 1 else ''} or column"
                                                   f"{'s' if blank > 1 else ''} not in the table"))
    # values under labels that name other rows/columns, and labels that name several
    causes += _attached(g.row_shown, p.row_shown, row_key, ri, rj, rows[1], "row", dead)
    causes += _attached(g.col_shown, p.col_shown, col_key, ci, cj, cols[1], "column", set())
    row_loss = _key_loss(g.row_levels or [], g.row_keys, p.row_keys, p.row_keys, ri, rj, rows[2])
    row_loss[[i in dead or cg <= g.stub_cols for i in ri.tolist()]] = 0.0
    col_loss = _key_loss(g.col_levels or [], g.col_keys, p.col_keys, [f"{p.title} {k}" for k in p.col_keys],
                         ci, cj, cols[2])
    share = _unattributed_share(g, ri, ci, row_loss, col_loss, dead)
    if share > 0:
        causes += _unattributed(g, p, ri, rj, ci, cj, row_loss, col_loss, row_key, col_key, share)
    # header text: grouped by the words that differ
    head_agree, head_causes = _headers(g, p, ci, cj, cols[1])
    causes += head_causes
    # values, cell by cell
    causes += _value_causes(g, p, value, ri, rj, ci, cj, cell_v, dead)

    agree = float(cell_v.sum()) + head_agree
    n_g, n_p = g.n_facts, p.n_facts + max(blank, 0)
    f1 = 2.0 * agree / (n_g + n_p) if n_g + n_p else 1.0
    features = np.zeros(len(FEATURES))
    for cause in causes:
        features[FEATURES.index(cause.feature)] += cause.amount
    features[FEATURES.index("share")] = -np.log(max(f1, _FLOOR))
    return Comparison(features, causes, f1, agree / max(n_g, 1), agree / max(n_p, 1), n_g, n_p)


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


def _attribution(key: np.ndarray, gi: np.ndarray, pj: np.ndarray, g_keys: list[str],
                 p_keys: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per aligned pair: how well the predicted label names its ground-truth row/column; whether
    it names another one better (attached elsewhere); whether it names none (an empty label
    where the ground truth has one) or another one, labelled differently in the ground truth,
    as well (unattributed)."""
    sim = key[gi, pj]
    attached = np.zeros(len(gi), dtype=bool)
    unattributed = np.zeros(len(gi), dtype=bool)
    g_arr = np.asarray(g_keys, dtype=object)
    exact = set(g_keys)
    for x, (i, j) in enumerate(zip(gi.tolist(), pj.tolist())):
        if not g_keys[i]:
            continue
        column = key[:, j]
        if not p_keys[j]:  # the ground truth names it, the prediction does not
            unattributed[x] = True
        elif column.max() > sim[x] + _TIE:
            attached[x] = True
        elif sim[x] < 0.5:  # a label that names nothing recognisably (garbled beyond half)
            unattributed[x] = True
        elif p_keys[j] not in exact:  # a label the ground truth has names that one
            unattributed[x] = bool(((column >= sim[x] - _TIE) & (g_arr != g_keys[i])).any())
    return sim, attached, unattributed


def _diff(a: str, b: str) -> tuple[frozenset[str], frozenset[str]]:
    """The words of `a` not in `b` and of `b` not in `a`: what a reader sees changed."""
    wa, wb = set(a.split()), set(b.split())
    return frozenset(wa - wb), frozenset(wb - wa)


def _lost_lines(g: View, p: View, ri: np.ndarray, rj: np.ndarray, ci: np.ndarray, cj: np.ndarray,
                pair_value: np.ndarray, row_sim: np.ndarray, causes: list[Cause]) -> set[int]:
    """Rows and columns lost or invented, one cause each; returns the ground-truth rows that
    have no counterpart (aligned to a row that shares neither label nor values with them)."""
    row_of = dict(zip(ri.tolist(), rj.tolist()))
    dead = set()
    for x, (i, j) in enumerate(zip(ri.tolist(), rj.tolist())):
        if len(ci) and pair_value[x, ci, cj].mean() < 0.5 and row_sim[x] < 0.5:
            dead.add(i)  # another row in its place: its cells are counted as values, named as a row here
    for i in range(len(g.body)):
        if i not in row_of:
            causes.append(Cause("lines", 1.0, f"row '{g.row_shown[i] or g.body_shown[i][0]}' missing"))
    aligned = set(rj.tolist())
    for j in range(len(p.body)):
        if j not in aligned:
            causes.append(Cause("lines", 1.0, f"row '{p.row_shown[j] or p.body_shown[j][0]}' is not in the table"))
    lost = set(range(len(g.col_keys))) - set(ci.tolist())
    for c in sorted(lost):
        causes.append(Cause("lines", 1.0, f"column '{g.col_shown[c] or f'#{c + 1}'}' missing"))
    for d in sorted(set(range(len(p.col_keys))) - set(cj.tolist())):
        causes.append(Cause("lines", 1.0, f"column '{p.col_shown[d] or f'#{d + 1}'}' is not in the table"))
    return dead


def _attached(g_shown: list[str], p_shown: list[str], key: np.ndarray, gi: np.ndarray, pj: np.ndarray,
              attached: np.ndarray, kind: str, skip: set[int]) -> list[Cause]:
    """Rows/columns whose values stand under another's label: one cause per displacement (labels
    shifted by one column over five columns are one mistake; two swapped labels are two)."""
    groups: dict[int, list[tuple[int, int]]] = {}
    for x in np.flatnonzero(attached):
        i, j = int(gi[x]), int(pj[x])
        if i not in skip:
            groups.setdefault(int(np.argmax(key[:, j])) - i, []).append((i, j))
    out = []
    for members in groups.values():
        i, j = members[0]
        if kind == "row":
            text = f"values of row '{g_shown[i]}' attached to row '{p_shown[j]}'"
        else:
            text = f"column header '{g_shown[i]}' attached to wrong columns: its values stand under '{p_shown[j]}'"
        if len(members) > 1:
            text += f" (and {len(members) - 1} more {kind}s shifted alike)"
        out.append(Cause("attached", 1.0, text))
    return out


def _key_loss(g_levels: list[tuple[str, ...]], g_keys: list[str], p_keys: list[str], p_paths: list[str],
              gi: np.ndarray, pj: np.ndarray, lost: np.ndarray) -> np.ndarray:
    """Per aligned pair: how much of the ground truth's key (row or column path, every level) a
    reader of the prediction can no longer recover, in [0, 1]. All of it when the label is
    missing, garbled or names several ground-truth keys alike (`lost`, see `_attribution`), or
    when the prediction gives one label to two rows/columns the ground truth tells apart ("M3FD"
    twice once the group level is lost: a reader cannot tell them apart either). Otherwise the
    worst-found level of the key (`_level_found`): a value is attributed when its whole path
    is, so a group label lost or garbled over a column takes it from every value under it."""
    out = np.zeros(len(gi))
    owner: dict[str, set[str]] = {}
    for i, j in zip(gi.tolist(), pj.tolist()):
        if p_keys[j]:
            owner.setdefault(p_keys[j], set()).add(g_keys[i])
    for x, (i, j) in enumerate(zip(gi.tolist(), pj.tolist())):
        if not g_keys[i]:
            continue
        if lost[x] or len(owner.get(p_keys[j], ())) > 1:
            out[x] = 1.0
        elif i < len(g_levels):
            out[x] = max((1.0 - _level_found(lv, p_paths[j]) for lv in g_levels[i]), default=0.0)
    return out


def _level_found(level: str, path: str) -> float:
    """How surely a reader finds one header level in a predicted path, in [0, 1]: the share of its
    characters the path holds in order (LCS), with a fifth missing still found (a reader
    recognises a label with a typo or two)."""
    a, b = level.replace(" ", ""), path.replace(" ", "")
    if not a:
        return 1.0
    return min(1.0, LCSseq.similarity(a, b) / len(a) / RECOGNISED)


def _unattributed_share(g: View, ri: np.ndarray, ci: np.ndarray, row_loss: np.ndarray, col_loss: np.ndarray,
                        dead: set[int]) -> float:
    """The share of the ground truth's values (cells right of the stub columns; all cells when
    there are none) whose key a reader cannot recover: a value needs both its row's and its
    column's key. Rows counted as replaced by another are counted as values, not here."""
    rg, cg = len(g.body), len(g.col_keys)
    if not rg or not cg:
        return 0.0
    r = np.zeros(rg)
    c = np.zeros(cg)
    r[ri] = row_loss
    c[ci] = col_loss
    r[list(dead)] = 0.0
    by_row = (np.arange(cg) >= g.stub_cols) if cg > g.stub_cols else np.ones(cg, dtype=bool)
    lost = 1.0 - (1.0 - r[:, None] * by_row[None, :]) * (1.0 - c)[None, :]
    return float(lost.mean())


def _unattributed(g: View, p: View, ri: np.ndarray, rj: np.ndarray, ci: np.ndarray, cj: np.ndarray,
                  row_loss: np.ndarray, col_loss: np.ndarray, row_key: np.ndarray, col_key: np.ndarray,
                  share: float) -> list[Cause]:
    """One cause for all values that cannot be (fully) attributed, named by the label that loses most."""
    if col_loss.max(initial=0) >= row_loss.max(initial=0):
        y = int(np.argmax(col_loss))
        c, d, keys, shown, key, label, kind, worst = int(ci[y]), int(cj[y]), g.col_keys, g.col_shown, col_key, \
            p.col_shown[int(cj[y])], "column", float(col_loss[y])
    else:
        x = int(np.argmax(row_loss))
        c, d, keys, shown, key, label, kind, worst = int(ri[x]), int(rj[x]), g.row_keys, g.row_shown, row_key, \
            p.row_shown[int(rj[x])], "row", float(row_loss[x])
    n = int((col_loss > 0).sum() + (row_loss > 0).sum())
    more = f" ({n - 1} more rows/columns alike)" if n > 1 else ""
    pct = f"; {share:.0%} of the values"
    if not label:
        return [Cause("unattributed", share,
                      f"{kind} '{shown[c]}' has no label: its values cannot be attributed{more}{pct}")]
    alike = [k for k in np.flatnonzero(key[:, d] >= key[c, d] - _TIE) if keys[k] != keys[c]]
    if worst < 1.0:
        return [Cause("unattributed", share, f"{kind} '{shown[c]}' read as '{label}': part of its header path "
                                             f"is lost, its values cannot be fully attributed{more}{pct}")]
    if key[c, d] < 0.5 or not alike:
        twin = [k for k in range(len(p.col_keys if kind == "column" else p.row_keys)) if k != d and
                (p.col_keys if kind == "column" else p.row_keys)[k] == (p.col_keys if kind == "column" else
                                                                         p.row_keys)[d]]
        if twin and key[c, d] >= 0.5:
            return [Cause("unattributed", share, f"{kind} label '{label}' given to two {kind}s the table tells "
                                                 f"apart: their values cannot be attributed{more}{pct}")]
        return [Cause("unattributed", share, f"{kind} '{shown[c]}' read as '{label}': its values cannot be "
                                             f"attributed{more}{pct}")]
    names = " or ".join(f"'{shown[k]}'" for k in [c, *alike[:2]])
    return [Cause("unattributed", share, f"{kind} '{label}' is ambiguous: it may be {names}{more}{pct}")]


def _headers(g: View, p: View, ci: np.ndarray, cj: np.ndarray, attached: np.ndarray) -> tuple[float, list[Cause]]:
    """Agreement of aligned column header paths (facts, title included), and their misreadings
    grouped by the words that differ. A header the prediction lacks altogether is an
    unattributed column (see `_unattributed`), not a misreading."""
    if not len(ci):
        return 0.0, []
    gk = [g.full_key(c) for c in ci.tolist()]
    pk = [p.full_key(d) for d in cj.tolist()]
    text = similarity_matrix([k or NULL for k in gk], [k or NULL for k in pk])
    # as a fact, a header path is right when its words are (a lost or moved level is one cause below,
    # not a wrong fact in every column)
    fact = key_similarity_matrix([k or NULL for k in gk], [k or NULL for k in pk])
    agree = 0.0
    own = {c: set(g.col_keys[c].split()) for c in ci.tolist() if g.col_keys[c]}
    groups: dict[tuple, list[tuple[int, int, float, tuple[int, ...]]]] = {}
    for y, (c, d) in enumerate(zip(ci.tolist(), cj.tolist())):
        if not gk[y]:
            continue
        q = float(text[y, y]) if pk[y] else 0.0
        agree += float(fact[y, y]) if pk[y] else 0.0
        if q < 0.999 and not attached[y] and p.col_keys[d]:
            lost, added = _diff(gk[y], pk[y])
            merged = tuple(sorted(k for k, w in own.items() if k != c and w - own[c] and w <= added | own[c]))
            # the texts of several header cells written into one ("Team Coverage Team") is one cause
            key = ("merged", pk[y], frozenset()) if merged else ("differ", lost, added)
            groups.setdefault(key, []).append((c, d, q, merged))
    causes = []
    for (kind, lost, added), members in groups.items():
        c, d, _, merged = members[0]
        worst = 1.0 - min(m[2] for m in members)
        if kind == "merged":
            names = ", ".join(f"'{g.col_shown[k]}'" for k in sorted({c, *merged})[:4])
            words = f"header cells {names} merged into one cell: '{p.full_shown(d)}'"
        elif lost and not added and len(members) > 1:
            words = f"header level lost over {len(members)} columns: '{g.full_shown(c)}' read as '{p.full_shown(d)}'"
        else:
            words = f"column header '{g.full_shown(c)}' read as '{p.full_shown(d)}'"
            if len(members) > 1:
                words += f" (and {len(members) - 1} more columns alike)"
        causes.append(Cause("headers", worst, words))
    return agree, causes


def _value_causes(g: View, p: View, value: np.ndarray | None, ri: np.ndarray, rj: np.ndarray, ci: np.ndarray,
                  cj: np.ndarray, cell_v: np.ndarray, dead: set[int]) -> list[Cause]:
    """Wrong, moved or missing values cell by cell; a row with another row in its place is one cause."""
    out = []
    for x, i in enumerate(ri.tolist()):
        shortfall = 1.0 - cell_v[x]
        if i in dead:
            j = int(rj[x])
            out.append(Cause("values", float(shortfall.sum()), f"row '{g.row_shown[i] or g.body_shown[i][0]}' "
                             f"missing; in its place row '{p.row_shown[j] or p.body_shown[j][0]}'"))
            continue
        for y, c in enumerate(ci.tolist()):
            if shortfall[y] > 0.001:
                out.append(Cause("values", float(shortfall[y]),
                                 _cell_error(g, p, value, i, c, int(rj[x]), int(cj[y]))))
    return out


def _cell_error(g: View, p: View, value: np.ndarray | None, i: int, c: int, pi: int, pc: int) -> str:
    """One body cell's error: moved elsewhere, missing, or read as something else."""
    shown = g.body_shown[i][c]
    where = f"({g.row_shown[i]}, {g.col_shown[c]})"
    got = p.body[pi][pc]
    if value is not None:
        flat = value[i, c].reshape(-1)
    else:
        flat = similarity_matrix([g.body[i][c]], [t for row in p.body for t in row]).reshape(-1)
    best = int(np.argmax(flat))
    bi, bc = divmod(best, len(p.col_keys))
    if flat[best] >= 0.999 and g.body[i][c] != NULL and (bi != pi or bc != pc):
        return f"value '{shown}' under {where} moved to ({p.row_shown[bi]}, {p.col_shown[bc]})"
    if got == NULL:
        return f"value '{shown}' under {where} missing"
    if numbers(g.body[i][c]) != numbers(got):
        return f"value {shown} under {where} read as {p.body_shown[pi][pc]}"
    return f"'{shown}' under {where} read as '{p.body_shown[pi][pc]}'"
