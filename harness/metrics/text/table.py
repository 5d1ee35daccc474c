"""The text metrics' constants as rows (`core.score_table`): docs/text.md renders them, a test
holds every constant of the alignment to a row, and the mutation run changes each in turn."""

from __future__ import annotations

from tablebench.core.score_table import ScoreRow

_A = "tablebench.metrics.text.alignment"
_T = "tests/test_text_constants.py::"
_P = "tests/test_text_prose.py::"

ROWS = (
    ScoreRow(_A, "K", "words in an anchor that starts a run where the reading jumped to", "the fewest words that "
             "name a place in a page's prose (two repeat too often); a bound, not fitted",
             _T + "test_a_three_word_fragment_read_out_of_place_starts_a_run_of_its_own", "4"),
    ScoreRow(_A, "MAX_REPEATS", "an anchor found more often in the ground truth starts no run (it says no place)",
             "a bound on ambiguity and on the look-ups per word (linear time); not fitted",
             _T + "test_a_phrase_the_text_repeats_too_often_starts_no_run", "1000"),
    ScoreRow(_A, "WINDOW", "ground-truth words a run may skip (dropped words) and still continue",
             "a bound: a longer drop is found again by an anchor; not fitted",
             _T + "test_a_run_continues_over_a_few_dropped_words", "1"),
    ScoreRow(_A, "MAX_GAP", "words of ground truth an edited stretch may replace; longer ones are missing + invented",
             "a bound on the edit distances computed per stretch; not fitted",
             _T + "test_three_changed_words_between_matched_text_are_an_edit", "2"),
    ScoreRow(_A, "SIZE_RATIO", "an edited stretch: neither side more than this many times the other's size",
             "an edit distance never exceeds the longer side, so without a bound a dropped paragraph beside a "
             "footer would read as edited into it; not fitted",
             _P + "test_a_dropped_block_beside_stray_text_is_missing_and_the_text_invented_not_an_edit",
             "100"),
)
