"""Seeded layouts: determinism, variety, a faithful dict round trip, and that they compile."""

from __future__ import annotations

from collections import Counter

import pytest

from tablebench.generate.layouts import DOCCLASSES, FONTS, LANGUAGES, PageLayout, sample_layout
from tablebench.tex.runner import have_pdflatex, run_pdflatex


def test_same_seed_same_layout_and_different_seeds_vary() -> None:
    assert sample_layout(42) == sample_layout(42)
    layouts = [sample_layout(s) for s in range(200)]
    assert len({lay.to_dict().__repr__() for lay in layouts}) == 200
    assert set(Counter(lay.columns for lay in layouts)) == {1, 2}
    assert set(Counter(lay.fontsize for lay in layouts)) == {10, 11, 12}
    assert set(Counter(lay.docclass for lay in layouts)) == set(DOCCLASSES)
    assert set(Counter(lay.font for lay in layouts)) == set(FONTS)
    assert set(Counter(lay.language for lay in layouts)) == set(LANGUAGES)
    assert set(Counter(lay.spacing for lay in layouts)) == {"single", "onehalf", "double"}
    assert set(Counter(lay.paper for lay in layouts)) == {"a4", "letter"}


def test_layout_dict_round_trip() -> None:
    lay = sample_layout(7)
    assert PageLayout.from_dict(lay.to_dict()) == lay


def test_column_width_follows_paper_margins_and_gap() -> None:
    lay = PageLayout(paper="a4", margins_mm=(20, 25, 20, 25), columns=2, columnsep_mm=10)
    # (210 - 50 - 10) mm / 2 = 75 mm = 213.39 pt
    assert lay.columnwidth_pt == pytest.approx(75 * 72.27 / 25.4)


def test_unknown_font_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown layout"):
        PageLayout(font="libertine").preamble()


@pytest.mark.skipif(not have_pdflatex(), reason="pdflatex is not installed (apt texlive-latex-base)")
def test_every_font_class_and_language_compiles() -> None:
    body = "\\begin{document}\nGröße élève año $\\alpha \\pm 1$ \\textbf{71.2}\n\\end{document}\n"
    classes, langs = list(DOCCLASSES), list(LANGUAGES)
    for i, font in enumerate(FONTS):  # 10 runs cover every font, class and language
        lay = PageLayout(font=font, docclass=classes[i % len(classes)], language=langs[i % len(langs)],
                         columns=1 + i % 2, spacing=("single", "onehalf", "double")[i % 3])
        res = run_pdflatex(lay.preamble() + body)
        assert res.pages == 1 and not res.log.overfull, font
