"""Harvest formulas from LaTeX sources into a formula pool (`tablebench harvest SRC --formulas --out F.jsonl`).

Sources, the per-file macro expansion (bounded: 20,000 characters per formula), repeats and
the pool file are `harvest_core`'s, as for tables. What is the formulas' own: one
left-to-right scan of the document body takes every inline formula (`$..$`, `\\(..\\)`) and
display formula (`$$..$$`, `\\[..\\]`, and the `equation`, `align`, `gather`, `multline`
environments, starred or not; `eqnarray` is left out, its `&=&` columns do not survive as an
`aligned` body). Math nested in a formula (`\\text{..$x$..}`) belongs to that formula.
Labels, tags and `\\nonumber` are dropped; formulas shorter than 3 characters (`$n$`, `$i$`),
which would crowd out everything else, and duplicates are refused with the reason. Then
`formula_pool.vet_formulas` refuses unsafe LaTeX before compiling and compiles the rest in
batches.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from tablebench.generate.formula_item import KINDS, Formula, split_delimiters
from tablebench.generate.formula_pool import vet_formulas
from tablebench.generate.harvest_core import (
    Found,
    HarvestReport,
    expand_bounded,
    harvest_sources,
    macro_refusal,
    read_document,
    run_harvest_into_pool,
)
from tablebench.tex.regions import HARVESTED_DISPLAY_ENVS, env_pattern

MAX_FORMULA_CHARS = 20_000  # after macro expansion
MIN_CHARS = 3
DISPLAY_ENVS = frozenset(name.rstrip("*") for name in HARVESTED_DISPLAY_ENVS)  # each may be starred
_BEGIN = re.compile(r"\\begin\{(" + env_pattern(DISPLAY_ENVS | {"displaymath"}) + r")(\*?)\}")


def _closing_dollar(text: str, i: int) -> int:
    """Index of the unescaped `$` closing an inline formula that opened before `i`, or -1."""
    while True:
        j = text.find("$", i)
        if j < 0:
            return -1
        k = j - 1
        backslashes = 0
        while k >= 0 and text[k] == "\\":
            backslashes += 1
            k -= 1
        if backslashes % 2 == 0:
            return j
        i = j + 1


def find_formulas(body: str) -> list[tuple[str, str]]:
    """(formula with its delimiters, kind) of every top-level formula of `body`, in order."""
    out: list[tuple[str, str]] = []
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c == "\\":
            m = _BEGIN.match(body, i)
            if m:
                env = m.group(1) + m.group(2)
                end = body.find(f"\\end{{{env}}}", m.end())
                if end < 0:
                    break
                stop = end + len(f"\\end{{{env}}}")
                inner = body[m.end() : end]
                out.append((f"\\[{inner}\\]" if m.group(1) == "displaymath" else body[i:stop], "display"))
                i = stop
                continue
            pair = {"[": ("\\]", "display"), "(": ("\\)", "inline")}.get(body[i + 1 : i + 2])
            if pair:
                end = body.find(pair[0], i + 2)
                if end < 0:
                    break
                out.append((body[i : end + 2], pair[1]))
                i = end + 2
                continue
            i += 2  # an escaped character or a command: never a delimiter
            continue
        if c == "$":
            if body.startswith("$$", i):
                end = body.find("$$", i + 2)
                if end < 0:
                    break
                out.append((body[i : end + 2], "display"))
                i = end + 2
                continue
            end = _closing_dollar(body, i + 1)
            if end < 0:
                break
            out.append((body[i : end + 1], "inline"))
            i = end + 1
            continue
        i += 1
    return out


def extract_formulas(text: str) -> list[tuple[str, str, str | None]]:
    """(formula, kind, refusal or None) per formula of one .tex file, own macros expanded."""
    macros, body = read_document(text)
    out: list[tuple[str, str, str | None]] = []
    for latex, kind in find_formulas(body):
        expanded, refusal = expand_bounded(latex, macros, MAX_FORMULA_CHARS)
        out.append((expanded, kind, refusal))
    return out


def _found(text: str) -> list[Found]:
    """Formulas of one file; a formula of fewer than `MIN_CHARS` characters is refused as
    trivial, and a repeat is the same body of the same kind."""
    out = []
    for latex, kind, refusal in extract_formulas(text):
        if refusal:
            out.append(Found(latex, kind, None, macro_refusal(refusal)))
            continue
        body, _ = split_delimiters(latex)
        trivial = len(re.sub(r"\s", "", body)) < MIN_CHARS
        out.append(Found(latex, kind, (body, kind),
                         ("trivial", f"shorter than {MIN_CHARS} characters") if trivial else None))
    return out


def harvest_formulas(src: Path | str) -> HarvestReport[Formula]:
    """Formulas of every .tex under `src`: found, deduplicated, vetted and compiled."""
    return harvest_sources(src, _found, vet_formulas, "formula", KINDS)


def pool_row(formula: Formula) -> dict:
    """A formula's line of the pool file: the math body, its kind and where it came from."""
    return {"latex": formula.body, "kind": formula.kind, "source": formula.source}


def run_formula_harvest(args: argparse.Namespace) -> int:
    """`tablebench harvest SRC --formulas --out pool.jsonl`: harvest, write, print counts by reason."""
    return run_harvest_into_pool(args, harvest_formulas, pool_row, "harvest --formulas", "formulas")
