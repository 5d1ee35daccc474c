"""Rendered-text check of pool tables: ground-truth words must be printed, tolerant to layout."""

from __future__ import annotations

import pytest

import tablebench.generate.measure as measure
from tablebench.generate.rendered import content_words, have_pdftotext, missing_words
from tablebench.tex.runner import have_pdflatex


def test_words_are_folded_and_scripts_stand_apart() -> None:
    words = content_words("Rᵏᵢⱼ ∈ ℝ⁺, F1-Score 10³ ＡＢ")
    assert words == ["r", "k", "i", "j", "r", "f1", "score", "10", "3", "ab"]


@pytest.mark.parametrize(("expected", "rendered"), [
    ("a long cell text", "a long\ncell text"),  # wrapped in a p{} column
    ("representation", "represen-\ntation"),  # hyphenated
    ("Δ", "∆"),  # Latin Modern's \Delta as U+2206 INCREMENT
    ("λ = 10³", "λ = 10\n3"),  # the superscript printed on its own line
    ("LTᵏ ∈ ℝ⁺", "LkT ∈ R+"),  # a subscript the reader could only inline, printed under the superscript
    ("Model\nBLEU", "BLEU Model"),  # reading order
])
def test_layout_differences_are_tolerated(expected: str, rendered: str) -> None:
    assert missing_words(expected, rendered) == []


def test_words_that_are_not_printed_are_reported_once_in_order() -> None:
    assert missing_words("99999999 x Secret secret", "mmmmmmmm x") == ["99999999", "secret"]
    assert missing_words("representations", "rxexpxrxesentations") == ["representations"]  # long words: whole


@pytest.mark.skipif(not (have_pdflatex() and have_pdftotext()),
                    reason="pdflatex or pdftotext is not installed (apt texlive-latex-base, poppler-utils)")
def test_measuring_ships_each_table_as_its_own_page() -> None:
    wide = r"\begin{tabular}{ll} left & \rule{1200pt}{1pt}FarRight \\ \end{tabular}"
    small = r"\begin{tabular}{c} $\alpha^{2}$ second \\ \end{tabular}"
    a, b = measure.measure_tables([wide, small])
    assert "left" in a.text and "FarRight" in a.text and "second" not in a.text  # beyond a page width: kept
    assert "second" in b.text and "α" in b.text and "left" not in b.text
