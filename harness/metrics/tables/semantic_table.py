"""The semantic score's constants outside its weights, as rows (`core.score_table`): docs/semantic-score.md
renders them, tests/test_semantic_features_doc.py holds every module-level number of the score's modules
to a row and every row to the issue-43 rule (fitted in the cross-validation, or a bound that judges no
error's cost), and the semantic mutation run changes each in turn. The weights are `Params`, per feature,
in the docs' feature table."""

from __future__ import annotations

from tablebench.core.score_table import ScoreRow

_M = "tablebench.metrics.tables."
_SEM = "tests/test_metric_semantic.py::"

ROWS = (
    ScoreRow(_M + "semantic", "DEFAULT.key_weight", "share of header keys (against content) in the alignment",
             "fitted in CV over `semantic_fit.KEY_WEIGHTS`",
             "tests/test_metaeval.py::test_the_fit_weighs_every_ground_truth_table_alike", "0.7",
             "    key_weight: float"),
    ScoreRow(_M + "semantic_fit", "RIDGE", "keeps unused weights at 0",
             "fit procedure: negligible against the squared error",
             "tests/test_metaeval.py::test_the_fit_weighs_every_ground_truth_table_alike", "10.0"),
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
             "20 columns in 6 ms, `tests/benchmarks/test_bench_header_words.py`)", "speed bound",
             "tests/test_semantic_lines.py::test_header_words_are_grouped_as_language_groups_them", "2"),
    ScoreRow(_M + "semantic_align", "FULL_COMPARISON", "cell pairs up to which rows align on how alike every cell is "
             "(beyond it: on their labels and the cells written exactly alike)", "speed bound",
             _SEM + "test_rows_no_label_tells_apart_align_on_every_cells_likeness", "10"),
    ScoreRow(_M + "semantic", "MAX_ERRORS", "errors named per table (no effect on the score)", "display bound",
             _SEM + "test_errors_are_at_most_five_and_most_severe_first", "2"),
    ScoreRow(_M + "semantic_align", "_TIE", "two similarities this close are a tie", "float tolerance",
             _SEM + "test_one_label_given_to_two_columns_the_table_tells_apart_attributes_neither", "0.5"),
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
             "display bound", "tests/test_semantic_emphasis.py::test_a_cause_keeps_at_most_max_text_characters", "10"),
    ScoreRow(_M + "semantic_diff", "MAX_CELLS", "cells a cell diff keeps in full (no effect on the score)",
             "display bound", "tests/test_cell_diff.py::test_a_large_differing_table_keeps_counts_only", "1"),
    ScoreRow(_M + "semantic_diff", "MAX_TEXT", "characters of a cell a cell diff keeps (no effect on the score)",
             "display bound", "tests/test_cell_diff.py::test_a_large_differing_table_keeps_counts_only", "5"),
)
