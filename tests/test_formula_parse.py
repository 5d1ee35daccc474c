"""Canonical formula tokens: spellings that typeset the same meaning give the same tokens."""

from __future__ import annotations

import pytest

from tablebench.tex.formula import FormulaError, canonical_tokens, lex, parse_nodes


def same(a: str, b: str) -> bool:
    return canonical_tokens(a) == canonical_tokens(b)


@pytest.mark.parametrize(("a", "b"), [
    (r"\frac{a}{b}", r"\dfrac{a}{b}"),
    (r"\tfrac{a}{b}", r"{\frac {a}{b}}"),
    (r"x^2", r"x^{2}"),
    (r"x^{2}_{i}", r"{x}_{i}^{2}"),
    (r"a\,b\;c\!d\quad e\qquad f~g\ h", "abcdefgh"),
    (r"\left(x\right)", "(x)"),
    (r"\bigl[ x \bigr]", "[x]"),
    (r"\left. x \right|", "x|"),
    (r"\operatorname{spur}(A)", r"\mathrm{spur}(A)"),
    (r"\operatorname*{argmax}", r"\text{argmax}"),
    (r"\mathbf{x} + \boldsymbol{y}", "x+y"),
    (r"\le \leq \leqslant", r"≤≤≤"),
    (r"\to \rightarrow \longrightarrow", r"→→→"),
    (r"\ne \neq \not=", r"≠≠≠"),
    (r"\ldots \dots \cdots \dotsc", "…………"),
    (r"\displaystyle \sum\limits_{i}", r"\sum_{i}"),
    ("$x$", "x"),
    ("$$x$$", "x"),
    (r"\(x\)", "x"),
    (r"\[x\]", "x"),
    (r"\begin{equation} x = 1 \label{eq:a} \tag{3} \end{equation}", "x=1"),
    (r"\begin{align*} x &= 1 \nonumber \\ &= 2 \end{align*}", "x=1=2"),
    (r"\begin{gather} a \\ b \end{gather}", "ab"),
    (r"x'", r"x^{\prime}"),
    (r"\begin{pmatrix} a & b \\ c & d \end{pmatrix}", r"\left(\begin{array}{cc} a & b \\ c & d \end{array}\right)"),
    (r"\ce{H2O -> H2}", r"\mathrm{H}_{2}\mathrm{O}\longrightarrow \mathrm{H}_2"),
    (r"\mathbb{R}", "ℝ"),
    (r"a \bmod b", r"a \mod b"),
    (r"x = 1,", "x = 1"),
    (r"x = 1\,.", "x = 1"),
    (r"\vec{x}", r"\overrightarrow{x}"),
    (r"\setminus", r"\backslash"),
])
def test_meaning_preserving_spellings_are_equal(a: str, b: str) -> None:
    assert same(a, b), (canonical_tokens(a), canonical_tokens(b))


@pytest.mark.parametrize(("a", "b"), [
    (r"x^{2}", r"x_{2}"),
    (r"x^{2}", r"x2"),
    (r"a+b", r"a-b"),
    (r"\frac{a}{b}", r"\frac{b}{a}"),
    (r"\hat{x}", r"\tilde{x}"),
    (r"\hat{x}", "x"),
    (r"\mathbb{N}", "N"),
    (r"\sqrt{x}", r"\sqrt[3]{x}"),
    (r"\alpha", r"a"),
    (r"\begin{pmatrix} a & b \end{pmatrix}", r"\begin{pmatrix} a \\ b \end{pmatrix}"),
    (r"x = 1, 2", "x = 1 2"),
])
def test_meaning_changes_stay_visible(a: str, b: str) -> None:
    assert not same(a, b)


def test_tokens_are_one_per_symbol_with_structure_markers() -> None:
    assert canonical_tokens(r"\frac{12}{x_i}") == ("\\frac{", "1", "2", "}{", "x", "_{", "i", "}", "}")
    assert canonical_tokens(r"\sqrt[n]{\mathcal{C}}") == ("\\sqrt{", "n", "}{", "cal:C", "}")
    assert canonical_tokens(r"\sin x") == ("s", "i", "n", "x")


def test_unknown_command_kept_by_name_and_stray_brace_skipped() -> None:
    assert canonical_tokens(r"\foo x}") == ("\\foo", "x")


def test_old_style_cal_switch_styles_only_letters() -> None:
    assert canonical_tokens(r"{\cal D}_{n}=1") == ("cal:D", "_{", "n", "}", "=", "1")


def test_lexer_drops_comments_and_spaces() -> None:
    assert [t[1] for t in lex("a % note\n + \\beta")] == ["a", "+", "beta"]


def test_deep_nesting_gives_one_line_error() -> None:
    with pytest.raises(FormulaError, match="nested more than"):
        parse_nodes("{" * 500 + "x" + "}" * 500)


def test_not_a_string_is_refused() -> None:
    with pytest.raises(TypeError, match="a formula is a str"):
        parse_nodes(None)  # type: ignore[arg-type]
