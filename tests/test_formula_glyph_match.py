"""Rendered formula comparison: glyph matching (pure) and real pdflatex renders (cached)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablebench.metrics.formulas.glyph_match import glyph_f1, glyph_match
from tablebench.tex.render import (
    Glyph,
    RenderError,
    check_formula,
    formula_body,
    formula_source,
    render_glyphs,
)
from tablebench.tex.runner import have_pdflatex

needs_tex = pytest.mark.skipif(not have_pdflatex(), reason="pdflatex is not installed (apt texlive-latex-base)")


def g(char: str, x: float, y: float = 50.0) -> Glyph:
    return Glyph(char, x, y, x + 5.0, y + 10.0)


def test_glyph_f1_matches_by_character_and_position() -> None:
    gt = [g("x", 0), g("2", 5, 46), g("+", 10), g("y", 15)]
    assert glyph_f1(gt, gt) == 1.0
    assert glyph_f1(gt, [g("x", 0), g("3", 5, 46), g("+", 10), g("y", 15)]) == pytest.approx(6 / 8)
    # the exponent dropped to the baseline: same character, 0.4 em lower is still close...
    assert glyph_f1(gt, [g("x", 0), g("2", 5, 50), g("+", 10), g("y", 15)]) == 1.0
    # ...but a glyph far from where it should be does not match
    assert glyph_f1(gt, [g("y", 0), g("2", 5, 46), g("+", 10), g("x", 15)]) == pytest.approx(4 / 8)
    assert glyph_f1([], []) == 1.0 and glyph_f1(gt, []) == 0.0


def test_a_glyph_moved_up_or_down_by_more_than_half_an_em_does_not_match() -> None:
    """`DY`: an exponent read as a subscript (`x^2` as `x_2`) sits about an em lower: another formula."""
    gt = [g("x", 0), g("2", 5, 46), g("+", 10), g("y", 15)]
    assert glyph_f1(gt, [g("x", 0), g("2", 5, 50), g("+", 10), g("y", 15)]) == 1.0  # 0.4 em lower: close
    assert glyph_f1(gt, [g("x", 0), g("2", 5, 58), g("+", 10), g("y", 15)]) == pytest.approx(6 / 8)  # 1.2 em lower


def test_glyph_f1_is_one_to_one() -> None:
    assert glyph_f1([g("a", 0)], [g("a", 0), g("a", 0.1)]) == pytest.approx(2 / 3)


def test_body_strips_delimiters_and_display_environments() -> None:
    assert formula_body("$$ x^2 $$") == "x^2"
    assert formula_body(r"\[x\]") == "x"
    assert formula_body(r"\begin{equation*} a=b \end{equation*}") == "a=b"
    assert formula_body("$a$ and $b$") == "$a$ and $b$"


def test_unsafe_formula_is_refused_before_compiling_but_math_environments_pass() -> None:
    check_formula(r"\begin{alignedat}{2} a &= b \end{alignedat}")
    with pytest.raises(RenderError, match=r"unsafe LaTeX refused before compiling: \\input"):
        formula_source(r"$x \input{/etc/passwd}$")
    with pytest.raises(RenderError, match="environment not allowed"):
        check_formula(r"\begin{verbatim}x\end{verbatim}")


def test_mixed_text_and_math_is_set_as_a_paragraph() -> None:
    assert "\\noindent $a$ and $b$" in formula_source("$a$ and $b$")
    assert "\\begin{align*}\na=b\n\\end{align*}" in formula_source("$$a=b$$")


@needs_tex
def test_render_same_typesetting_scores_one_and_changes_score_less(tmp_path: Path) -> None:
    gt = r"$${\frac {a}{b+c}}=x^{2}$$"
    assert glyph_match(gt, r"\[ \dfrac{a}{b+c} = x^2 \]", tmp_path) == 1.0
    wrong = glyph_match(gt, r"$\frac{a}{b+c}=x^{3}$", tmp_path)
    assert wrong is not None and 0.7 < wrong < 1.0
    assert glyph_match(gt, r"$\frac{a}{b+c}=\undefinedmacro$", tmp_path) == 0.0  # does not compile
    assert glyph_match(r"$\input{x}$", "$x$", tmp_path) is None  # no score without a ground truth


@needs_tex
def test_render_is_cached_by_content(tmp_path: Path) -> None:
    glyphs = render_glyphs("$x+1$", tmp_path)
    assert [x.char for x in glyphs] == ["x", "+", "1"]
    files = list(tmp_path.glob("*/*.json"))
    assert len(files) == 1
    data = json.loads(files[0].read_text())
    data["glyphs"][0][0] = "cached"  # the cache is what a second call reads
    files[0].write_text(json.dumps(data))
    assert render_glyphs("$x+1$", tmp_path)[0].char == "cached"
    with pytest.raises(RenderError, match="pdflatex failed"):
        render_glyphs(r"$\frac{x$", tmp_path)
    assert len(list(tmp_path.glob("*/*.json"))) == 2  # failures are cached too


def test_definitions_are_refused_too() -> None:
    with pytest.raises(RenderError, match="defines"):
        check_formula(r"\def\x{\x}\x")


def test_unicode_math_becomes_macros_that_typeset() -> None:
    from tablebench.tex.unicode_latex import unicode_to_latex

    assert unicode_to_latex("x + 1") == "x + 1"
    assert unicode_to_latex("ν ∈ ℝ, 𝑥 ≠ ∞ − 1") == "\\nu  \\in  \\mathbb{R}, x \\neq  \\infty  - 1"


@needs_tex
def test_a_plain_text_extraction_is_rendered_not_zeroed(tmp_path: Path) -> None:
    """What a text-only parser writes (Unicode) typesets like the LaTeX it stands for."""
    assert glyph_match(r"$\nu \in (0,1)\cup (1,2)$", "ν ∈ (0,1) ∪ (1,2)", cache_dir=tmp_path) == 1.0
    assert glyph_match(r"$\nu \in (0,1)\cup (1,2)$", "ν ∈ (0,1) ∪ (1,3)", cache_dir=tmp_path) < 1.0


def test_the_old_name_cdm_like_says_where_it_went() -> None:
    from tablebench.core.metric_specs import parse_names

    with pytest.raises(ValueError, match=r"cdm_like is now glyph_f1"):
        parse_names("cdm_like", "formula")


# `\boldsymbol` over `\boldsymbol` with bm loaded (the render preamble loads it): 161 s of
# compiling, then "TeX capacity exceeded". Two levels deep, no nesting bound can refuse it.
SLOW = "$\\boldsymbol{\\boldsymbol{x}}$"


def _children_named(name: str) -> list[int]:
    """Our own child processes called `name` (running or not yet reaped)."""
    import os
    out = []
    for entry in Path("/proc").iterdir():
        try:
            status = (entry / "status").read_text()
        except (OSError, ValueError):
            continue
        fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
        if fields.get("Name", "").strip() == name and fields.get("PPid", "").strip() == str(os.getpid()):
            out.append(int(entry.name))
    return out


@needs_tex
def test_a_render_the_budget_has_no_time_for_is_not_computed_and_not_cached(tmp_path: Path) -> None:
    from tablebench.metrics.formulas.registry import score_glyph_f1
    from tablebench.tex.render import RenderSkipped, render_budget

    with render_budget(0.0, "this page's"), pytest.raises(RenderSkipped) as skipped:
        glyph_match("$x^2$", "$x^2$", tmp_path)
    assert str(skipped.value) == "formula not rendered: this page's 0 s budget for rendering formulas is spent"
    assert list(tmp_path.rglob("*.json")) == []  # nothing cached: the formula was never tried
    with render_budget(0.0, "this page's"):
        scored = score_glyph_f1("$x^2$", "$x^2$")
    reason = "not computed: formula not rendered: this page's 0 s budget for rendering formulas is spent"
    assert scored.values == {} and scored.not_computed == {"glyph_f1": reason}


@needs_tex
def test_a_slow_render_is_cut_at_the_budget_and_leaves_no_pdflatex_behind(tmp_path: Path) -> None:
    from tablebench.tex.render import RenderSkipped, render_budget

    with render_budget(1.0, "this page's"), pytest.raises(RenderSkipped):
        render_glyphs(SLOW, tmp_path)
    assert list(tmp_path.rglob("*.json")) == []
    assert _children_named("pdflatex") == []


@needs_tex
def test_a_compile_interrupted_by_a_callers_deadline_is_killed() -> None:
    from tablebench.core.deadline import BudgetExceeded, time_budget
    from tablebench.tex.render import formula_source
    from tablebench.tex.runner import run_pdflatex

    with pytest.raises(BudgetExceeded), time_budget(1.0, "scoring formulas"):
        run_pdflatex(formula_source(SLOW), timeout=60.0)
    assert _children_named("pdflatex") == []
