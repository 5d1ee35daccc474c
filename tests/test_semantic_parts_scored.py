"""Parts of the semantic score, scored end to end as a reader would rate what they read.

The reading rules' own tests read lines into cells (`semantic_lines.read_lines`); these score a
table written as lines through the whole score, where the rules apply as `semantic.RULES` says: a
reader reads such lines whole (nothing lost but the delimiters), so the score must be a reader's
score for them. And what a reader makes of a grid (tests/test_metric_semantic.py's table and
bands): a label over another column's values, or a column's label misread, misleads about every
value under it, which costs more than numbers misread; a blank row is a visible flaw that loses
nothing. Each test fails when its part is taken out of the score (a rule out of `semantic.RULES`,
a feature's weights set to 0: the semantic mutation run's row mutants).
"""

from __future__ import annotations

from tablebench.core.table import Table
from tablebench.metrics.tables.semantic import semantic_details
from tablebench.readers.text import read_lines as lines_of
from tests.test_metric_semantic import GT, HARMLESS, HEAD, ROWS, SEVERE, edited, flat

# Lines a reader reads whole: nothing is lost but the cell delimiters, and a judge gives them 9-10
# (issue 43's fifth kind); the score keeps at least this much.
READ_WHOLE = 9.5


def _scored_as_lines(rows: list[list[str]]) -> float:
    """The score of the table of `rows` (the first row its header) written as lines of text, one line a
    row, a space between cells."""
    truth = Table.from_rows(rows, header_rows=1)
    return semantic_details(truth, lines_of("\n".join(" ".join(row) for row in rows))).score


def test_numbers_with_their_error_written_as_lines_score_as_a_reader_reads_them() -> None:
    """`glue`: `71.4 ± 0.6` is one value to a reader, not a value, a sign and another value."""
    rows = [["Method", "Top-1", "Top-5"], ["Heron", "71.4 ± 0.6", "90.2 ± 0.3"],
            ["Falcon", "68.9 ± 0.4", "88.7 ± 0.5"], ["Osprey", "73.0 ± 0.2", "91.5 ± 0.1"]]
    assert _scored_as_lines(rows) >= READ_WHOLE


def test_runs_of_as_many_words_on_every_line_score_as_a_reader_reads_them() -> None:
    """`regular_runs`: three words before the numbers on every line, under three header words, are
    three cells to a reader."""
    rows = [["Backbone", "Loss", "Sampler", "mAP", "Recall"], ["Res50", "Focal", "Uniform", "41.3", "62.0"],
            ["Swin", "Focal", "Balanced", "45.8", "66.4"], ["Res101", "Dice", "Uniform", "43.1", "63.7"]]
    assert _scored_as_lines(rows) >= READ_WHOLE


def test_a_table_of_words_alone_written_as_lines_scores_as_a_reader_reads_it() -> None:
    """`regular_words`: no numbers to go by; lines of as many words are a word a cell to a reader."""
    rows = [["City", "River", "Region", "Climate"], ["Lyon", "Rhone", "Auvergne", "temperate"],
            ["Porto", "Douro", "Norte", "oceanic"], ["Seville", "Guadalquivir", "Andalusia", "arid"]]
    assert _scored_as_lines(rows) >= READ_WHOLE


def test_labels_numbered_on_every_line_score_as_a_reader_reads_them() -> None:
    """`enumerated`: `Trial 2 0.318` is the row of trial 2 to a reader, not a row of `Trial` with two values."""
    rows = [["Trial", "Median Error"], ["Trial 1", "0.412"], ["Trial 2", "0.318"], ["Trial 3", "0.287"],
            ["Trial 4", "0.305"]]
    assert _scored_as_lines(rows) >= READ_WHOLE


def test_two_column_labels_swapped_cost_more_than_two_wrong_numbers() -> None:
    """`attached`: with two labels swapped, every value of both columns stands under the other's label
    (eight facts a reader gets wrong, believing them), which misleads more than two numbers misread."""
    two_wrong = semantic_details(GT, flat(HEAD, edited((0, 3, "112"), (1, 3, "0.45"))))  # a point lost, a minus dropped
    assert semantic_details(GT, flat(["Model", "F1", "Acc", "Δ"], ROWS)).score < two_wrong.score


def test_a_column_label_misread_as_another_name_costs_more_than_one_of_its_numbers_misread() -> None:
    """`headers`: `F2` over the values of `F1` names another measure: a reader misreads all four values
    under it, which costs more than one of them misread."""
    one_wrong = semantic_details(GT, flat(HEAD, edited((0, 3, "112"))))
    assert semantic_details(GT, flat(["Model", "Acc", "F2", "Δ"], ROWS)).score < one_wrong.score


def test_a_blank_row_the_table_does_not_have_is_a_visible_flaw_that_loses_nothing() -> None:
    """`lines`: an empty row among the rows makes a reader look for what it held; every value is there,
    so it costs something, and less than one number misread."""
    assert SEVERE < semantic_details(GT, flat(HEAD, [*ROWS[:2], ["", "", "", ""], *ROWS[2:]])).score < HARMLESS
