"""What is a table, math or prose in an output is decided once (`tablebench.tex.regions`), and
every reader of an output agrees with it.

One page holds every kind of region the readers know (an HTML, a Markdown, a LaTeX `tabular` and
a `tblr` table, math in each delimiter and in `align*` and `alignat`, MathML, a figure, an image)
between marked prose. The table readers find the tables, the math finder the math, and the
prose reader reads exactly the prose: no word of a table or of math, every word of the prose.
A `tblr` table was read as a table by the table reader and as prose by the prose reader (its
list of table environments was its own); so was an `alignat` display.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from tablebench.core.table import NoTableError
from tablebench.readers import read_tables
from tablebench.readers.html import read_html
from tablebench.readers.latex import read_latex
from tablebench.readers.markdown import read_markdown
from tablebench.readers.mathml import mathml_to_latex
from tablebench.readers.prose import prose_words
from tablebench.readers.text import read_text
from tablebench.tex import regions
from tablebench.tex.latex_math import latex_to_text
from tablebench.tex.math_spans import math_spans

ROOT = Path(__file__).resolve().parents[1]

PAGE = r"""# Results

Alpha prose opens the page, at \$5 a unit.

<table><tr><th>Htab</th><th>Hcol</th></tr><tr><td>h1</td><td>h2</td></tr></table>

| Mtab | Mcol |
|------|------|
| m1   | m2   |

Beta prose between tables.

\begin{tabular}{ll}
Ltab & Lcol \\
l1 & l2 \\
\end{tabular}

\begin{tblr}{colspec={ll}}
Ttab & Tcol \\
t1 & t2 \\
\end{tblr}

Gamma prose with inline $xmath^2$ and \(ymath_1\) too.

$$ ddmath = 1 $$

\[ brmath = 2 \]

\begin{align*} alignmath &= 3 \end{align*}

\begin{alignat}{2} alignatmath &= 4 \end{alignat}

<math><mi>mmlmath</mi></math>

\begin{figure} figcaption \end{figure}

![imgalt](pic.png)

<!-- comment words -->

Delta prose closes the page.
"""
TABLES = ("Htab", "Mtab", "Ltab", "Ttab")
MATH = ("xmath", "ymath", "ddmath", "brmath", "alignmath", "alignatmath", "mmlmath")
PROSE = "Results Alpha prose opens the page, at $5 a unit. Beta prose between tables. Gamma prose with inline " \
        "and too. Delta prose closes the page."


def _span_of(word: str) -> int:
    return PAGE.index(word)


def test_every_reader_agrees_on_the_regions_of_a_hostile_page():
    tables = read_tables(PAGE)
    assert [PAGE[t.span[0]:t.span[1]].count(w) for t, w in zip(tables, TABLES)] == [1, 1, 1, 1]
    # each reader of one markup finds the same tables, at the same spans, as the reader of a mixed page
    by_reader = [t.span for read in (read_html, read_markdown, read_latex) for t in read(PAGE)]
    assert sorted(by_reader) == [t.span for t in tables]
    with pytest.raises(NoTableError):  # no column-aligned plain table here: the plain reader claims nothing
        read_text(PAGE)
    found = math_spans(PAGE)
    assert [next(w for w in MATH if w in PAGE[s.start:s.end]) for s in found] == list(MATH)
    assert mathml_to_latex(PAGE[found[-1].start:found[-1].end]).strip() == "mmlmath"
    words = prose_words(PAGE)
    regions_of = [t.span for t in tables] + [(s.start, s.end) for s in found]
    inside = [PAGE[w.start:w.end] for w in words if any(a <= w.start < b for a, b in regions_of)]
    assert inside == [], f"prose read inside a table or math: {inside}"
    assert " ".join(w.norm for w in words) == PROSE


def test_a_tblr_table_is_a_table_and_no_prose():
    page = "Before.\n\\begin{tblr}{ll}\nSecret & Cell \\\\\n\\end{tblr}\nAfter."
    (table,) = read_latex(page)
    assert table.rows[0][0].text == "Secret"
    assert [w.norm for w in prose_words(page)] == ["Before.", "After."]


def test_every_math_mode_environment_reads_as_its_formula_in_a_cell():
    """A cell's `gather*` or `alignat` was dropped as a space (only equation, align, gather, math
    and displaymath were read); alignat's column count is no part of its formula."""
    assert latex_to_text(r"a \begin{gather*} x \end{gather*} b").split() == ["a", "x", "b"]
    assert latex_to_text(r"\begin{alignat}{2} y \end{alignat}").split() == ["y"]
    assert latex_to_text(r"\begin{equation} z \end{equation}").split() == ["z"]


# names that say "an environment" and little else (array, math, table, split, cases are words too)
_NAMES = {n.rstrip("*") for n in regions.TABULAR_ENVS | regions.MATH_ENVS} - {
    "array", "math", "split", "cases", "matrix"}
_WORD = re.compile(r"(?<![\w-])[A-Za-z]+(?![\w-])")  # not a piece of a CSS name (text-align, tabular-nums)
# Lists that are no reading of an output, each with its reason: (file, the names it holds).
NOT_A_READING = {
    ("harness/generate/formula_builtin.py", frozenset({"Bmatrix", "bmatrix", "pmatrix", "vmatrix"})):
        "the generator draws a matrix environment to write, weighted",
    ("harness/generate/formula_page.py", frozenset({"align", "equation"})):
        "the generated page numbers the displays it writes in these two",
    ("harness/locate/llm_formulas.py", frozenset({"align", "equation"})):
        "the LLM locator's prompt, in words (its text is versioned: a change re-asks every cached answer)",
}


def _written_out(source: str, path: str = "", allowed: set | None = None) -> list[str]:
    """Each string constant (a regex, a list in one string) or tuple/list/set of them that names
    two or more environments of `tex.regions`; docstrings are prose, not lists."""
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    found = []

    def names(texts: list[str]) -> set[str]:
        return {w for text in texts for w in _WORD.findall(text) if w in _NAMES}

    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            texts = [node.value]
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            texts = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        else:
            continue
        if len(hit := names(texts)) >= 2:
            found.append((node.lineno, frozenset(hit)))
    if allowed is not None:
        allowed.update((path, hit) for _, hit in found if (path, hit) in NOT_A_READING)
    return [f"line {line}: {sorted(hit)}" for line, hit in found if (path, hit) not in NOT_A_READING]


def test_no_environment_list_is_written_out_outside_tex():
    """Each list outside tex/ is a reading that drifts (see the module docstring)."""
    written, allowed = {}, set()
    for folder in ("harness", "parsers"):
        for path in sorted((ROOT / folder).glob("**/*.py")):
            if path.parent == ROOT / "harness" / "tex":  # the folder that owns LaTeX
                continue
            name = str(path.relative_to(ROOT))
            if hits := _written_out(path.read_text(encoding="utf-8"), name, allowed):
                written[name] = hits
    assert not written, f"derive these from tablebench.tex.regions: {written}"
    assert allowed == NOT_A_READING.keys(), f"drop from NOT_A_READING: {NOT_A_READING.keys() - allowed}"


def test_the_list_check_sees_a_list_and_not_a_docstring():
    source = ('"""Reads equation, align and gather environments."""\n'
              'ENVS = ("equation", "align*")\n'
              'PATTERN = r"\\\\begin\\{(?:tabular[x*]?|tblr)\\}"\n'
              'ONE = "equation"\n')
    assert _written_out(source) == ["line 2: ['align', 'equation']", "line 3: ['tabular', 'tblr']"]


def test_a_dollar_span_passes_an_escaped_dollar_and_stops_at_a_blank_line():
    """TeX reads `\\$` inside math as a dollar sign, and a blank line ends a paragraph and any math
    left open in it: a price in one paragraph and another in the next are prose, not one formula."""
    text = r"costs $\$5 + x$ each"
    (span,) = math_spans(text)
    assert text[span.start:span.end] == r"$\$5 + x$"
    assert math_spans("It costs $5 a unit.\n\nThe other costs $7.") == []
    assert [s.kind for s in math_spans("a $x$ b\n  \n c $y$")] == ["d", "d"]


def test_mathml_is_found_in_any_letter_case():
    """HTML's tag names have no case: `<MATH>` is MathML as `<math>` is, and so is a prefixed one."""
    for text in ("x <MATH><mi>a</mi></MATH> y", "x <m:Math><m:mi>a</m:mi></m:MATH> y"):
        (span,) = math_spans(text)
        assert span.kind == "mml" and text[span.start:span.end].endswith(">") and "y" not in text[span.start:span.end]
