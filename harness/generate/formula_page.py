"""Formula pages: inline formulas inside filler sentences and display formulas between them.

The page is planned, compiled, cut to one page and verified by `page.build_page`, exactly as
table pages are (same layouts, same markers, the same <= 3 runs). What is new lives here:
the items a text block's sentence list may hold besides plain sentences.

- `InlineSentence`: a sentence with one inline `$..$` formula at a word boundary.
- `DisplayFormula`: a display (`equation`, `equation*`, `\\[..\\]`, `align`, `align*`) that
  continues its paragraph, as displays do in papers; its page marker sits inside the math,
  so the cut knows on which page the display itself landed.

TeX decides in the page's own fonts, identically in every run (`\\tbin`, `\\tbdisp`):
an inline formula taller than 0.73 or deeper than 0.27 of the font size's baseline skip
(so that it can never push two lines apart, even next to another formula) is left out of
its sentence, and a display wider than the column (minus room for its number) or taller than
0.3 of the text height is left out; the log says which, and the ground truth follows.

Ground truth: a text block becomes the pdf-parse-bench block sequence, e.g.
`text`, `inline-formula` (`"data": "$..$"`), `text`, `display-formula` (`"data": "$$..$$"`),
each formula block with `latex` (exactly as on the page, invisible markers aside), `kind`
("inline" | "display"), `env`, the printed equation numbers and the `source`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tablebench.generate.formula_item import Formula, check_formula, measure_source
from tablebench.generate.formula_pool import PACKAGES, FormulaPool
from tablebench.generate.layouts import PageLayout, sample_layout
from tablebench.generate.page import Block, Marks, Page, PageError, build_page, capacity_lines, table_columns, table_lines
from tablebench.generate.seeds import derive_seed
from tablebench.generate.tables import COMPLEXITIES, generate_table
from tablebench.generate.text import TextSource, escape_latex
from tablebench.tex.runner import LatexError

BASELINE = {10: 12.0, 11: 13.6, 12: 14.5}  # \baselineskip of the standard size options (pt)
INLINE_HEIGHT, INLINE_DEPTH = 0.73, 0.27  # of the baseline skip: the sum never exceeds it
NUMBER_ROOM = "4em"  # a numbered display leaves room for "(12)"
ENVIRONMENTS = ("equation", "equation*", "\\[")  # single-line displays, by weight below
ENV_WEIGHTS = (0.45, 0.2, 0.35)
# prose pages (the "prose" track): the share of sentences with an inline formula, about 14 a page as
# on pdf-parse-bench's text pages (1,411 on 100 pages)
PROSE_INLINE_RATE = 0.33

_MACROS = r"""
\newsavebox\tbfm
\newif\iftbfit
\long\def\tbkeep#1{#1}
\long\def\tbdrop#1{}
\newdimen\tbinht \tbinht=@HT@pt
\newdimen\tbindp \tbindp=@DP@pt
\renewcommand\theequation{\arabic{equation}}
\newcommand\tbin[2]{\sbox\tbfm{#2}\tbfittrue
  \ifdim\ht\tbfm>\tbinht \tbfitfalse\fi
  \ifdim\dp\tbfm>\tbindp \tbfitfalse\fi
  \ifdim\wd\tbfm>0.5\linewidth \tbfitfalse\fi
  \iftbfit\expandafter\tbkeep\else\typeout{TB:SKIP:#1:inline}\expandafter\tbdrop\fi{#2}}
\newcommand\tbdisp[4]{\sbox\tbfm{#2}\tbfittrue
  \ifdim\wd\tbfm>\dimexpr\linewidth-#3\relax \tbfitfalse\fi
  \ifdim\dimexpr\ht\tbfm+\dp\tbfm\relax>0.3\textheight \tbfitfalse\fi
  \iftbfit\expandafter\tbkeep\else\typeout{TB:SKIP:#1:display}\tbmark{#1}\expandafter\tbdrop\fi{#4}}
"""


def formula_macros(layout: PageLayout) -> str:
    """Preamble additions of a formula page: packages and the measuring macros."""
    skip = BASELINE.get(layout.fontsize, 1.2 * layout.fontsize)
    macros = _MACROS.replace("@HT@", f"{INLINE_HEIGHT * skip:.2f}").replace("@DP@", f"{INLINE_DEPTH * skip:.2f}")
    return PACKAGES + macros


def _text_piece(text: str) -> list[dict]:
    return [{"type": "text", "data": text}] if text else []


@dataclass
class InlineSentence:
    """A sentence with an inline formula after word `at` (plain text around it)."""

    before: str
    formula: Formula
    after: str

    def latex(self, uid: str) -> str:
        check_formula(self.formula.body, "inline")
        return (f"{escape_latex(self.before)} \\tbin{{{uid}i}}{{${self.formula.body}$}} "
                f"{escape_latex(self.after)}\\tbmark{{{uid}}}")

    def ground_truth(self, uid: str, marks: Marks) -> list[dict]:
        if f"{uid}i" in marks.skipped:  # TeX found it too tall for the line: not on the page
            return _text_piece(f"{self.before} {self.after}")
        latex = f"${self.formula.body}$"
        return [*_text_piece(self.before),
                {"type": "inline-formula", "data": latex, "latex": latex, "kind": "inline", "env": "$",
                 "source": self.formula.source},
                *_text_piece(self.after)]

    def __str__(self) -> str:  # what the page's text layer reads, formula aside
        return f"{self.before} {self.after}"


@dataclass
class DisplayFormula:
    """A display formula continuing its paragraph; `first` is its first equation number."""

    formula: Formula
    env: str  # "equation" | "equation*" | "\\[" | "align" | "align*"
    first: int = 0
    numbers: list[str] = field(default_factory=list)

    @property
    def numbered(self) -> bool:
        return self.env in ("equation", "align")

    def page_latex(self, mark: str) -> str:
        """The display as on the page; `mark` is put inside the math (invisible)."""
        body = self.formula.body
        if self.env == "\\[":
            return f"\\[{mark}\n{body}\n\\]"
        return f"\\begin{{{self.env}}}{mark}\n{body}\n\\end{{{self.env}}}"

    def latex(self, uid: str) -> str:
        check_formula(self.formula.body, "display")
        room = NUMBER_ROOM if self.numbered else "1em"
        counter = f"\\setcounter{{equation}}{{{self.first - 1}}}" if self.numbered else ""
        display = self.page_latex(f"\\tbmark{{{uid}}}")
        return f"\\tbdisp{{{uid}}}{{{measure_source(self.formula)}}}{{{room}}}{{{counter}%\n{display}}}"

    def ground_truth(self, uid: str, marks: Marks) -> list[dict]:
        if uid in marks.skipped:  # too wide or too tall for this column: not on the page
            return []
        body = self.formula.body
        data = f"$$\\begin{{aligned}}{body}\\end{{aligned}}$$" if self.formula.multiline else f"$${body}$$"
        return [{"type": "display-formula", "data": data, "latex": self.page_latex(""), "kind": "display",
                 "env": self.env, "numbers": self.numbers, "source": self.formula.source}]

    def __str__(self) -> str:
        return ""


def _rows(body: str) -> int:
    return body.count("\\\\") + 1


def _with_inline(sentence: str, formula: Formula, rng: np.random.Generator) -> InlineSentence:
    """Put `formula` after a word of `sentence` (never first, never after the final word)."""
    words = sentence.split()
    at = int(rng.integers(1, max(len(words) - 1, 1) + 1)) if len(words) > 1 else 1
    return InlineSentence(" ".join(words[:at]), formula, " ".join(words[at:]))


@dataclass
class FormulaPlanner:
    """Plans a formula page (optionally with a few built-in tables: `tables` per page)."""

    pool: FormulaPool
    tables: tuple[int, int] = (0, 0)
    inline_rate: float = 0.3

    def __call__(self, seed: int, layout: PageLayout, text: TextSource) -> list[Block]:
        rng = np.random.default_rng([seed, 0xF0A6])
        lines, cpl = capacity_lines(layout)
        n_display = int(rng.integers(5, 9)) if lines > 80 else int(rng.integers(4, 7))
        rate = self.inline_rate
        if not self.pool.displays:  # prose: paragraphs with inline formulas, as a paper's running text
            n_display, rate = 0, PROSE_INLINE_RATE
        n_tables = int(rng.integers(self.tables[0], self.tables[1] + 1)) if self.tables[1] else 0
        early = min(n_display, 3)  # tables among the first displays, so that they land on the page
        table_at = set(rng.choice(early, size=min(n_tables, early), replace=False).tolist()) if n_tables else set()
        number = int(rng.integers(1, 40))
        used: set[str] = set()
        slot = 0
        blocks: list[Block] = []
        budget = 0.0

        def sentences(n_min: int, n_max: int) -> list:
            nonlocal slot, budget
            out: list = []
            for s in text.paragraph(n_min, n_max):
                budget += len(s) / cpl
                if rng.random() < rate:
                    f = self.pool.draw(derive_seed(seed, "inline", slot), "inline", used)
                    slot += 1
                    used.add(f.body)
                    out.append(_with_inline(s, f, rng))
                else:
                    out.append(s)
            return out

        if rng.random() < 0.5:
            blocks.append(Block("heading", [text.heading()]))
            budget += 3
        for j in range(n_display):
            para = sentences(1, 3)
            f = self.pool.draw(derive_seed(seed, "display", j), "display", used)
            used.add(f.body)
            if f.multiline:
                env = "align" if rng.random() < 0.6 else "align*"
            else:
                env = ENVIRONMENTS[int(rng.choice(len(ENVIRONMENTS), p=ENV_WEIGHTS))]
            display = DisplayFormula(f, env, number)
            if display.numbered:
                count = _rows(f.body) if env == "align" else 1
                display.numbers = [f"({k})" for k in range(number, number + count)]
                number += count
            para.append(display)
            budget += 2 + 1.6 * _rows(f.body) + (2 if "matrix" in f.body or "cases" in f.body else 0)
            if rng.random() < 0.5:  # the paragraph goes on after the display ("where ...")
                para += sentences(1, 2)
            blocks.append(Block("text", para))
            budget += 1
            if j in table_at:
                complexity = COMPLEXITIES[int(rng.integers(3))]
                table = generate_table(derive_seed(seed, "table", j), complexity, max_cols=table_columns(layout))
                blocks.append(Block("table", table=table))
                budget += table_lines(table)
            if rng.random() < 0.12:
                blocks.append(Block("heading", [text.heading()]))
                budget += 3
        while budget < lines * 2 + 20:  # surplus text (inline formulas too): the cut lands in it
            blocks.append(Block("text", sentences(4, 9)))
            budget += 1
        return blocks


def build_formula_page(seed: int, pool: FormulaPool | None = None, layout: PageLayout | None = None,
                       tables: tuple[int, int] = (0, 0)) -> Page:
    """One formula page from `seed` (built-in formulas unless `pool` has its own)."""
    layout = layout or sample_layout(seed)
    planner = FormulaPlanner(pool or FormulaPool(), tables)
    try:
        return build_page(seed, layout, planner=planner, macros=formula_macros(layout))
    except LatexError as exc:  # a pool formula vetted in Latin Modern may still fail in this font:
        raise PageError(f"page {seed}: {exc}") from None  # the page is redrawn, with other formulas
