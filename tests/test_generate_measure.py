"""Standalone table measurement: unsafe LaTeX never reaches pdflatex; sizes are exact and cached."""

from __future__ import annotations

import pytest

import tablebench.generate.measure as measure
from tablebench.generate.layouts import PageLayout
from tablebench.generate.rendered import have_pdftotext
from tablebench.generate.tables import COMPLEXITIES, generate_table
from tablebench.tex.runner import have_pdflatex
from tablebench.tex.safety import find_unsafe


def _no_compile(*_args, **_kwargs):
    raise AssertionError("pdflatex must not run")


def test_unsafe_tables_are_refused_before_compiling(monkeypatch) -> None:
    monkeypatch.setattr(measure, "run_pdflatex", _no_compile)
    sizes = measure.measure_tables([r"\begin{tabular}{c} \input{/etc/passwd} \end{tabular}",
                                    r"\begin{tabular}{c} \immediate\write18{ls} \end{tabular}"])
    assert [s.error for s in sizes] == [
        r"unsafe LaTeX refused before compiling: \input: reads a file",
        r"unsafe LaTeX refused before compiling: \immediate: writes a file (+1 more)",
    ]


def test_builtin_tables_pass_the_checker() -> None:
    for seed in range(30):
        for c in COMPLEXITIES:
            assert find_unsafe(generate_table(seed, c).latex) == []


@pytest.mark.skipif(not (have_pdflatex() and have_pdftotext()),
                    reason="pdflatex or pdftotext is not installed (apt texlive-latex-base, poppler-utils)")
def test_sizes_are_exact_broken_tables_isolated_and_results_cached(monkeypatch) -> None:
    rule = r"\begin{tabular}{@{}c@{}}\rule{100pt}{20pt}\end{tabular}"
    broken = r"\begin{tabular}{c} \nosuchmacro \end{tabular}"
    layout = PageLayout(font="charter", fontsize=11)
    good, bad = measure.measure_tables([rule, broken], layout)
    assert good.ok and good.width == pytest.approx(100.0, abs=0.01)
    assert not bad.ok and "Undefined control sequence" in bad.error
    monkeypatch.setattr(measure, "run_pdflatex", _no_compile)
    assert measure.measure_tables([rule], layout) == [good]  # measured once, then cached
