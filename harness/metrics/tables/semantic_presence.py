"""Whether the extraction's text shows a reader what the table needs, and what is not the table's.

Checks of the comparison (`semantic_align.count_differences`) that look at the text itself, not at the
aligned cells: whether the header labels a reader of lines of text needs stand above the rows
(`unlabelled`: without markup nothing else maps a value to its column), which rows hold text
foreign to the table (`foreign_rows`: prose or a caption a parser wrote among the rows), and how
much of the table's text is nowhere in the extraction and of the extraction's is not the table's
(`text_causes`: features `absent` and `invented`). The ground truth says what should be there; it
never chooses how the text is read.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from tablebench.metrics.tables.semantic_causes import Cause
from tablebench.metrics.tables.semantic_struct import View
from tablebench.metrics.tables.semantic_text import NULL
from tablebench.readers.textnorm import fold_case

FLOOR = 1e-3  # the least share a feature takes a log of (F1, text there): -log(0.001) ~ 6.9, far past any score


def foreign_rows(g: View, p: View, midpoint: float) -> list[bool]:
    """Per predicted body row: whether its text is foreign to the table (a share of its words
    anywhere in the ground truth below `midpoint`, `semantic.Params.midpoint`): prose or a caption
    a parser wrote among the rows."""
    words = {w for row in g.body for t in row for w in t.split()} | {w for k in g.col_keys for w in k.split()} \
        | set(g.title.split()) | {w for k in g.row_keys for w in k.split()}
    out = []
    for row in p.body:
        own = [w for t in row for w in t.split() if w != NULL]
        out.append(bool(own) and sum(w in words for w in own) < midpoint * len(own))
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


def _text_pieces(v: View, title: bool = False, rows: bool = False, every: bool = False) -> Counter:
    """The character pairs of every text a reader sees in `v`, white space dropped within each text:
    what a reader can find whatever the cell boundaries (`CombinedScore` holds `Combined Score`'s
    pairs), so only text that is nowhere counts. Header labels count once each, as written once
    (a group label spans its columns; written over each of them, or once, it is one label); the
    body counts every cell, a text repeated in the next slot of its row or of its column once (a
    span the grid spread, or a value written over each column or row it spans: a group label
    written once above its rows is all there); letter case is not told apart (`X0` flattened from
    `X_0` reads `x0` as often); the title (a caption row over the table) only with `title`. With
    `rows`, each header level and each body row is one text read along it (`_along`), so pairs
    across a cell boundary count too. With `every`, a body cell that repeats the one above it counts
    again (a value the table states in each of its rows, as the table writes it). A one-character
    text counts its character."""
    head = [v.title] if title else []
    if rows:
        depth = max((len(levels) for levels in v.col_levels or []), default=0)
        levels = [_along([lv[d] if d < len(lv) else "" for lv in v.col_levels or []]) for d in range(depth)]
        texts = [*head, *(levels or [_along(v.col_keys)]),
                 *(_along([cell if every or not _repeated_below(v, r, i) else "" for i, cell in enumerate(row)])
                   for r, row in enumerate(v.body))]
    else:
        labels = {level for lv in (v.col_levels or []) for level in lv} or set(v.col_keys)
        texts = [*head, *sorted(labels), *(cell for r, row in enumerate(v.body) for i, cell in enumerate(row)
                                           if (i == 0 or cell != row[i - 1]) and (every or not _repeated_below(v, r, i)))]
    pieces: Counter = Counter()
    for text in texts:
        s = "".join(fold_case(text).split())
        pieces.update([s] if len(s) == 1 else (s[i:i + 2] for i in range(len(s) - 1)))
    return pieces


def _repeated_below(v: View, r: int, i: int) -> bool:
    """Whether body cell (r, i) repeats the cell above it (a span the grid spread down its rows)."""
    return r > 0 and i < len(v.body[r - 1]) and v.body[r][i] == v.body[r - 1][i]


def _along(texts: list[str]) -> str:
    """A row of texts read along, left to right: a text repeated in the next slot once, blanks and
    null markers dropped."""
    kept = [t for i, t in enumerate(texts) if t and t != NULL and (i == 0 or t != texts[i - 1])]
    return "".join(kept)


def text_overlap(g: View, p: View) -> tuple[float, float]:
    """The share of the ground truth's text (`_text_pieces`) that the prediction holds anywhere, and
    the share of the prediction's text that is the table's. A reader who sees a third of a table can
    reconstruct at most a third of it, however well the rest is read; text that is not the table's
    (a page's prose run into its lines, another table's header) is there to be told apart from it.
    A title names the table and maps no value: never required, never invented, but where it stands
    (a caption on one side, a group label on the other) it is the table's text. A value the table
    states in each of its rows (`Paper` beside every page) is needed once but is the table's text as
    often as the table writes it, and the pairs across two of a row's cells are its text too (`Oak
    fits` from `Oak | fits spec`): lines a reading splits otherwise than the table do not make them
    foreign."""
    want, have = _text_pieces(g), _text_pieces(p)
    found = _text_pieces(p, title=True) | _text_pieces(p, title=True, rows=True)  # in its cells or along its rows
    seen = sum((want & found).values()) / max(sum(want.values()), 1) if want else 1.0
    table = _text_pieces(g, title=True, every=True) | _text_pieces(g, title=True, rows=True, every=True)
    own = sum((table & have).values()) / max(sum(have.values()), 1) if have else 1.0
    return seen, own


def text_causes(g: View, p: View) -> list[Cause]:
    """`absent` and `invented` (`text_overlap`), each `-log` of the share that is there: a third of
    the table's text seen costs what two thirds lost cost a reader, whatever the cells hold."""
    seen, own = text_overlap(g, p)
    causes = []
    if seen < 1.0:
        causes.append(Cause("absent", float(-np.log(max(seen, FLOOR))),
                            f"{1 - seen:.0%} of the table's text is nowhere in the extraction"))
    if own < 1.0:
        causes.append(Cause("invented", float(-np.log(max(own, FLOOR))),
                            f"{1 - own:.0%} of the extraction's text is not the table's"))
    return causes
