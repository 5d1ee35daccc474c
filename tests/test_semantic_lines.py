"""A table written as lines of text, read back into cells from the lines alone (`semantic_lines`),
and what the score makes of it."""

from __future__ import annotations

import pytest

from tablebench.core.table import NoTableError, Table
from tablebench.evaluate.metaeval_tables import _read_pair
from tablebench.locate.tables import locate_tables
from tablebench.metrics.tables.semantic import DEFAULT, read_and_count, feature_row, semantic_details
from tablebench.metrics.tables.semantic_align import FEATURES
from tablebench.metrics.tables.semantic_header_words import groupings
from tablebench.metrics.tables.semantic_lines import ALL, read_lines, tokens_of
from tablebench.metrics.tables.semantic_read import read_prediction
from tablebench.readers.text import read_lines as lines_of


def grid(lines: str, rules: frozenset[str] = ALL) -> list[list[str]]:
    """The lines read back, as text per slot ("" for a slot no cell starts in; a span's text once)."""
    table = read_lines(lines.strip().splitlines(), rules)
    assert table is not None
    return [[c.text for c in row] for row in table.rows]


def spans(lines: str) -> list[list[int]]:
    table = read_lines(lines.strip().splitlines())
    assert table is not None
    return [[c.colspan for c in row] for row in table.rows]


GT = Table.from_rows([["Model", "Acc", "F1"], ["ResNet", "91.2", "0.85"], ["VGG", "89.4", "0.81"],
                      ["ViT", "93.1", "0.88"]], header_rows=1)
LINES = "Model Acc F1\nResNet 91.2 0.85\nVGG 89.4 0.81\nViT 93.1 0.88"


def test_text_reads_as_one_cell_per_line_first() -> None:
    table = lines_of("\n  a b  \n\nc d\n")
    assert [[c.text for c in row] for row in table.rows] == [["a b"], ["c d"]]
    assert table.fmt == "lines"
    with pytest.raises(NoTableError):
        lines_of(" \n\n")
    assert read_lines(["", "  "]) is None


def test_lines_of_one_word_cells_read_back_whole_and_cost_nothing_for_being_lines() -> None:
    assert grid(LINES) == [["Model", "Acc", "F1"], ["ResNet", "91.2", "0.85"], ["VGG", "89.4", "0.81"],
                           ["ViT", "93.1", "0.88"]]
    result = semantic_details(GT, lines_of(LINES))
    assert result.score == 10.0
    assert result.reading == "lines of text split into cells"
    assert result.errors == ["no cell boundaries: the table is 4 lines of text, split into cells here by their own "
                             "regularity"]


def test_errors_in_lines_cost_at_the_costs_of_a_reader_of_lines() -> None:
    wrong = lines_of(LINES.replace("89.4", "98.4"))
    read = read_and_count(GT, wrong)
    assert read.undelimited
    n = len(FEATURES)
    assert list(read.row[:n]) == [0.0] * n and read.row[n:].any()  # the second half: `Params.lines_weights`
    assert semantic_details(GT, wrong).score < 10.0
    assert list(feature_row(read.differences.features, False)[:n]) == list(read.differences.features)


def test_a_label_of_several_words_before_the_values_is_one_cell_and_a_long_header_merges_first() -> None:
    assert grid("Soil type K [m/d]\nFine sand 4.15\nCoarse gravel mix 99.05\nClay 0.20") == [
        ["Soil type", "K [m/d]"], ["Fine sand", "4.15"], ["Coarse gravel mix", "99.05"], ["Clay", "0.20"]]


def test_the_header_is_the_lines_shaped_otherwise_than_the_body() -> None:
    """`Source Corpus 0% 50% Gain` holds values, but ends in a label where body lines hold a value."""
    lines = ("Source Corpus 0% 50% Gain\nModel-A1 21.4% 61.0% 1.5%\nModel-B2 8.7% 62.1% 1.9%\n"
             "Mean 15.0% 61.5% 1.7%")
    table = read_lines(lines.splitlines())
    assert table is not None and [c.header for c in table.rows[0]] == [True] * 4
    assert not any(c.header for c in table.rows[1])
    # a line of values alone over lines that start with a label names the columns too
    assert read_lines("1 2 4 8\nPhase A 2.41 2.38 2.15 2.02\nPhase B 0.52 0.49 0.46 0.44".splitlines()).rows[0][1].header


def test_a_row_label_written_once_in_a_group_widens_the_table_and_stands_left() -> None:
    lines = ("q Mean SD\n.3 -0.021 0.412\nGRP(0,1) .6 -0.004 0.215\n.9 0.011 0.287\n.3 -0.018 0.264\n"
             "GRP(1,1) .6 0.012 0.331\n.9 0.037 0.648")
    rows = grid(lines)
    assert rows[1] == ["", ".3", "-0.021", "0.412"] and rows[2] == ["GRP(0,1)", ".6", "-0.004", "0.215"]
    assert rows[0] == ["", "q", "Mean", "SD"]  # the header names the columns against the right edge


def test_a_line_of_one_label_in_the_body_is_a_section_row_over_the_width() -> None:
    lines = "Method Task m T\nAverage 3 1.058 0.125\nSingle-task QRB\nTask0 3 1.079 0.071\nTask1 4 1.099 0.153"
    assert spans(lines)[2] == [4] and grid(lines)[2] == ["Single-task QRB"]


def test_a_header_line_above_the_last_is_a_title_or_stub_and_group_labels() -> None:
    titled = "Coupled scheme\nFDM Err Time\nQ1 4.2917 58\nQ2 5.0361 143"
    assert grid(titled)[0] == ["Coupled scheme"] and spans(titled)[0] == [3]
    # a line of one run of words is a title however many words it has: where group labels end is not in it
    assert spans("Scheme Stage Settings\nk r s\nMean 2 2.314 0.407\nSolo 2 2.296 0.388")[0] == [4]
    grouped = "Loss 10% 30%\nVariant P R P R\none 11.25 21.50 31.75 41.00\ntwo 12.25 22.50 32.75 42.00"
    assert grid(grouped)[0] == ["Loss", "10%", "30%"] and spans(grouped)[0] == [1, 2, 2]


def test_a_run_of_words_over_labels_that_repeat_a_cycle_names_the_groups() -> None:
    """`error order error order error order` below says the columns come in pairs: the run of words
    above names the pairs, grouped as language groups them, after the label of the column the lower
    line leaves blank (a judge: "multi-level header flattened to text but still reconstructable")."""
    norms = ("N L1 norm L2 norm L∞ norm\nerror order error order error order\n"
             "4 7.59E-15 – 3.84E-15 – 2.22E-15 –\n6 2.25E-15 3.00 1.14E-15 3.00 6.63E-16 2.98")
    assert grid(norms)[0] == ["N", "L1 norm", "L2 norm", "L∞ norm"] and spans(norms)[0] == [1, 2, 2, 2]
    groups = "Group A Group B\nModel Train Test Train Test\nAlpha 81.2 79.5 70.1 68.3\nBeta 84.0 82.7 73.4 71.9"
    assert grid(groups)[0] == ["", "Group A", "Group B"] and spans(groups)[0] == [1, 2, 2]
    assert spans(groups.replace("Group A Group B", "Results on the test set"))[0] == [5]  # a title: no grouping
    assert spans(groups.replace("Train Test Train Test", "Train Test Val Dev"))[0] == [5]  # no cycle: a title
    assert grid(groups, ALL - {"cycles"})[0] == ["Group A Group B"]


def test_labels_read_over_a_cycle_score_as_the_table() -> None:
    gt = ("\\begin{tabular}{lcccc}\n & \\multicolumn{2}{c}{Group A} & \\multicolumn{2}{c}{Group B} \\\\\n"
          "Model & Train & Test & Train & Test \\\\\nAlpha & 81.2 & 79.5 & 70.1 & 68.3 \\\\\n"
          "Beta & 84.0 & 82.7 & 73.4 & 71.9 \\\\\nGamma & 86.3 & 85.1 & 75.0 & 74.2 \\\\\n\\end{tabular}")
    text = ("Group A Group B\nModel Train Test Train Test\nAlpha 81.2 79.5 70.1 68.3\nBeta 84.0 82.7 73.4 71.9\n"
            "Gamma 86.3 85.1 75.0 74.2")
    result = semantic_details(*_read_pair(gt, text))
    assert result.counts.get("unattributed", 0) == 0 and result.counts.get("headers", 0) == 0
    assert result.score >= 8  # what is left: the spans lines cannot show


def test_values_are_counted_from_the_end_where_no_two_lines_share_a_shape() -> None:
    """Row labels with numbers in them (issue 43's shape: a judge gives 9): no two lines share which of
    their cells are values, but each ends in the table's three values; the words before are the label."""
    lines = ("Model κ Range Overlap\nModel X 2.5 Pro 0.812 0.611–0.934 90.2%\nBase Y 1.0 0.701 0.502–0.811 85.1%\n"
             "Tiny Z 0.655 0.410–0.790 80.3%")
    assert grid(lines) == [["Model", "κ", "Range", "Overlap"], ["Model X 2.5 Pro", "0.812", "0.611–0.934", "90.2%"],
                           ["Base Y 1.0", "0.701", "0.502–0.811", "85.1%"], ["Tiny Z", "0.655", "0.410–0.790", "80.3%"]]


def test_a_capital_letter_alone_ends_a_label_as_a_name() -> None:
    """`Group A`: a capital letter alone is a name, not the article `a` a label cannot end with."""
    assert groupings(["Group", "A", "Group", "B"], 2)[0] == (0, 2, [["Group", "A"], ["Group", "B"]])
    assert groupings(["Group", "A"], 1)[0][0] == 0 and groupings(["Group", "a"], 1)[0][0] == 1  # the article joins


def test_more_words_in_the_header_than_columns_read_the_first_ones_as_one_cell() -> None:
    lines = "Target Model Acc F1\nAlpha 0.5 0.6\nBeta 0.7 0.8"
    assert grid(lines)[0] == ["Target Model", "Acc", "F1"]


def test_tokens_keep_together_what_a_reader_keeps_together() -> None:
    assert tokens_of("RVQ 3.41 <sup>∗</sup> 0.00") == ["RVQ", "3.41<sup>∗</sup>", "0.00"]
    assert tokens_of("Ours 91.2 ± 0.3 5.21 × 10−3") == ["Ours", "91.2 ± 0.3", "5.21 × 10−3"]
    assert tokens_of("KMeans 88.4 [86.1, 90.2]") == ["KMeans", "88.4", "[86.1, 90.2]"]
    assert tokens_of("**<u>Net Income</u>** 1.0") == ["**<u>Net Income</u>**", "1.0"]
    assert tokens_of("R@5 (↑) Param (M) 3") == ["R@5(↑)", "Param (M)", "3"]
    assert tokens_of("(a) COCO") == ["(a) COCO"]
    assert tokens_of("⋒ \\Cap, \\doublecap ⋋") == ["⋒", "\\Cap, \\doublecap", "⋋"]
    assert tokens_of("Ours 91.2 ± 0.3", glue=False) == ["Ours", "91.2", "±", "0.3"]


def test_an_operator_joins_the_words_on_both_sides_of_it() -> None:
    assert grid("Model Acc F1\nHeron + Aug 71.4 66.2\nFalcon 52.9 47.3") == [
        ["Model", "Acc", "F1"], ["Heron + Aug", "71.4", "66.2"], ["Falcon", "52.9", "47.3"]]


def test_runs_of_as_many_words_on_every_body_line_are_a_cell_a_word() -> None:
    lines = "Encoder Descriptor Model A B\nBB Net7 Local 58.31 24.66\nXYZ Net7 Ours 77.45 36.02\nQR Net8 Ours 79.12 40.55"
    assert grid(lines)[1] == ["BB", "Net7", "Local", "58.31", "24.66"]
    assert grid(lines, ALL - {"regular_runs"})[1] == ["BB Net7 Local", "58.31", "24.66"]


def test_a_table_of_words_alone_reads_a_word_a_cell_when_most_lines_hold_as_many() -> None:
    lines = "alpha bravo charlie delta\necho foxtrot golf hotel\nindia juliet kilo lima\nmike"
    assert grid(lines)[:3] == [["alpha", "bravo", "charlie", "delta"], ["echo", "foxtrot", "golf", "hotel"],
                               ["india", "juliet", "kilo", "lima"]]
    assert grid(lines, ALL - {"regular_words"})[0] == ["alpha bravo charlie delta"]


def test_a_line_with_more_cells_than_the_table_reads_its_first_ones_as_one_label() -> None:
    assert grid("A 1 2\nB 3 4\nC D 5 6 7\nE 8 9")[2] == ["C D 5", "6", "7"]


def test_one_column_of_lines_without_cells_is_read_as_written() -> None:
    reading = read_prediction(lines_of("Name\nClay\nFine sand"))
    assert reading is not None and not reading.undelimited and reading.how == "as written"


def test_meta_eval_reads_a_gridless_extraction_as_lines() -> None:
    gt, pred = _read_pair("\\begin{tabular}{cc}\nName & Value \\\\\n\\hline\nA & 1.5 \\\\\nB & 2.5 \\\\\n\\end{tabular}",
                          "Name Value\nA 1.5\nB 2.5\n")
    assert pred is not None and pred.fmt == "lines"
    assert semantic_details(gt, pred).score == 10.0
    assert _read_pair("\\begin{tabular}{cc}\nA & 1 \\\\\n\\end{tabular}", "  \n")[1] is None


def test_meta_eval_reads_lines_around_a_stray_grid_row_as_the_run_locates_them() -> None:
    """A parser that wrote a table as plain lines and one of its rows as a one-row HTML table: the
    benchmark's locator finds the table in those lines, and meta-eval scores what a run would (issue
    43: scored as the stray row alone, 0.1 where the judge gave 7)."""
    gt = ("\\begin{tabular}{lccc}\n & Alpha & Beta & Gamma \\\\\n\\hline\nNorth & 43.01 & 67.45 & 52.67 \\\\\n"
          "South & 49.62 & 70.87 & 58.12 \\\\\nEast & 50.52 & 71.27 & 58.56 \\\\\nWest & 51.01 & 72.22 & 59.95 \\\\\n"
          "Centre & 50.42 & 69.15 & 54.79 \\\\\n\\end{tabular}")
    text = ("Alpha Beta Gamma\nNorth 43.01 67.45 52.67\nSouth 49.62 70.87 58.12\nEast 50.52 71.27 58.56\n\n"
            "<table><tr><td>West</td><td>51.01</td><td>72.22</td><td>59.95</td></tr></table>\n\n"
            "Centre 50.42 69.15 54.79\n")
    g, pred = _read_pair(gt, text)
    assert pred is not None and len(pred.rows) >= 4
    assert semantic_details(g, pred).score >= 5


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
    read = semantic_details(gt, found.table)
    # every cell read right: what it costs is the emphasis the table does not have (semantic_emphasis:
    # three headers bold and underlined, three cells underlined)
    assert read.diff["counts"] == {"equal": 9, "changed": 0, "missing": 0, "extra": 0}
    assert [name for name, v in read.features.items() if v] == ["emphasis"] and read.counts["emphasis"] == 9
    assert DEFAULT.lines_weights != DEFAULT.weights


def test_two_numbers_about_a_spaced_slash_are_one_cell() -> None:
    """`99.1 / 97.5 89.5 / 23.4`: a reader reads pairs (issue 43: judge 9, before 2.9)."""
    assert tokens_of("MNIST 99.1 / 97.5 89.5 / 23.4") == ["MNIST", "99.1 / 97.5", "89.5 / 23.4"]
    assert tokens_of("P / R") == ["P", "/", "R"]  # labels about a slash stay words (an operator joins them later)


def test_a_label_numbered_on_every_line_is_one_cell_with_its_number() -> None:
    """`Option 1 4.80`: the word alone does not tell the rows apart, so a reader takes `Option 1` as
    the label (one value column, not two); the header's shared word is the stub's label."""
    lines = "Option Mean Number of Iterations\nOption 1 4.8000\nOption 2 5.0750\nOption 3 41.8125"
    assert grid(lines) == [["Option", "Mean Number of Iterations"], ["Option 1", "4.8000"], ["Option 2", "5.0750"],
                           ["Option 3", "41.8125"]]
    assert grid(lines, ALL - {"enumerated"})[1] == ["Option", "1", "4.8000"]  # the rule's own effect
    assert grid("Task 0 3 1.079\nTask 1 4 1.099\nTask 2 4 0.776")[0] == ["Task 0", "3", "1.079"]
    # a label that differs on every line is no numbered label: its number stays a value
    assert grid("Alpha 1 0.5\nBeta 2 0.6\nGamma 3 0.7")[0] == ["Alpha", "1", "0.5"]


def test_header_words_are_grouped_as_language_groups_them() -> None:
    """More header words than columns: no label begins or ends with a joining word, a lower-case
    word continues the one before, labels are as even as that allows, the first ones longer on a tie."""
    body = "\nA 0.1 0.2 0.3\nB 0.4 0.5 0.6"
    assert grid("sonnet-4.5 1,000 tokens 5,000 tokens 10,000 tokens" + body)[0] == [
        "sonnet-4.5", "1,000 tokens", "5,000 tokens", "10,000 tokens"]
    assert grid("Feature Weight of evidence Rank Share" + body)[0] == ["Feature", "Weight of evidence", "Rank", "Share"]
    assert grid("Target Model Acc F1\nAlpha 0.5 0.6\nBeta 0.7 0.8")[0] == ["Target Model", "Acc", "F1"]


def test_plain_lines_of_numbered_labels_and_long_headers_score_as_a_reader_reads_them() -> None:
    """The shape of issue 43's fifth kind (a judge gives 10): nothing but the delimiters is lost."""
    rows = [["Option 1", "4.8000"], ["Option 2", "5.0750"], ["Option 3", "5.5250"], ["Option 4", "7.5000"]]
    gt = "\\begin{tabular}{cc}\nOption & Mean Number of Iterations \\\\\n" + "".join(
        f"{a} & {b} \\\\\n" for a, b in rows) + "\\end{tabular}"
    text = "Option Mean Number of Iterations\n" + "\n".join(f"{a} {b}" for a, b in rows)
    g, p = _read_pair(gt, text)
    assert semantic_details(g, p).score >= 9


def test_a_label_numbered_inside_a_line_is_one_cell_with_its_number() -> None:
    """`... 2 Player 1 (2, 1, 1)`: a label followed by a different small integer on several lines is
    one label wherever it stands in the line (issue 43: judge 8-9, before 4.5-5.1)."""
    lines = ("Turn Start Who Index Winner End\n1 (1, 1) Both 2 Player 1 (2, 1)\n2 (2, 1) Both 2 Player 2 (2, 2)\n"
             "3 (2, 2) Both 2 Player 1 (3, 2)")
    assert grid(lines)[1] == ["1", "(1, 1)", "Both", "2", "Player 1", "(2, 1)"]
    assert grid(lines, ALL - {"enumerated"})[1] == ["1", "(1, 1)", "Both", "2", "Player", "1", "(2, 1)"]


def test_lines_that_begin_with_a_number_and_the_same_word_begin_with_a_label() -> None:
    """`1–2 rooms 57.8 294`: a count and its unit on every line is the row's label, as `Rooms rented`
    names it (issue 43: judge 9, before 5.5)."""
    lines = "Rooms rented Occupancy (%) # Nights\n1–2 rooms 57.8 294\n3–4 rooms 49.2 203\n10+ rooms 44.4 18"
    assert [row[0] for row in grid(lines)[1:]] == ["1–2 rooms", "3–4 rooms", "10+ rooms"]
    assert len(grid(lines)[1]) == 3
    # a number before labels that differ (a rank, then a name) stays a column of its own
    assert grid("Rank Team Points\n1 Otters 90.1\n2 Herons 89.5")[1] == ["1", "Otters", "90.1"]


def test_a_number_in_brackets_after_a_label_belongs_to_the_label_when_the_values_are_not_bracketed() -> None:
    """`Base + Tune (0.3) 21.65 21.75`: a setting in brackets names the row; the values are written
    bare, and the header names as many value columns as there are bare values (issue 43: judge 9,
    before 4.4). A run joined by an operator stays one label when rows are otherwise regular."""
    lines = ("Method Recall (R@k)\nBackbone @5 @10 @25\nBase 20.71 21.17 19.62\nBase + Tune (0.1) 21.02 21.41 19.78\n"
             "Base + Tune (0.3) 21.65 21.75 20.27\nBase + Tune (0.5) 22.43 22.35 20.70")
    assert [row[0] for row in grid(lines)[2:]] == ["Base", "Base + Tune (0.1)", "Base + Tune (0.3)", "Base + Tune (0.5)"]
    assert all(len(row) == 4 for row in grid(lines)[1:])
    # values all in brackets stay values: `Time (s) (27.0) (128.3)`
    assert grid("Item A B\nTime (s) (27.0) (128.3)\nSpeedup 1.0 4.7")[1] == ["Time (s)", "(27.0)", "(128.3)"]


def test_a_comparison_before_a_number_is_the_value_it_bounds() -> None:
    """`Coverage ratio (masked) > 0.02` under `Criterion Threshold`: a reader reads the bound as the
    threshold's value, not `>` joining the label to the number (issue 43: judge 8, before 4.4); a
    comparison inside a list of conditions stays text."""
    lines = "Criterion Threshold\nScore (target clip) > 0.35\nSilence ratio (target clip) < 95%\nCoverage ratio > 0.02"
    assert grid(lines)[1:] == [["Score (target clip)", "> 0.35"], ["Silence ratio (target clip)", "< 95%"],
                               ["Coverage ratio", "> 0.02"]]
    assert tokens_of("(i) a < 0, b > 1")[:3] == ["(i) a", "<", "0,"]


def test_a_null_marker_after_a_label_shows_a_label_column_the_other_lines_write_as_their_last_word() -> None:
    """`Coastal - 10 5 0.999` beside `Coastal Dry 10 20 0.987` and `North Hill Dry 10 20 0.992`: the dash
    stands for the second column's cell, so a reader takes `Dry` as that column's label (issue 43:
    judge 10, before 6.8)."""
    lines = ("Site Regime Shots Runs Score\nCoastal - 10 5 0.999\nNorth Hill - 10 5 0.998\nCoastal Dry 10 20 0.987\n"
             "North Hill Dry 100 20 1.000\nCoastal Wet 10 25 0.998")
    assert grid(lines)[0] == ["Site", "Regime", "Shots", "Runs", "Score"]
    assert grid(lines)[4] == ["North Hill", "Dry", "100", "20", "1.000"]
    assert grid(lines, ALL - {"regular_runs"})[4] == ["North Hill Dry", "100", "20", "1.000"]


def test_a_size_and_an_approximate_value_are_one_cell_each_whatever_italics_the_parser_set() -> None:
    """`16 _×_ 16 14.2s (1.0 _×_ ) 12.8s`: a parser set the symbols in italics; a reader reads a size, a
    time with its ratio and a time (issue 43: judge 9, before 5.0); `_∼_ 900s*` is about 900 s."""
    assert tokens_of("16 _×_ 16 14.2s (1.0 _×_ ) 12.8s") == ["16 × 16", "14.2s", "(1.0 × )", "12.8s"]
    assert tokens_of("128 × 128 _∼_ 900s* _∼_ 700s*") == ["128 × 128", "∼ 900s*", "∼ 700s*"]
    assert tokens_of("_Effect_ 0.5") == ["_Effect_", "0.5"]  # a word's emphasis stays for the emphasis count


def test_a_word_lettered_alike_on_every_line_is_one_label() -> None:
    """`Stage A`, `Stage B`, `Stage C`: the letter tells the rows apart, as `Option 1`'s number does;
    `Stage` alone would be a column that says nothing. Two words that both vary stay a cell each."""
    lettered = "Phase Load Heat Cool\nStage A 1.36 1.35 1.19\nStage B 0.30 0.29 0.27\nStage C 0 9.71 35.03"
    assert [row[0] for row in grid(lettered)[1:]] == ["Stage A", "Stage B", "Stage C"]
    paired = "Encoder Known All Old\nDINO N 73.0 76.2\nDINO Y 75.9 79.7\nCLIP N 84.2 83.1"
    assert grid(paired)[1] == ["DINO", "N", "73.0", "76.2"]
