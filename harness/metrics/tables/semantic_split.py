"""A table flattened to lines of text, split back into cells as a reader of it splits them.

Some parsers lose a table's grid and keep its text: one line per row, cells separated by
single spaces ("ResNet-50 76.1 93.0"). Read as a grid, that is a one-column table, every value
lost. A reader does better: knowing the table, they split each line into its cells by content
and find the values where they belong. The score does the same, and charges the lost grid
once, as its own cause (`semantic_align.undelimited`), not once per cell.

Each line is split against the ground-truth row it reads best as (the best split among the
rows sharing most of its words; consecutive lines read as the same row fill that one row, as a
row broken over lines or a label on a line of its own does): its words, in order, are cut
into consecutive pieces given one-to-one, in order, to that row's cells (`_best_split`, a
dynamic programme maximising the summed cell similarity; every word goes somewhere, so
invented text stays visible as wrong values). A piece keeps a
multi-column span only when it is alone on its line (a title or section line reads as one);
among several pieces a reader cannot tell what a group header spans, so it covers one column
and the lost grouping costs what a lost header level costs. Nor can a reader see a blank cell
inside a row: the pieces after it are read as the next cells (`_in_reading_order`).
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

from harness.core.table import Cell, Table
from harness.metrics.tables.semantic_struct import Grid
from harness.metrics.tables.semantic_text import NULL, normalize, similarity_matrix

# Pieces longer than this, or than the row's longest cell and a word, are not compared (they still may
# take their words, alike to nothing); up to twice that when no wider than the widest cell: an
# extraction may set a subscript apart ("_P_ 1/ _P_ 1" for P₁/P₁).
MAX_PIECE_WORDS = 12
_MARKUP = re.compile(r"<[^>]{0,40}>|[_*]")  # what a word's width as a reader sees it leaves out
CANDIDATE_ROWS = 2  # ground-truth rows tried per line: those sharing the most words with it


def is_flattened(pred: Grid, gt: Grid) -> bool:
    """A prediction of one column and several rows against a ground truth of several columns."""
    return pred.shape[1] == 1 and pred.shape[0] >= 2 and gt.shape[1] >= 2


def split_lines(gt: Grid, lines: list[str]) -> Table:
    """`lines` (one table row each, as written) split into the ground truth's columns."""
    rows = [_row_cells(gt, r) for r in range(len(gt.cells))]
    vocabulary: dict[str, int] = {}
    for cells in rows:
        for _, _, t in cells:
            for w in t.split():
                vocabulary.setdefault(w, len(vocabulary))
    words_of_row = np.zeros((len(rows), len(vocabulary)))  # per ground-truth row: its words, counted
    for r, cells in enumerate(rows):
        for _, _, t in cells:
            for w in t.split():
                words_of_row[r, vocabulary[w]] += 1
    n_cols = gt.shape[1]
    out: list[list[Cell]] = []
    previous = -1  # the ground-truth row the previous line was read as
    for line in lines:
        words = line.split()
        if not words:
            continue
        counts = np.zeros(len(vocabulary))
        for w, k in Counter(normalize(line).split()).items():
            if w in vocabulary:
                counts[vocabulary[w]] = k
        shared = np.minimum(words_of_row, counts).sum(axis=1).tolist()  # words the line shares with each row
        order = sorted(range(len(rows)), key=lambda r: (-shared[r], r < previous, r))[:CANDIDATE_ROWS]
        splits = _best_splits(words, [rows[r] for r in order])
        k = max(range(len(order)), key=lambda k: (splits[k][0], shared[order[k]], order[k] >= previous, -order[k]))
        r = order[k]
        pieces = splits[k][1]
        if r != previous or not out:
            out.append([Cell("") for _ in range(n_cols)])
        slots = out[-1]  # lines read as one row (a row broken over lines, a label on its own line) fill one row
        alone = len(pieces) == 1
        pieces = _in_reading_order(pieces)
        for cell, text in pieces:
            start, width, _ = rows[r][cell]
            joined = f"{slots[start].text} {text}".strip()
            slots[start] = Cell(joined, colspan=max(slots[start].colspan, width if alone else 1))
        previous = r
    out = [_drop_covered(slots) for slots in out]
    return Table(out, fmt="lines-split")


def _row_cells(gt: Grid, r: int) -> list[tuple[int, int, str]]:
    """Ground-truth row `r` as its distinct cells: (first column, width, normalised text)."""
    ids = gt.ids[r] if gt.ids else list(range(len(gt.cells[r])))
    out: list[tuple[int, int, str]] = []
    for c, (i, text) in enumerate(zip(ids, gt.cells[r])):
        if out and c > 0 and ids[c - 1] == i:
            start, width, t = out[-1]
            out[-1] = (start, width + 1, t)
        else:
            out.append((c, 1, text))
    return out


def _best_splits(words: list[str], rows: list[list[tuple[int, int, str]]]
                 ) -> list[tuple[float, list[tuple[int, str]]]]:
    """`_best_split` of `words` against each of `rows`, the pieces read and compared once."""
    n = len(words)
    longest = max(len(t.split()) for cells in rows for _, _, t in cells)
    widest = max(len(t) - t.count(" ") for cells in rows for _, _, t in cells)  # a cell's characters
    ends = np.cumsum([0] + [len(_MARKUP.sub("", w)) for w in words]).tolist()  # characters a reader sees, cumulated
    # more words than the longest cell has: only a piece no wider than the widest cell (subscripts set apart)
    compared = [(a, b) for a in range(n) for b in range(a + 1, min(a + min(2 * longest + 1, MAX_PIECE_WORDS), n) + 1)
                if b - a <= longest + 1 or ends[b] - ends[a] <= widest]
    texts = [normalize(" ".join(words[a:b])) for a, b in compared]
    targets = [t if t else NULL for cells in rows for _, _, t in cells]
    sim = similarity_matrix(texts, targets)
    out = []
    first = 0
    for cells in rows:
        out.append(_best_split(words, compared, sim[:, first:first + len(cells)]))
        first += len(cells)
    return out


def _best_split(words: list[str], compared: list[tuple[int, int]], sim: np.ndarray
                ) -> tuple[float, list[tuple[int, str]]]:
    """The split of `words` into consecutive pieces, given in order to distinct cells (a cell
    may get none), that maximises the summed similarity; (that sum, [(cell index, piece)]).
    `sim[k, j]`: how alike piece `compared[k]` (words a..b-1) is to cell j; longer pieces may
    still take their words, alike to nothing."""
    n, m = len(words), sim.shape[1]
    # gain[j, a, b]: what giving words a..b-1 to cell j adds (-inf: no such piece)
    gain = np.full((m, n + 1, n + 1), -np.inf)
    a_idx, b_idx = np.triu_indices(n + 1, k=1)
    gain[:, a_idx, b_idx] = 0.0  # pieces too long to compare still may take their words
    if compared:
        ca, cb = np.asarray(compared).T
        gain[:, ca, cb] = sim.T
    # value[i, j]: best sum with the first i words given to the first j cells; start[i, j]:
    # where cell j-1's piece starts (i: it gets none)
    value = np.full((n + 1, m + 1), -np.inf)
    value[0, :] = 0.0
    start = np.zeros((n + 1, m + 1), dtype=int)
    for j in range(1, m + 1):
        through = value[:, j - 1][:, None] + gain[j - 1]
        a = through.argmax(axis=0)
        take = through[a, np.arange(n + 1)]
        keep = value[:, j - 1] >= take - 1e-12
        value[:, j] = np.where(keep, value[:, j - 1], take)
        start[:, j] = np.where(keep, np.arange(n + 1), a)
    pieces: list[tuple[int, str]] = []
    i, j = n, m
    while i > 0:
        a = int(start[i, j])
        if a < i:
            pieces.append((j - 1, " ".join(words[a:i])))
        i, j = a, j - 1
    return float(value[n, m]), pieces[::-1]


def _in_reading_order(pieces: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The pieces where a reader of the line puts them: a blank cell inside a row leaves no
    trace in a line of text, so the pieces after it read as the next cells in order (the
    values they hold then stand under other columns, and cost what that costs). Blank cells
    before or after the pieces (a row group's label written once, trailing blanks) are told
    by count and stay."""
    if not pieces:
        return pieces
    first = pieces[0][0]
    return [(first + k, text) for k, (_, text) in enumerate(pieces)]


def _drop_covered(slots: list[Cell]) -> list[Cell]:
    """A row of one cell per slot with the slots a colspan covers removed."""
    out: list[Cell] = []
    skip = 0
    for cell in slots:
        if skip:
            skip -= 1
            continue
        out.append(cell)
        skip = cell.colspan - 1
    return out
