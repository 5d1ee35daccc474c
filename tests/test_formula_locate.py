"""Formula locator on synthetic parser outputs; MathML reading; the pdf-parse-bench importer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablebench.cases.pdfbench import formula_pages, page_formulas
from tablebench.locate.formulas import locate_formulas, math_candidates, similarity, unicode_form
from tablebench.readers.mathml import MathMLError, mathml_to_latex
from tablebench.tex.formula import canonical_tokens
from tests.conftest import shared_path

GT = [r"$$\omega _{n}^{k}=e^{-{\frac {2\pi ik}{n}}}$$", r"$x_{i}\leq y$", r"$\alpha+\beta=\gamma$",
      r"$$\sum_{k=1}^{n} k = \frac{n(n+1)}{2}$$"]
MATHML = ("<math><mrow><munderover><mo>∑</mo><mrow><mi>k</mi><mo>=</mo><mn>1</mn></mrow><mi>n</mi>"
          "</munderover><mi>k</mi><mo>=</mo><mfrac><mrow><mi>n</mi><mo>(</mo><mi>n</mi><mo>+</mo><mn>1</mn>"
          "<mo>)</mo></mrow><mn>2</mn></mfrac></mrow></math>")


def test_every_delimiter_mathml_and_plain_text_are_found() -> None:
    out = ("Some text \\(x_i \\le y\\) and more.\n\n\\begin{equation}\\omega_n^k = e^{-\\frac{2 \\pi i k}{n}}"
           "\\end{equation}\n\nText where α+β=γ appears plain.\n\n" + MATHML + "\n")
    located = locate_formulas(GT, out)
    assert [r.source for r in located] == ["latex", "latex", "text", "mathml"]
    assert all(r.score == 1.0 for r in located)
    for r in located:
        assert r.span is not None and r.text is not None
        if r.source == "latex":
            assert out[r.span[0]:r.span[1]] == r.text
    assert out[located[2].span[0]:located[2].span[1]] == "α+β=γ"
    assert canonical_tokens(located[2].text) == canonical_tokens("α+β=γ")  # the text as a reader reads it


def test_assignment_is_optimal_not_greedy() -> None:
    import numpy as np

    from tablebench.locate.formulas import Candidate, Located, _assign

    # greedy would give GT 0 its best candidate 0 (0.9) and leave GT 1 candidate 1 (0.5): 1.4;
    # the optimal assignment pairs GT 0 with candidate 1 and GT 1 with candidate 0: 1.65
    scores = np.array([[0.9, 0.8], [0.85, 0.5]])
    cands = [Candidate("$p$", (0, 3), "latex"), Candidate("$q$", (4, 7), "latex")]
    result = [Located(g, None, None, None, 0.0) for g in range(2)]
    _assign(scores, cands, result, 0.5)
    assert [r.text for r in result] == ["$q$", "$p$"]
    assert [r.score for r in result] == [0.8, 0.85]


def test_output_text_serves_one_formula_only() -> None:
    # the optimal assignment pairs GT 0 with the joined pair and GT 1 with its second half:
    # overlapping picks; the better (then earlier) keeps the text, the other gets a new round
    located = locate_formulas(["$a+b\\quad c+d$", "$c+d$"], "$a+b$ $c+d$")
    assert located[0].span == (0, 11) and located[0].score == 1.0
    assert not located[1].found


def test_missing_formula_is_reported_with_its_best_score() -> None:
    located = locate_formulas(["$x^2+y^2=z^2$", "$E=mc^2$"], "only $x^2+y^2=z^2$ here, nothing else")
    assert located[0].found and not located[1].found
    assert located[1].text is None and located[1].span is None and 0 <= located[1].score < 0.5


def test_grouped_display_is_split_into_its_rows() -> None:
    out = "$$\\begin{aligned} a &= b + c \\\\ d &= e - f \\end{aligned}$$"
    located = locate_formulas(["$a=b+c$", "$d=e-f$"], out)
    assert all(r.found for r in located)
    assert canonical_tokens(located[0].text) == canonical_tokens("a=b+c")
    assert canonical_tokens(located[1].text) == canonical_tokens("d=e-f")
    assert located[0].span[1] <= located[1].span[0]  # disjoint rows of one block


def test_formula_split_in_two_by_the_parser_is_joined() -> None:
    out = "$\\partial_{x} u=\\partial_{y} v, \\quad$$\\partial_{y} u=-\\partial_{x} v$"
    located = locate_formulas(["$\\partial_x u = \\partial_y v, \\quad \\partial_y u = -\\partial_x v$"], out)
    assert located[0].score == 1.0 and located[0].span == (0, len(out))


def test_short_formulas_are_not_looked_for_in_plain_words() -> None:
    assert not locate_formulas(["$x$"], "an example text")[0].found


def test_candidates_skip_escaped_dollars() -> None:
    cands = math_candidates(r"costs \$5 and \$6, but $y$ is math")
    assert [c.latex for c in cands] == ["$y$"]


def test_similarity_ignores_markup_but_not_content() -> None:
    assert similarity(r"\frac{a}{b}", "$a/b$") < 1.0
    assert similarity(r"\mathbf{x}^{2}", r"\(x^2\)") == 1.0
    assert similarity("abc", "xyz") == 0.0
    assert unicode_form(r"$x^{2}\le y$") == "x²≤y"


def test_mathml_to_latex_structures_and_annotation() -> None:
    x = ('<math xmlns="http://www.w3.org/1998/Math/MathML"><msup><mi>x</mi><mn>2</mn></msup><mo>+</mo>'
         '<mfrac><mi>a</mi><mi>b</mi></mfrac><mo>≤</mo><mroot><mi>y</mi><mn>3</mn></mroot>'
         '<mover><mi>v</mi><mo>^</mo></mover><mtable><mtr><mtd><mn>1</mn></mtd><mtd><mn>2</mn></mtd></mtr></mtable></math>')
    assert canonical_tokens(mathml_to_latex(x)) == canonical_tokens(
        r"x^2+\frac ab\le\sqrt[3]{y}\hat v\begin{matrix}1&2\end{matrix}")
    tex = '<m:math xmlns:m="u"><m:semantics><m:mi>x</m:mi><m:annotation encoding="application/x-tex">x^{2}</m:annotation></m:semantics></m:math>'
    assert mathml_to_latex(tex) == "x^{2}"
    with pytest.raises(MathMLError, match="unreadable MathML"):
        mathml_to_latex("no xml at all")


def test_mathml_in_upper_case_reads_as_in_lower_case() -> None:
    """HTML's tag names have no case: a parser writing `<MFRAC>` wrote a fraction (it read as nothing)."""
    lower = "<math><mfrac><mi>a</mi><mi>b</mi></mfrac><mo>+</mo><msup><mi>x</mi><mn>2</mn></msup></math>"
    assert mathml_to_latex(lower.upper().replace("<MI>A", "<MI>a").replace("<MI>B", "<MI>b").replace("<MI>X", "<MI>x")) \
        == mathml_to_latex(lower)


def _bench_folder(tmp_path: Path, blocks: object) -> Path:
    (tmp_path / "pdfs").mkdir()
    (tmp_path / "ground_truth").mkdir()
    (tmp_path / "pdfs" / "001.pdf").write_bytes(b"%PDF-1.4\n")
    (tmp_path / "ground_truth" / "001.json").write_text(json.dumps(blocks))
    return tmp_path


def test_importer_reads_formula_blocks_in_order(tmp_path: Path) -> None:
    src = _bench_folder(tmp_path, [{"type": "text", "data": "Hello"}, {"type": "display-formula", "data": "$$a$$"},
                                   {"type": "inline-formula", "data": "$b$"}])
    pages = formula_pages(src)
    assert len(pages) == 1
    assert pages[0].page == "001" and pages[0].pdf == src / "pdfs" / "001.pdf"
    assert pages[0].formulas == (("$$a$$", "display"), ("$b$", "inline"))


def test_importer_errors_are_one_line(tmp_path: Path) -> None:
    src = _bench_folder(tmp_path, [{"type": "inline-formula", "data": ""}])
    with pytest.raises(ValueError, match="inline-formula block 0 without LaTeX"):
        formula_pages(src)
    with pytest.raises(ValueError, match="not a pdf-parse-bench folder"):
        formula_pages(tmp_path / "pdfs")
    (tmp_path / "ground_truth" / "001.json").write_text('{"blocks": 3}')
    with pytest.raises(ValueError, match="expected a list of blocks"):
        page_formulas(tmp_path / "ground_truth" / "001.json")


@pytest.mark.shared
def test_importer_on_the_sample_and_perfect_output_is_located_exactly() -> None:
    pages = formula_pages(shared_path("data", "pdf-parse-bench-2026q1-formulas-sample"))
    assert len(pages) == 20
    assert sum(len(p.formulas) for p in pages) == 402
    assert {k for p in pages for _, k in p.formulas} == {"inline", "display"}
    from tablebench.metrics.formulas.score import formula_score

    for page in pages:  # a perfect parser (ground truth written back) gets every formula, full marks
        gt = [latex for latex, _ in page.formulas]
        output = "\n\nfiller text\n\n".join(gt)
        located = locate_formulas(gt, output)
        assert all(r.found and r.score == 1.0 for r in located), page.page
        assert all(formula_score(g, r.text) == 10.0 for r, g in zip(located, gt)), page.page


def test_plain_text_math_is_read_back_as_latex() -> None:
    from tablebench.locate.formulas import plain_to_latex
    from tablebench.metrics.formulas.score import formula_score

    assert plain_to_latex("_x_<sup>2</sup> + a₁₂ = **y**") == "x^{2} + a_{12} = y"
    assert plain_to_latex("x² ≤ y") == "x^{2} ≤ y"
    out = "Film member. _e_<sup>_iπ_</sup> + 1 = 0 Continue assume form."
    located = locate_formulas([r"$e^{i\pi}+1=0$"], out)[0]
    assert located.source == "text" and out[located.span[0]:located.span[1]].startswith("e_<sup>")
    assert formula_score(r"$e^{i\pi}+1=0$", located.text) == 10.0


# Markdown/HTML-decorated Unicode, as pymupdf4llm writes inline math (spellings copied by hand).
DECORATED = [
    (r"$\xi^{2}$", "whose variance _ξ_<sup>2</sup> grows"),
    (r"$\bar{n}$", "the mean _n_ ¯ simply"),
    (r"$\mathbb{N}^{d}$", "a lattice N<sup>_d_</sup> here"),
    (r"$\sigma^{2}$", "noise _σ_<sup>2</sup> memory"),
    (r"$k \mapsto e^{-k}$", "the map _k_ ↦ _e_<sup>−</sup><sup>_k_</sup> decays"),
    (r"$\mathbb{Q}^{m}$", "over ℚ<sup>_m_</sup> only"),
    (r"$(u + 1)/8$", "take ( _u_ + 1) _/_ 8 now"),
    (r"$x^{2} \le y$", "so 𝑥² ≤ 𝑦 holds"),
    (r"$t \notin A \cup B$", "assume _t ∈/ A ∪ B_ now"),
    (r"$q \notin A \cup B$", "near _q /∈ A∪B_ attack"),
    (r"$\lambda_{\max}$", "the top _λ_ max of the spectrum"),  # subscript lost: content tokens only
]


@pytest.mark.parametrize(("latex", "text"), DECORATED)
def test_decorated_unicode_is_read_like_a_reader(latex: str, text: str) -> None:
    from tablebench.metrics.formulas.score import formula_score

    located = locate_formulas([latex], text)[0]
    assert located.found and located.source == "text" and located.score == 1.0
    assert text[located.span[0]:located.span[1]].strip("_ ") != ""
    if "max" not in latex and "{N}" not in latex:  # a plain N cannot say it was double-struck
        assert formula_score(latex, located.text) == 10.0  # the reading, not the decorated source


def test_reader_tokens_keep_offsets_and_structure() -> None:
    from tablebench.readers.formula_text import reader_tokens

    text = "_n_ ¯ and x₁₂ and souffrir ¯ _a_"
    toks = reader_tokens(text)
    assert [t for t, _, _ in toks[:3]] == ["\\bar{", "n", "}"]
    assert text[toks[1][1]:toks[1][2]] == "n"
    assert [t for t, _, _ in toks[6:11]] == ["x", "_{", "1", "2", "}"]  # one subscript run
    assert [t for t, _, _ in toks[-3:]] == ["\\bar{", "a", "}"]  # a word's end takes no accent


def test_formulas_absent_from_the_text_stay_missing() -> None:
    out = ("The mean _m_ ¯ of ( _m_ + 1) _/_ 8 items; a log file, the long road, an example text with "
           "_σ_<sup>3</sup> and _x_<sub>2</sub> and wm over an x-ray.")
    gt = [r"$\bar{n}$", r"$(y + 1)/8$", r"$\log g$", r"$\sigma^{2}$", r"$x^{2}$", r"$\hat{w}_{m}$", r"$\tilde{m}$",
          r"$x$", r"$a$", r"$O(n \log n)$"]
    located = locate_formulas(gt, out)
    assert [r.found for r in located] == [False] * len(gt)


def test_short_formula_needs_a_unique_whole_word() -> None:
    assert locate_formulas([r"$\alpha$"], "where α is fixed")[0].found
    assert not locate_formulas([r"$\alpha$"], "where α is fixed and α varies")[0].found  # ambiguous
    two = locate_formulas([r"$\alpha$", r"$\alpha$"], "where α is fixed and α varies")
    assert all(r.found for r in two) and two[0].span != two[1].span
    assert not locate_formulas(["$x$"], "an x-ray of xylophones, max")[0].found  # x-ray: not a lone x
    assert not locate_formulas(["$a$"], "a log file")[0].found and locate_formulas(["$a$"], "a _a_ file")[0].found
    assert not locate_formulas([r"$\xi$"], "whose variance _ξ_<sup>2</sup> grows")[0].found  # base of a script


def test_glued_text_and_line_breaks() -> None:
    # some parsers drop every space (pdfplumber): a formula with operators or non-Latin letters is
    # still distinctive; one reading like a word is not (`log u` inside "catalogue")
    assert locate_formulas([r"$T = 335\,\mathrm{K}$"], "electionT =335Ksinglesoon")[0].found
    assert locate_formulas([r"$\chi > 0$"], "Manosχ>0primer")[0].found
    assert not locate_formulas([r"$\log u$"], "a catalogue of things")[0].found
    assert locate_formulas([r"$\log u$"], "a log u of things")[0].found
    # a single line break is a space (Markdown paragraph); a blank line ends the paragraph
    assert locate_formulas([r"$(c + 1)/7$"], "seem (c +\n1)/7 human")[0].found
    assert not locate_formulas([r"$(c + 1)/7$"], "seem (c +\n\n1)/7 human")[0].found
