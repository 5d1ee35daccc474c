"""The semantic score's tables in code (`core.score_table`), each rendered into its block of
docs/semantic-score.md by `python -m tests.benchmarks.score_tables`:

- `FEATURE_ROWS`: what each feature the score combines counts; its weights are read from
  `semantic.DEFAULT` when the table is rendered (`render_features`), never written here;
- `READING_RULE_ROWS`, `COMPARISON_RULE_ROWS`: every rule of `semantic.RULES` (the ones `tablebench
  meta-eval --ablation` removes in turn) and what a reader does by it;
- `BEHAVIOUR_ROWS`: how lines and grids are read where no rule can be removed;
- `CONSTANT_ROWS`: the constants outside the weights.

tests/test_semantic_features_doc.py holds the rows to the code (every feature of `FEATURES` in its
order, every rule once, every module-level number of the score's modules a row, every row's test
there, every constant chosen by the issue-43 rule: fitted in the cross-validation, or a bound that
judges no error's cost), and the semantic mutation run (`tests.benchmarks.semantic_mutations`)
makes one mutant of each feature, rule and constant row: a feature's weight set to 0, a rule
removed from `semantic.RULES`, a constant set to its row's `mutant`."""

from __future__ import annotations

from tablebench.core.markdown_table import markdown_table
from tablebench.core.score_table import PartRow, ScoreRow
from tablebench.metrics.tables.semantic import DEFAULT
from tablebench.metrics.tables.semantic_align import FEATURES

_M = "tablebench.metrics.tables."
_SEM = "tests/test_metric_semantic.py::"
_LINES = "tests/test_semantic_lines.py::"
_ROWS = "tests/test_semantic_rows.py::"
_FORMATS = "tests/test_semantic_formats.py::"
_READER = "tests/test_semantic_reader_of_lines.py::"
_EMPHASIS = "tests/test_semantic_emphasis.py::"
_SPACING = "tests/test_semantic_spacing.py::"
_SPANS = "tests/test_semantic_spans.py::"
_PARTS = "tests/test_semantic_parts_scored.py::"
FITTED = "`semantic_fit.fit`, in CV"  # how every feature's weights are chosen (`semantic.Params`)

# What each feature counts (`semantic_align.FEATURES`, in its order: `semantic.per_feature` names a
# weight by it). Counts are charged log(1 + n) (`semantic_size.CHARGED`).
FEATURE_ROWS = (
    PartRow("share", "`-log` of the soft F1 over all facts (cells and column header paths)",
            _SEM + "test_agrees_with_human_ratings_on_dev"),
    PartRow("values", "wrong, moved or missing cells, each one error however alike its text",
            _SEM + "test_severe_differences_cost_clearly_and_are_named"),
    PartRow("lines", "rows and columns lost, invented or blank",
            _PARTS + "test_a_blank_row_the_table_does_not_have_is_a_visible_flaw_that_loses_nothing"),
    PartRow("headers", "misreadings of header text, grouped by the words that differ",
            _PARTS + "test_a_column_label_misread_as_another_name_costs_more_than_one_of_its_numbers_misread"),
    PartRow("attached", "rows or columns whose values stand under another's label, one per displacement",
            _PARTS + "test_two_column_labels_swapped_cost_more_than_two_wrong_numbers"),
    PartRow("unattributed", "share of values whose row or column key a reader cannot recover",
            _SEM + "test_one_label_given_to_two_columns_the_table_tells_apart_attributes_neither"),
    PartRow("unlabelled", "lines of text only: share of the value columns whose header label is not above the rows, "
            "where a reader of lines looks for it (no markup says which label heads which values; without the labels "
            "nothing can be mapped)",
            _READER + "test_header_labels_dropped_from_lines_leave_every_value_unlabelled"),
    PartRow("emphasis", "texts the prediction emphasises (bold, italic, underline, strike-through, each kind apart) "
            "beyond those the ground truth emphasises so, each side read in its own syntax (`semantic_emphasis`): "
            "emphasis says something in a table (the best result), so emphasis the source lacks tells a reader what it "
            "does not say; italics over what the ground truth sets as math are the math's own; emphasis lost is not "
            "charged",
            _EMPHASIS + "test_emphasis_the_table_does_not_have_is_counted_and_named"),
    PartRow("absent", "`-log` of the share of the table's text the extraction holds anywhere (character pairs of each "
            "header label, once, and of every body cell, white space and letter case dropped, a text repeated in the "
            "next slot of its row or column once; found in the extraction's cells or along its rows, whatever its cell "
            "boundaries; a title is never required): a reader who sees a third of a table can reconstruct at most a "
            "third of it, whatever the cells (`semantic_align.text_overlap`)",
            _SEM + "test_a_table_mostly_absent_costs_its_absent_share"),
    PartRow("invented", "`-log` of the share of the extraction's text that is the table's (a page's prose run into "
            "its lines, another table's header): what a reader must set aside",
            _SEM + "test_text_that_is_not_the_tables_costs_in_lines_of_text"),
    PartRow("spacing", "share of the table's word boundaries (two neighbouring words of a cell, each with a letter) "
            "that the extraction writes run together and nowhere apart (`Collapsemodels`, `Walltime(sec)`): the words "
            "are damaged, a reader no longer knows where each name ends (`semantic_spacing`)",
            _SPACING + "test_words_run_together_cost_their_share_and_are_named"),
    PartRow("spans", "lines of text only: the share of the ground truth's columns under a header label that spans "
            "columns (narrower than the table), plus the share of its body rows that a label written in a row above "
            "spans into (`\\multirow`): lines cannot show where such a label ends, so a reader of them guesses from "
            "order (`semantic_spans`)",
            _SPANS + "test_without_the_rule_spans_cost_nothing"),
)

# The reading rules (`semantic_read.READ_RULES`): how the prediction is read, without the ground truth.
READING_RULE_ROWS = (
    PartRow("lines", "a one-column table of several rows is lines of text: read back into cells from their own "
            "regularity",
            _LINES + "test_lines_of_one_word_cells_read_back_whole_and_cost_nothing_for_being_lines"),
    PartRow("glue", "keeps together what belongs together on a line: a superscript or mark after a token, a number "
            "with its ± or × 10ᵏ part, a size (`16 × 16`), a bound and its number (`> 0.35`, `∼ 900s`), a number in "
            "brackets after a label when the values after it are bare (`Base (0.3) 21.6`), a bracket or emphasis "
            "holding a space, a list's comma, an enumerator and its label",
            _PARTS + "test_numbers_with_their_error_written_as_lines_score_as_a_reader_reads_them"),
    PartRow("regular_runs", "runs of words that every body line of the common shape writes with as many words are a "
            "cell a word, but for one word alike on every line and a letter telling the lines apart (`Stage A`)",
            _PARTS + "test_runs_of_as_many_words_on_every_line_score_as_a_reader_reads_them"),
    PartRow("regular_words", "a table of words alone is a cell a word when most lines hold as many",
            _PARTS + "test_a_table_of_words_alone_written_as_lines_scores_as_a_reader_reads_it"),
    PartRow("enumerated", "a label repeated in several lines, each time with another small integer (`Option 1`, "
            "`Option 2`; `Player 1` inside a line), is one label with its number (the word alone tells no rows apart); "
            "a word repeated at line starts heads the stub; lines that begin with a number and the same word begin "
            "with a counted label (`1–2 files`)",
            _PARTS + "test_labels_numbered_on_every_line_score_as_a_reader_reads_them"),
    PartRow("cycles", "a run of words above a header line whose labels repeat a cycle (`Train Test Train Test`) names "
            "the groups of the cycle's length, grouped as language groups them, after the labels of the columns "
            "before the cycle that the lower line leaves blank",
            _LINES + "test_labels_read_over_a_cycle_score_as_the_table"),
)

# The comparison rules (`semantic_align.ALIGN_RULES`, `semantic_emphasis.RULE`, `semantic_spacing.RULE`,
# `semantic_spans.RULE`): what the comparison counts beyond aligning and counting.
COMPARISON_RULE_ROWS = (
    PartRow("foreign_text", "a row whose words are mostly not the table's is text foreign to it: in a row's place, a "
            "row lost and a text invented; among the rows, a text invented; in lines of text, a line of the table's "
            "own words left over is a piece of a row (charged as what that row lacks), not an invented row",
            _READER + "test_prose_in_a_rows_place_is_a_row_lost_and_a_text_invented"),
    PartRow("emphasis", "emphasis the extraction adds over the table's is a cause of its own "
            "(`semantic_emphasis.RULE`; the feature `emphasis`)",
            _EMPHASIS + "test_without_the_rule_added_emphasis_costs_nothing"),
    PartRow("spacing", "words the extraction runs together are a cause of their own (`semantic_spacing.RULE`; the "
            "feature `spacing`)",
            _SPACING + "test_without_the_rule_words_run_together_cost_nothing"),
    PartRow("spans", "in lines of text, the truth's spanning labels are only implied by the lines' order: a cause of "
            "its own (`semantic_spans.RULE`; the feature `spans`)",
            _SPANS + "test_without_the_rule_spans_cost_nothing"),
)


def _fixed(meaning: str, test: str) -> PartRow:
    """A behaviour of the reading that no rule names (it cannot be removed)."""
    return PartRow("", meaning, test)


# How lines and grids are read (fixed behaviour).
BEHAVIOUR_ROWS = (
    _fixed("the lines shaped otherwise than the body's lines (values and labels in turn) are its header",
           _LINES + "test_the_header_is_the_lines_shaped_otherwise_than_the_body"),
    _fixed("the width is the common count of cells, widened for row labels written once in a group",
           _LINES + "test_a_row_label_written_once_in_a_group_widens_the_table_and_stands_left"),
    _fixed("where no two lines share a shape, the values are counted from a line's end: the lines ending in the "
           "most common run of values are the body, as wide as that run and a label",
           _LINES + "test_values_are_counted_from_the_end_where_no_two_lines_share_a_shape"),
    _fixed("a line of one label in the body is a section row",
           _LINES + "test_a_line_of_one_label_in_the_body_is_a_section_row_over_the_width"),
    _fixed("a header line above the last is a title or stub and group labels",
           _LINES + "test_a_header_line_above_the_last_is_a_title_or_stub_and_group_labels"),
    _fixed("more words than columns on the header line that names the columns are grouped as language groups "
           "them (no label begins or ends with a joining word, a lower-case word continues the one before, labels as "
           "even as that allows)",
           _LINES + "test_header_words_are_grouped_as_language_groups_them"),
    _fixed("cells beyond the width read as one label",
           _LINES + "test_a_line_with_more_cells_than_the_table_reads_its_first_ones_as_one_label"),
    _fixed("a run of words an operator joins (`A + B`) is never split a word a cell, and names one thing in a "
           "header line (`p = 2 p = 3`: two labels; `λ = 10−3` over rows of five: a section row)",
           _LINES + "test_a_number_in_brackets_after_a_label_belongs_to_the_label_when_the_values_are_not_bracketed"),
    _fixed("a null marker after a label stands for a label's cell: lines with one cell fewer hold that column's "
           "label as their label's last word",
           _LINES + "test_a_null_marker_after_a_label_shows_a_label_column_the_other_lines_write_as_their_last_word"),
    _fixed("a symbol a parser set in italics on its own (`_×_`) is the symbol",
           _LINES + "test_a_size_and_an_approximate_value_are_one_cell_each_whatever_italics_the_parser_set"),
    _fixed("a first row whose cells right of the stub are, in order, the labels of the rows below is a matrix's "
           "header, however numeric",
           _ROWS + "test_a_matrix_names_its_columns_as_it_names_its_rows"),
    _fixed("a label set right of a blank stub over every other column is a section row where data follows it, a "
           "group header over a row of labels",
           _ROWS + "test_a_label_set_right_of_a_blank_stub_over_data_is_a_section_row"),
    _fixed("the first row is a header when it labels a column of values below it",
           _ROWS + "test_a_first_row_naming_columns_of_values_is_the_header"),
    _fixed("rows marked as a header whose labels each begin a later row too, with other cells there, are the "
           "first record of a table of records (a header names columns once), not a header",
           _ROWS + "test_rows_above_a_rule_whose_labels_begin_later_rows_too_are_a_record_not_a_header"),
    _fixed("a row whose label spans down from the header is header too",
           _SEM + "test_an_unmarked_sub_header_row_is_read_as_header"),
    _fixed("nested section rows: one right above another opens an outer group",
           _ROWS + "test_a_section_row_right_above_another_opens_an_outer_group"),
    _fixed("a stacked cell is one cell (damage)",
           _FORMATS + "test_a_column_stacked_in_one_cell_is_damage"),
    _fixed("a cell broken over two rows reads as two rows",
           _ROWS + "test_a_cell_broken_over_two_rows_reads_as_two_rows_as_a_reader_sees_them"),
    _fixed("a stub column's vote: a tie of labels and value-like labels is labels",
           _FORMATS + "test_a_column_of_as_many_value_like_labels_as_plain_ones_is_read_as_labels"),
)

# The constants outside the weights (`key_weight` and `midpoint` are `semantic.Params`' too).
CONSTANT_ROWS = (
    ScoreRow(_M + "semantic", "DEFAULT.key_weight", "share of header keys (against content) in the alignment",
             "fitted in CV over `semantic_fit.KEY_WEIGHTS`",
             _SEM + "test_severe_differences_cost_clearly_and_are_named", "0.7",
             "    key_weight: float"),
    ScoreRow(_M + "semantic_fit", "RIDGE", "keeps unused weights at 0",
             "fit procedure: negligible against the squared error",
             "tests/test_metaeval.py::test_ablation_cross_validates_the_score_without_each_reading_rule", "10.0"),
    ScoreRow(_M + "semantic_size", "RATED_FACTS", "counts beyond the rated tables' size become rates",
             "measured: the largest rated table",
             "tests/test_semantic_size.py::test_the_rated_size_is_the_largest_rated_ground_truth_table", "14"),
    ScoreRow(_M + "semantic", "DEFAULT.midpoint", "the likeness below which a thing is not the table's own: a label "
             "less like its own names nothing, a row sharing less of both its label and its values is another row in "
             "its place, a line with a smaller share of its words in the ground truth is text foreign to the table",
             "fitted in CV over `semantic_fit.MIDPOINTS`",
             _SEM + "test_a_label_garbled_beyond_the_midpoint_names_nothing", "0.001", "    midpoint: float"),
    ScoreRow(_M + "semantic_header_words", "MAX_WORDS", "header lines of more words are read a word a column from "
             "the right, not grouped by language (bounds the grouping's cost, run at most twice a table: 40 words over "
             "20 columns in 6 ms, `tests/benchmarks/test_bench_header_words.py`); a cycle of labels is looked for with "
             "at most as many columns before it and labels in it (6,000 labels: 3 ms)", "speed bound",
             "tests/test_semantic_lines.py::test_header_words_are_grouped_as_language_groups_them", "2"),
    ScoreRow(_M + "semantic_align", "FULL_COMPARISON", "cell pairs up to which rows align on how alike every cell is "
             "(beyond it: on their labels and the cells written exactly alike)", "speed bound",
             _SEM + "test_rows_no_label_tells_apart_align_on_every_cells_likeness", "10"),
    ScoreRow(_M + "semantic", "MAX_ERRORS", "errors named per table (no effect on the score)", "display bound",
             _SEM + "test_errors_are_at_most_five_and_most_severe_first", "2"),
    ScoreRow(_M + "semantic_align", "_TIE", "two similarities this close are a tie", "float tolerance",
             _SEM + "test_values_under_the_wrong_section_are_severe_however_alike_the_names", "0.5"),
    ScoreRow(_M + "semantic_presence", "FLOOR", "the least share the `share`, `absent` and `invented` features take "
             "a log of (nothing right, none of the text there)", "bound on `-log 0`",
             _SEM + "test_a_prediction_with_nothing_right_scores_near_nothing", "0.5"),
    ScoreRow(_M + "semantic_causes", "SAME_VALUE_GAP", "two cells at least 0.999 alike read as the same value (no "
             "error, equal in the cell diff)", "float tolerance: one character in a thousand",
             _SEM + "test_a_cell_alike_but_for_a_hair_is_the_same_value", "0.5"),
    ScoreRow(_M + "semantic_causes", "_TIE", "two similarities this close are a tie when naming a value's column",
             "float tolerance", _SEM + "test_one_label_given_to_two_columns_the_table_tells_apart_attributes_neither",
             "0.5"),
    ScoreRow(_M + "semantic_spacing", "_SHOWN", "word boundaries a spacing cause names (no effect on the score)",
             "display bound", "tests/test_semantic_spacing.py::test_words_run_together_cost_their_share_and_are_named",
             "1"),
    ScoreRow(_M + "semantic_causes", "MAX_TEXT", "characters an error message keeps (no effect on the score)",
             "display bound", _SEM + "test_severe_differences_cost_clearly_and_are_named", "10"),
    ScoreRow(_M + "semantic_diff", "MAX_CELLS", "cells a cell diff keeps in full (no effect on the score)",
             "display bound", "tests/test_cell_diff.py::test_changed_missing_and_extra_cells_follow_the_alignment",
             "1"),
    ScoreRow(_M + "semantic_diff", "MAX_TEXT", "characters of a cell a cell diff keeps (no effect on the score)",
             "display bound", "tests/test_cell_diff.py::test_the_card_colours_each_cell_and_escapes_every_text", "5"),
)


def render_features() -> str:
    """The feature table: each row with the shipped weights of its feature (`semantic.DEFAULT`: per
    amount in a grid read as written and in one rebuilt from lines, and for being there at all in
    lines), read by the feature's name."""
    head = ("feature", "meaning", "grid weight", "lines weight", "lines presence", "fitted", "test")
    return markdown_table(head, ((row.name, row.meaning, f"{DEFAULT.weights[FEATURES.index(row.name)]:g}",
                                  f"{DEFAULT.lines_weights[FEATURES.index(row.name)]:g}",
                                  f"{DEFAULT.lines_presence[FEATURES.index(row.name)]:g}", FITTED, f"`{row.test}`")
                                 for row in FEATURE_ROWS))
