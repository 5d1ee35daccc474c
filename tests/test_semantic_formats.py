"""Shapes of formats that cannot span, read as a reader of the extraction alone reads them: a
label written once over blank cells (in the header it heads the columns up to the next label; in
the body a blank is a blank), a column's values stacked in one cell (`<br>`: damage, only the
order of the lines would place them), a multi-column stub, and what each costs."""

from __future__ import annotations

from tablebench.core.table import Table
from tablebench.metrics.tables.semantic import semantic_details
from tablebench.metrics.tables.semantic_struct import header_rows, to_grid
from tablebench.readers import read_tables
from tablebench.readers.cell_lines import cell_lines
from tablebench.readers.latex import read_latex
from tests.perturb.suite import LOSSY_FLOOR

# Sizes span the rows of their models: a value, not a label (`>=7B` reads as a number).
GROUPED = r"""\begin{tabular}{lllcc}\toprule
Family & Size & Model & Acc & F1 \\ \midrule
\multirow{4}{*}{Dense} & \multirow{2}{*}{$\geq$7B} & Alpha & 61.5 & 0.52 \\
 & & Beta & 63.25 & 0.55 \\
 & \multirow{2}{*}{$<$7B} & Gamma & 58.75 & -- \\
 & & Delta & 57.5 & 0.47 \\ \bottomrule
\end{tabular}"""

WRITTEN_ONCE = """| Family | Size | Model | Acc | F1 |
|---|---|---|---|---|
| Dense | ≥7B | Alpha | 61.5 | 0.52 |
|  |  | Beta | 63.25 | 0.55 |
|  | <7B | Gamma | 58.75 | – |
|  |  | Delta | 57.5 | 0.47 |"""

PARAMS = r"""\begin{tabular}{lc}\toprule
Setting & Value \\ \midrule
Layers & 12 \\
Heads & 8 \\
Dropout & 0.1 \\
Optimizer & AdamW \\ \bottomrule
\end{tabular}"""


def _gt(latex: str) -> Table:
    return read_latex(latex)[0]


def test_a_value_spanning_rows_written_once_reads_as_blanks_under_it() -> None:
    """`≥7B` over two models, written once: a reader of the Markdown sees a blank beside Beta, as
    likely a value that is missing as the one above; the score reads the blank and charges it,
    but every value there is read where it stands."""
    result = semantic_details(_gt(GROUPED), read_tables(WRITTEN_ONCE)[0])
    assert 5.0 < result.score < 10.0, result.errors
    assert all(("missing" in e or "moved" in e) for e in result.errors), result.errors


def test_a_dash_saying_none_is_not_filled_from_the_row_above() -> None:
    wrong = WRITTEN_ONCE.replace("| 58.75 | – |", "| 58.75 | 0.55 |")
    assert semantic_details(_gt(GROUPED), read_tables(wrong)[0]).score < 10.0


def test_the_data_starts_at_the_first_row_of_values_right_of_a_wide_stub() -> None:
    # the first data row holds two labels, a dash and one number: still data, not a header row
    grid = to_grid(_gt(GROUPED.replace("61.5 & 0.52", "-- & 0.52").replace(r"$\geq$7B", "Large")))
    assert header_rows(grid) == 1


def test_a_column_stacked_in_one_cell_is_damage() -> None:
    """A column's values a line each in one cell: only the lines' order says which row a value is
    of. The stacked cell reads as one cell, and costs about half the score: a whole table collapsed
    into `<br>` cells of equal line counts is readable by counting lines, with effort (the judge
    gives 5-6, issue 43), so it is damage, not a loss."""
    stacked = "| Setting | Value |\n|---|---|\n| Layers<br>Heads<br>Dropout<br>Optimizer | 12<br>8<br>0.1<br>AdamW |"
    pred = read_tables(stacked)[0]
    assert [cell_lines(c) for c in pred.rows[1]] == [["Layers", "Heads", "Dropout", "Optimizer"],
                                                   ["12", "8", "0.1", "AdamW"]]
    rows = "| Setting | Value |\n|---|---|\n| Layers | 12 |\n| Heads | 8 |\n| Dropout | 0.1 |\n| Optimizer | AdamW |"
    assert semantic_details(_gt(PARAMS), read_tables(rows)[0]).score == 10.0
    assert semantic_details(_gt(PARAMS), pred).score < 6.5


# A group label spanned over three of four value columns; the last column stands under nothing.
EXTENT = ("<table><tr><th></th><th colspan='3'>Setting</th>{last}</tr>"
          "<tr><th>size</th><th>A</th><th>B</th><th>C</th><th>All</th></tr>"
          "<tr><td>n=10</td><td>0.91</td><td>0.92</td><td>0.93</td><td>0.94</td></tr>"
          "<tr><td>n=20</td><td>0.81</td><td>0.82</td><td>0.83</td><td>0.84</td></tr></table>")


def test_a_label_that_shows_its_extent_is_not_spread_beyond_it() -> None:
    gt = read_tables(EXTENT.format(last=""))[0]  # a header row shorter than the body: a hole
    blank_cell = read_tables(EXTENT.format(last="<th></th>"))[0]
    repeated = read_tables("| | Setting | Setting | Setting | |\n|---|---|---|---|---|\n| size | A | B | C | All |\n"
                           "| n=10 | 0.91 | 0.92 | 0.93 | 0.94 |\n| n=20 | 0.81 | 0.82 | 0.83 | 0.84 |")[0]
    assert semantic_details(gt, blank_cell).score == 10.0
    assert semantic_details(gt, repeated).score == 10.0


def test_markdown_cells_written_by_the_suite_escape_backslashes() -> None:
    from tests.perturb.writers import markdown_table

    table = Table.from_rows([["sign", "command"], ["§", r"\S"], ["#", r"\#"]], header_rows=1)
    back = read_tables(markdown_table(table))[0]
    assert back.text_grid() == table.text_grid()


def test_a_value_moved_between_two_columns_of_one_name_says_which() -> None:
    # a sample measured in two runs at 20 C (one column left blank) and once at 80 C; its grade spans all three
    gt = read_tables("<table><tr><th>Sample</th><th colspan='2'>20 C</th><th>80 C</th></tr>"
                     "<tr><td>Grade</td><td colspan='3'>B2-alpha</td></tr>"
                     "<tr><td>x</td><td>1.25</td><td></td><td>1.75</td></tr>"
                     "<tr><td>y</td><td>2.05</td><td></td><td>2.45</td></tr>"
                     "<tr><td>z</td><td>0.35</td><td>0.55</td><td>0.95</td></tr></table>")[0]
    pred = read_tables("| Sample | 20 C | | 80 C |\n|---|---|---|---|\n| Grade | B2-alpha | | |\n| x | 1.25 | | 1.75 |\n"
                       "| y | 2.05 | | 2.45 |\n| z | 0.35 | 0.55 | 0.95 |")[0]
    errors = semantic_details(gt, pred).errors
    moved = [e for e in errors if " moved to " in e]
    assert moved, errors
    for e in moved:
        source, target = e.split(" under ", 1)[1].split(" moved to ")
        assert source != target, e
    assert any("the extraction's body row 1, column 2, not body row 1, column 3" in e for e in moved), moved


def test_a_value_spanning_columns_written_once_reads_as_a_blank_beside_it() -> None:
    gt = read_tables("<table><tr><th>Method</th><th>Mean</th><th>CI</th></tr>"
                     "<tr><td>Alpha</td><td>91.8</td><td>[89.8, 93.7]</td></tr>"
                     "<tr><td>p-value</td><td colspan='2'>&lt;0.001</td></tr>"
                     "<tr><td>Beta</td><td>84.3</td><td>[79.5, 89.2]</td></tr></table>")[0]
    pred = read_tables("| Method | Mean | CI |\n|---|---|---|\n| Alpha | 91.8 | [89.8, 93.7] |\n"
                       "| p-value | <0.001 | |\n| Beta | 84.3 | [79.5, 89.2] |")[0]
    result = semantic_details(gt, pred)
    assert 8.0 < result.score < 10.0
    assert result.errors == ["value '<0.001' under (p-value, CI) moved to (p-value, Mean)"]


def test_a_column_of_as_many_value_like_labels_as_plain_ones_is_read_as_labels() -> None:
    # "Size" holds as many value-like labels (<7B) as plain ones (Base) in the prediction: a tie
    # reads as labels (a stub column), so the row keys stay keys, as in the ground truth
    rows = [["Family", "Size", "Model", "Acc"], ["Dense", "<7B", "Alpha", "61.5"], ["Dense", "<7B", "Beta", "63.2"],
            ["Dense", "Base", "Gamma", "58.7"], ["Dense", "Base", "Delta", "57.5"], ["Dense", "Base", "Eps", "55.1"]]
    gt = Table.from_rows(rows, header_rows=1)
    pred = Table.from_rows(rows[:5] + rows[6:], header_rows=1)  # one Base row dropped: 2 against 2
    result = semantic_details(gt, pred)
    assert result.errors and all("missing" in e for e in result.errors), result.errors
    assert result.score > 6.0


# A label over three value columns, spanned in the ground truth, in the table's only header row
ONE_ROW = ("<table><tr><th>Probe</th><th colspan='3'>Depth readings</th></tr>"
           "<tr><td>north</td><td>1.25</td><td>2.5</td><td>3.75</td></tr>"
           "<tr><td>south</td><td>4.25</td><td>5.5</td><td>6.75</td></tr></table>")
# two groups of three columns, the first group's label over the first column
GROUPS = ("<table><tr><th colspan='3'>Cold start</th><th colspan='3'>Warm start</th></tr>"
          "<tr><th>k</th><th>time</th><th>error</th><th>k</th><th>time</th><th>error</th></tr>"
          "<tr><td>1</td><td>0.52</td><td>0.031</td><td>1</td><td>0.12</td><td>0.011</td></tr>"
          "<tr><td>2</td><td>0.61</td><td>0.027</td><td>2</td><td>0.19</td><td>0.009</td></tr></table>")
ONCE = "group header{s} {names} written once over blank cells, not over each column {they}"


def test_a_label_written_once_in_the_last_header_row_spans_the_blank_cells_after_it() -> None:
    md = ("| Probe | Depth readings | | |\n|---|---|---|---|\n| north | 1.25 | 2.5 | 3.75 |\n"
          "| south | 4.25 | 5.5 | 6.75 |")
    result = semantic_details(read_tables(ONE_ROW)[0], read_tables(md)[0])
    assert result.errors == [ONCE.format(s="", names="'Depth readings'", they="it heads")]
    assert result.score >= LOSSY_FLOOR


def test_a_group_label_over_the_first_column_heads_the_columns_up_to_the_next_label() -> None:
    md = ("| Cold start | | | Warm start | | |\n|---|---|---|---|---|---|\n| k | time | error | k | time | error |\n"
          "| 1 | 0.52 | 0.031 | 1 | 0.12 | 0.011 |\n| 2 | 0.61 | 0.027 | 2 | 0.19 | 0.009 |")
    result = semantic_details(read_tables(GROUPS)[0], read_tables(md)[0])
    assert result.errors == [ONCE.format(s="s", names="'Cold start', 'Warm start'", they="they head")]


def test_in_aligned_text_a_label_reaches_past_its_text_up_to_the_next_label() -> None:
    # "Cold start" covers the k and time columns by its width only: it heads error too
    text = ("Cold start          Warm start\n"
            "k   time   error    k   time   error\n"
            "1   0.52   0.031    1   0.12   0.011\n"
            "2   0.61   0.027    2   0.19   0.009\n")
    pred = read_tables(text)[0]
    assert pred.fmt == "text" and [c.colspan for c in pred.rows[0]][:1] == [2]
    result = semantic_details(read_tables(GROUPS)[0], pred)
    assert result.errors == [ONCE.format(s="s", names="'Cold start', 'Warm start'", they="they head")]


def test_a_stub_header_at_the_top_of_its_row_span_heads_no_other_column() -> None:
    from tablebench.metrics.tables.semantic_struct import view

    # "Model" has nothing under it (its row span written once); "Method" stands in a row that labels
    # no value column: both name their own column only. "Total" is its own column, not under "b".
    span = read_tables("| Model | | Suite | |\n|---|---|---|---|\n| | Size | P | R |\n| alpha | 7B | 0.5 | 0.6 |\n"
                       "| beta | 13B | 0.7 | 0.8 |")[0]
    stub = read_tables("| Category | Method | | |\n|---|---|---|---|\n| | name | P | R |\n"
                       "| vision | alpha | 0.5 | 0.6 |\n| text | beta | 0.7 | 0.8 |")[0]
    group = read_tables("| | Group | | Total |\n|---|---|---|---|\n| Site | a | b | |\n| x | 1.5 | 2.5 | 4.0 |\n"
                        "| y | 3.5 | 4.5 | 8.0 |")[0]
    assert view(to_grid(span), 2).col_shown == ["Model", "Size", "Suite / P", "Suite / R"]
    assert view(to_grid(stub), 2).col_shown[2:] == ["P", "R"]
    assert view(to_grid(group), 2).col_shown == ["Site", "Group / a", "Group / b", "Total"]


# Two column pairs side by side (a long list of settings set in two halves)
PAIRS = r"""\begin{tabular}{lc|lc}\toprule
Setting & Value & Setting & Value \\ \midrule
Layers & 12 & Warmup & 500 \\
Heads & 8 & Epochs & 30 \\
Dropout & 0.1 & Batch & 64 \\
Optimizer & AdamW & & \\ \bottomrule
\end{tabular}"""
PAIRS_STACKED = ("| Setting Value | Setting Value |\n|---|---|\n"
                 "| Layers<br>12<br>Heads<br>8<br>Dropout<br>0.1<br>Optimizer<br>AdamW "
                 "| Warmup<br>500<br>Epochs<br>30<br>Batch<br>64 |")


def test_column_pairs_stacked_label_value_in_turn_are_damage() -> None:
    """Two columns' labels and values in turn in one cell, under a header cell naming both: which
    line is which column only their order says; a reader of the extraction cannot attribute them
    (values of several columns stacked in one cell: the judge gives 2, issue 43)."""
    result = semantic_details(_gt(PAIRS), read_tables(PAIRS_STACKED)[0])
    assert result.score < 3.5, result.errors


def test_two_columns_written_in_one_cell_a_line_each_are_damage() -> None:
    gt = read_tables("<table><tr><th>Model</th><th>Acc</th><th>F1</th></tr><tr><td>Alpha</td><td>61.5</td>"
                     "<td>0.52</td></tr><tr><td>Beta</td><td>63.25</td><td>0.55</td></tr></table>")[0]
    md = "| Model | Acc<br>F1 |\n|---|---|\n| Alpha | 61.5<br>0.52 |\n| Beta | 63.25<br>0.55 |"
    apart = "| Model | Acc | F1 |\n|---|---|---|\n| Alpha | 61.5 | 0.52 |\n| Beta | 63.25 | 0.55 |"
    assert semantic_details(gt, read_tables(apart)[0]).score == 10.0
    assert semantic_details(gt, read_tables(md)[0]).score < 6.0
