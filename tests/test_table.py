"""The table model: layout of spans and holes, canonical HTML round trip."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import tablebench.core.table
from tablebench.core.table import Cell, NoTableError, Table, TableTooLarge
from tablebench.readers.html import as_table, table_from_html


def test_layout_places_cells_around_rowspans():
    t = Table([[Cell("a", rowspan=2), Cell("b", colspan=2)], [Cell("c"), Cell("d")]])
    assert t.layout().grid.tolist() == [[0, 1, 1], [0, 2, 3]]
    assert t.layout().origins == [(0, 0), (0, 1), (1, 1), (1, 2)]
    assert t.text_grid() == [["a", "b", "b"], ["a", "c", "d"]]


def test_ragged_rows_leave_holes():
    t = Table([[Cell("a"), Cell("b"), Cell("c")], [Cell("d")]])
    assert t.layout().grid.tolist() == [[0, 1, 2], [3, -1, -1]]
    assert t.text_grid(fill="") == [["a", "b", "c"], ["d", "", ""]]


def test_ragged_rows_without_spans_are_laid_out_as_with_a_span_elsewhere():
    """A table without spans takes a shorter path (`_unspanned_layout`); adding a 1x1 span
    far right (a cell with colspan=1 written as a span of its own row) must not move a slot."""
    t = Table([[], [Cell("a"), Cell("b")], [Cell("c")], []])
    assert t.layout().grid.tolist() == [[-1, -1], [0, 1], [2, -1], [-1, -1]]
    assert t.layout().origins == [(1, 0), (1, 1), (2, 0)]
    assert t.layout().grid.dtype == np.int32
    spanned = Table([[], [Cell("a"), Cell("b")], [Cell("c")], [Cell("d", rowspan=2)]])
    assert spanned.layout().grid.tolist()[:4] == [[-1, -1], [0, 1], [2, -1], [3, -1]]
    assert Table([[]]).layout().grid.shape == (1, 0)
    with pytest.raises(TableTooLarge):
        Table([[Cell("x")] * 1001] * 1000).layout()


def test_rowspan_past_last_row_extends_grid():
    t = Table([[Cell("a", rowspan=3), Cell("b")]])
    assert t.shape == (3, 2)
    assert t.layout().grid[:, 1].tolist() == [1, -1, -1]


def test_overlapping_spans_keep_the_cell_that_claimed_the_slot_first():
    """b reaches down into row 1, where c is three columns wide from column 0: the slot both
    claim stays b's, and c keeps the two it alone covers (GriTS and T-LAG place such cells
    their references' way; this is the model's own layout)."""
    t = Table([[Cell("a"), Cell("b", rowspan=2)], [Cell("c", colspan=3)]])
    assert t.layout().grid.tolist() == [[0, 1, -1], [2, 1, 2]]
    assert t.text_grid(fill="") == [["a", "b", ""], ["c", "b", "c"]]


def test_a_grid_of_exactly_the_limit_is_allowed_and_one_slot_more_is_not():
    t = Table([[Cell("a"), Cell("b", colspan=2)], [Cell("c", rowspan=2)]])  # 3 rows x 3 columns
    assert t.grid_shape(limit=9) == (3, 3)
    with pytest.raises(TableTooLarge, match="more than 8 slots"):
        t.grid_shape(limit=8)


def test_header_rows_count_the_leading_header_block_only():
    """A header row repeated further down (a table continued under its header) is no part of
    the column-header block, nor is a row where only the stub is a header."""
    t = Table([[Cell("Year", header=True), Cell("Sales", header=True)], [Cell("2020"), Cell("5")],
               [Cell("Year", header=True), Cell("Sales", header=True)], [Cell("2021"), Cell("7")]])
    assert t.header_rows == 1
    stub = Table([[Cell("", header=True), Cell("Q1", header=True)], [Cell("North", header=True), Cell("4")]])
    assert stub.header_rows == 1


def test_canonical_html_round_trip_keeps_spans_text_and_escaping():
    t = Table([[Cell("a<b & c", colspan=2)], [Cell("x", rowspan=2), Cell("  two  spaces ")], [Cell("")]])
    html = t.to_html()
    assert html == ('<table><tr><td colspan="2">a&lt;b &amp; c</td></tr><tr><td rowspan="2">x</td>'
                    '<td>  two  spaces </td></tr><tr><td></td></tr></table>')
    back = table_from_html(html)
    assert [[(c.text, c.rowspan, c.colspan) for c in row] for row in back.rows] == \
        [[(c.text, c.rowspan, c.colspan) for c in row] for row in t.rows]


def test_header_flag_survives_th_round_trip():
    t = Table.from_rows([["h1", "h2"], ["1", "2"]], header_rows=1)
    assert t.header_rows == 1
    assert "<th>h1</th>" in t.to_html(headers=True)
    assert table_from_html(t.to_html(headers=True)).header_rows == 1
    assert "<th>" not in t.to_html()


def test_as_table_accepts_tables_and_html_and_rejects_other_things():
    t = Table.from_rows([["1"]])
    assert as_table(t) is t
    assert as_table("<table><tr><td>1</td></tr></table>").text_grid() == [["1"]]
    with pytest.raises(TypeError):
        as_table(3)  # type: ignore[arg-type]
    with pytest.raises(NoTableError):
        as_table("no table here")


def test_the_model_imports_no_reader_not_even_lazily():
    """table.py <-> readers/html.py was a cycle (a lazy import inside `Table.from_html`)."""
    tree = ast.parse(Path(tablebench.core.table.__file__).read_text(encoding="utf-8"))
    imported = [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    imported += [a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names]
    assert [m for m in imported if m and m.startswith("tablebench")] == []


def test_empty_table_has_empty_grid():
    t = Table()
    assert t.is_empty()
    assert t.layout().grid.shape == (0, 0)
    assert isinstance(t.layout().grid, np.ndarray)
