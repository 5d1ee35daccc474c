"""One synthetic page: plan the blocks, compile, cut to exactly one full page, verify.

Instead of recompiling after every block (the published approach, ~20 pdflatex runs per
page) the planner compiles the whole over-long block sequence once with invisible markers:
a `\\write` after every sentence and a `\\pdfsavepos` at every table, all resolved at
shipout, so the log says on which page each sentence ended and where each table sits. The
same run measures every table (natural width, scaled size) and TeX itself drops tables that
are far too wide or tall, identically in every run. The page is then cut after the last unit
that fit on page 1; when a table was the first thing that did not fit, one more run fills the
gap with text. A final run verifies: one page, no overfull box. Typically 2 runs, at most
~3 on average. A document of N pages (`pages=N`, planned by `tablebench.generate.document`) is
cut the same way after the last unit that fit on page N; its long tables mark every row, so
the log also says where each one breaks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from tablebench.generate.layouts import PAPERS, PageLayout, sample_layout
from tablebench.generate.longtables import LongTable
from tablebench.generate.pool import TablePool
from tablebench.generate.seeds import derive_seed
from tablebench.generate.tables import COMPLEXITIES, GeneratedTable, generate_table
from tablebench.generate.tables_i18n import generate_i18n_table
from tablebench.generate.text import TextSource, escape_latex
from tablebench.generate.vocab_i18n import VOCAB
from tablebench.readers.latex import read_latex
from tablebench.tex.runner import LatexError, LatexResult, is_missing_glyph, missing_glyphs, run_pdflatex
from tablebench.tex.safety import check_latex

MAX_SCALE_DOWN = 1.5  # wider than 1.5 x \columnwidth: dropped instead of shrunk to unreadable
MAX_HEIGHT = 0.7  # of \textheight

MACROS = r"""
\newsavebox\tbnat
\newsavebox\tbfin
\newlength\tbskip
\setlength\tbskip{0.8\baselineskip plus 2pt minus 1pt}
\newcommand\tbmark[1]{\write-1{TB:M:#1:\thepage}}
\newcommand\tbtable[2]{%
  \par
  \sbox\tbnat{\setstretch{1}#2}%
  \ifdim\wd\tbnat>@MAXW@\columnwidth
    \typeout{TB:SKIP:#1:width}%
  \else
    \sbox\tbfin{\adjustbox{max width=\columnwidth}{\usebox\tbnat}}%
    \ifdim\dimexpr\ht\tbfin+\dp\tbfin\relax>@MAXH@\textheight
      \typeout{TB:SKIP:#1:height}%
    \else
      \typeout{TB:T:#1:\the\wd\tbnat:\the\wd\tbfin:\the\ht\tbfin:\the\dp\tbfin}%
      \addvspace{\tbskip}%
      {\noindent\parfillskip=0pt\hfil\pdfsavepos
       \write-1{TB:P:#1:\thepage:\the\pdflastxpos:\the\pdflastypos}\usebox\tbfin\hfil\par}%
      \addvspace{\tbskip}%
    \fi
  \fi}
""".replace("@MAXW@", str(MAX_SCALE_DOWN)).replace("@MAXH@", str(MAX_HEIGHT))
# --languages pages: a second `\pdfsavepos` after the table, because right-to-left lines are
# reversed (TeX--XeT) and the mark's `\write` then reads that one, the table's left edge,
# instead of the previous table's; the `\hbox{}` keeps the last `\hfil` from being dropped
# at `\par`, so tables are centred. `\tbltr` (`\beginL..\endL` in right-to-left documents)
# keeps xdvipdfmx's scaling specials in order: reversed, they lose all that follows.
MACROS_I18N = "\\providecommand\\tbltr[1]{#1}" + MACROS.replace(
    r"\usebox\tbfin\hfil\par}", r"\usebox\tbfin\pdfsavepos\hfil\hbox{}\par}"
).replace(r"\sbox\tbfin{\adjustbox{max width=\columnwidth}{\usebox\tbnat}}",
          r"\sbox\tbfin{\tbltr{\adjustbox{max width=\columnwidth}{\usebox\tbnat}}}")
assert MACROS_I18N.count("tbltr") == 2 and r"\pdfsavepos\hfil\hbox{}\par" in MACROS_I18N


Planner = Callable[[int, PageLayout, TextSource], list["Block"]]  # (seed, layout, text) -> blocks


class PageError(ValueError):
    """A page could not be brought to exactly one clean page."""


@dataclass
class Block:
    """A planned block: text (sentences), heading, or table."""

    kind: str  # "text" | "heading" | "table" | "longtable" (a table that may break across pages)
    sentences: list[str] = field(default_factory=list)
    table: GeneratedTable | LongTable | None = None

    def latex(self, bid: str) -> str:
        if self.kind == "longtable":
            assert isinstance(self.table, LongTable)
            check_latex(self.table.latex)
            return f"\n{self.table.render(bid)}\n\n"
        if self.kind == "table":
            assert self.table is not None
            check_latex(self.table.latex)  # pool tables are untrusted; ours must pass too
            return f"\\tbtable{{{bid}}}{{%\n{self.table.latex}}}\n"
        if self.kind == "heading":
            return f"\\section*{{{escape_latex(self.sentences[0])}\\tbmark{{{bid}s0}}}}\n"
        marked = " ".join(f"{escape_latex(s)}\\tbmark{{{bid}s{j}}}" if isinstance(s, str) else s.latex(f"{bid}s{j}")
                          for j, s in enumerate(self.sentences))  # non-str: an item of formula_page.py
        return f"\n{marked}\n\n"


@dataclass
class Page:
    """A finished page: its PDF, the ground-truth blocks, the layout and how it was made."""

    seed: int
    layout: PageLayout
    blocks: list[dict]
    pdf: bytes
    runs: int
    source: str

    @property
    def tables(self) -> list[dict]:
        return [b for b in self.blocks if b["type"] == "table"]


# -- planning ------------------------------------------------------------------------------


def capacity_lines(layout: PageLayout) -> tuple[float, float]:
    """Rough lines per page (all columns) and characters per line, for sizing a plan."""
    stretch = {"single": 1.0, "onehalf": 1.5, "double": 1.9}[layout.spacing]
    height_pt = (PAPERS[layout.paper][1] - layout.margins_mm[0] - layout.margins_mm[2]) * 72.27 / 25.4
    lines = height_pt / (1.2 * layout.fontsize * stretch) * layout.columns
    return lines, layout.columnwidth_pt / (0.47 * layout.fontsize)


def table_columns(layout: PageLayout) -> int:
    """The most columns a built-in table gets in `layout` (a two-column page has narrow ones)."""
    return 5 if layout.columns == 2 else 9


def table_lines(table: GeneratedTable) -> float:
    """Rough lines a table takes on the page, rules and spacing included, for sizing a plan."""
    return table.latex.count("\\\\") * 1.15 + 2


def plan_blocks(seed: int, layout: PageLayout, text: TextSource, pool: TablePool | None = None) -> list[Block]:
    """An over-long block sequence: tables early among short paragraphs, then text to spare.

    With a `pool`, each table slot takes a pool table of its class that fits the column
    (never the same one twice on a page) and falls back to a built-in table."""
    rng = np.random.default_rng([seed, 0x9A6E])
    lines, cpl = capacity_lines(layout)
    max_cols = table_columns(layout)
    n_tables = int(rng.integers(5, 9)) if lines > 80 else int(rng.integers(3, 6))
    offset = int(rng.integers(3))  # rotate the classes so every page mixes all three
    order = [COMPLEXITIES[(offset + j) % 3] for j in range(n_tables)]
    blocks: list[Block] = []
    used = 0.0
    used_pool: set[str] = set()
    if rng.random() < 0.5:
        blocks.append(Block("heading", [text.heading()]))
        used += 3
    for j, complexity in enumerate(order):
        para = text.paragraph(1, 3)
        blocks.append(Block("text", para))
        used += sum(len(s) for s in para) / cpl + 1
        table = None
        if layout.engine and layout.language in VOCAB:  # --languages: a table in the page's language
            table = generate_i18n_table(derive_seed(seed, "table", j), complexity, layout.language, max_cols=max_cols)
        elif pool is not None:
            table = pool.draw(derive_seed(seed, "pool", j), complexity, layout, used_pool)
            if table is not None:
                used_pool.add(table.latex)
        if table is None:
            table = generate_table(derive_seed(seed, "table", j), complexity, max_cols=max_cols)
        blocks.append(Block("table", table=table))
        used += table_lines(table)
        if rng.random() < 0.15:
            blocks.append(Block("heading", [text.heading()]))
            used += 3
    while used < lines * 2 + 20:  # surplus text: the cut lands in it
        para = text.paragraph(4, 9)
        blocks.append(Block("text", para))
        used += sum(len(s) for s in para) / cpl + 1
    return blocks


def document(layout: PageLayout, blocks: list[Block], macros: str = "") -> str:
    body = "".join(b.latex(f"b{i}") for i, b in enumerate(blocks))
    return layout.preamble() + (MACROS_I18N if layout.engine else MACROS) + macros + "\\begin{document}\n" + body + "\\end{document}\n"


# -- reading the markers --------------------------------------------------------------------


@dataclass
class Marks:
    """What one run's log says about the markers."""

    page_of: dict[str, int]  # unit id (b3s2, b4) -> page it was shipped on (a long table: its last row's)
    tables: dict[str, dict]  # table block id -> measured size and position
    skipped: dict[str, str]  # table block id -> why TeX dropped it
    rows: dict[str, list[tuple[int, int, int]]] = field(default_factory=dict)  # long table -> (page, x, y) per body row
    heads: dict[str, tuple[int, int, int]] = field(default_factory=dict)  # long table -> (page, x, y) of its first head


def read_marks(result: LatexResult) -> Marks:
    page_of: dict[str, int] = {}
    tables: dict[str, dict] = {}
    skipped: dict[str, str] = {}
    rows: dict[str, list[tuple[int, int, int]]] = {}
    heads: dict[str, tuple[int, int, int]] = {}
    for line in result.log.messages:
        parts = line.split(":")
        if parts[1] in ("R", "H"):  # a long table's body row (b3r12) or first head (b3)
            bid = parts[2].split("r")[0]
            where = (int(parts[3]), int(parts[4]), int(parts[5]))
            if parts[1] == "H":
                heads[bid] = where
            else:
                rows.setdefault(bid, []).append(where)
                page_of[bid] = max(page_of.get(bid, 0), where[0])
        elif parts[1] == "M":
            page_of[parts[2]] = int(parts[3])
        elif parts[1] == "P":
            page_of[parts[2]] = int(parts[3])
            tables.setdefault(parts[2], {}).update(x_sp=int(parts[4]), y_sp=int(parts[5]))
        elif parts[1] == "T":
            nat, w, h, d = (float(p.removesuffix("pt")) for p in parts[3:7])
            tables.setdefault(parts[2], {}).update(natural_width=nat, width=w, height=h, depth=d)
        elif parts[1] == "SKIP":
            skipped[parts[2]] = parts[3]
    return Marks(page_of, tables, skipped, rows, heads)


def _units(blocks: list[Block]) -> list[tuple[int, int, str]]:
    """(block index, sentence index, unit id) in reading order; tables are one unit."""
    out = []
    for i, b in enumerate(blocks):
        if b.kind in ("table", "longtable"):
            out.append((i, -1, f"b{i}"))
        else:
            out.extend((i, j, f"b{i}s{j}") for j in range(len(b.sentences)))
    return out


def cut_to_page(blocks: list[Block], marks: Marks, last_page: int = 1) -> tuple[list[Block], bool]:
    """The prefix of `blocks` that fit on pages 1..`last_page` (tables TeX skipped left out), and
    whether the first unit that did not fit was text (then the last page is already full)."""
    kept: list[Block] = []
    in_text = False
    for i, j, uid in _units(blocks):
        if blocks[i].kind == "table" and uid in marks.skipped:
            continue
        page = marks.page_of.get(uid)
        if page is None:
            raise PageError(f"marker {uid} missing from the log")
        if page > last_page:
            in_text = blocks[i].kind == "text"
            break
        if j <= 0:
            b = blocks[i]
            kept.append(Block(b.kind, [] if b.kind == "text" else list(b.sentences), b.table))
        if blocks[i].kind == "text":
            kept[-1].sentences.append(blocks[i].sentences[j])
    else:
        raise PageError(f"the planned content did not fill {last_page} page(s)")
    while kept and kept[-1].kind == "heading":  # never end on a dangling heading
        kept.pop()
    return kept, in_text


# -- building ------------------------------------------------------------------------------


def _compile(layout: PageLayout, blocks: list[Block], macros: str = "") -> tuple[LatexResult, Marks, str]:
    src = document(layout, blocks, macros)
    try:
        res = run_pdflatex(src, engine=layout.engine or "pdflatex")
    except LatexError as exc:  # a glyph the font lacks: refuse the page (it is redrawn), never print boxes
        if is_missing_glyph(str(exc)):
            raise PageError(f"missing glyph: {exc}") from None
        raise
    lost = missing_glyphs(res.log_text)
    if lost:
        raise PageError(f"missing glyph: {lost[0]}")
    return res, read_marks(res), src


def build_page(seed: int, layout: PageLayout | None = None, max_runs: int = 6,
               pool: TablePool | None = None, planner: Planner | None = None, macros: str = "",
               pages: int = 1) -> Page:
    """Plan, compile and cut one page; raise `PageError` if it cannot be made clean.

    `planner` replaces the table planner (formula pages: `formula_page.FormulaPlanner`) and
    `macros` are added to the preamble. `pages` > 1 makes a document of exactly that many full
    pages, cut the same way after the last unit that fit on its last page (`tablebench.generate.document`)."""
    layout = layout or sample_layout(seed)
    text = TextSource(seed, layout.language)
    blocks = planner(seed, layout, text) if planner else plan_blocks(seed, layout, text, pool)
    res, marks, src = _compile(layout, blocks, macros)
    runs = 1
    while res.pages < pages + 1:  # the estimate fell short (tall spacing, small tables): more text
        if runs >= max_runs:
            raise PageError(f"page {seed}: planned content never filled the page")
        blocks += [Block("text", text.paragraph(6, 10)) for _ in range(6)]
        res, marks, src = _compile(layout, blocks, macros)
        runs += 1
    kept, in_text = cut_to_page(blocks, marks, pages)
    if not in_text:  # a table (or heading) did not fit: fill the gap with text, then cut again
        kept += [Block("text", text.paragraph(6, 10)) for _ in range(3)]
        res, marks, src = _compile(layout, kept, macros)
        runs += 1
        # a document may have dropped a long table, more than this fills: more text until it
        # overflows (one-page sets are made exactly as before, so they stay byte-identical)
        while pages > 1 and res.pages <= pages and runs < max_runs:
            kept += [Block("text", text.paragraph(6, 10)) for _ in range(3)]
            res, marks, src = _compile(layout, kept, macros)
            runs += 1
        kept, _ = cut_to_page(kept, marks, pages)
    while True:
        res, marks, src = _compile(layout, kept, macros)
        runs += 1
        if res.pages == pages and not res.log.overfull:
            break
        if runs >= max_runs:
            raise PageError(f"page {seed}: {res.pages} pages, overfull {res.log.overfull} after {runs} runs")
        if res.log.overfull:
            raise PageError(f"page {seed}: overfull boxes {res.log.overfull}")
        _drop_last_sentence(kept)
    assert res.pdf is not None
    return Page(seed, layout, _ground_truth(kept, marks, layout, pages), res.pdf, runs, src)


def _drop_last_sentence(blocks: list[Block]) -> None:
    """Shorten the page by one sentence (or the last block), never leaving a heading last."""
    last = blocks[-1]
    if last.kind == "text" and len(last.sentences) > 1:
        last.sentences.pop()
    else:
        blocks.pop()
    while blocks and blocks[-1].kind == "heading":
        blocks.pop()
    if not blocks:
        raise PageError("nothing left on the page")


def _ground_truth(blocks: list[Block], marks: Marks, layout: PageLayout, pages: int = 1) -> list[dict]:
    """Ordered GT blocks (pdf-parse-bench shape plus html, source, kind, size and bbox); in a
    document of several pages each table also says on which page it starts (`page`), and a long
    table where it breaks (`long_table_block`)."""
    page_h_bp = PAPERS[layout.paper][1] * 72 / 25.4
    to_bp = 72 / 72.27 / 65536
    out: list[dict] = []
    for i, b in enumerate(blocks):
        if b.kind == "longtable":
            assert isinstance(b.table, LongTable)
            out.append(long_table_block(b.table, f"b{i}", marks, layout))
            continue
        if b.kind != "table":
            out += _text_blocks(b.sentences, f"b{i}", marks)
            continue
        assert b.table is not None
        m = marks.tables.get(f"b{i}", {})
        if "x_sp" not in m or "width" not in m:
            raise PageError(f"table b{i} has no position in the final run")
        x0 = m["x_sp"] * to_bp
        top = page_h_bp - (m["y_sp"] * to_bp + m["height"] * 72 / 72.27)
        block = {
            "type": "table",
            "data": b.table.latex,
            "html": table_html(b.table.latex),
            "complexity": b.table.complexity,
            "source": b.table.source,
            "kind": b.table.kind,
            "bbox": [round(x0, 2), round(top, 2), round(x0 + m["width"] * 72 / 72.27, 2),
                     round(top + (m["height"] + m["depth"]) * 72 / 72.27, 2)],
            "scale": round(m["width"] / m["natural_width"], 4) if m["natural_width"] else 1.0,
        }
        # one-page sets keep their ground truth byte-identical: no `page` there
        out.append({"type": "table", "page": marks.page_of[f"b{i}"], **block} if pages > 1 else block)
    return out


def long_table_block(table: LongTable, bid: str, marks: Marks, layout: PageLayout) -> dict:
    """The ground truth of a long table: written whole (its header once), the pages it spans and
    where it breaks, read from the row markers of the final run.

    `breaks` are the rows of `html` (0-based, header rows counted) that open a new PDF page: the
    first body row on each page after the first. `bbox` is the table's part on its first page
    (PDF points, origin top-left): from about a line above the first header row's baseline to
    half a line below the last row on that page; across, from the first head cell's marker less
    one \\tabcolsep, mirrored about the text's centre (a longtable is centred on the text width).
    That marker is often right of the table's left edge: in docs-v1 the bbox is narrower than
    the table in 31 of its 45 long tables, so `tablebench.cases.regions` crops a long table to
    the text block's width instead (the bytes of committed sets stay as they are)."""
    rows, head = marks.rows.get(bid, []), marks.heads.get(bid)
    if head is None or len(rows) != len(table.body):
        raise PageError(f"long table {bid}: {len(rows)} of {len(table.body)} row markers and "
                        f"{'a' if head else 'no'} head marker in the final run")
    html = table_html(table.latex)
    n_head = html.count("<tr>") - len(table.body)  # every body row is one row of the table
    pages = [page for page, _, _ in rows]
    breaks = [n_head + k for k in range(1, len(rows)) if pages[k] != pages[k - 1]]
    to_bp = 72 / 72.27 / 65536
    page_h_bp = PAPERS[layout.paper][1] * 72 / 25.4
    line = layout.fontsize * 72 / 72.27
    centre = (layout.margins_mm[3] * 72.27 / 25.4 + layout.textwidth_pt / 2) * 72 / 72.27
    x0 = head[1] * to_bp - 6 * 72 / 72.27  # the first cell's text starts one \tabcolsep (6pt) in
    on_first = [y for page, _, y in rows if page == head[0]]
    lowest = min(on_first) if on_first else head[2]  # TeX's y grows upwards
    return {
        "type": "table",
        "page": head[0],
        "data": table.latex,
        "html": html,
        "complexity": table.complexity,
        "source": table.source,
        "kind": table.kind,
        "pages": [head[0], max(pages)],
        "breaks": breaks,
        "bbox": [round(x0, 2), round(page_h_bp - head[2] * to_bp - 1.25 * line, 2),
                 round(2 * centre - x0, 2), round(page_h_bp - lowest * to_bp + 0.5 * line, 2)],
    }


def _text_blocks(sentences: list, bid: str, marks: Marks) -> list[dict]:
    """One text block per run of plain sentences; an item of formula_page.py (inline or
    display formula) gives its own blocks, so formula pages read as pdf-parse-bench's do."""
    out: list[dict] = []
    for j, s in enumerate(sentences):
        for block in [{"type": "text", "data": s}] if isinstance(s, str) else s.ground_truth(f"{bid}s{j}", marks):
            if block["type"] == "text" and out and out[-1]["type"] == "text":
                out[-1]["data"] += " " + block["data"]
            else:
                out.append(dict(block))
    return out


def table_html(latex: str) -> str:
    """Canonical HTML via the LaTeX reader."""
    return read_latex(latex)[0].to_html()
