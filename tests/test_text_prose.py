"""The prose reader and the word alignment under the text metrics: what is prose, what is forgiven,
where each block is found."""

from __future__ import annotations

from tablebench.metrics.text.alignment import DUPLICATE, EDITED, INVENTED, MATCHED, align_text, in_order
from tablebench.readers.prose import prose_words, words_of
from tablebench.readers.textnorm import forgiven


def norms(output: str) -> list[str]:
    return [w.norm for w in prose_words(output)]


def test_tables_math_images_and_markup_are_not_prose() -> None:
    out = ("# Results\n\nWe **report** _all_ runs.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
           "<table><tr><td>cell</td></tr></table><p>After $x^2$ and $$y$$ it <b>ends</b>.</p>\n"
           "![fig](img.png) \\begin{tabular}{ll} p & q \\end{tabular} \\textbf{Done} [here](http://x.y).")
    assert norms(out) == ["Results", "We", "report", "all", "runs.", "After", "and", "it", "ends", ".",
                          "Done", "here", "."]


def test_offsets_point_at_the_words_in_the_output() -> None:
    out = "**Intro** text\n\n<b>more</b>"
    assert [out[w.start:w.end] for w in prose_words(out)] == ["Intro", "text", "more"]


def test_what_a_reader_forgives_and_what_it_does_not() -> None:
    assert forgiven("\ufb01nal") == "final" and forgiven("\ufb02ow") == "flow"
    assert forgiven("\u201cquoted\u201d") == '"quoted"' and forgiven("don\u2019t") == "don't"
    assert forgiven("co\u00adoperate") == "cooperate" and forgiven("&amp;") == "&"
    assert norms("infor-\nmation and well-known") == ["information", "and", "well-known"]
    assert norms("infor- mation") == ["infor-", "mation"], "a hyphen without a line break is the writer's"
    assert norms("Paris-\nBerlin") == ["Paris-", "Berlin"], "a capital after the break: a real hyphen"
    assert forgiven("colour") != forgiven("color")


def test_scripts_without_spaces_are_read_character_by_character() -> None:
    assert [w.norm for w in words_of("中文文本。")] == ["中", "文", "文", "本", "。"]
    gt = ["机器学习模型在测试集上表现良好。"]
    assert align_text(gt, "机器学习模型在测试集上表现良好。").coverage == bytearray([1]) * 16


def test_an_unclosed_opener_leaves_the_rest_as_prose() -> None:
    assert norms("<table never closed and $$ nor this") == ["<table", "never", "closed", "and", "$$", "nor", "this"]


def test_each_word_is_matched_once_and_a_repeat_is_a_duplicate() -> None:
    gt = ["alpha beta gamma delta", "epsilon zeta eta theta"]
    a = align_text(gt, "alpha beta gamma delta alpha beta gamma delta epsilon zeta eta theta")
    assert a.status == [MATCHED] * 4 + [DUPLICATE] * 4 + [MATCHED] * 4
    assert list(a.coverage) == [1] * 8


def test_a_changed_word_between_matched_words_is_an_edit_and_stray_text_is_invented() -> None:
    gt = ["one two three four five six seven"]
    a = align_text(gt, "HEADER one two three fire five six seven")
    assert a.status == [INVENTED, MATCHED, MATCHED, MATCHED, EDITED, MATCHED, MATCHED, MATCHED]
    assert a.edits == [(4, 5, 3, 4)]
    cased = align_text(gt, "one two three Four five six seven.")  # found by its lookup form, scored as written
    assert [j for j, s in enumerate(cased.status) if s == EDITED] == [3, 6] and len(cased.runs) == 1


def test_a_block_split_by_other_text_is_found_in_both_fragments_in_order() -> None:
    gt = ["first block of words here", "second block runs on for a while longer"]
    a = align_text(gt, "first block of words here second block runs\n\nPAGE 2\n\non for a while longer")
    assert [a.block_at(j) for j in range(len(a.out))] == [0] * 5 + [1] * 3 + [-1, -1] + [1] * 5
    assert all(in_order(a))


def test_text_out_of_order_is_left_out_of_the_in_order_chain() -> None:
    gt = ["aa bb cc dd", "ee ff gg hh", "ii jj kk ll"]
    a = align_text(gt, "ii jj kk ll aa bb cc dd ee ff gg hh")
    assert [r.gt_start for r in a.runs] == [8, 0] and in_order(a) == [False, True]


def test_a_dropped_block_beside_stray_text_is_missing_and_the_text_invented_not_an_edit() -> None:
    gt = ["one two three four", "a much longer paragraph of many words that the parser dropped entirely"]
    a = align_text(gt, "one two three four PAGE 7")
    assert a.status == [MATCHED] * 4 + [INVENTED] * 2 and a.edits == []
    assert list(a.coverage) == [1] * 4 + [0] * 12
    glued = align_text(gt, "one two three four amuchlongerparagraph of many words that the parser dropped entirely")
    assert glued.status[4] == EDITED and all(glued.coverage)
