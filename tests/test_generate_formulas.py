"""Formula pages: the built-in pool, vetting of external formulas, harvest, and whole pages."""

from __future__ import annotations

import json
import re
import subprocess
import time
import unicodedata
from collections import Counter

import pytest

from tablebench.cli import main
from tablebench.generate import formula_pool, measure
from tablebench.generate.caseset import write_caseset
from tablebench.generate.formula_builtin import DISPLAY_FAMILIES, MULTILINE_FAMILIES, builtin_formula
from tablebench.generate.formula_harvest import extract_formulas, find_formulas
from tablebench.generate.formula_item import Formula, FormulaError, check_formula, split_delimiters
from tablebench.generate.formula_page import DisplayFormula, InlineSentence, build_formula_page, formula_macros
from tablebench.generate.formula_pool import FormulaPool, read_jsonl, vet_formulas
from tablebench.generate.layouts import PageLayout
from tablebench.generate.page import Block, build_page
from tablebench.generate.text import TextSource
from tablebench.tex.latex_math import math_to_unicode
from tablebench.tex.runner import have_pdflatex

needs_tex = pytest.mark.skipif(not have_pdflatex(), reason="pdflatex is not installed (apt texlive-latex-base)")

TWO_COL = PageLayout(docclass="article", font="termes", fontsize=10, columns=2, language="en",
                     margins_mm=(20, 18, 22, 18), columnsep_mm=7)
ONE_COL = PageLayout(docclass="scrreprt", font="pagella", fontsize=12, columns=1, language="de",
                     spacing="onehalf", parindent_pt=0, parskip_pt=6, paper="letter")


# -- the built-in pool ----------------------------------------------------------------------------


def test_builtin_formulas_are_seeded_and_varied() -> None:
    assert builtin_formula(7, "display") == builtin_formula(7, "display")
    assert builtin_formula(7, "inline") == builtin_formula(7, "inline")
    display = [builtin_formula(s, "display") for s in range(400)]
    inline = [builtin_formula(s, "inline") for s in range(400)]
    assert len({f.body for f in display}) > 240 and len({f.body for f in inline}) > 240  # compositional, not a list
    families = {f.source.removeprefix("builtin:") for f in display}
    assert families == set(DISPLAY_FAMILIES) | set(MULTILINE_FAMILIES)
    assert all(f.multiline == (f.source.removeprefix("builtin:") in MULTILINE_FAMILIES) for f in display)
    joined = " ".join(f.body for f in display)
    for construct in ("\\frac", "\\sum_", "\\int_", "\\lim_", "\\begin{pmatrix}", "\\begin{cases}", "\\mathbb{",
                      "\\mathcal{", "\\hat{", "\\ce{", "\\mathrm{H_{2}O}", "\\|", "\\partial"):
        assert construct in joined, construct
    for f in inline + display:  # every built-in formula passes the checks a pool formula must pass
        check_formula(f.body, f.kind)


def test_inline_formulas_stay_low() -> None:
    for s in range(300):
        body = builtin_formula(s, "inline").body
        assert not re.search(r"\\(frac|dfrac|begin|int|displaystyle|sqrt)\b", body), body


# -- external pools: refused before compiling ----------------------------------------------------

UNSAFE = [
    ("\\input{/etc/passwd}", "unsafe \\input"),
    ("x \\write18{rm -rf /}", "unsafe \\write18"),
    ("\\def\\x{\\x}\\x", "unsafe \\def"),
    ("\\csname input\\endcsname", "unsafe \\csname"),
    ("\\begin{filecontents}{a}x\\end{filecontents}", "unsafe \\begin{filecontents}"),
    # a typesetting bomb without definitions: each level typesets its argument 4 times (13 deep: > 60 s a compile)
    ("\\text{\\ensuremath{" * 13 + "x" + "}}" * 13, "unsafe nesting"),
    # the same through commands no list names: 12 deep each compile ran to its 60 s timeout
    ("\\sqrt[3]{" * 12 + "x" + "}" * 12, "unsafe nesting"),
    ("\\boldsymbol{" * 12 + "x" + "}" * 12, "unsafe nesting"),
    ("\\overrightarrow{" * 12 + "x" + "}" * 12, "unsafe nesting"),
    ("\\sqrt[" * 8 + "3]{x}" * 8, "unsafe nesting"),  # nested through the optional argument
    ("\\rule{\\maxdimen}{\\maxdimen}", "unsafe \\maxdimen"),  # no page could hold it: generate gave up
    ("x\\kern\\maxdimen y", "unsafe \\maxdimen"),
    ("a \\rule{2000pt}{1pt}", "unsafe \\rule"),
    ("\\setcounter{equation}{41} E=mc^2", "unsafe \\setcounter"),  # the PDF would print (41)
    ("\\DeclarePairedDelimiter\\abs{\\lvert}{\\rvert} \\abs{x}", "unsafe \\DeclarePairedDelimiter"),
    ("\\newtagform{brackets}{[}{]} x", "unsafe \\newtagform"),
    ("\\XeTeXpdffile \"/etc/a.pdf\" x", "unsafe \\XeTeXpdffile"),
]


def test_unsafe_or_malformed_formulas_never_reach_pdflatex(monkeypatch) -> None:
    def no_compile(*_a, **_k):
        raise AssertionError("pdflatex must not run on a refused formula")

    monkeypatch.setattr(formula_pool, "run_pdflatex", no_compile)
    bad = [(latex, None, f"bad{i}") for i, (latex, _) in enumerate(UNSAFE)]
    bad += [("\\frac{a}{b", None, "braces"), ("a \\text{if $x$}", None, "dollar"),
            ("a &= b \\\\ c &= d", "inline", "rows"), ("a\n\nb", None, "par"), ("  ", None, "empty")]
    kept, rejected = vet_formulas(bad)
    assert kept == []
    reasons = {r.source: r.reason for r in rejected}
    for i, (_, reason) in enumerate(UNSAFE):
        assert reasons[f"bad{i}"] == reason
    assert reasons["braces"] == "unbalanced braces"
    assert reasons["dollar"] == "math delimiters inside the formula"
    assert reasons["rows"] == "rows (& or \\\\) in an inline formula"
    assert reasons["par"] == "paragraph break inside the formula"
    assert reasons["empty"] == "empty formula"


def test_ordinary_sizes_and_nesting_still_pass() -> None:
    from tablebench.generate.formula_item import formula_unsafe

    for body in ("\\text{if $\\phantom{x}\\boxed{\\text{a}}$}", "\\rule{0.5\\linewidth}{0.4pt}\\kern 2pt x",
                 "\\hspace{1cm} 1500mm", "a \\newline b",
                 "1 + \\cfrac{1}{" * 6 + "x" + "}" * 6,  # a continued fraction 6 deep: at the bound
                 "\\left[\\left[" * 10 + "x" + "\\right]\\right]" * 10, "[0, 1]" * 20 + "{" * 30 + "x" + "}" * 30):
        assert formula_unsafe(body) == [], body


def test_vetting_stops_compiling_when_its_time_budget_is_spent() -> None:
    from tablebench.generate.measure import bisect_batch
    from tablebench.tex.runner import LatexError

    runs: list[int] = []

    def run(batch: list[int]) -> list[str]:
        runs.append(len(batch))
        raise LatexError("pdflatex timed out after 60 s")  # what a typesetting bomb does to each run

    assert bisect_batch(list(range(8)), run, str) == ["pdflatex timed out after 60 s"] * 8 and len(runs) == 15
    runs.clear()
    spent = bisect_batch(list(range(8)), run, str, deadline=time.monotonic())
    assert runs == [] and spent == ["not compiled: the time budget of this vetting was spent"] * 8
    assert formula_pool.VET_BUDGET <= 300 and measure.COMPILE_TIMEOUT <= 60


def test_a_page_refuses_an_unsafe_formula_before_compiling() -> None:
    evil = Formula("\\input{/etc/passwd}", "display", "evil")
    with pytest.raises(FormulaError, match="unsafe"):
        DisplayFormula(evil, "equation", 1).latex("b0s0")
    with pytest.raises(FormulaError, match="unsafe"):
        InlineSentence("a", Formula("\\openin1", "inline", "evil"), "b").latex("b0s1")


def test_delimiters_decide_the_kind_and_labels_go() -> None:
    assert split_delimiters("$x^2$") == ("x^2", "inline")
    assert split_delimiters("\\(a+b\\)") == ("a+b", "inline")
    assert split_delimiters("$$\\int f$$") == ("\\int f", "display")
    assert split_delimiters("\\[ y \\]") == ("y", "display")
    assert split_delimiters("\\begin{equation}\\label{e1} E=mc^2 \\end{equation}") == ("E=mc^2", "display")
    assert split_delimiters("\\begin{align*} a &= b \\nonumber \\\\ c &= d \\end{align*}") == \
        ("a &= b  \\\\ c &= d", "display")
    assert split_delimiters("x + y") == ("x + y", None)
    assert split_delimiters("$a$ and $b$") == ("$a$ and $b$", None)  # two formulas, not one


def test_pool_file_errors_are_one_line(tmp_path) -> None:
    path = tmp_path / "f.jsonl"
    path.write_text('{"latex": "x", "kind": "inline"}\n{"latex": "y", "kind": "big"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"f\.jsonl:2: kind 'big' is not one of inline, display"):
        read_jsonl(path)
    path.write_text('{"latex": "x"}\nnot json\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"f\.jsonl:2: invalid JSON"):
        read_jsonl(path)
    path.write_text('{"latex": "$x$"}\n{"latex": "y", "kind": "display", "source": "paper"}\n', encoding="utf-8")
    assert read_jsonl(path) == [("$x$", None, "f.jsonl:1"), ("y", "display", "paper")]


def test_pool_draws_its_own_formulas_first_then_builtin() -> None:
    mine = [Formula("a^{2}", "inline", "p:1"), Formula("\\sum_{i} b_{i}", "display", "p:2")]
    pool = FormulaPool(mine, name="p.jsonl")
    assert pool.draw(1, "inline", set()) == mine[0]
    assert pool.draw(1, "inline", {"a^{2}"}).source.startswith("builtin:")
    assert pool.draw(3, "display", set()) in mine  # a low formula may be displayed too
    assert pool.draw(3, "display", {"a^{2}", "\\sum_{i} b_{i}"}).source.startswith("builtin:")


# -- harvest --------------------------------------------------------------------------------------

TEX = r"""\documentclass{article}
\newcommand{\R}{\mathbb{R}}
\begin{document}
Let $x \in \R^n$ and $n$, price \$5 and \$6. % $\input{x}$
So \( a+b \) and
\begin{equation}\label{e} E = mc^2 \end{equation}
\begin{align*} a &= b \\ &= c \end{align*}
$$ \int_0^1 f $$ \[ \input{/etc/passwd} \]
\begin{displaymath} y = 1 \end{displaymath}
\end{document}
"""


def test_find_formulas_takes_every_delimiter_once() -> None:
    found = find_formulas(TEX[TEX.index("\\begin{document}") :])
    kinds = Counter(k for _, k in found)
    assert kinds == {"inline": 4, "display": 5}
    assert ("$x \\in \\R^n$", "inline") in found
    assert ("\\[ y = 1 \\]", "display") in found  # displaymath is written as \[..\]
    assert not any("5 and" in f for f, _ in found)  # escaped dollars are text


def test_extract_expands_the_files_own_macros_and_drops_comments() -> None:
    out = extract_formulas(TEX)
    assert ("$x \\in \\mathbb{R}^n$", "inline", None) in out
    assert not any("\\input{x}" in f for f, _, _ in out)


@needs_tex
def test_harvest_formulas_cli_writes_a_vetted_pool(tmp_path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "paper.tex").write_text(TEX, encoding="utf-8")
    out = tmp_path / "pool.jsonl"
    assert main(["harvest", str(tmp_path / "src"), "--formulas", "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert {(r["latex"], r["kind"]) for r in rows} == {
        ("x \\in \\mathbb{R}^n", "inline"), ("a+b", "inline"), ("E = mc^2", "display"),
        ("a &= b \\\\ &= c", "display"), ("\\int_0^1 f", "display"), ("y = 1", "display")}
    pool = FormulaPool.from_jsonl(out)  # what `generate --track formulas --pool` reads
    assert len(pool.formulas) == 6 and pool.by_kind["display"][1].multiline


# -- pages ----------------------------------------------------------------------------------------

FOLD = str.maketrans("ϵϑϕϱςϖ∆", "εθφρσπΔ")


def _greek(text: str) -> set[str]:
    text = unicodedata.normalize("NFKC", text).translate(FOLD)
    return {c for c in text if 0x391 <= ord(c) <= 0x3C9}


def _pdf_text(pdf: bytes) -> str:
    return subprocess.run(["pdftotext", "-", "-"], input=pdf, capture_output=True, check=True).stdout.decode()


def _pages(pdf: bytes) -> int:
    info = subprocess.run(["pdfinfo", "-"], input=pdf, capture_output=True, check=True).stdout.decode()
    return int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))


@pytest.fixture(scope="module")
def page():
    return build_formula_page(31, layout=ONE_COL)


@needs_tex
def test_formula_page_is_deterministic(page) -> None:
    again = build_formula_page(31, layout=ONE_COL)
    assert again.pdf == page.pdf and again.blocks == page.blocks


@needs_tex
def test_formula_page_is_one_page_in_few_runs_with_every_formula_visible(page) -> None:
    assert _pages(page.pdf) == 1 and page.runs <= 3
    text = _pdf_text(page.pdf)
    formulas = [b for b in page.blocks if b["type"] in ("inline-formula", "display-formula")]
    for b in formulas:  # what the formula's Greek letters and numbers say is printed on the page
        assert _greek(math_to_unicode(b["data"].strip("$"))) <= _greek(text), b["data"]
        for number in b.get("numbers", []):
            assert number in text
    last_text = [b for b in page.blocks if b["type"] == "text"][-1]["data"]
    assert last_text.split()[-1].rstrip(".") in " ".join(text.split()).replace("- ", "")  # the page is full


@needs_tex
def test_formula_ground_truth_records_kind_and_exact_latex(page) -> None:
    formulas = [b for b in page.blocks if b["type"] in ("inline-formula", "display-formula")]
    kinds = Counter(b["kind"] for b in formulas)
    assert kinds["inline"] >= 3 and kinds["display"] >= 3
    for b in formulas:
        if b["kind"] == "inline":
            assert b["type"] == "inline-formula" and b["data"] == b["latex"] and b["data"].startswith("$")
            assert "\\tbin{" in page.source and b["latex"] in page.source
        else:
            assert b["type"] == "display-formula" and b["data"].startswith("$$")
            assert b["env"] in ("equation", "equation*", "\\[", "align", "align*")
            assert bool(b["numbers"]) == (b["env"] in ("equation", "align"))
            # the page source holds the display exactly, with only the invisible marker added
            assert re.sub(r"\\tbmark\{b\d+s\d+\}", "", page.source).count(b["latex"]) >= 1
    numbers = [int(n.strip("()")) for b in formulas for n in b.get("numbers", [])]
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))  # consecutive, as printed


@needs_tex
def test_tex_leaves_out_tall_inline_and_wide_display_formulas() -> None:
    tall = Formula("\\dfrac{\\Upsilon}{2}", "inline", "tall")
    wide = Formula(" + ".join(f"\\aleph_{{{k}}}" for k in range(60)), "display", "wide")
    low = Formula("\\Omega_{k}", "inline", "low")
    fine = Formula("\\Xi = \\frac{1}{2}", "display", "fine")

    def planner(seed: int, layout: PageLayout, text: TextSource) -> list[Block]:
        sentences = ["First.", InlineSentence("A tall", tall, "one."), DisplayFormula(wide, "equation", 3),
                     InlineSentence("A low", low, "one."), DisplayFormula(fine, "equation", 4, ["(4)"])]
        return [Block("text", sentences),
                *(Block("text", text.paragraph(6, 9)) for _ in range(12))]

    page = build_page(5, TWO_COL, planner=planner, macros=formula_macros(TWO_COL))
    assert page.blocks[0] == {"type": "text", "data": "First. A tall one. A low"}  # tall left out, text joined
    assert page.blocks[1]["source"] == "low" and page.blocks[1]["data"] == "$\\Omega_{k}$"
    assert page.blocks[2] == {"type": "text", "data": "one."}
    assert page.blocks[3]["source"] == "fine" and page.blocks[3]["numbers"] == ["(4)"]
    text = _pdf_text(page.pdf)
    assert "Υ" not in text and "ℵ" not in text  # neither was typeset
    assert {"Ω", "Ξ"} <= _greek(text) and "(4)" in text  # the others were (pdfTeX writes Ω as the ohm sign)
    assert _pages(page.pdf) == 1


@needs_tex
def test_generate_track_formulas_twice_gives_identical_bytes(tmp_path) -> None:
    for name in ("a", "b"):
        assert main(["generate", "--track", "formulas", "--pages", "2", "--seed", "9", "--out",
                     str(tmp_path / name)]) == 0
    files = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert files == ["001.json", "001.pdf", "002.json", "002.pdf", "manifest.json"]
    for name in files:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["tables"] == 0 and manifest["formulas"]["inline"] > 0 and manifest["formulas"]["display"] > 0
    assert manifest["pool"] == {"track": "formulas", "formulas": "builtin"}
    assert manifest["pdflatex_runs"] <= 3 * 2


@needs_tex
def test_mixed_track_has_tables_and_formulas(tmp_path) -> None:
    manifest = write_caseset(tmp_path / "m", 1, 4, pool=FormulaPool(tables=(1, 2)))
    assert 1 <= manifest["tables"] <= 2 and sum(manifest["formulas"].values()) > 0
    assert manifest["pool"]["track"] == "mixed"


@needs_tex
def test_prose_track_has_inline_formulas_only_and_leaves_the_formula_track_as_it_was() -> None:
    """`--track prose`: running text whose sentences hold inline formulas, no display; the committed
    prose-v1 and formulas-v1 pages both come out of the same planner again, byte for byte."""
    from tablebench.cases import INSTALLED_CASES
    from tablebench.generate.caseset import dump_json, make_page, page_record

    for name, pool in (("prose-v1", FormulaPool(displays=False)), ("formulas-v1", FormulaPool())):
        committed = INSTALLED_CASES / name / "001.json"
        seed = json.loads(committed.read_text(encoding="utf-8"))["caseset_seed"]
        assert dump_json(page_record(make_page(seed, 1, pool), seed, 1)) == committed.read_text(encoding="utf-8")
    assert FormulaPool(displays=False).track == "prose"
    blocks = [b for b in json.loads((INSTALLED_CASES / "prose-v1" / "001.json").read_text(encoding="utf-8"))["blocks"]]
    kinds = Counter(b["type"] for b in blocks)
    assert kinds["inline-formula"] >= 8 and kinds["display-formula"] == 0 and kinds["text"] > kinds["inline-formula"]


@needs_tex
def test_table_pages_are_unchanged_by_the_formula_track() -> None:
    """The page builder now takes a planner; the committed table set must still come out of it."""
    from tablebench.cases import INSTALLED_CASES
    from tablebench.generate.caseset import dump_json, make_page, page_record

    committed = INSTALLED_CASES / "synth-v1" / "001.json"
    seed = json.loads(committed.read_text(encoding="utf-8"))["caseset_seed"]
    assert dump_json(page_record(make_page(seed, 1), seed, 1)) == committed.read_text(encoding="utf-8")


@needs_tex
def test_a_formula_that_fails_on_the_page_makes_the_page_redrawable() -> None:
    """pdflatex errors become `PageError`, which `make_page` answers by redrawing the page."""
    from tablebench.generate.page import PageError

    broken = Formula("x \\undefinedmacro", "inline", "broken")  # never vetted
    with pytest.raises(PageError, match="Undefined control sequence"):
        build_formula_page(3, FormulaPool([broken], name="b.jsonl"), layout=TWO_COL)
