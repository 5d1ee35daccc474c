"""Row roles (title, header, section, repeated header, data): one model, read alike from LaTeX,
HTML and Markdown, and what the semantic score makes of them."""

from __future__ import annotations

from harness.core.table import Table
from harness.metrics.tables.semantic import semantic_details
from harness.metrics.tables.semantic_struct import header_rows, to_grid, view
from harness.readers import read_tables
from harness.readers.latex import read_latex
from harness.readers.row_roles import header_end, is_mark, repeats_header, title_rows

TITLED = r"""\begin{tabular}{lcc}
\multicolumn{3}{c}{\textbf{Survey}} \\ \hline
Method & Cost & Noise \\ \hline
first  & $\bigcirc$ & $\times$ \\
second & $\times$ & $\bigcirc$ \\
third  & $\bigcirc$ & * \\ \hline
\end{tabular}"""

TWO_LEVEL = r"""\begin{tabular}{lcccc}\toprule
\multicolumn{5}{c}{Model A} \\ \midrule
$\eta$ & \multicolumn{2}{c}{20\%} & \multicolumn{2}{c}{40\%} \\ \cmidrule(lr){2-3}\cmidrule(lr){4-5}
Method & Acc & WR & Acc & WR \\ \midrule
one & 73.89 & 62.90 & 64.96 & 56.10 \\
two & 66.59 & 62.80 & 57.07 & 38.95 \\
three & 75.82 & 62.75 & 66.59 & 50.25 \\ \bottomrule
\end{tabular}"""

TWO_SECTIONS = r"""\begin{tabular}{l|ccc}\toprule
\multicolumn{4}{c}{Part one} \\ \midrule
& Alpha$\uparrow$ & Beta$\uparrow$ & Gamma$\downarrow$ \\ \midrule
Model without extra loss & 12.50 & 0.311 & 0.640 \\
Model & 20.25 & 0.702 & 0.350 \\ \midrule
\multicolumn{4}{c}{Part two} \\ \midrule
& Delta$\uparrow$ & Eps$\uparrow$ & Size$\downarrow$ \\ \midrule
Model without inst loss & 38.00 & 67.10 & 2.1M \\
Model & 45.10 & 74.00 & 2.1M \\ \bottomrule
\end{tabular}"""


def _view(table: Table):
    grid = to_grid(table)
    return view(grid, header_rows(grid))


def test_a_title_row_is_not_the_header_that_makes_the_next_row_data() -> None:
    v = _view(read_latex(TITLED)[0])
    assert v.title.lower() == "survey"
    assert [c.strip() for c in v.col_shown] == ["Method", "Cost", "Noise"]
    assert len(v.body) == 3


def test_a_body_of_marks_is_data_and_marks_are_values() -> None:
    assert is_mark("✓") and is_mark("◯") and is_mark("*") and not is_mark("x1") and not is_mark("")
    rows = [["Method", "Cost"], ["a", "✓"], ["b", "×"]]
    assert header_end(rows, None, is_mark) == 1


def test_a_numeric_looking_header_level_over_labels_stays_header() -> None:
    v = _view(read_latex(TWO_LEVEL)[0])
    assert v.header_rows == 3  # title, 20% | 40%, Method | Acc | WR
    assert v.title == "model a"
    assert v.col_shown[1] == "20% / Acc"
    assert len(v.body) == 3


def test_title_rows_leave_a_row_below() -> None:
    assert title_rows([["A", ""], ["B", ""]]) == 1
    assert title_rows([["A", "1"], ["B", ""]]) == 0


def test_a_repeated_header_row_adds_no_fact() -> None:
    head = ["Model", "Acc", "F1"]
    rows = [["a", "1.0", "2.0"], ["b", "3.0", "4.0"]]
    once = Table.from_rows([head, *rows, *rows[:0]], header_rows=1)
    repeated = Table.from_rows([head, rows[0], ["", "Acc", "F1"], rows[1]], header_rows=1)
    assert repeats_header(["", "Acc", "F1"], [head], 1)
    assert not repeats_header(["c", "Acc", "5"], [head], 1)
    assert semantic_details(once, repeated).score >= 9.9


def test_a_title_read_right_or_moved_into_the_header_of_a_markdown_table() -> None:
    gt = read_latex(TITLED)[0]
    md = "| Survey | | |\n|---|---|---|\n| Method | Cost | Noise |\n| first | ◯ | × |\n| second | × | ◯ |\n| third | ◯ | * |"
    assert semantic_details(gt, read_tables(md)[0]).score >= 9.5


def test_two_sections_with_their_own_headers_against_cells_joined_by_br_score_without_raising() -> None:
    gt = read_latex(TWO_SECTIONS)[0]
    md = ("|Col1|Alpha↑ Beta↑ Gamma↓|\n|---|---|\n|Model without extra loss<br>Model|"
          "12.50<br>0.311<br>0.640<br>20.25<br>0.702<br>0.350|")
    result = semantic_details(gt, read_tables(md)[0])
    assert 0.0 <= result.score < 5.0  # half the table lost, the rest in one cell
    assert result.errors
    same = semantic_details(gt, gt)
    assert same.score == 10.0


GROUPED = [["Setting", "Bench", "Bench", "Bench"], ["", "EPM", "STU", "Avg"],
           ["x", "54.9", "45.5", "41.6"], ["y", "52.2", "42.7", "39.9"]]


def _grouped_gt() -> Table:
    t = Table.from_rows(GROUPED, header_rows=2)
    t.rows[0][1].colspan = 3
    del t.rows[0][2:]
    return t


def test_a_header_row_shorter_than_the_body_is_broken_markup_not_a_span() -> None:
    gt = _grouped_gt()
    blanks = "| Setting | Bench | | |\n|---|---|---|---|\n| | EPM | STU | Avg |\n| x | 54.9 | 45.5 | 41.6 |\n" \
             "| y | 52.2 | 42.7 | 39.9 |"
    short = "| Setting | Bench |\n|---|---|\n| | EPM | STU | Avg |\n| x | 54.9 | 45.5 | 41.6 |\n| y | 52.2 | 42.7 | 39.9 |"
    spanned = semantic_details(gt, read_tables(blanks)[0])
    broken = semantic_details(gt, read_tables(short)[0])
    assert broken.score < spanned.score
    assert any("lost" in e for e in broken.errors)


def test_no_error_compares_a_text_with_itself() -> None:
    gt = _grouped_gt()
    blanks = "| Setting | Bench | | |\n|---|---|---|---|\n| | EPM | STU | Avg |\n| x | 54.9 | 45.5 | 41.6 |\n" \
             "| y | 52.2 | 42.7 | 39.9 |"
    for error in semantic_details(gt, read_tables(blanks)[0]).errors:
        if " read as " in error:
            a, b = error.split(" read as ", 1)
            assert a.rsplit("'", 2)[-2] != b.split("'")[1], error
    assert any("group header 'Bench' not written over" in e for e in semantic_details(gt, read_tables(blanks)[0]).errors)


def test_numbers_in_other_slots_of_the_same_text_are_another_fact() -> None:
    from harness.metrics.tables.semantic_text import cell_similarity, normalize

    a, b = normalize("x = 50%, y = 75%"), normalize("x = 75%, y = 50%")
    assert cell_similarity(a, b) < 0.5
    assert cell_similarity(a, normalize("x=50 %, y=75 %")) == 1.0


def test_a_row_path_names_its_row_not_the_section_above_it() -> None:
    gt = Table.from_rows([["Setting", "A", "B"], ["(a) ratio", "", ""], ["r = 50%", "1.1", "2.2"],
                          ["r = 75%", "3.3", "4.4"]], header_rows=1)
    pred = Table.from_rows([["Setting", "A", "B"], ["(a) ratio", "", ""], ["r=50 %", "1.1", "2.2"],
                            ["r=75 %", "3.3", "4.4"]], header_rows=1)
    assert semantic_details(gt, pred).score >= 9.9


def test_a_cell_written_over_several_rows_is_read_as_one_cell() -> None:
    gt = Table.from_rows([["Item", "Low", "High"], ["range", "-8<H<9 -8<K<9", "-9<H<8 -8<K<9"],
                          ["fit", "2.84", "1.85"]], header_rows=1)
    html = ("<table><tr><th>Item</th><th>Low</th><th>High</th></tr>"
            "<tr><td rowspan='2'>range</td><td>-8&lt;H&lt;9</td><td>-9&lt;H&lt;8</td></tr>"
            "<tr><td>-8&lt;K&lt;9</td><td>-8&lt;K&lt;9</td></tr><tr><td>fit</td><td>2.84</td><td>1.85</td></tr></table>")
    md = "| Item | Low | High |\n|---|---|---|\n| range | -8<H<9 | -9<H<8 |\n| | -8<K<9 | -8<K<9 |\n| fit | 2.84 | 1.85 |"
    assert semantic_details(gt, read_tables(html)[0]).score >= 9.5
    assert semantic_details(gt, read_tables(md)[0]).score >= 9.5


def test_a_row_span_over_rows_of_their_own_values_is_not_merged() -> None:
    gt = Table.from_rows([["Model", "Run", "Acc"], ["A", "1", "90.1"], ["A", "2", "91.3"]], header_rows=1)
    dropped = Table.from_rows([["Model", "Run", "Acc"], ["A", "1", "90.1"]], header_rows=1)
    assert semantic_details(gt, gt).score == 10.0
    assert semantic_details(gt, dropped).score < 9.5


def test_a_subscript_written_with_an_underscore_reads_as_the_subscript() -> None:
    from harness.metrics.tables.semantic_text import cell_similarity, normalize

    assert cell_similarity(normalize("Moment (μ_B)"), normalize(r"Moment ($\mu_\mathrm{B}$)")) == 1.0
    assert normalize("MAE_AST") == "mae_ast"
