"""Documents longer than a page: N full pages whose text and tables continue across page breaks.

Built by the page builder (`page.build_page` with `pages=N`): the same plan-compile-cut, cut
after the last unit that fit on page N. What differs is the plan: a one-column layout (the
`longtable` package refuses two columns), and at least one long table (`longtables.py`) placed
so that it cannot fit on the page it starts on, so TeX breaks it and repeats its header at the
top of the next page. A document whose long tables all end on the page they start on is redrawn
(`DocumentError`), so every document of a set has a table broken across pages.

Why one run is enough: `longtable` normally needs a second run to settle its column widths
between chunks of rows; `LTchunksize` larger than any table here makes every table one chunk,
whose widths are known in the first run.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from tablebench.generate.layouts import PageLayout, sample_layout
from tablebench.generate.longtables import generate_long_table
from tablebench.generate.page import Block, Page, PageError, build_page, capacity_lines, table_lines
from tablebench.generate.seeds import derive_seed
from tablebench.generate.tables import COMPLEXITIES, generate_table
from tablebench.generate.text import TextSource

MAX_ROWS = 200  # rows in one long table at most (one longtable chunk: `LTchunksize` below)
DOC_MACROS = r"""
\usepackage{longtable}
\setcounter{LTchunksize}{@CHUNK@}
\newcommand\tbhead[1]{\pdfsavepos\write-1{TB:H:#1:\thepage:\the\pdflastxpos:\the\pdflastypos}}
\newcommand\tbrow[1]{\pdfsavepos\write-1{TB:R:#1:\thepage:\the\pdflastxpos:\the\pdflastypos}}
""".replace("@CHUNK@", str(MAX_ROWS))
MAX_RUNS = 8  # pdflatex runs for one document before it is redrawn


class DocumentError(PageError):
    """A document could not be made with a table broken across its pages."""


def document_layout(seed: int) -> PageLayout:
    """The layout of document `seed`: a sampled page layout in one column."""
    return replace(sample_layout(seed), columns=1)


def plan_document(seed: int, layout: PageLayout, text: TextSource, pages: int) -> list[Block]:
    """An over-long block sequence for `pages` pages: a long table every two pages or so, each
    after a few lines of text and longer than what is left of its page (0.8-1.3 pages of rows),
    an ordinary boxed table now and then, and text to spare for the cut."""
    rng = np.random.default_rng([seed, 0xD0C5])
    lines, cpl = capacity_lines(layout)
    rows = lines * {"single": 1.0, "onehalf": 1.5, "double": 1.9}[layout.spacing]  # table rows are not stretched
    blocks: list[Block] = []
    used = 0.0

    def para(lo: int, hi: int) -> None:
        nonlocal used
        sentences = text.paragraph(lo, hi)
        blocks.append(Block("text", sentences))
        used += sum(len(s) for s in sentences) / cpl + 1

    long_tables = max(1, (pages + 1) // 2)
    for j in range(long_tables):
        if j or rng.random() < 0.6:
            blocks.append(Block("heading", [text.heading()]))
            used += 3
        para(2, 4)
        if rng.random() < 0.5:  # an ordinary table that stays on one page
            complexity = COMPLEXITIES[int(rng.integers(3))]
            table = generate_table(derive_seed(seed, "table", j), complexity, max_cols=7)
            blocks.append(Block("table", table=table))
            used += table_lines(table)
            para(1, 3)
        n_rows = min(MAX_ROWS, max(12, int(rng.uniform(0.8, 1.3) * rows / 1.1)))
        complexity = "simple" if rng.random() < 0.6 else "moderate"
        blocks.append(Block("longtable", table=generate_long_table(derive_seed(seed, "long", j), n_rows, complexity)))
        used += n_rows * 1.1 * lines / rows + 4
        for _ in range(int(rng.integers(1, 4))):
            para(3, 7)
    while used < lines * (pages + 1) + 20:  # surplus text: the cut lands in it
        para(4, 9)
    return blocks


def build_document(seed: int, pages: int, layout: PageLayout | None = None) -> Page:
    """Document `seed` of exactly `pages` full pages; `DocumentError` when it has no table
    broken across pages (or it cannot be made clean: `PageError`)."""
    if pages < 2:
        raise ValueError(f"a document has at least 2 pages, got {pages}")
    layout = layout or document_layout(seed)

    def planner(s: int, lay: PageLayout, text: TextSource) -> list[Block]:
        return plan_document(s, lay, text, pages)

    doc = build_page(seed, layout=layout, max_runs=MAX_RUNS, planner=planner, macros=DOC_MACROS, pages=pages)
    if not any(b.get("breaks") for b in doc.tables):
        raise DocumentError(f"document {seed}: no table breaks across a page")
    return doc
