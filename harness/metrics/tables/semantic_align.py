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
  is the same path and costs nothing; group labels written once over blank cells (what a
  format that cannot span does to every one of them) are one cause, however many labels;
- `attached`: rows or columns whose values stand under a label that names another ground-truth
  row or column better, one per displacement (labels shifted by one column over five columns
  are one mistake; two swapped labels are two);
- `unattributed`: the share of the ground truth's values whose key (row path, column path) a
  reader of the prediction can no longer recover, each value by how much of its key is lost
  (`_key_loss`). All of it where the predicted label is missing, garbled so that it names its
  own less than half, names two or more ground-truth rows/columns equally well ("Set A" where
  the ground truth has "Train / Set A" and "Test / Set A"), is given to two rows/columns
  the ground truth tells apart, or names another one (the values above, attached elsewhere);
  otherwise the share of the path's levels no longer found in the predicted path (a group
  label lost or garbled over some columns takes part of the key of every value under them,
  less than where the leaves become ambiguous). One structural mistake is one cause whose
  weight grows with the values it affects;
- `unlabelled` (lines of text only): the share of the value columns whose header label is not
  above the rows (`semantic_presence.unlabelled`): without markup nothing else maps a value;
- `emphasis`: each emphasised span the prediction adds over the ground truth (`semantic_emphasis`);
- `share`: -log of the soft F1 over all facts (cells and column header paths; a path counts
  as right when its words are, so a lost level is not a wrong fact in every column), so a
  table mostly wrong is scored as such whatever its count of causes;
- `absent`, `invented`: -log of the share of the table's text found anywhere in the extraction,
  and of the extraction's text that is the table's (`semantic_presence.text_causes`).

A row of text foreign to the table (`foreign_text`, `ALIGN_RULES`; `semantic_presence`) in a
row's place is a row lost and a text invented; among the rows, a text invented.

These are the features the score combines (`semantic.Params`); `Cause` keeps each in words.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from rapidfuzz.distance import LCSseq

from tablebench.core.assignment import linear_sum_assignment
from tablebench.metrics.tables.semantic_causes import SAME_VALUE, Cause, level_shown, unattributed_cause, value_causes
from tablebench.metrics.tables.semantic_presence import FLOOR, foreign_rows, text_causes, unlabelled
from tablebench.metrics.tables.semantic_struct import View
from tablebench.metrics.tables.semantic_text import NULL, key_similarity_matrix, normalize, shared_cells, similarity_matrix

FEATURES = ("share", "values", "lines", "headers", "attached", "unattributed", "unlabelled", "emphasis", "absent",
            "invented", "spacing", "spans")
# The comparison's rules beyond aligning and counting (`tablebench meta-eval --ablation` removes each
# in turn, with the reading rules of `semantic_read`).
ALIGN_RULES = ("foreign_text",)
NOTE = "note"  # a cause that names what a reader sees and costs nothing (not one of FEATURES)
# Cell pairs (gt body cells x pred body cells) up to which every cell is compared with every
# cell to align rows; beyond it (about 500 cells a side) rows are aligned on their labels and the
# cells they share exactly, and cells are compared only within aligned rows. A bound for speed:
# beyond it, rows no label tells apart whose cells are all written otherwise (0.140 as 0.14) may
# align otherwise than a reader aligns them.
FULL_COMPARISON = 250_000
_TIE = 1e-9


@dataclass(slots=True)
class Differences:
    """One reading of the prediction against the ground truth: its features and their causes."""

    features: np.ndarray  # per FEATURES
    causes: list[Cause] = field(default_factory=list)
    f1: float = 0.0
    recall: float = 0.0
    precision: float = 0.0
    n_gt: int = 0
    n_pred: int = 0
    alignment: Alignment | None = None  # how the reading was aligned (what a cell-level diff shows)


@dataclass(slots=True)
class Alignment:
    """The row and column pairs `count_differences` chose and each paired cell's similarity (0-1): kept
    so a report can colour cells as the score saw them without aligning again."""

    g: View
    p: View
    ri: np.ndarray
    rj: np.ndarray
    ci: np.ndarray
    cj: np.ndarray
    cell_v: np.ndarray  # [k, l]: similarity of g.body[ri[k]][ci[l]] and p.body[rj[k]][cj[l]]
    dead: frozenset[int] = frozenset()  # ground-truth rows paired with a row that is another (`_lost_lines`)


def nothing_read(n_gt: int) -> Differences:
    """The differences of a prediction with no cells: nothing is right."""
    features = np.zeros(len(FEATURES))
    features[FEATURES.index("share")] = -np.log(FLOOR)
    return Differences(features, [Cause("share", 1.0, "the prediction has no cells")], 0.0, 0.0, 0.0, n_gt, 0)


def as_lines(differences: Differences, n_lines: int) -> Differences:
    """`differences` of a reading whose grid a reader rebuilt from lines of text, with a note that
    says so (`NOTE`: named for the reader of the errors, charged nothing itself; what the reading
    got wrong is charged as what it is)."""
    note = Cause(NOTE, 0.0, f"no cell boundaries: the table is {n_lines} lines of text, "
                            "split into cells here by their own regularity")
    return Differences(differences.features, [*differences.causes, note], differences.f1, differences.recall,
                       differences.precision, differences.n_gt, differences.n_pred, differences.alignment)


def count_differences(g: View, p: View, blank: int, key_weight: float, undelimited: bool = False,
                      rules: frozenset[str] = frozenset(ALIGN_RULES), *, midpoint: float) -> Differences:
    """Align `p` with `g` and count their differences by cause (see the module docstring).

    `blank` counts blank rows/columns the prediction has beyond the ground truth's. `undelimited`:
    `p` was rebuilt from lines of text (`semantic_lines`). `rules`: the comparison's rules
    (`ALIGN_RULES`) it counts by, all but for an ablation. `midpoint` (`semantic.Params.midpoint`,
    fitted): the likeness below which a label names nothing, a row is another row in its place and
    a line is text foreign to the table.
    """
    texts = text_causes(g, p)  # what of the whole text is absent or not the table's, whatever the cells and rows
    g, p = _without_group_rows(g, p), _without_group_rows(p, g)
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
            content = shared_cells(g.body, p.body)
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
    rows = _attribution(row_key, ri, rj, g.row_keys, p.row_keys, midpoint, g.row_levels)
    cols = _attribution(col_key, ci, cj, g.col_keys, p.col_keys, midpoint)

    # lost and invented rows and columns: one each
    foreign = foreign_rows(g, p, midpoint) if "foreign_text" in rules else None
    dead = _lost_lines(g, p, ri, rj, ci, cj, pair_value, rows[0], causes, midpoint, foreign, undelimited)
    if blank > 0:
        causes.append(Cause("lines", float(blank), f"{blank} blank row{'s' if blank > 1 else ''} or column"
                                                   f"{'s' if blank > 1 else ''} not in the table"))
    # one label given to rows/columns the ground truth tells apart: their values are not attached
    # to a wrong label, they cannot be attributed at all (below)
    row_twins, col_twins = _collides(g.row_keys, p.row_keys, ri, rj), _collides(g.col_keys, p.col_keys, ci, cj)
    # values under labels that name other rows/columns
    attached = _attached(g.row_shown, p.row_shown, row_key, ri, rj, rows[1] & ~row_twins, "row", dead) + \
        _attached(g.col_shown, p.col_shown, col_key, ci, cj, cols[1] & ~col_twins, "column", set())
    causes += attached
    # values whose row or column key a reader can no longer recover (or recovers as another's),
    # by the share of values affected
    row_loss = _key_loss(g.row_levels or [], g.row_keys, p.row_keys, p.row_keys, ri, rj, rows[2] | rows[1] | row_twins)
    # a row label only attributes the row's other values: none (one column of labels) or a row
    # already counted as replaced by another leaves nothing to attribute
    row_loss[[i in dead or cg <= g.stub_cols for i in ri.tolist()]] = 0.0
    col_loss = _key_loss(g.col_levels or [], g.col_keys, p.col_keys, [f"{p.title} {k}" for k in p.col_keys],
                         ci, cj, cols[2] | cols[1] | col_twins)
    share = _unattributed_share(g, ri, ci, row_loss, col_loss)
    if share > 0:
        causes += unattributed_cause(g, p, ri, rj, ci, cj, row_loss, col_loss, row_key, col_key, share,
                                rows[1] & ~row_twins, cols[1] & ~col_twins, attached)
    # header text: grouped by the words that differ
    head_agree, head_causes = _headers(g, p, ci, cj, cols[1])
    causes += head_causes
    # values, cell by cell
    causes += value_causes(g, p, value, ri, rj, ci, cj, cell_v, dead)
    if undelimited:
        causes += unlabelled(g, p, rj)

    agree = float(cell_v.sum()) + head_agree
    n_g, n_p = g.n_facts, p.n_facts + max(blank, 0)
    f1 = 2.0 * agree / (n_g + n_p) if n_g + n_p else 1.0
    features = np.zeros(len(FEATURES))
    causes += texts
    for cause in causes:
        features[FEATURES.index(cause.feature)] += cause.amount  # count_differences makes no NOTE
    features[FEATURES.index("share")] = -np.log(max(f1, FLOOR))
    return Differences(features, causes, f1, agree / max(n_g, 1), agree / max(n_p, 1), n_g, n_p,
                       Alignment(g, p, ri, rj, ci, cj, cell_v, frozenset(dead)))


def _without_group_rows(v: View, other: View) -> View:
    """`v` without its rows that only group the rows below them where `other` groups them in its
    stub: a label on a row of its own (a section row: no value right of the stub) that is the
    first level of the rows below it, and that `other` has as the first level of its rows but not
    as a row of its own. A label set above its rows or beside them in a spanning stub cell says
    the same thing to a reader; the row it stands on is not a row of the table."""
    if not v.row_levels or not other.row_levels:
        return v
    outer = {lv[0] for lv in other.row_levels if len(lv) > 1}
    own = {lv for lv in other.row_levels if len(lv) == 1}
    drop = [r for r, lv in enumerate(v.row_levels)
            if len(lv) == 1 and lv[0] in outer and lv not in own and r + 1 < len(v.row_levels)
            and v.row_levels[r + 1][:1] == lv and all(t == NULL for t in v.body[r][v.stub_cols:])]
    if not drop:
        return v
    keep = [r for r in range(len(v.body)) if r not in set(drop)]
    pick = lambda xs: [xs[r] for r in keep]  # noqa: E731
    return replace(v, row_keys=pick(v.row_keys), row_shown=pick(v.row_shown), body=pick(v.body),
                   body_shown=pick(v.body_shown), row_levels=pick(v.row_levels))


def _attribution(key: np.ndarray, gi: np.ndarray, pj: np.ndarray, g_keys: list[str], p_keys: list[str],
                 midpoint: float, g_levels: list[tuple[str, ...]] | None = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per aligned pair: how well the predicted label names its ground-truth row/column; whether
    it names another one better (attached elsewhere); whether it names none (an empty label
    where the ground truth has one, or one less like its own than `midpoint`: garbled beyond
    recognition) or another one, labelled differently in the ground truth, as well (unattributed). A label naming a row's whole path names that row, not a section
    above it (`g_levels`: a section's path is the start of its rows' paths)."""
    sim = key[gi, pj]
    attached = np.zeros(len(gi), dtype=bool)
    unattributed = np.zeros(len(gi), dtype=bool)
    g_arr = np.asarray(g_keys, dtype=object)
    exact = set(g_keys)
    by_path: dict[tuple[str, ...], list[int]] = {}
    for k, lv in enumerate(g_levels or ()):
        by_path.setdefault(lv, []).append(k)
    for x, (i, j) in enumerate(zip(gi.tolist(), pj.tolist())):
        if not g_keys[i]:
            continue
        column = key[:, j]
        if g_levels is not None:
            ancestors = [k for n in range(len(g_levels[i])) for k in by_path.get(g_levels[i][:n], ())]
            if ancestors:
                column = column.copy()
                column[ancestors] = 0.0
        if not p_keys[j]:  # the ground truth names it, the prediction does not
            unattributed[x] = True
        elif column.max() > sim[x] + _TIE:
            attached[x] = True
        elif sim[x] < midpoint:  # a label that names nothing recognisably (garbled)
            unattributed[x] = True
        elif p_keys[j] not in exact:  # a label the ground truth has names that one
            unattributed[x] = bool(((column >= sim[x] - _TIE) & (g_arr != g_keys[i])).any())
    return sim, attached, unattributed


def _diff(a: str, b: str) -> tuple[frozenset[str], frozenset[str]]:
    """The words of `a` not in `b` and of `b` not in `a`: what a reader sees changed."""
    wa, wb = set(a.split()), set(b.split())
    return frozenset(wa - wb), frozenset(wb - wa)


def _lost_lines(g: View, p: View, ri: np.ndarray, rj: np.ndarray, ci: np.ndarray, cj: np.ndarray,
                pair_value: np.ndarray, row_sim: np.ndarray, causes: list[Cause], midpoint: float,
                foreign: list[bool] | None = None, undelimited: bool = False) -> set[int]:
    """Rows and columns lost or invented, one cause each; returns the ground-truth rows that
    have no counterpart (aligned to a row that shares less than `midpoint` of both its label and
    its values with them: another row in its place).

    With `foreign` (per predicted row: its text is not the table's, `semantic_presence.foreign_rows`): a row whose
    place holds foreign text is a row lost and a text invented, as a reader sees them; and in
    lines of text (`undelimited`), a line of the table's own words aligned with no row is a piece
    of a row its reading broke off (what it lacks is charged as content), not an invented row."""
    row_of = dict(zip(ri.tolist(), rj.tolist()))
    dead = set()
    shared = pair_value[:, ci, cj].mean(axis=1) if len(ci) else np.zeros(len(ri))  # per row pair: its cells alike
    for x, (i, j) in enumerate(zip(ri.tolist(), rj.tolist())):
        if len(ci) and shared[x] < midpoint and row_sim[x] < midpoint:
            dead.add(i)  # another row in its place: its cells are counted as values, named as a row here
            if foreign is not None and foreign[j]:
                causes.append(Cause("lines", 2.0, f"row '{g.row_shown[i] or g.body_shown[i][0]}' missing; in its "
                                                  f"place row '{p.row_shown[j] or p.body_shown[j][0]}'"))
    for i in range(len(g.body)):
        if i not in row_of:
            causes.append(Cause("lines", 1.0, f"row '{g.row_shown[i] or g.body_shown[i][0]}' missing"))
    aligned = set(rj.tolist())
    for j in range(len(p.body)):
        if j in aligned:
            continue
        text = p.row_shown[j] or p.body_shown[j][0]
        if foreign is not None and foreign[j]:
            causes.append(Cause("lines", 1.0, f"text not in the table: '{text}'"))
        elif foreign is None or not undelimited:
            causes.append(Cause("lines", 1.0, f"row '{text}' is not in the table"))
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


def _collides(g_keys: list[str], p_keys: list[str], gi: np.ndarray, pj: np.ndarray) -> np.ndarray:
    """Per aligned pair: its predicted label is also the label of a row/column aligned with a
    ground-truth row/column labelled differently ("Set A" twice where the ground truth has
    "Train / Set A" and "Test / Set A"): a reader cannot tell the two apart."""
    owner: dict[str, set[str]] = {}
    for i, j in zip(gi.tolist(), pj.tolist()):
        if p_keys[j] and g_keys[i]:
            owner.setdefault(p_keys[j], set()).add(g_keys[i])
    return np.asarray([bool(g_keys[i]) and len(owner.get(p_keys[j], ())) > 1 for i, j in zip(gi.tolist(), pj.tolist())],
                      dtype=bool)


def _key_loss(g_levels: list[tuple[str, ...]], g_keys: list[str], p_keys: list[str], p_paths: list[str],
              gi: np.ndarray, pj: np.ndarray, lost: np.ndarray) -> np.ndarray:
    """Per aligned pair: how much of the ground truth's key (row or column path) a reader of the
    prediction can no longer recover, in [0, 1]. All of it when the label is missing, garbled,
    names several ground-truth keys alike, is given to two rows/columns the ground truth tells
    apart, or names another row/column better (`lost`, see `_attribution` and `_collides`: a
    value attached to another's label is not attributed to its own). Otherwise the share of
    the key's levels a reader no longer finds in the predicted path (`_level_found`): a group
    label lost or garbled over a column takes its part of the key from every value under it,
    even where the leaves stay unique (then less than when they become ambiguous)."""
    out = np.zeros(len(gi))
    for x, (i, j) in enumerate(zip(gi.tolist(), pj.tolist())):
        if not g_keys[i]:
            continue
        if lost[x]:
            out[x] = 1.0
        elif i < len(g_levels) and g_keys[i] != p_keys[j]:
            out[x] = float(np.mean([1.0 - _level_found(lv, p_paths[j]) for lv in g_levels[i]] or [0.0]))
    return out


def _level_found(level: str, path: str) -> float:
    """How surely a reader finds one header level in a predicted path, in [0, 1]: the share of its
    characters the path holds in order (LCS)."""
    a, b = level.replace(" ", ""), path.replace(" ", "")
    if not a:
        return 1.0
    return min(1.0, LCSseq.similarity(a, b) / len(a))


def _unattributed_share(g: View, ri: np.ndarray, ci: np.ndarray, row_loss: np.ndarray, col_loss: np.ndarray) -> float:
    """The share of the ground truth's values (cells right of the stub columns in rows that hold
    any; all cells when there are none) whose key a reader cannot recover, each by how much of
    it is lost: a value needs both its row's and its column's key."""
    rg, cg = len(g.body), len(g.col_keys)
    if not rg or not cg:
        return 0.0
    r = np.zeros(rg)
    c = np.zeros(cg)
    r[ri] = row_loss
    c[ci] = col_loss
    lost = 1.0 - (1.0 - r)[:, None] * (1.0 - c)[None, :]
    if cg > g.stub_cols:
        # rows holding no value (a section row, a row of labels only) have nothing to attribute
        holding = [i for i, row in enumerate(g.body) if any(t != NULL for t in row[g.stub_cols:])]
        lost = lost[holding, g.stub_cols:] if holding else lost[:, g.stub_cols:]
    return float(lost.mean())


def _seen_alike(a: str, b: str) -> bool:
    """Whether two header paths show a reader the same text (markup and spacing aside)."""
    return normalize(a).replace(" ", "") == normalize(b).replace(" ", "")


def _headers(g: View, p: View, ci: np.ndarray, cj: np.ndarray, attached: np.ndarray) -> tuple[float, list[Cause]]:
    """Agreement of aligned column header paths (facts, title included), and their misreadings
    grouped by the words that differ. A header the prediction lacks altogether is an
    unattributed column (see `semantic_causes.unattributed_cause`), not a misreading."""
    if not len(ci):
        return 0.0, []
    gk = [g.full_key(c) for c in ci.tolist()]
    pk = [p.full_key(d) for d in cj.tolist()]
    left, right = [k or NULL for k in gk], [k or NULL for k in pk]
    text = similarity_matrix(left, right)
    # as a fact, a header path is right when its words are (a lost or moved level is one cause below,
    # not a wrong fact in every column)
    fact = key_similarity_matrix(left, right, text)
    agree = 0.0
    own = {c: set(g.col_keys[c].split()) for c in ci.tolist() if g.col_keys[c]}
    groups: dict[tuple, list[tuple[int, int, float, tuple[int, ...]]]] = {}
    for y, (c, d) in enumerate(zip(ci.tolist(), cj.tolist())):
        if not gk[y]:
            continue
        q = float(text[y, y]) if pk[y] else 0.0
        agree += float(fact[y, y]) if pk[y] else 0.0
        if q < SAME_VALUE and not attached[y] and p.col_keys[d]:
            lost, added = _diff(gk[y], pk[y])
            mine = own.get(c, set())  # a column named by the title alone has no words of its own
            merged = tuple(sorted(k for k, w in own.items() if k != c and w - mine and w <= added | mine))
            # the texts of several header cells written into one ("Team Coverage Team") is one cause
            key = ("merged", pk[y], frozenset()) if merged else ("differ", lost, added)
            groups.setdefault(key, []).append((c, d, q, merged))
    causes = []
    once: list[tuple[float, str]] = []  # group labels written once over blank cells: (shortfall, label)
    for (kind, lost, added), members in groups.items():
        c, d, _, merged = members[0]
        worst = 1.0 - min(m[2] for m in members)
        # a column whose header path a reader sees as written in the ground truth: its label was written once
        seen_alike = [_seen_alike(g.full_shown(m[0]), p.full_shown(m[1])) for m in members]
        if kind != "merged" and all(seen_alike):
            once.append((worst, level_shown(g, c, lost)))
            continue
        if kind == "merged":
            names = ", ".join(f"'{n}'" for n in list(dict.fromkeys(g.col_shown[k] for k in sorted({c, *merged})))[:4])
            words = f"header cells {names} merged into one cell: '{p.full_shown(d)}'"
            causes.append(Cause("headers", worst, words))
            continue
        c, d = next((m[0], m[1]) for m, alike in zip(members, seen_alike) if not alike)  # name one seen otherwise
        if lost and not added and len(members) > 1:
            words = f"header level lost over {len(members)} columns: '{g.full_shown(c)}' read as '{p.full_shown(d)}'"
        else:
            words = f"column header '{g.full_shown(c)}' read as '{p.full_shown(d)}'"
            if len(members) > 1:
                words += f" (and {len(members) - 1} more columns alike)"
        causes.append(Cause("headers", worst, words))
    if once:  # a format that cannot span writes every group label once: one misreading, however many labels
        labels = list(dict.fromkeys(label for _, label in once))
        named = ", ".join(f"'{label}'" for label in labels[:3]) + (f" and {len(labels) - 3} more" if len(labels) > 3 else "")
        they = "they head" if len(labels) > 1 else "it heads"
        causes.append(Cause("headers", max(w for w, _ in once), f"group header{'s' if len(labels) > 1 else ''} {named} "
                            f"written once over blank cells, not over each column {they}"))
    return agree, causes

