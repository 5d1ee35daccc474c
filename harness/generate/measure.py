"""Measure tables standalone: verify they compile and record their natural size, once.

For tables that do not come from the built-in generator (JSONL pools, harvest): each is
checked by `safety.check_latex` *before* any compile, then all are typeset in one pdflatex
run in the page's font and size, each into a box whose width/height/depth go to the log
and which is shipped as a page of its own, sized to the box, so its printed text can be
checked against the ground truth (`rendered.py`, done by `pool.vet_tables`).
If that batch fails, it is halved until the broken tables are isolated (`bisect_batch`, and
`logged_sizes` reading the sizes, serve the formula vetting of `formula_pool` too). A `deadline`
bounds all the runs of one measuring together: each run gets what is left of it (at most the
60 s pdflatex timeout), and tables not compiled by then are refused with that reason. Sizes are
cached per (table, font, size) in-process, so a pool table is measured once per font setup.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from tablebench.generate.layouts import PageLayout
from tablebench.generate.rendered import pdf_page_texts
from tablebench.tex.runner import LatexError, LatexResult, run_pdflatex
from tablebench.tex.safety import UnsafeLatexError, check_latex

Item = TypeVar("Item")
Out = TypeVar("Out")

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


def logged_sizes(result: LatexResult, count: int, what: str) -> list[tuple[float, float, float]]:
    """(width, height, depth) in pt of boxes 0..count-1, as a run logged them (`TB:S:i:w:h:d`);
    a `LatexError` when the run measured fewer (formula vetting reads its runs the same way)."""
    sizes: dict[int, tuple[float, float, float]] = {}
    for line in result.log.messages:
        parts = line.split(":")
        if parts[1] == "S":
            w, h, d = (float(p.removesuffix("pt")) for p in parts[3:6])
            sizes[int(parts[2])] = (w, h, d)
    if len(sizes) != count:
        raise LatexError(f"pdflatex measured {len(sizes)} of {count} {what}")
    return [sizes[i] for i in range(count)]


def bisect_batch(items: list[Item], run: Callable[[list[Item]], list[Out]], failed: Callable[[str], Out],
                 deadline: float | None = None) -> list[Out]:
    """`run` over all `items` in one go; a bad item spoils its batch, so halve until it is
    isolated and gets `failed(error)` (about 2 log2(n) extra runs per broken item instead of n).
    Past `deadline` (time.monotonic) nothing more runs: every item left gets `failed`."""
    if deadline is not None and time.monotonic() >= deadline:
        return [failed("not compiled: the time budget of this vetting was spent") for _ in items]
    try:
        return run(items)
    except LatexError as exc:
        if len(items) == 1:
            return [failed(str(exc))]
    mid = len(items) // 2
    return bisect_batch(items[:mid], run, failed, deadline) + bisect_batch(items[mid:], run, failed, deadline)


COMPILE_TIMEOUT = 60.0  # one measuring run at most


def run_timeout(deadline: float | None) -> float:
    """Seconds one run may take: COMPILE_TIMEOUT, or less when `deadline` (time.monotonic) is near."""
    if deadline is None:
        return COMPILE_TIMEOUT
    return max(1.0, min(COMPILE_TIMEOUT, deadline - time.monotonic()))


def _run(tables: list[str], layout: PageLayout, deadline: float | None = None) -> list[TableSize]:
    res = run_pdflatex(_document(tables, layout), timeout=run_timeout(deadline))
    sizes = logged_sizes(res, len(tables), "tables")
    pages = pdf_page_texts(res.pdf or b"")
    if len(pages) != len(tables) + 1:  # one page per table, then the document's own page
        raise LatexError(f"pdflatex printed {len(pages)} pages for {len(tables)} tables")
    return [TableSize(*size, text=text) for size, text in zip(sizes, pages)]


def _failed(error: str) -> TableSize:
    return TableSize(error=error)


def measure_tables(tables: list[str], layout: PageLayout | None = None,
                   deadline: float | None = None) -> list[TableSize]:
    """Sizes (or refusal reasons) of `tables` in `layout`'s font; cached; unsafe ones never compile;
    past `deadline` (time.monotonic) none is compiled."""
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
        sizes = bisect_batch([tables[i] for i in todo], lambda batch: _run(batch, layout, deadline), _failed,
                             deadline)
        for i, size in zip(todo, sizes, strict=True):
            out[i] = size
            if size.ok:
                _CACHE[_key(tables[i], layout)] = size
    return [s for s in out if s is not None]
