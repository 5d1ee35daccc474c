"""A table pool for page generation: external tables (JSONL), vetted and measured once.

A pool file holds one JSON object per line: `{"latex": "\\begin{tabular}...", "complexity":
optional, "source": optional}` (what `tablebench harvest` writes, or a user's own extraction).
Every table is vetted before it can reach a page, in this order, each refusal with a reason:
unsafe LaTeX (`safety.py`, plus definitions of any kind — `\\def`, `\\chardef`, xparse's
`\\NewDocumentCommand`, ... — since a definition can recurse forever or change what prints,
and commands whose output our reader cannot know, such as `\\romannumeral`), no tabular,
unreadable by our LaTeX reader (the ground truth needs its canonical HTML), compile failure,
too wide even after moderate scaling, too tall, and "renders differently": a word of the
ground truth (the reader's cell texts) missing from the table's printed text (`rendered.py`).
Survivors are measured in one batched pdflatex run (`measure.py`) in a
reference layout, all runs of one vetting within VET_BUDGET seconds (tables not compiled by then
are refused with that reason); the size lets a page pick only tables that fit its column. The outcome is
cached on disk per pool content (`from_jsonl(cache_dir=...)`), so a pool is measured once.

How pages use a pool (`draw`): each table slot of the page planner keeps its complexity
class; it takes a pool table of that class that fits the column, drawn by the page's seed,
and falls back to a built-in table when the pool has none (so a pool of only simple tables
still gives balanced pages). Same seed + same pool file -> same pages.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tablebench.generate.layouts import PAPERS, PageLayout
from tablebench.generate.measure import measure_tables
from tablebench.generate.pool_file import Rejected, read_pool_lines, vetted_pool
from tablebench.generate.rendered import content_words, missing_words
from tablebench.generate.stats import classify_complexity, split_tabular
from tablebench.generate.tables import COMPLEXITIES, GeneratedTable
from tablebench.readers.latex import read_latex
from tablebench.tex.safety import unsafe_reasons

MAX_SCALE_DOWN = 1.5  # same limit as the page: wider than 1.5 x the column is unreadable
MAX_HEIGHT = 0.7  # of \textheight, as on the page
REFERENCE = PageLayout()  # 10 pt Latin Modern article: where pool sizes are measured
# the widest one-column text block the layout sampler draws (Letter, 20 mm side margins)
WIDEST_TEXT_PT = (PAPERS["letter"][0] - 2 * 20.0) * 72.27 / 25.4
TALLEST_TEXT_PT = (PAPERS["a4"][1] - 18.0 - 15.0) * 72.27 / 25.4
VET_VERSION = "4"  # bump when vetting rules change: cached outcomes are then redone
VET_BUDGET = 300.0  # seconds for all the compiles of one vetting (a bisected timeout costs 60 s a run)
CHUNK = 64  # tables per measuring run (a broken one is isolated by bisection in measure.py)

_TABULAR = re.compile(r"\\begin\{tabular\*?\}")


@dataclass(frozen=True, slots=True)
class PoolTable:
    """A vetted pool table: its LaTeX, class, origin and natural size in the reference layout."""

    latex: str
    complexity: str
    source: str
    width: float  # pt
    height: float  # pt, height + depth

    def as_generated(self) -> GeneratedTable:
        return GeneratedTable(self.latex, self.complexity, self.source, "pool")


def _read_gt(latex: str) -> str:
    """The cell texts our LaTeX reader gives `latex` (what the ground truth says), one per line;
    raises when the reader cannot give the table its canonical HTML."""
    tables = read_latex(latex)
    if not tables[0].rows:
        raise ValueError("our LaTeX reader finds no rows")
    tables[0].to_html()
    return "\n".join(cell.text for cell in tables[0].cells())


def _reader_error(latex: str) -> str | None:
    """None when our LaTeX reader gives exactly one table (needed for the canonical HTML)."""
    try:
        _read_gt(latex)
    except Exception as exc:  # noqa: BLE001 - any reader failure refuses the table
        return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:200]
    return None


def _rendering_error(latex: str, printed: str) -> str | None:
    """None when every ground-truth word of `latex` is in its printed text, else which are not."""
    expected = _read_gt(latex)
    missing = missing_words(expected, printed)
    if not missing:
        return None
    total = len(set(content_words(expected)))
    shown = ", ".join(repr(w[:20]) for w in missing[:5])
    return f"{len(missing)} of {total} ground-truth words not in the PDF: {shown}"


def vet_tables(
    candidates: list[tuple[str, str | None, str]],
) -> tuple[list[PoolTable], list[Rejected]]:
    """Vet (latex, complexity or None, source) triples; compile only those that pass the checks."""
    kept_idx: list[int] = []
    rejected: list[Rejected] = []
    for i, (latex, _c, source) in enumerate(candidates):
        unsafe = unsafe_reasons(latex)
        if unsafe:
            rejected.append(Rejected(source, f"unsafe {unsafe[0].split(':')[0]}", "; ".join(unsafe)))
            continue
        if not _TABULAR.search(latex):
            rejected.append(Rejected(source, "no tabular", "no \\begin{tabular} or tabular* found"))
            continue
        try:
            split_tabular(latex)
        except ValueError as exc:
            rejected.append(Rejected(source, "malformed", str(exc)))
            continue
        err = _reader_error(latex)
        if err:
            rejected.append(Rejected(source, "unreadable", err))
            continue
        kept_idx.append(i)
    sizes = []
    deadline = time.monotonic() + VET_BUDGET
    for start in range(0, len(kept_idx), CHUNK):
        chunk = kept_idx[start : start + CHUNK]
        sizes += measure_tables([candidates[i][0] for i in chunk], REFERENCE, deadline)
    kept: list[PoolTable] = []
    for i, size in zip(kept_idx, sizes, strict=True):
        latex, complexity, source = candidates[i]
        if not size.ok:
            rejected.append(Rejected(source, "compile failure", size.error or ""))
        elif size.width > MAX_SCALE_DOWN * WIDEST_TEXT_PT:
            rejected.append(Rejected(source, "too wide", f"{size.width:.0f}pt > {MAX_SCALE_DOWN} x {WIDEST_TEXT_PT:.0f}pt"))
        elif size.height + size.depth > MAX_HEIGHT * TALLEST_TEXT_PT:
            rejected.append(Rejected(source, "too tall", f"{size.height + size.depth:.0f}pt"))
        elif (differs := _rendering_error(latex, size.text)) is not None:
            rejected.append(Rejected(source, "renders differently", differs))
        else:
            kept.append(PoolTable(latex, complexity or classify_complexity(latex), source,
                                  round(size.width, 2), round(size.height + size.depth, 2)))
    return kept, rejected


def read_jsonl(path: Path | str) -> list[tuple[str, str | None, str]]:
    """(latex, complexity, source) per line of a pool file; a one-line error for a bad line."""
    return read_pool_lines(path, "complexity", COMPLEXITIES, what="pool file", items="tables")


class TablePool:
    """Vetted external tables, grouped by class; picklable, so worker processes get it whole."""

    def __init__(self, tables: list[PoolTable], rejected: list[Rejected], name: str = "", sha256: str = "") -> None:
        self.tables = tables
        self.rejected = rejected
        self.name = name
        self.sha256 = sha256
        self.by_class = {c: [t for t in tables if t.complexity == c] for c in COMPLEXITIES}

    @classmethod
    def from_jsonl(cls, path: Path | str, cache_dir: Path | str | None = None) -> TablePool:
        """Read, vet and measure a pool file; an error when no table survives.

        With `cache_dir`, the vetting outcome is stored under a key of the file's bytes, the
        reference preamble and `VET_VERSION`, so an unchanged pool is measured only once."""
        path = Path(path)
        salt = "\0".join([REFERENCE.preamble(), VET_VERSION])
        kept, rejected, sha = vetted_pool(path, cache_dir, salt, PoolTable, lambda: vet_tables(read_jsonl(path)),
                                          items="table")
        return cls(kept, rejected, path.name, sha)

    def info(self) -> dict:
        """What goes into the manifest: which pool, how many tables were used or refused."""
        return {"file": self.name, "sha256": self.sha256, "tables": len(self.tables),
                "rejected": len(self.rejected)}

    def draw(self, seed: int, complexity: str, layout: PageLayout, exclude: set[str]) -> GeneratedTable | None:
        """A table of `complexity` that fits `layout`'s column, not in `exclude`; None if none."""
        # sizes scale with the font size; 10% slack for wider fonts than Latin Modern
        limit = MAX_SCALE_DOWN * layout.columnwidth_pt / (layout.fontsize / REFERENCE.fontsize * 1.1)
        fits = [t for t in self.by_class[complexity] if t.width <= limit and t.latex not in exclude]
        if not fits:
            return None
        rng = np.random.default_rng([int(seed), 0x9001])
        return fits[int(rng.integers(len(fits)))].as_generated()
