"""A table written as lines of text (its grid lost) is read as a reader reads it: split into
cells by content, the lost grid charged once, its real errors still counted."""

from __future__ import annotations

import math
import re

import pytest

from harness.core.table import Cell, NoTableError, Table
from harness.evaluate.metaeval_tables import _read_pair
from harness.locate.tables import locate_tables
from harness.metrics.tables.semantic import DEFAULT, semantic_details
from harness.metrics.tables.semantic_align import FEATURES
from harness.metrics.tables.semantic_split import is_flattened, split_lines
from harness.metrics.tables.semantic_struct import to_grid
from harness.metrics.tables.semantic_text import normalize
from harness.readers.text import read_lines

GT = Table.from_rows([["Soil type", "K [m/d]"], ["Clay", "0.20"], ["Fine sand", "4.15"], ["Coarse sand", "24.12"],
                      ["Fine gravel mix", "84.40"], ["Coarse gravel mix", "99.05"]], header_rows=1)
LINES = "Soil type K [m/d]\nClay 0.20\nFine sand 4.15\nCoarse sand 24.12\nFine gravel mix 84.40\nCoarse gravel mix 99.05\n"
UNDELIMITED = DEFAULT.weights[FEATURES.index("undelimited")]


def test_lines_read_as_one_cell_per_line() -> None:
    table = read_lines("\n  a b  \n\nc d\n")
    assert [[c.text for c in row] for row in table.rows] == [["a b"], ["c d"]]
    assert table.fmt == "lines"
    with pytest.raises(NoTableError):
        read_lines(" \n\n")


def test_flattened_table_costs_its_grid_once() -> None:
    result = semantic_details(GT, read_lines(LINES))
    assert result.score == pytest.approx(10 * math.exp(-UNDELIMITED), abs=1e-4)
    assert result.errors[0].startswith("no cell boundaries: the table is 6 lines of text")
    assert result.features["undelimited"] == 1.0 and result.features["values"] == 0.0
    # the same table with its grid is perfect; a one-column reading alone would lose every value
    assert semantic_details(GT, GT).score == 10.0
    assert UNDELIMITED > 0


def test_multi_word_cells_are_split_by_content() -> None:
    split = split_lines(to_grid(GT), LINES.splitlines())
    assert [[c.text for c in row] for row in split.rows] == [
        ["Soil type", "K [m/d]"], ["Clay", "0.20"], ["Fine sand", "4.15"], ["Coarse sand", "24.12"],
        ["Fine gravel mix", "84.40"], ["Coarse gravel mix", "99.05"]]


def test_errors_in_flattened_lines_still_count() -> None:
    clean = semantic_details(GT, read_lines(LINES)).score
    wrong = semantic_details(GT, read_lines(LINES.replace("4.15", "415")))
    assert wrong.score < clean
    assert any("4.15" in e for e in wrong.errors)
    lost = semantic_details(GT, read_lines(LINES.replace("Coarse sand 24.12\n", "")))
    assert lost.score < clean and any("Coarse sand" in e and "missing" in e for e in lost.errors)
    invented = semantic_details(GT, read_lines(LINES.replace("Clay 0.20", "Clay 0.20 99.9")))
    assert invented.score < clean


def test_group_header_span_is_kept_only_alone_on_its_line() -> None:
    gt = Table([[Cell("Model", rowspan=2, header=True), Cell("Task", colspan=2, header=True)],
                [Cell("Acc", header=True), Cell("F1", header=True)],
                [Cell("A"), Cell("1.0"), Cell("2.0")], [Cell("B"), Cell("3.0"), Cell("4.0")]])
    alone = split_lines(to_grid(gt), ["Task", "Model", "Acc F1", "A 1.0 2.0", "B 3.0 4.0"])
    assert [(c.text, c.colspan) for c in alone.rows[0]] == [("Model", 1), ("Task", 2)]  # the label line joins its row
    shared = split_lines(to_grid(gt), ["Model Task", "Acc F1", "A 1.0 2.0", "B 3.0 4.0"])
    assert [(c.text, c.colspan) for c in shared.rows[0]] == [("Model", 1), ("Task", 1), ("", 1)]
    # where "Task" spans a reader of "Model Task" cannot tell: that costs, the separate line does not
    assert semantic_details(gt, read_lines("Model Task\nAcc F1\nA 1.0 2.0\nB 3.0 4.0")).score < \
        semantic_details(gt, read_lines("Task\nModel\nAcc F1\nA 1.0 2.0\nB 3.0 4.0")).score


def test_only_one_column_predictions_against_wider_tables_are_split() -> None:
    assert is_flattened(to_grid(read_lines(LINES)), to_grid(GT))
    assert not is_flattened(to_grid(GT), to_grid(GT))
    one_col = Table.from_rows([["Name"], ["Clay"], ["Fine sand"]], header_rows=1)
    assert not is_flattened(to_grid(read_lines("Name\nClay\nFine sand")), to_grid(one_col))


def test_meta_eval_reads_a_gridless_extraction_as_lines() -> None:
    gt, pred = _read_pair("\\begin{tabular}{cc}\nName & Value \\\\\n\\hline\nA & 1.5 \\\\\nB & 2.5 \\\\\n\\end{tabular}",
                          "Name Value\nA 1.5\nB 2.5\n")
    assert pred is not None and pred.fmt == "lines"
    assert semantic_details(gt, pred).score == pytest.approx(10 * math.exp(-UNDELIMITED), abs=1e-4)
    assert _read_pair("\\begin{tabular}{cc}\nA & 1 \\\\\n\\end{tabular}", "  \n")[1] is None


def test_locator_reads_lines_through_html_markup() -> None:
    """Markup a parser wraps around a plain line (<u>, <sup>) is not the table's words: a
    header line underlined by the parser still belongs to the table's run of lines."""
    gt = Table.from_rows([["Quantity", "North Site", "South Site"], ["Mean depth", "-1.204517", "0.330912"],
                          ["Peak flow", "0.058213", "0.200000"], ["Gauges", "12", "9"]], header_rows=1)
    output = ("Some prose before the table that says nothing of it.\n\n"
              "**<u>Quantity</u>** **<u>North Site</u>** **<u>South Site</u>**\n"
              "Mean depth -1.204517 0.330912\nPeak flow 0.058213 0.200000\n<u>Gauges</u> <u>12</u> <u>9</u>\n\n"
              "More prose after it, about something else entirely.\n")
    found = locate_tables([gt], output)[0]
    assert found.found
    assert "Quantity</u>**" in found.text and "<u>9</u>" in found.text
    assert semantic_details(gt, found.table).score == pytest.approx(10 * math.exp(-UNDELIMITED), abs=1e-4)


def test_a_blank_inside_a_row_shifts_what_follows_as_a_reader_reads_it() -> None:
    gt = Table.from_rows([["Model", "Acc", "F1", "Time"], ["A", "91.2", "", "3.5"], ["B", "89.4", "0.81", "2.5"]],
                         header_rows=1)
    split = split_lines(to_grid(gt), ["Model Acc F1 Time", "A 91.2 3.5", "B 89.4 0.81 2.5"])
    assert [c.text for c in split.rows[1]] == ["A", "91.2", "3.5", ""]  # 3.5 read under F1, not under Time
    result = semantic_details(gt, read_lines("Model Acc F1 Time\nA 91.2 3.5\nB 89.4 0.81 2.5"))
    assert result.score < 10 * math.exp(-UNDELIMITED) - 0.5
    # a row group's label written once (blank first cell) is told by count: no cost beyond the grid
    grouped = Table.from_rows([["Group", "Model", "Acc"], ["CNN", "A", "91.2"], ["", "B", "89.4"]], header_rows=1)
    assert semantic_details(grouped, read_lines("Group Model Acc\nCNN A 91.2\nB 89.4")).score == \
        pytest.approx(10 * math.exp(-UNDELIMITED), abs=1e-4)


def test_a_cell_whose_subscripts_the_extraction_set_apart_is_still_one_piece() -> None:
    """"P₁/P₁/P₁" written as "_P_ 1/ _P_ 1/ _P_ 1" has twice the words of the cell: still read as it."""
    gt = Table.from_rows([["FEM", "L²-norm", "CPU(s)"], ["P₁/P₁/P₁", "7.6426", "77"], ["P₂/P₂/P₂", "8.1175", "219"]],
                         header_rows=1)
    lines = ["FEM _L_ <sup>2</sup> -norm CPU(s)", "_P_ 1/ _P_ 1/ _P_ 1 7.6426 77", "_P_ 2/ _P_ 2/ _P_ 2 8.1175 219"]
    split = split_lines(to_grid(gt), lines)
    assert [row[1].text for row in split.rows[1:]] == ["7.6426", "8.1175"]
    result = semantic_details(gt, read_lines("\n".join(lines)))
    assert result.features["values"] == 0 and result.score == pytest.approx(10 * math.exp(-UNDELIMITED), abs=1e-4)


def test_emphasis_on_lines_of_a_grouped_table_costs_nothing_and_no_error_reads_as_itself() -> None:
    """Group labels on one line cover one column each (a reader cannot see their extent): the
    same lines with bold labels are the same table, and no error names a header 'read as' itself."""
    gt = Table([[Cell("", header=True), Cell("Components", colspan=2, header=True), Cell("Metrics", colspan=2, header=True)],
                [Cell(t, header=True) for t in ("#", "Rerank", "Distill.", "RMSE", "AUC")],
                [Cell("(a)"), Cell("–"), Cell("–"), Cell("2.09"), Cell("0.743")],
                [Cell("(b)"), Cell("✓"), Cell("✓"), Cell("0.43"), Cell("0.943")]])
    plain = "Components Metrics\n# Rerank Distill. RMSE AUC\n(a) - - 2.09 0.743\n(b) ✓ ✓ 0.43 0.943"
    bold = "**Components** **Metrics**\n**#** Rerank Distill. **RMSE** **AUC**\n(a) - - 2.09 0.743\n(b) ✓ ✓ 0.43 **0.943**"
    a, b = semantic_details(gt, read_lines(plain)), semantic_details(gt, read_lines(bold))
    assert b.score == a.score < 10 * math.exp(-UNDELIMITED)  # the lost extents cost, the bold does not
    for e in b.errors:
        for m in re.finditer(r"'([^']*)'[^']{0,80}? read as '([^']*)'", e):
            assert normalize(m.group(1)) != normalize(m.group(2)), e


def test_a_value_over_two_columns_written_once_on_a_line_reads_as_its_span() -> None:
    """A p-value spanning a Mean and a CI column is written once in a line: read as it spans, not as moved."""
    gt = Table([[Cell("Method", header=True), Cell("AUC", colspan=2, header=True), Cell("Simplicity", colspan=2, header=True)],
                [Cell("", header=True)] + [Cell(t, header=True) for t in ("Mean", "95% CI", "Mean", "95% CI")],
                [Cell("DBScan"), Cell("91.8"), Cell("[89.8, 93.7]"), Cell("55.8"), Cell("[46.9, 64.7]")],
                [Cell("p-values"), Cell("Clustering: <0.001", colspan=2), Cell("Clustering: 0.935", colspan=2)]])
    lines = "Method AUC Simplicity\nMean 95% CI Mean 95% CI\nDBScan 91.8 [89.8, 93.7] 55.8 [46.9, 64.7]\n" \
            "p-values Clustering: <0.001 Clustering: 0.935"
    result = semantic_details(gt, read_lines(lines))
    assert not any("Clustering" in e for e in result.errors), result.errors
    assert result.features["values"] == 0 and result.features["attached"] == 0
