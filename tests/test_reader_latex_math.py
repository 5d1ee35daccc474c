"""LaTeX math and cell text -> Unicode: each construct pinned to what the page shows."""

from __future__ import annotations

import pytest

from tablebench.tex.latex_math import latex_to_text, math_to_unicode
from tablebench.tex.tokens import tokenize

MATH_CASES = [
    (r"\alpha", "α"),
    (r"\alpha\beta\gamma\delta\epsilon\varepsilon\theta\lambda\mu\pi\rho\sigma\tau\phi\varphi\chi\psi\omega",
     "αβγδϵεθλμπρστϕφχψω"),
    (r"\Gamma\Delta\Theta\Lambda\Xi\Pi\Sigma\Phi\Psi\Omega", "ΓΔΘΛΞΠΣΦΨΩ"),
    (r"\pm", "±"),
    (r"71.2 \pm 0.3", "71.2 ± 0.3"),
    (r"3\times 4", "3× 4"),  # the author's space after an operator stays
    (r"x^{2}", "x²"),
    (r"x^2y", "x²y"),
    (r"10^{-3}", "10⁻³"),
    (r"x_{1}", "x₁"),
    (r"t_a^*", "tₐ*"),
    (r"x^{q}", "xq"),  # no superscript q in Unicode: plain text
    (r"x^{ab+}", "xᵃᵇ⁺"),  # every character has a form
    (r"\rho_{\rm mag}", "ρmag"),  # g has no subscript: plain, and \rm vanishes
    (r"P_\mathrm{max}", "Pₘₐₓ"),  # an undelimited command argument takes its own argument
    (r"\frac{1}{8}", "1/8"),
    (r"\frac12", "1/2"),
    (r"\frac{a+b}{2}", "(a+b)/2"),
    (r"\dfrac{1}{4}", "1/4"),
    (r"{2\over d+2}", "2/(d+2)"),
    (r"\sqrt{x}", "√x"),
    (r"\sqrt{x+1}", "√(x+1)"),
    (r"\sqrt[3]{8}", "³√8"),
    (r"\mathbf{x}", "x"),
    (r"\boldsymbol{\theta}", "θ"),
    (r"\mathrm{ReLU}", "ReLU"),
    (r"\text{BEATs}_{wc/f~0.2}", "BEATswc/f 0.2"),
    (r"\operatorname{softmax}(x)", "softmax(x)"),
    (r"\operatorname*{arg\,max}", "arg max"),
    (r"\uparrow", "↑"),
    (r"\downarrow", "↓"),
    (r"\rightarrow \leftarrow \Rightarrow", "→ ← ⇒"),
    (r"a \leq b \geq c", "a ≤ b ≥ c"),
    (r"\approx \sim \infty \cdot", "≈ ∼ ∞⋅"),  # space kept after relations, dropped after symbols
    (r"50\%", "50%"),
    (r"\mathcal{L}", "L"),
    (r"\mathbb{R}^n", "ℝⁿ"),
    (r"\bar{x}", "x̄"),
    (r"\hat{x}", "x̂"),
    (r"\tilde{T}_k", "T̃ₖ"),
    (r"\hat{e}", "ê"),  # NFC composes a precomposed letter
    (r"\left( \frac{1}{2} \right)", "( 1/2 )"),
    (r"\left[ a \right.", "[ a"),
    (r"1\,000", "1 000"),
    (r"a\;b\quad c\qquad d", "a b c d"),
    (r"a\!b", "ab"),
    (r"\{1,2\}", "{1,2}"),
    (r"(\frac{1}{8}, \frac{1}{4})", "(1/8, 1/4)"),
    (r"\not= \notin \not\in", "≠ ∉ ∉"),
    (r"\in \subseteq \cup \cap", "∈ ⊆ ∪ ∩"),
    (r"\ldots \cdots \vdots", "…⋯⋮"),
    (r"\ell \nabla \partial \forall \exists", "ℓ∇∂∀∃"),
    (r"f'(x)", "f′(x)"),
    (r"\hphantom{00}0.16", "0.16"),
    (r"\mathbf{\hphantom{+}19.71}", "19.71"),
    (r"\Gamma^{-{1\over d+2}}", "Γ-1/(d+2)"),
    (r"$\alpha$", "α"),  # alttext that kept its dollars
    (r"\unknownmacro{z}", "z"),
    (r"\sum_{i=1}^{n} x_i", "∑ᵢ₌₁ⁿ xᵢ"),
    (r"\binom{n}{k}", "(n k)"),
    (r"{n \choose k}", "(n k)"),
    (r"\log x + \max_{i} y", "log x + maxᵢ y"),
]


@pytest.mark.parametrize(("latex", "expected"), MATH_CASES)
def test_math_to_unicode(latex: str, expected: str) -> None:
    assert math_to_unicode(latex) == expected


TEXT_CASES = [
    (r"\textbf{Method}", "Method"),
    (r"\textit{a} \emph{b} \underline{c} \textsc{d} \texttt{e}", "a b c d e"),
    (r"{\bf 0.16} {\it x}", "0.16 x"),
    (r"\small a \footnotesize b \tiny c \large d", "a b c d"),
    (r"F-1 $\uparrow$", "F-1 ↑"),
    (r"MSE$\downarrow$", "MSE↓"),
    (r"LU(\%) \& \_ \# \$ \{ \}", "LU(%) & _ # $ { }"),
    (r"CASIA-B~", "CASIA-B"),
    (r"a~b", "a b"),
    (r"x % a comment \textbf{gone}" "\n" r"  y", "x y"),
    (r"50\% % comment", "50%"),
    (r"\textbf{\textit{nested {group}}}", "nested group"),
    (r"\rowcolor{gray!20} \cellcolor[HTML]{E8E8E8} 91.8", "91.8"),
    (r"\columncolor{blue}x", "x"),
    (r"\textcolor{red}{12.3}", "12.3"),
    (r"Model \cite{smith2020}", "Model [?]"),
    (r"\citep[p.~3]{a,b}", "[?]"),
    (r"Table~\ref{tab:x}\label{tab:y}", "Table ??"),
    (r"steps\footnote{in thousands}", "steps"),
    (r"x\footnotemark[2]", "x"),
    (r"a\textsuperscript{a}", "aᵃ"),
    (r"a\textsuperscript{\dag}", "a†"),
    (r"H\textsubscript{2}O", "H₂O"),
    (r"10.1\textsubscript{±0.3}", "10.1±0.3"),
    (r"\dag \ddag", "†‡"),  # TeX eats the space after a control word
    (r"\dag{} \ddag", "† ‡"),
    (r"\checkmark{} \ding{51} \ding{55} \xmark", "✓ ✓ ✗ ✗"),
    (r"\ldots{} and \dots", "… and …"),
    (r"1--2, a---b", "1–2, a—b"),
    (r"``quoted''", "“quoted”"),
    (r"\'e \`a \^o \"o \~n \c{c} \v{s} \'{E}", "é à ô ö ñ ç š É"),
    (r"Erd\H{o}s G\"{o}del na\"\i ve", "Erdős Gödel naïve"),
    (r"\ss{} \o{} \AA", "ß ø Å"),
    (r"\textasciitilde 5", "~5"),
    (r"$\pm$0.3 $\times$2", "±0.3 ×2"),
    (r"\SI{3.5}{\milli\metre}", "3.5 mm"),
    (r"\SI{12}{\percent}", "12%"),
    (r"\SI{5}{\kilo\gram\per\second}", "5 kg/s"),
    (r"\num{12345}", "12345"),
    (r"\num{1e-3}", "1 × 10⁻³"),
    (r"\num{2.5 +- 0.1}", "2.5 ± 0.1"),
    (r"\makecell[l]{Sampling \\ Method}", "Sampling Method"),
    (r"\shortstack{a\\b}", "a b"),
    (r"\parbox[t]{2cm}{wrapped text}", "wrapped text"),
    (r"\diagbox{Row}{Col}", "Row Col"),
    (r"\multicolumn{2}{c}{\textbf{Both}}", "Both"),
    (r"\multirow{2}{*}{Both}", "Both"),
    (r"\multirow[t]{-3}{2cm}[1pt]{x}", "x"),
    (r"\verb|\&|", r"\&"),
    (r'\verb"\dotplus" x', r"\dotplus x"),
    (r"\hspace{1em}a\vspace{2pt}", "a"),
    (r"\rotatebox{90}{Up}", "Up"),
    (r"\resizebox{!}{1em}{Big}", "Big"),
    (r"\href{http://x.org}{link}", "link"),
    (r"\unknown[opt]{kept} text", "kept text"),
    (r"\(\alpha\) and \[\beta\]", "α and β"),
    (r"$$x^2$$", "x²"),
    (r"\begin{tabular}{@{}c@{}}a\\b\end{tabular}", "a b"),
    (r"Qwen2.5-\\VL", "Qwen2.5- VL"),
    (r"MAE__AST x^2", "MAE__AST x^2"),  # outside math ^ and _ are the characters parsers meant
    (r"", ""),
    ("\\", ""),
    (r"{unbalanced", "unbalanced"),
    (r"stray} brace", "stray brace"),
    (r"$unclosed math", "unclosed math"),
]


@pytest.mark.parametrize(("latex", "expected"), TEXT_CASES)
def test_latex_to_text(latex: str, expected: str) -> None:
    assert latex_to_text(latex) == expected


def test_tokenizer_keeps_escaped_percent_and_drops_comments() -> None:
    toks = tokenize("a\\%b % gone\nc")
    assert [(k, v) for k, v, _, _ in toks] == [("text", "a"), ("cmd", "%"), ("text", "b"), ("space", " "),
                                               ("text", "c")]
    # positions are literal offsets into the input
    assert all(isinstance(s, int) and s < e for _, _, s, e in toks)


def test_verb_is_one_token() -> None:
    toks = tokenize(r'\verb"\&" & x')
    assert toks[0][:2] == ("verb", r"\&")
    assert [t[0] for t in toks[1:]] == ["space", "&", "space", "text"]


def test_bad_input_types_raise() -> None:
    with pytest.raises(TypeError, match="expects a str"):
        latex_to_text(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expects a str"):
        math_to_unicode(3)  # type: ignore[arg-type]
