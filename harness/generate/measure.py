"""Measure tables standalone: verify they compile and record their natural size, once.

For tables that do not come from the built-in generator (JSONL pools, harvest): each is
checked by `safety.check_latex` *before* any compile, then all are typeset in one pdflatex
run in the page's font and size, each into a box whose width/height/depth go to the log
and which is shipped as a page of its own, sized to the box, so its printed text can be
checked against the ground truth (`rendered.py`, done by `pool.vet_tables`).
If that batch fails, it is halved until the broken tables are isolated. Sizes are
cached per (table, font, size) in-process, so a pool table is measured once per font setup.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

from harness.tex.runner import LatexError, run_pdflatex
from harness.generate.layouts import PageLayout
from harness.generate.rendered import pdf_page_texts
from harness.tex.safety import UnsafeLatexError, check_latex

_CACHE: dict[tuple[str, str, str, int], TableSize] = {}


@dataclass(frozen=True, slots=True)
class TableSize:
    """Natural size in TeX points (1/72.27 in); `error` says why a table was refused instead."""

    width: float = 0.0
    height: float = 0.0
    depth: float = 0.0
    error: str | None = None
    text: str = ""  # what the PDF shows of the table (pdftotext of its own page)

    @property
    def ok(self) -> bool:
        return self.error is None


def _key(latex: str, layout: PageLayout) -> tuple[str, str, str, int]:
    digest = hashlib.sha256(latex.encode()).hexdigest()
    return digest, layout.font, layout.docclass, layout.fontsize


# Ship the box \tbm as a page of its own size (at most 5000pt a side: wider is refused anyway).
_SHIP = r"""\newsavebox\tbm
\newdimen\tbw \newdimen\tbh
\newcommand\tbship{\begingroup\hoffset=-1in\voffset=-1in
\tbw=\wd\tbm \ifdim\tbw>5000pt \tbw=5000pt\fi
\tbh=\ht\tbm \advance\tbh\dp\tbm \ifdim\tbh>5000pt \tbh=5000pt\fi
\pdfpagewidth=\dimexpr\tbw+20pt\relax \pdfpageheight=\dimexpr\tbh+20pt\relax
\shipout\vbox{\kern10pt\hbox{\kern10pt\usebox\tbm}}\endgroup}
"""


def _document(tables: list[str], layout: PageLayout) -> str:
    body = "".join(
        f"\\sbox\\tbm{{{latex}}}\\typeout{{TB:S:{i}:\\the\\wd\\tbm:\\the\\ht\\tbm:\\the\\dp\\tbm}}\\tbship\n"
        for i, latex in enumerate(tables)
    )
    base = PageLayout(docclass=layout.docclass, font=layout.font, fontsize=layout.fontsize, language="en")
    return base.preamble() + _SHIP + "\\begin{document}\n" + body + "\\mbox{}\n\\end{document}\n"


def _run(tables: list[str], layout: PageLayout) -> list[TableSize]:
    res = run_pdflatex(_document(tables, layout))
    sizes: dict[int, TableSize] = {}
    for line in res.log.messages:
        parts = line.split(":")
        if parts[1] == "S":
            w, h, d = (float(p.removesuffix("pt")) for p in parts[3:6])
            sizes[int(parts[2])] = TableSize(w, h, d)
    if len(sizes) != len(tables):
        raise LatexError(f"pdflatex measured {len(sizes)} of {len(tables)} tables")
    pages = pdf_page_texts(res.pdf or b"")
    if len(pages) != len(tables) + 1:  # one page per table, then the document's own page
        raise LatexError(f"pdflatex printed {len(pages)} pages for {len(tables)} tables")
    return [replace(sizes[i], text=pages[i]) for i in range(len(tables))]


def _bisect(tables: list[str], layout: PageLayout) -> list[TableSize]:
    """Measure in one run; a bad table spoils its batch, so halve until it is isolated
    (about 2 log2(n) extra runs per broken table instead of n)."""
    try:
        return _run(tables, layout)
    except LatexError as exc:
        if len(tables) == 1:
            return [TableSize(error=str(exc))]
    mid = len(tables) // 2
    return _bisect(tables[:mid], layout) + _bisect(tables[mid:], layout)


def measure_tables(tables: list[str], layout: PageLayout | None = None) -> list[TableSize]:
    """Sizes (or refusal reasons) of `tables` in `layout`'s font; cached; unsafe ones never compile."""
    layout = layout or PageLayout()
    out: list[TableSize | None] = []
    todo: list[int] = []
    for i, latex in enumerate(tables):
        cached = _CACHE.get(_key(latex, layout))
        if cached is not None:
            out.append(cached)
            continue
        try:
            check_latex(latex)
        except UnsafeLatexError as exc:
            out.append(TableSize(error=str(exc)))
            continue
        out.append(None)
        todo.append(i)
    if todo:
        sizes = _bisect([tables[i] for i in todo], layout)
        for i, size in zip(todo, sizes, strict=True):
            out[i] = size
            if size.ok:
                _CACHE[_key(tables[i], layout)] = size
    return [s for s in out if s is not None]
