"""A cell-level diff of the semantic score's best reading, as compact plain data for results.json.

The score aligns the prediction's rows and columns with the ground truth's (`semantic_align`);
this keeps that alignment in a form a report can draw without scoring again: every ground-truth
body cell as equal / changed / missing, and the prediction's rows and columns the alignment left
unpaired as extra. A table the prediction reproduces keeps only its counts (most tables, most of
the size), and a large one keeps only counts too, so results.json grows little per table.
"""

from __future__ import annotations

from tablebench.metrics.tables.semantic_align import Alignment
from tablebench.metrics.tables.semantic_causes import SAME_VALUE
from tablebench.metrics.tables.semantic_text import NULL

MAX_CELLS = 800  # ground-truth plus extra cells kept in full; above: counts only
MAX_TEXT = 60  # characters of one cell's text kept


def cell_diff(a: Alignment | None, n_gt_facts: int = 0) -> dict:
    """{"counts": {equal, changed, missing, extra}} plus, when anything differs and the table is
    small, the grid: "cols" (header paths), "rows" (row keys), "gt" (body texts), "st" (a string of
    '=' '~' '-' per row), "pred" ({"r,c": the prediction's text} for changed cells), "xcols",
    "x" ({"r": extra-column texts}) and "xrows" (texts in ground-truth column order, then extra columns)."""
    if a is None:  # nothing read: every ground-truth fact is missing
        return {"counts": {"equal": 0, "changed": 0, "missing": n_gt_facts, "extra": 0}}
    g, p = a.g, a.p
    # a row paired with another row in its place (the score names it lost) shows as missing, and
    # the row in its place as extra
    row_of = {i: j for i, j in zip(a.ri.tolist(), a.rj.tolist()) if i not in a.dead}
    col_of = dict(zip(a.ci.tolist(), a.cj.tolist()))
    k_of = {i: k for k, i in enumerate(a.ri.tolist())}
    l_of = {c: ll for ll, c in enumerate(a.ci.tolist())}
    similarity = a.cell_v.tolist()  # indexed per cell below: lists, not numpy scalars
    st_rows: list[str] = []
    changed: dict[str, str] = {}
    counts = {"equal": 0, "changed": 0, "missing": 0, "extra": 0}
    for i, row in enumerate(g.body):
        marks = []
        for c, text in enumerate(row):
            j, cj = row_of.get(i), col_of.get(c)
            pred = p.body[j][cj] if j is not None and cj is not None else None
            if pred is None or (pred == NULL and text != NULL):
                mark = "-"
            elif similarity[k_of[i]][l_of[c]] >= SAME_VALUE or pred == text:
                mark = "="
            else:
                mark = "~"
                changed[f"{i},{c}"] = _cut(p.body_shown[j][cj])
            counts[{"-": "missing", "=": "equal", "~": "changed"}[mark]] += 1
            marks.append(mark)
        st_rows.append("".join(marks))
    paired_cols, paired_rows = set(a.cj.tolist()), set(row_of.values())
    x_cols = [c for c in range(len(p.col_keys)) if c not in paired_cols]
    x_rows = [j for j in range(len(p.body)) if j not in paired_rows]
    extra_in_rows = {str(i): [_cut(p.body_shown[j][c]) for c in x_cols] for i, j in row_of.items() if x_cols}
    extra_rows = [[_cut(p.body_shown[j][col_of[c]]) if c in col_of else "" for c in range(len(g.col_keys))]
                  + [_cut(p.body_shown[j][c]) for c in x_cols] for j in x_rows]
    counts["extra"] = sum(p.body[j][c] != NULL for j in x_rows for c in range(len(p.col_keys))) + \
        sum(p.body[j][c] != NULL for j in row_of.values() for c in x_cols)
    out: dict = {"counts": counts}
    size = sum(len(r) for r in g.body) + sum(len(r) for r in extra_rows) + len(x_cols) * len(row_of)
    if counts["changed"] + counts["missing"] + counts["extra"] == 0 or size > MAX_CELLS:
        return out
    out.update({"cols": [_cut(t) for t in g.col_shown], "rows": [_cut(t) for t in g.row_shown],
                "gt": [[_cut(t) for t in row] for row in g.body_shown], "st": st_rows, "pred": changed,
                "xcols": [_cut(p.col_shown[c]) for c in x_cols],
                "x": {k: v for k, v in extra_in_rows.items() if any(v)}, "xrows": extra_rows})
    return out


def _cut(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 1] + "…"
