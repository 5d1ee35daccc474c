"""Whether the extraction's text shows a reader what the table needs, and what is not the table's.

Two checks of the comparison (`semantic_align.count_differences`) that look at the text itself, not at the
aligned cells: whether the header labels a reader of lines of text needs stand above the rows
(`unlabelled`: without markup nothing else maps a value to its column), and which rows hold text
foreign to the table (`foreign_rows`: prose or a caption a parser wrote among the rows). The ground
truth says what should be there; it never chooses how the text is read.
"""

from __future__ import annotations

import numpy as np

from tablebench.metrics.tables.semantic_causes import Cause
from tablebench.metrics.tables.semantic_struct import View
from tablebench.metrics.tables.semantic_text import NULL

# Midpoint, not tuned: a row with fewer than half of its words anywhere in the ground truth is
# text foreign to the table. 0.3 or 0.7 moves no cross-validated Pearson by more than 0.001
# (dev, dev2, judged pairs).
FOREIGN = 0.5


def foreign_rows(g: View, p: View) -> list[bool]:
    """Per predicted body row: whether its text is foreign to the table (fewer than `FOREIGN` of
    its words anywhere in the ground truth): prose or a caption a parser wrote among the rows."""
    words = {w for row in g.body for t in row for w in t.split()} | {w for k in g.col_keys for w in k.split()} \
        | set(g.title.split()) | {w for k in g.row_keys for w in k.split()}
    out = []
    for row in p.body:
        own = [w for t in row for w in t.split() if w != NULL]
        out.append(bool(own) and sum(w in words for w in own) < FOREIGN * len(own))
    return out


def unlabelled(g: View, p: View, rj: np.ndarray) -> list[Cause]:
    """The share of the ground truth's value columns whose header label is not where a reader of
    lines looks for it, above the rows (`header_zone`): in lines of text no markup shows which
    label heads which values, so without the labels no value can be mapped to its column, however
    the lines are read (a header row a parser dropped; a label that happens to be a value in some
    row names nothing). Empty when every label is there."""
    zone = header_zone(p, rj)
    levels = g.col_levels or [(k,) for k in g.col_keys]
    named = [c for c in range(g.stub_cols, len(g.col_keys)) if levels[c] and levels[c][-1]]
    absent = [c for c in named if levels[c][-1].replace(" ", "") not in zone]
    if not absent:
        return []
    some = ", ".join(f"'{g.col_shown[c].split(' / ')[-1]}'" for c in absent[:3])
    return [Cause("unlabelled", len(absent) / len(named),
                  f"header labels of {len(absent)} of {len(named)} value columns missing above the rows ({some}"
                  f"{', ...' if len(absent) > 3 else ''}): which column holds what cannot be told")]


def header_zone(p: View, rj: np.ndarray) -> str:
    """The text a reader of lines reads as the header: the title, the header rows and every row
    above the first row that stands for a ground-truth row, in order, without spaces."""
    first = int(rj.min()) if len(rj) else len(p.body)
    above = [t for row in p.body[:first] for t in row]
    return "".join(t.replace(" ", "") for t in (p.title, *p.col_keys, *above))
