"""What every harvest shares (tables: `harvest.py`, formulas: `formula_harvest.py`): reading the
sources, expanding a file's own macros within bounds, refusing repeats, writing the pool JSONL
and printing the counts. A kind brings only its extractor and its vetting.

SRC is a `.tex` file, an arXiv source archive (`.tar.gz`/`.tgz`, or a single gzipped `.tex`
as arXiv serves one-file papers; extension-less downloads are recognised by their gzip
magic), or a folder of these (searched recursively). Archives are read in memory and never
extracted, so member paths cannot escape anywhere; a member over 20 MB is not a paper, and
a harvest reads at most 200 MB of .tex in all (100 members of 20 MB in a 2 MB archive took
2 GB): beyond that it stops with one line naming the file it reached.
Per file: comments dropped, simple macros defined in the file (`\\newcommand`, `\\def` without
parameter text, `\\DeclareMathOperator`) found by `tex.macros`, and each item the extractor
takes from the document body expanded with a fresh budget, so that an item using a paper's
own macro still compiles standalone; an expansion that recurses or exceeds its bounds is
refused with the reason.
"""

from __future__ import annotations

import argparse
import gzip
import re
import tarfile
from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, NamedTuple, TypeVar

from tablebench.generate.pool_file import Rejected, write_pool_lines
from tablebench.tex.macros import Expander, Macro, MacroExpansionError, find_macros

MAX_MEMBER_BYTES = 20_000_000  # a .tex larger than this is not a paper
MAX_TOTAL_BYTES = 200_000_000  # .tex read by one harvest, over every file and archive member
BEGIN_DOCUMENT = "\\begin{document}"
_COMMENT = re.compile(r"(?<!\\)%[^\n]*")

Item = TypeVar("Item")
Candidate = tuple[str, str | None, str]  # (latex, label or None, source) as the vetting takes it


class Found(NamedTuple):
    """One item an extractor took from a file: its LaTeX, label (formula kind or None), what
    makes it a repeat, and (reason, detail) when it is refused before vetting."""

    latex: str
    label: str | None
    key: Hashable
    refusal: tuple[str, str] | None = None


@dataclass
class HarvestReport(Generic[Item]):
    """What a harvest kept and refused, with counts by reason (kept items by `kinds`, if given)."""

    kept: list[Item]
    rejected: list[Rejected]
    files: int
    kinds: tuple[str, ...] = ()

    def counts(self) -> dict[str, int]:
        c = Counter(r.reason for r in self.rejected)
        if self.kinds:
            by_kind = Counter(getattr(item, "kind", "") for item in self.kept)  # formulas have a kind
            kept = {f"kept {k}": by_kind[k] for k in self.kinds}
        else:
            kept = {"kept": len(self.kept)}
        return {**kept, **dict(sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))}


# -- reading sources -----------------------------------------------------------------------------


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def iter_sources(src: Path) -> list[tuple[str, str]]:
    """(source name, text) of every .tex in `src` (file, archive or folder), in sorted order."""
    if not src.exists():
        raise ValueError(f"harvest source {src} not found")
    files = sorted(p for p in src.rglob("*") if p.is_file()) if src.is_dir() else [src]
    out: list[tuple[str, str]] = []
    budget = _Budget(src)
    for path in files:
        name = str(path.relative_to(src)) if src.is_dir() else path.name
        if path.name.lower().endswith(".tex"):
            budget.take(min(path.stat().st_size, MAX_MEMBER_BYTES), name)
            out.append((name, _decode(path.read_bytes()[:MAX_MEMBER_BYTES])))
        elif path.name.lower().endswith((".tar", ".gz", ".tgz")) or _is_gzip(path):  # arXiv: also no suffix
            if tarfile.is_tarfile(path):
                out += _from_tar(path, name, budget)
                continue
            if not _is_gzip(path):
                raise ValueError(f"{path}: neither a tar archive nor a gzip file")
            try:
                with gzip.open(path) as fh:  # a single gzipped .tex; bounded read stops a gzip bomb
                    data = fh.read(MAX_MEMBER_BYTES)
            except (OSError, EOFError) as exc:
                raise ValueError(f"{path}: not a readable gzip file ({exc})") from None
            budget.take(len(data), name)
            out.append((name, _decode(data)))
    return out


class _Budget:
    """Bytes of .tex one harvest has read; over MAX_TOTAL_BYTES is a one-line ValueError."""

    def __init__(self, src: Path) -> None:
        self.src, self.used = src, 0

    def take(self, n: int, name: str) -> None:
        self.used += n
        if self.used > MAX_TOTAL_BYTES:
            raise ValueError(f"{self.src}: more than {MAX_TOTAL_BYTES // 1_000_000} MB of .tex to harvest "
                             f"(reached at {name}); harvest fewer sources at once")


def _is_gzip(path: Path) -> bool:
    with path.open("rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


def _from_tar(path: Path, name: str, budget: _Budget) -> list[tuple[str, str]]:
    """The .tex members of a tar archive, read in memory (never extracted), each counted before it is read."""
    out = []
    try:
        with tarfile.open(path) as tar:
            for member in sorted(tar.getmembers(), key=lambda m: m.name):
                if member.isfile() and member.name.lower().endswith(".tex") and member.size <= MAX_MEMBER_BYTES:
                    fh = tar.extractfile(member)
                    if fh is not None:
                        budget.take(member.size, f"{name}:{member.name}")
                        out.append((f"{name}:{member.name}", _decode(fh.read(MAX_MEMBER_BYTES))))
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise ValueError(f"{path}: not a readable tar archive ({exc})") from None
    return out


# -- one file --------------------------------------------------------------------------------------


def read_document(text: str) -> tuple[dict[str, Macro], str]:
    """The simple macros a .tex file defines and its body (after `\\begin{document}`, or all of
    it without one), comments dropped."""
    text = _COMMENT.sub("", text)
    at = text.find(BEGIN_DOCUMENT)
    return find_macros(text), text[at + len(BEGIN_DOCUMENT) :] if at >= 0 else text


def expand_bounded(latex: str, macros: dict[str, Macro], max_chars: int) -> tuple[str, str | None]:
    """(`latex` with the file's macros expanded, None), or (`latex` as found, why not) when the
    expansion recurses or exceeds `max_chars` or its step budget (a fresh budget per item)."""
    try:
        return Expander(macros, max_chars).expand(latex), None
    except MacroExpansionError as exc:
        return latex, str(exc)


def macro_refusal(refusal: str | None) -> tuple[str, str] | None:
    """The (reason, detail) of an item whose macro expansion was refused, else None."""
    return ("macro expansion", refusal) if refusal else None


# -- the harvest -----------------------------------------------------------------------------------


def harvest_sources(src: Path | str, found: Callable[[str], list[Found]],
                    vet: Callable[[list[Candidate]], tuple[list[Item], list[Rejected]]], item: str,
                    kinds: tuple[str, ...] = ()) -> HarvestReport[Item]:
    """Every `item` (a table, a formula) `found` takes from the .tex files under `src`:
    refusals and repeats recorded with the reason, the rest vetted (and compiled) by `vet`."""
    src = Path(src)
    sources = iter_sources(src)
    if not sources:
        raise ValueError(f"{src}: no .tex, .tar.gz or .gz sources found")
    candidates: list[Candidate] = []
    rejected: list[Rejected] = []
    seen: set[Hashable] = set()
    for name, text in sources:
        for i, entry in enumerate(found(text)):
            where = f"{name}#{i}"
            if entry.refusal:
                rejected.append(Rejected(where, *entry.refusal))
                continue
            if entry.key in seen:
                rejected.append(Rejected(where, "duplicate", f"the same {item} was harvested before"))
                continue
            seen.add(entry.key)
            candidates.append((entry.latex, entry.label, where))
    kept, refused = vet(candidates)
    return HarvestReport(kept, rejected + refused, len(sources), kinds)


def run_harvest_into_pool(args: argparse.Namespace, harvest: Callable[[Path], HarvestReport[Item]],
                          row: Callable[[Item], dict], what: str, items: str) -> int:
    """`tablebench harvest SRC [--formulas] --out pool.jsonl`: harvest, write the pool, print
    counts by reason (`what`: the command as the table title names it)."""
    report = harvest(Path(args.src))
    write_pool_lines([row(kept) for kept in report.kept], args.out)
    print_harvest(report, f"{what} {args.src}: {report.files} .tex files -> {args.out}", items,
                  verbose=getattr(args, "verbose", False))
    return 0


def print_harvest(report: HarvestReport, title: str, items: str, verbose: bool = False) -> None:
    """Counts by outcome as a rich table (kept first, then each refusal reason); with `verbose`
    one line per refused item."""
    from rich.console import Console
    from rich.table import Table as RichTable

    table = RichTable(title=title)
    table.add_column("outcome")
    table.add_column(items, justify="right")
    for reason, n in report.counts().items():
        table.add_row(reason if reason.startswith("kept") else f"rejected: {reason}", str(n))
    Console().print(table)
    if verbose:
        for r in report.rejected:
            print(f"{r.source}: {r.reason}: {r.detail}")
