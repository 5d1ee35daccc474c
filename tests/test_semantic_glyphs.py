"""Look-alike marks and symbols in cells: what a reader cannot tell apart costs nothing, what
changes the meaning still does (issue 19, item 5)."""

from __future__ import annotations

import pytest

from tablebench.core.table import Table
from tablebench.metrics.tables.semantic import semantic_details
from tablebench.metrics.tables.semantic_glyphs import MARKS, fold_mark, same_mark
from tablebench.metrics.tables.semantic_struct import is_numeric
from tablebench.metrics.tables.semantic_text import cell_similarity, normalize, numbers, similarity_matrix


@pytest.mark.parametrize("variants", [
    ["✓", "√", "✔", "☑", "\\checkmark"],
    ["✗", "×", "x", "X", "✘", "☒"],
    ["◯", "○", "O", "o", "☐", "□", "0"],
])
def test_a_mark_alone_in_its_cell_is_read_by_its_shape(variants: list[str]) -> None:
    first = normalize(variants[0])
    for v in variants[1:]:
        assert cell_similarity(first, normalize(v)) == 1.0, (variants[0], v)
        assert similarity_matrix([first], [normalize(v)])[0, 0] == 1.0, (variants[0], v)


def test_different_marks_stay_different() -> None:
    reps = [normalize(m) for m in ("✓", "✗", "○", "●")]
    for i, a in enumerate(reps):
        for b in reps[i + 1:]:
            assert cell_similarity(a, b) < 1.0 and similarity_matrix([a], [b])[0, 0] < 1.0, (a, b)
    assert cell_similarity(normalize("0"), normalize("1")) == 0.0


@pytest.mark.parametrize(("a", "b"), [("√2", "✓2"), ("x86", "×86"), ("O(n)", "0(n)"), ("Ox", "0x")])
def test_inside_longer_text_the_glyphs_are_other_things(a: str, b: str) -> None:
    assert cell_similarity(normalize(a), normalize(b)) < 1.0


def test_a_zero_stays_a_number() -> None:
    assert fold_mark("0") == "0" and normalize("0") == "0" and numbers("0") == ("0",) and is_numeric("0")
    assert same_mark("0", "○") and not same_mark("0", "✓") and not same_mark("1", "○")
    assert set(MARKS) == {fold_mark(ch) for chars in MARKS.values() for ch in chars if not ch.isdigit()}


@pytest.mark.parametrize(("a", "b"), [
    ("57.9 ± 0.5", "57.9 +/- 0.5"), ("57.9 ± 0.5", "57.9 +- 0.5"), ("1.00×", "1.00x"), ("2.5×", "2.5 x"),
    ("2π×5.8 kHz", "2πx5.8 kHz"), ("3×3", "3x3"),
])
def test_plus_minus_and_times_written_in_ascii_are_the_same(a: str, b: str) -> None:
    assert cell_similarity(normalize(a), normalize(b)) == 1.0
    assert numbers(normalize(b)) == numbers(normalize(a)) and numbers(normalize(a))


def test_ascii_times_never_changes_a_number_or_a_word() -> None:
    assert numbers(normalize("0.17x")) == ("0.17",)
    assert cell_similarity(normalize("0.17x"), normalize("0.18×")) == 0.0
    assert normalize("max") == "max" and normalize("x86") == "x86" and normalize("ResNet x2") == "resnet x2"


def test_a_table_of_marks_read_through_look_alikes_scores_ten() -> None:
    head = ["Variant", "Memory", "Distill.", "Accuracy"]
    gt = Table.from_rows([head, ["(a)", "✓", "×", "0.787"], ["(b)", "×", "✓", "0.806"], ["(c)", "◯", "✓", "0.808"]], 1)
    ocr = Table.from_rows([head, ["(a)", "√", "x", "0.787"], ["(b)", "x", "√", "0.806"], ["(c)", "O", "√", "0.808"]], 1)
    assert semantic_details(gt, ocr).score == 10.0
    wrong = Table.from_rows([head, ["(a)", "x", "x", "0.787"], ["(b)", "x", "√", "0.806"], ["(c)", "O", "√", "0.808"]], 1)
    result = semantic_details(gt, wrong)
    assert result.score < 9.5 and any("✓" in e for e in result.errors), result
