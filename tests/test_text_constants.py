"""The text alignment's constants, each pinned by the behaviour it decides (`metrics.text.table.ROWS`;
the mutation run sets each to another value and expects its test here to fail). Contents invented."""

from __future__ import annotations

from tablebench.metrics.text.alignment import EDITED, INVENTED, MATCHED, align_text

WORDS = [f"w{k:02d}" for k in range(40)]


def test_a_three_word_fragment_read_out_of_place_starts_a_run_of_its_own() -> None:
    """`K`: three words are enough to say where a reading jumped to (a paragraph's last line set first)."""
    gt = [" ".join(WORDS[:12])]
    a = align_text(gt, " ".join(WORDS[9:12] + WORDS[:9]))
    assert a.status == [MATCHED] * 12 and sorted(r.gt_start for r in a.runs) == [0, 9]


def test_a_phrase_the_text_repeats_too_often_starts_no_run() -> None:
    """`MAX_REPEATS`: a three-word phrase found 9 times in the page cannot say which one was read, so
    stray copies of it are invented text, not repeats of one of them."""
    gt = [" ".join(f"the same phrase {w}" for w in WORDS[:9])]
    a = align_text(gt, gt[0] + " the same phrase")
    assert a.status[-3:] == [INVENTED] * 3


def test_a_run_continues_over_a_few_dropped_words() -> None:
    """`WINDOW`: three words dropped, the two after them still continue the run (two words could
    not start one)."""
    gt = [" ".join(WORDS[:10])]
    a = align_text(gt, " ".join(WORDS[:5] + WORDS[8:10]))
    assert a.status == [MATCHED] * 7 and list(a.coverage) == [1] * 5 + [0] * 3 + [1] * 2


def test_three_changed_words_between_matched_text_are_an_edit() -> None:
    """`MAX_GAP`: a stretch of changed words between two runs is that text edited."""
    gt = [" ".join(WORDS[:12])]
    a = align_text(gt, " ".join(WORDS[:5] + ["x05", "x06", "x07"] + WORDS[8:12]))
    assert a.status[5:8] == [EDITED] * 3 and all(a.coverage)
