"""Harvest real tables from LaTeX sources into a pool file (`tablebench harvest SRC --out pool.jsonl`).

Sources, the per-file macro expansion (bounded: 200,000 characters and 20,000 substitutions
per table), repeats and the pool file are `harvest_core`'s. What is the tables' own: every
top-level `tabular`/`tabular*` is taken (found by the LaTeX reader's environment finder);
non-content commands are stripped: `\\label`, `\\caption`, `\\footnote`, `\\tnote`
(threeparttable), and references and citations with the tie before them. Citations are
dropped rather than kept: without a .bib, pdflatex prints `[?]` and our reader renders
`\\cite` as `[?]` too, so keeping them would be consistent, but it would put an artefact into
every cell that cites.
Then `pool.vet_tables` refuses anything dangerous before compiling (with the reason),
compiles the rest standalone, records width and height, refuses a table whose PDF text lacks
words of its ground truth, and classifies complexity by spans.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from tablebench.generate.harvest_core import (
    Found,
    HarvestReport,
    expand_bounded,
    harvest_sources,
    macro_refusal,
    read_document,
    run_harvest_into_pool,
)
from tablebench.generate.pool import PoolTable, vet_tables
from tablebench.readers.latex import environment_spans
from tablebench.tex.macros import brace_group

MAX_TABLE_CHARS = 200_000  # one table after macro expansion

_TAKEN = ("tabular", "tabular*")
_DROP_WITH_ARG = ("label", "caption", "footnote", "footnotetext", "tablefootnote", "captionof", "tnote",
                  "vspace", "vspace*")
_REFS = re.compile(
    r"(?:~|\s)?\\(?:cite[a-z]*\*?|[Cc]ref|[Aa]utoref|eqref|ref|pageref|nameref|nocite)"
    r"(?:\[[^\]]*\])*\{[^{}]*\}"
)
_FOOTMARK = re.compile(r"\\footnotemark(?:\[[^\]]*\])?")


def top_level_tabulars(text: str) -> list[str]:
    """Every outermost, closed `tabular`/`tabular*` of `text` (a tabular nested in a tabularx
    or longtable belongs to that one and is not taken); found by the LaTeX reader's finder."""
    return [text[e.start : e.end] for e in environment_spans(text) if e.closed and e.name in _TAKEN]


def strip_non_content(latex: str) -> str:
    """Drop labels, captions, footnotes, references and citations (see the module docstring)."""
    latex = _REFS.sub("", latex)
    latex = _FOOTMARK.sub("", latex)
    for name in _DROP_WITH_ARG:
        pat = re.compile(r"\\" + re.escape(name) + r"(?![A-Za-z@])(?:\[[^\]]*\])?")
        while True:
            m = pat.search(latex)
            if not m:
                break
            g = brace_group(latex, m.end())
            end = g[1] if g else m.end()
            latex = latex[: m.start()] + latex[end:]
    return latex


def extract_tables(text: str) -> list[tuple[str, str | None]]:
    """(cleaned table, refusal) per top-level tabular of one .tex file, with its own simple
    macros expanded; the refusal is a one-line reason when the expansion exceeds its bounds."""
    macros, body = read_document(text)
    out: list[tuple[str, str | None]] = []
    for table in top_level_tabulars(body):
        latex, refusal = expand_bounded(table, macros, MAX_TABLE_CHARS)
        out.append((strip_non_content(latex).strip(), None) if refusal is None else (latex, refusal))
    return out


def _found(text: str) -> list[Found]:
    return [Found(latex, None, latex, macro_refusal(refusal)) for latex, refusal in extract_tables(text)]


def harvest(src: Path | str) -> HarvestReport[PoolTable]:
    """Tables of every .tex under `src`: vetted, compiled standalone, measured, classified."""
    return harvest_sources(src, _found, vet_tables, "table")


def pool_row(table: PoolTable) -> dict:
    """A table's line of the pool file: latex, complexity, source, width and height (pt,
    reference layout)."""
    return {"latex": table.latex, "complexity": table.complexity, "source": table.source,
            "width": table.width, "height": table.height}


def run_harvest(args: argparse.Namespace) -> int:
    """`tablebench harvest SRC --out pool.jsonl`: harvest, write, print counts by reason."""
    return run_harvest_into_pool(args, harvest, pool_row, "harvest", "tables")
