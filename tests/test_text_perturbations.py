"""The text metrics on crafted damage to a real page's prose: each perturbation moves the metric it
should, in the right direction, by about the size worked out here from the strings themselves.

No human ratings of text extraction exist here, so this suite is the text metrics' validation.
The ground truth is the prose of committed pages (a two-column page, p001, and a one-column page,
p004, of cases/synth-v1); each output is written here from it. Expected values come from the
strings only (a paragraph's share is its characters plus one separator over the page's), never
from the metric code's own constants.
"""

from __future__ import annotations

import textwrap

import pytest

from tablebench.cases import load_case_set
from tablebench.metrics.text.scores import reading_order, text_fidelity, text_precision, text_recall


@pytest.fixture(scope="module")
def blocks() -> list[str]:
    page = load_case_set("synth-v1", kinds="text", only={"p001"}).pages[0]
    found = list(page.items_of("text")[0].blocks)
    assert len(found) >= 6 and page.items_of("text")[0].group == "two_column"
    return found


def chars(texts: list[str]) -> int:
    """Characters of texts as the page's prose: each text once, one separator after each."""
    return sum(len(" ".join(t.split())) + 1 for t in texts)


def page(blocks: list[str]) -> str:
    return "\n\n".join(blocks)


def wrapped(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)



def hyphenated(blocks: list[str]) -> str:
    """The prose typeset: lines of about 50 characters, each ending inside a long word, hyphenated
    (as a typeset page does), a blank line between blocks."""
    lines = []
    for block in blocks:
        line: list[str] = []
        for word in block.split():
            line.append(word)
            if len(" ".join(line)) > 50 and len(word) > 5:
                line[-1] = word[:3] + "-"
                lines.append(" ".join(line))
                line = [word[3:]]
        lines.append(" ".join(line) + "\n")
    return "\n".join(lines)

def test_the_untouched_prose_scores_one_on_every_metric(blocks: list[str]) -> None:
    out = page(blocks)
    assert [f(blocks, out) for f in (text_fidelity, reading_order, text_recall, text_precision)] == [1.0] * 4


def test_line_breaks_hyphenation_ligatures_and_markup_cost_about_nothing(blocks: list[str]) -> None:
    out = "## " + hyphenated(blocks).replace("fi", "\ufb01").replace("fl", "\ufb02").replace("'", "\u2019")
    assert "\ufb01" in out and out.count("-\n") > 10
    assert text_fidelity(blocks, out) > 0.995
    assert reading_order(blocks, out) == 1.0


def test_two_columns_read_across_lose_about_half_the_order_and_no_text(blocks: list[str]) -> None:
    words = " ".join(blocks).split()
    cut = next(k for k in range(len(words)) if len(" ".join(words[:k])) >= len(" ".join(words)) // 2)
    left, right = wrapped(" ".join(words[:cut]), 40), wrapped(" ".join(words[cut:]), 40)
    rows = list(zip(left + [""] * len(right), right + [""] * len(left), strict=False))[:max(len(left), len(right))]
    out = "\n".join(f"{a:<42}{b}".rstrip() for a, b in rows)
    # what a reader can read in order: the left column down to some row, then the right column from
    # that row on (the right column's lines follow the left's in the ground truth)
    weight = [(chars([a]) if a else 0, chars([b]) if b else 0) for a, b in rows]
    best = max(sum(w[0] for w in weight[:k + 1]) + sum(w[1] for w in weight[k:]) for k in range(len(rows)))
    expected = best / sum(a + b for a, b in weight)
    assert 0.45 < expected < 0.6
    assert reading_order(blocks, out) == pytest.approx(expected, abs=0.02)
    assert text_fidelity(blocks, out) > 0.97 and text_recall(blocks, out) > 0.97


def test_the_columns_swapped_read_in_order_only_the_larger_part(blocks: list[str]) -> None:
    half = len(blocks) // 2
    out = page(blocks[half:] + blocks[:half])
    share = max(chars(blocks[:half]), chars(blocks[half:])) / chars(blocks)
    assert reading_order(blocks, out) == pytest.approx(share, abs=0.01)
    assert text_fidelity(blocks, out) == 1.0, "order is reading_order's to charge, not fidelity's"


def test_a_dropped_sentence_costs_its_share(blocks: list[str]) -> None:
    i = max(range(len(blocks)), key=lambda k: blocks[k].count(". "))
    sentence = blocks[i].split(". ")[1] + "."
    damaged = blocks.copy()
    damaged[i] = blocks[i].replace(sentence + " ", "", 1)
    assert damaged[i] != blocks[i]
    share = (len(sentence) + 1) / chars(blocks)
    out = page(damaged)
    assert text_fidelity(blocks, out) == pytest.approx(1 - share, abs=0.004)
    assert text_recall(blocks, out) == pytest.approx(1 - share, abs=0.004)
    assert reading_order(blocks, out) == 1.0 and text_precision(blocks, out) == 1.0


def test_a_dropped_paragraph_costs_its_share(blocks: list[str]) -> None:
    i = max(range(len(blocks)), key=lambda k: len(blocks[k]))
    share = chars([blocks[i]]) / chars(blocks)
    out = page(blocks[:i] + blocks[i + 1:])
    assert text_fidelity(blocks, out) == pytest.approx(1 - share, abs=0.002)
    assert text_recall(blocks, out) == pytest.approx(1 - share, abs=0.002)
    assert reading_order(blocks, out) == 1.0 and text_precision(blocks, out) == 1.0, "the rest: in order, none invented"
    assert 0.15 < share < 0.6  # a real paragraph, not a heading


def test_a_repeated_paragraph_is_invented_text(blocks: list[str]) -> None:
    i = max(range(len(blocks)), key=lambda k: len(blocks[k]))
    out = page(blocks[:i + 1] + [blocks[i]] + blocks[i + 1:])
    extra = chars([blocks[i]]) / chars(blocks)  # the repeat, as a share of the ground truth
    assert text_fidelity(blocks, out) == pytest.approx(1 - extra / (1 + extra), abs=0.002)
    assert text_precision(blocks, out) == pytest.approx(1 - extra / (1 + extra), abs=0.002)
    assert text_recall(blocks, out) == 1.0 and reading_order(blocks, out) == 1.0


def test_a_running_header_and_table_text_in_the_prose_are_invented(blocks: list[str]) -> None:
    header = "Proceedings of Nothing 2026 page 3"
    table_lines = "Method Acc F1\nBERT 91.2 88.0\nGPT-2 89.9 85.1"
    out = page([header, *blocks[:3], table_lines, *blocks[3:], header])
    invented = 2 * chars([header]) + chars([table_lines])
    total = chars(blocks) + invented
    assert text_precision(blocks, out) == pytest.approx(1 - invented / total, abs=0.002)
    assert text_recall(blocks, out) == 1.0
    # the same table marked up as a table is not prose: nothing invented
    marked = "| Method | Acc | F1 |\n|---|---|---|\n| BERT | 91.2 | 88.0 |"
    assert text_precision(blocks, page([*blocks[:3], marked, *blocks[3:]])) == 1.0


def test_a_changed_word_is_charged_and_more_changes_cost_more(blocks: list[str]) -> None:
    i = max(range(len(blocks)), key=lambda k: len(blocks[k]))
    words = blocks[i].split()
    one = blocks.copy()
    one[i] = " ".join([*words[:5], "zebra", *words[6:]])
    three = blocks.copy()
    three[i] = " ".join([*words[:5], "zebra", *words[6:10], "quartz", *words[11:15], "walrus", *words[16:]])
    f_one, f_three = text_fidelity(blocks, page(one)), text_fidelity(blocks, page(three))
    assert f_three < f_one < 1.0
    assert 1 - f_one <= (len(words[5]) + len("zebra")) / chars(blocks)  # at most: the word out, the other in
    assert text_recall(blocks, page(one)) == 1.0, "a changed word is an edit, not missing text"


def test_words_run_together_are_an_edit_of_the_spaces(blocks: list[str]) -> None:
    words = blocks[1].split()
    glued = blocks.copy()
    glued[1] = " ".join(["".join(words[:6]), *words[6:]])
    out = page(glued)
    assert text_fidelity(blocks, out) == pytest.approx(1 - 5 / chars(blocks), abs=1e-9)  # five spaces lost
    assert text_recall(blocks, out) == 1.0 and text_precision(blocks, out) == 1.0


def test_a_one_column_page_in_german_and_a_paragraph_split_by_a_page_break(blocks: list[str]) -> None:
    page4 = load_case_set("synth-v1", kinds="text", only={"p004"}).pages[0].items_of("text")[0]
    assert page4.group == "one_column"
    gt = list(page4.blocks)
    i = max(range(len(gt)), key=lambda k: len(gt[k]))
    words = gt[i].split()
    split = [*gt[:i], " ".join(words[:len(words) // 2]) + "\n\n— 3 —\n\n" + " ".join(words[len(words) // 2:]), *gt[i + 1:]]
    out = page(split)
    assert text_recall(gt, out) == 1.0 and reading_order(gt, out) == 1.0
    assert text_precision(gt, out) == pytest.approx(1 - chars(["— 3 —"]) / (chars(gt) + chars(["— 3 —"])), abs=1e-9)
