"""The semantic score's causes in words: each names what differs, never a text compared with itself.

`semantic_align` counts the causes; this module words the ones whose text needs the most
looking up (values that cannot be attributed, wrong or moved values).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tablebench.metrics.tables.semantic_struct import View
from tablebench.metrics.tables.semantic_text import NULL, numbers, similarity_matrix

_TIE = 1e-9
# Two cells at least this similar read as the same value (equal in the cell diff, no cause of error;
# a header this like its own names the same column). One decision, compared two ways as its callers
# always have: `v >= SAME_VALUE` and `1 - v > SAME_VALUE_GAP`. At v == 0.999 exactly they disagree
# (1 - v is 0.0010000000000000009): such a cell is equal in the diff and a wrong value among the
# causes. Kept, as both reach results.json.
SAME_VALUE_GAP = 0.001
SAME_VALUE = 1.0 - SAME_VALUE_GAP  # == 0.999 as a float too


# The longest text a cause keeps: it quotes the tables' own labels and values, and a hostile or broken
# extraction (a 100 KB header cell) must not make every error message and report card that long.
MAX_TEXT = 300


@dataclass(slots=True)
class Cause:
    """One thing a reader would name: which feature it counts toward, by how much, in words (at
    most `MAX_TEXT` characters: what is cut is marked with an ellipsis)."""

    feature: str
    amount: float
    text: str

    def __post_init__(self) -> None:
        if len(self.text) > MAX_TEXT:
            self.text = self.text[:MAX_TEXT - 1] + "…"


def unattributed_cause(g: View, p: View, ri: np.ndarray, rj: np.ndarray, ci: np.ndarray, cj: np.ndarray,
                  row_loss: np.ndarray, col_loss: np.ndarray, row_key: np.ndarray, col_key: np.ndarray,
                  share: float, row_attached: np.ndarray, col_attached: np.ndarray,
                  attached: list[Cause]) -> list[Cause]:
    """One cause for all values that cannot be (fully) attributed, named by the label that loses
    most among those not attached to another's label (when there is none, by the first
    attachment: the same words, listed once)."""
    col_loss = np.where(col_attached, 0.0, col_loss)
    row_loss = np.where(row_attached, 0.0, row_loss)
    if not col_loss.any() and not row_loss.any():
        text = attached[0].text if attached else "values stand under the labels of other rows/columns"
        return [Cause("unattributed", share, text)]
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
    own = p.col_keys if kind == "column" else p.row_keys
    if key[c, d] >= 0.5 and not alike and own.count(own[d]) > 1:
        return [Cause("unattributed", share, f"{kind} label '{label}' given to two {kind}s the table tells apart: "
                                             f"their values cannot be attributed{more}{pct}")]
    if key[c, d] < 0.5 or not alike:
        return [Cause("unattributed", share, f"{kind} '{shown[c]}' read as '{label}': its values cannot be "
                                             f"attributed{more}{pct}")]
    names = " or ".join(f"'{shown[k]}'" for k in [c, *alike[:2]])
    return [Cause("unattributed", share, f"{kind} '{label}' is ambiguous: it may be {names}{more}{pct}")]


def level_shown(g: View, c: int, lost: frozenset[str]) -> str:
    """The level of column `c`'s path (as shown) holding the words `lost`; the whole path if none does."""
    shown_levels = [g.title_shown, *g.col_shown[c].split(" / ")] if g.title_shown else g.col_shown[c].split(" / ")
    keys = [g.title, *(g.col_levels[c] if g.col_levels else ())] if g.title else list(g.col_levels[c] if g.col_levels else ())
    for key, shown in zip(keys, shown_levels):
        if lost & set(key.split()):
            return shown
    return g.full_shown(c)


def value_causes(g: View, p: View, value: np.ndarray | None, ri: np.ndarray, rj: np.ndarray, ci: np.ndarray,
                  cj: np.ndarray, cell_v: np.ndarray, dead: set[int]) -> list[Cause]:
    """Wrong, moved or missing values cell by cell, each one error however alike its text (a reader
    counts a wrong character as a wrong cell; how much of the table is right is the `share`
    feature's); a row with another row in its place is one cause."""
    out = []
    wrong = [(x, y) for x, i in enumerate(ri.tolist()) if i not in dead
             for y in np.flatnonzero(1.0 - cell_v[x] > SAME_VALUE_GAP).tolist()]
    if value is None and wrong:  # large tables: every wrong cell against every predicted cell, in one call
        rows = similarity_matrix([g.body[int(ri[x])][int(ci[y])] for x, y in wrong], [t for row in p.body for t in row])
        against = dict(zip(wrong, rows))
    for x, i in enumerate(ri.tolist()):
        shortfall = 1.0 - cell_v[x]
        if i in dead:
            j = int(rj[x])
            out.append(Cause("values", float(shortfall.sum()), f"row '{g.row_shown[i] or g.body_shown[i][0]}' "
                             f"missing; in its place row '{p.row_shown[j] or p.body_shown[j][0]}'"))
            continue
        for y, c in enumerate(ci.tolist()):
            if shortfall[y] > SAME_VALUE_GAP:
                flat = value[i, c].reshape(-1) if value is not None else against[x, y]
                out.append(Cause("values", 1.0, _cell_error(g, p, flat, i, c, int(rj[x]), int(cj[y]))))
    return out


def _cell_error(g: View, p: View, flat: np.ndarray, i: int, c: int, pi: int, pc: int) -> str:
    """One body cell's error (`flat`: its similarity with every predicted body cell): moved
    elsewhere, missing, or read as something else."""
    shown = g.body_shown[i][c]
    where = f"({g.row_shown[i]}, {g.col_shown[c]})"
    got = p.body[pi][pc]
    best = int(np.argmax(flat))
    bi, bc = divmod(best, len(p.col_keys))
    if flat[best] >= SAME_VALUE and g.body[i][c] != NULL and (bi != pi or bc != pc):
        row, col = p.row_shown[bi], p.col_shown[bc]
        if (row, col) == (g.row_shown[i], g.col_shown[c]):  # two rows or columns of one name: say which
            return (f"value '{shown}' under {where} moved to another of that name: the extraction's body row {bi + 1}, "
                    f"column {bc + 1}, not body row {pi + 1}, column {pc + 1}")
        return f"value '{shown}' under {where} moved to ({row}, {col})"
    if got == NULL:
        return f"value '{shown}' under {where} missing"
    if numbers(g.body[i][c]) != numbers(got):
        return f"value {shown} under {where} read as {p.body_shown[pi][pc]}"
    return f"'{shown}' under {where} read as '{p.body_shown[pi][pc]}'"
