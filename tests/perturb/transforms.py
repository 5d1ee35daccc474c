"""The transformations: each a small pure function of a ground-truth table and a seeded rng.

A transformation returns what a parser could have written for the table, either a `Table`
(damage, edited cell by cell) or output text in some format (read back by the locator as a
benchmark run reads it), or None where it does not apply (no title row to move, no numbers to
change). `amount == 0` marks an invariance: a reader takes the same facts from the output. A
damage has an amount (numbers changed, rows dropped); one family's amounts are nested (the two
numbers changed at amount 2 include the one of amount 1), so more damage is a superset.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass

from tablebench.core.table import Cell, Table
from tablebench.metrics.tables.semantic_struct import is_value
from tablebench.metrics.tables.semantic_text import NULL, normalize
from tablebench.readers import read_tables
from tablebench.readers.row_roles import header_end
from tests.perturb.tables import (
    Placed,
    column_paths,
    drop_rows,
    edit_cells,
    placed,
    single_cell_rows,
    take_rows,
)
from tests.perturb.writers import html_table, latex_table, lines_text, markdown_table, plain_table

Output = Table | str
Fn = Callable[[Table, random.Random], Output | None]

# Glyphs a reader takes for one another in a table cell (what OCR and text layers turn them into).
LOOKALIKES = {"◯": "O", "○": "O", "✓": "√", "✔": "√", "✗": "x", "✘": "x", "×": "x", "µ": "μ", "μ": "µ",
              "−": "-", "–": "-", "′": "'", "’": "'", "“": '"', "”": '"', "±": "+/-"}
_NUMERIC = re.compile(r"^[^\w]{0,3}[0-9]")


@dataclass(frozen=True)
class Transform:
    """A named transformation; `amount` 0 is an invariance, > 0 the amount of damage."""

    name: str
    family: str
    amount: int
    fn: Fn
    lossy: bool = False  # an invariance in a format that cannot say everything (spans): judged by LOSSY_FLOOR

    @property
    def invariant(self) -> bool:
        return self.amount == 0

    def __call__(self, table: Table, rng: random.Random) -> Output | None:
        return self.fn(table, rng)


# -- invariances ------------------------------------------------------------------------------
def _title_out(t: Table, rng: random.Random) -> str | None:
    if 0 not in single_cell_rows(t) or t.layout().shape[0] < 3:
        return None
    title = " ".join(t.text_grid(fill="")[0][0].split())
    return f"{title}\n\n{html_table(drop_rows(t, {0}))}"


def _glyphs(t: Table, rng: random.Random) -> Table | None:
    pattern = re.compile("|".join(map(re.escape, LOOKALIKES)))
    out = edit_cells(t, lambda p: pattern.sub(lambda m: LOOKALIKES[m.group(0)], p.cell.text)
                     if pattern.search(p.cell.text) else None)
    return out if out.to_html() != t.to_html() else None


def _whitespace(t: Table, rng: random.Random) -> str:
    def spaced(p: Placed) -> str:
        words = p.cell.text.split(" ")
        glue = [rng.choice([" ", "  ", "\n", "\u00a0", " \t"]) for _ in words[1:]]
        inner = words[0] + "".join(g + w for g, w in zip(glue, words[1:]))
        return rng.choice(["", " ", "\n  "]) + inner + rng.choice(["", " ", "  \n"])
    return html_table(edit_cells(t, spaced)).replace("<tr>", "\n<tr>\n")


def _section_rows(t: Table) -> list[int]:
    h = t.header_rows
    return [r for r in single_cell_rows(t) if r > h]


def _split(t: Table, write: Callable[[Table], str]) -> Table | None:
    """Two tables at the first section row, each written by `write` and read back, rows stacked."""
    rows = _section_rows(t)
    if not rows:
        return None
    n_rows = t.layout().shape[0]
    pieces = []
    for start, end in ((0, rows[0]), (rows[0], n_rows)):
        found = read_tables(write(take_rows(t, start, end)))
        pieces.append(max(found, key=lambda x: len(x.cells())))
    return Table([row for p in pieces for row in p.rows], fmt="+".join(p.fmt for p in pieces))


# -- damage -----------------------------------------------------------------------------------
def _numeric_body(t: Table) -> list[Placed]:
    cells, _, _ = placed(t)
    h = t.header_rows
    return [p for p in cells if p.row >= h and p.col > 0 and _NUMERIC.match(p.cell.text.strip())]


def _numbers_changed(k: int) -> Fn:
    def fn(t: Table, rng: random.Random) -> Table | None:
        targets = _numeric_body(t)
        if len(targets) < k:
            return None
        order = rng.sample(range(len(targets)), len(targets))
        bumps = [1 + rng.randrange(8) for _ in targets]  # drawn for all: amount k's changes contain amount k-1's
        chosen = {(targets[i].row, targets[i].col): bumps[i] for i in order[:k]}
        return edit_cells(t, lambda p: _bump(p.cell.text, chosen[p.row, p.col]) if (p.row, p.col) in chosen else None)
    return fn


def _bump(text: str, by: int) -> str:
    """`text` with its last digit changed by `by` (mod 10): another number, written alike."""
    i = max(i for i, ch in enumerate(text) if "0" <= ch <= "9")
    return text[:i] + str((int(text[i]) + by) % 10) + text[i + 1:]


def _rows_dropped(k: int) -> Fn:
    def fn(t: Table, rng: random.Random) -> Table | None:
        h, n_rows = t.header_rows, t.layout().shape[0]
        body = list(range(h, n_rows))
        if len(body) <= k:
            return None
        return drop_rows(t, set(rng.sample(body, len(body))[:k]))
    return fn


def _columns_swapped(t: Table, rng: random.Random) -> Table | None:
    cells, n_rows, n_cols = placed(t)
    h = t.header_rows
    single = {(p.row, p.col): p for p in cells if p.rows == 1 and p.cols == 1 and p.row >= h}
    paths = column_paths(t, h)
    pairs = []  # columns a reader tells apart by their labels: swapped, their values sit under the wrong ones
    for a in range(1, n_cols):
        for b in range(a + 1, n_cols):
            if not paths[a] or not paths[b] or paths[a] == paths[b]:
                continue
            both = [r for r in range(h, n_rows) if (r, a) in single and (r, b) in single]
            if both and any(single[r, a].cell.text != single[r, b].cell.text for r in both):
                pairs.append((a, b, both))
    if not pairs:
        return None
    a, b, both = rng.choice(pairs)
    for r in both:
        single[r, a].cell, single[r, b].cell = single[r, b].cell, single[r, a].cell
    return edit_cells(t, lambda p: single[p.row, p.col].cell.text if (p.row, p.col) in single else None)


def _header_level_lost(t: Table, rng: random.Random) -> Table | None:
    h = t.header_rows
    if h < 2:
        return None
    before = column_paths(t, h)[1:]
    if len(set(before)) < len(before):
        return None  # already ambiguous
    for r in range(h):
        lost = drop_rows(t, {r})
        after = column_paths(lost, h - 1)[1:]
        if len(set(after)) < len(after):
            return lost
    return None


def _labels_fused(t: Table, rng: random.Random) -> Table | None:
    """Every header row's labels fused into one cell; the header as a reader reads it (the rows
    before the data), since the markup may flag only a title row."""
    grid = [[normalize(text) for text in row] for row in t.text_grid(fill="")]
    h = max(t.header_rows, header_end(grid, t.layout().grid.tolist(), is_value, blank=NULL))
    _, _, n_cols = placed(t)
    if h < 1 or n_cols < 3:
        return None
    labels: list[str] = []
    for row in t.rows[:h]:
        labels += [" ".join(c.text.split()) for c in row if c.text.strip()]
    body = drop_rows(t, set(range(h)))
    return Table([[Cell(" ".join(labels), colspan=n_cols, header=True)], *body.rows])


def _identity(t: Table, rng: random.Random) -> Table:
    return t


def _lines(t: Table, rng: random.Random) -> str | None:
    """The table as lines of text (`writers.lines_text`), for a table of two columns or more."""
    _, _, n_cols = placed(t)
    return lines_text(t) if n_cols >= 2 and t.layout().shape[0] >= 3 else None


def _stacked(t: Table, rng: random.Random) -> Table | None:
    """The body's rows stacked into one row, each column's values a line each in one cell (`<br>`),
    as some parsers write a table: only the order of the lines says which row a value is of."""
    h = t.header_rows
    grid = t.text_grid(fill="")
    n_rows, n_cols = len(grid), len(grid[0]) if grid else 0
    if n_rows - h < 2 or n_cols < 2 or any(c.rowspan > 1 or c.colspan > 1 for row in t.rows[h:] for c in row):
        return None
    stacked = [Cell(" ".join(grid[r][c] for r in range(h, n_rows)), raw="<br>".join(grid[r][c] for r in range(h, n_rows)))
               for c in range(n_cols)]
    return Table([*t.rows[:h], stacked], fmt=t.fmt)


INVARIANCES = [
    Transform("identity", "identity", 0, _identity),
    Transform("html_th", "html_th", 0, lambda t, rng: html_table(t)),
    Transform("html_td", "html_td", 0, lambda t, rng: html_table(t, th=False)),
    Transform("html_thead", "html_thead", 0, lambda t, rng: html_table(t, th=False, thead=True)),
    Transform("html_row_th", "html_row_th", 0, lambda t, rng: html_table(t, row_th=True)),
    Transform("markdown", "markdown", 0, lambda t, rng: markdown_table(t)),
    Transform("markdown_blank_spans", "markdown_blank_spans", 0, lambda t, rng: markdown_table(t, repeat_spans=False),
              lossy=True),
    Transform("markdown_flat_header", "markdown_flat_header", 0, lambda t, rng: markdown_table(t, flat_header=True)),
    Transform("latex", "latex", 0, lambda t, rng: latex_table(t)),
    Transform("plain", "plain", 0, lambda t, rng: plain_table(t), lossy=True),
    Transform("title_out", "title_out", 0, _title_out),
    Transform("glyphs", "glyphs", 0, _glyphs),
    Transform("whitespace", "whitespace", 0, _whitespace),
    Transform("split_section_html", "split_section_html", 0, lambda t, rng: _split(t, html_table)),
    Transform("split_section_markdown", "split_section_markdown", 0, lambda t, rng: _split(t, markdown_table)),
    Transform("lines", "lines", 0, _lines, lossy=True),
]
DAMAGES = [
    *(Transform(f"numbers_changed_{k}", "numbers_changed", k, _numbers_changed(k)) for k in (1, 2, 4, 8)),
    *(Transform(f"rows_dropped_{k}", "rows_dropped", k, _rows_dropped(k)) for k in (1, 2, 4)),
    Transform("columns_swapped", "columns_swapped", 1, _columns_swapped),
    Transform("header_level_lost", "header_level_lost", 1, _header_level_lost),
    Transform("labels_fused", "labels_fused", 1, _labels_fused),
    Transform("rows_stacked", "rows_stacked", 1, _stacked),
]
TRANSFORMS = {t.name: t for t in INVARIANCES + DAMAGES}
