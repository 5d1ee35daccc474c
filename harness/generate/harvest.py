"""Harvest real tables from LaTeX sources into a pool file (`tablebench harvest SRC --out pool.jsonl`).

SRC is a `.tex` file, an arXiv source archive (`.tar.gz`/`.tgz`, or a single gzipped `.tex`
as arXiv serves one-file papers; extension-less downloads are recognised by their gzip
magic), or a folder of these (searched recursively). Archives are read in memory and never
extracted, so member paths cannot escape anywhere.

Per file: comments dropped; simple macros defined in the file (`\\newcommand`, `\\def`
without parameter text, `\\DeclareMathOperator`) expanded inside the tables by the LaTeX
reader's expander (`readers/latex_macros.py`), so a table that uses a paper's own macro still
compiles standalone and reads the same; a table whose expansion is recursive or exceeds the
bounds (200,000 characters, 20,000 substitutions) is refused with the reason; every top-level
`tabular`/`tabular*` taken (found by the reader's environment finder); non-content commands
stripped: `\\label`, `\\caption`, `\\footnote`, `\\tnote` (threeparttable), and references and
citations with the tie before them. Citations are dropped rather than kept: without a .bib,
pdflatex prints `[?]` and our reader renders `\\cite` as `[?]` too, so keeping them would be
consistent, but it would put an artefact into every cell that cites.
Then `pool.vet_tables` refuses anything dangerous before compiling (with the reason),
compiles the rest standalone, records width and height, refuses a table whose PDF text lacks
words of its ground truth, and classifies complexity by spans.
"""

from __future__ import annotations

import gzip
import json
import re
import tarfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from harness.generate.pool import PoolTable, Rejected, vet_tables
from harness.readers.latex import environment_spans
from harness.tex.macros import Expander, MacroExpansionError, brace_group, find_macros

MAX_MEMBER_BYTES = 20_000_000  # a .tex larger than this is not a paper
MAX_TABLE_CHARS = 200_000  # one table after macro expansion

_COMMENT = re.compile(r"(?<!\\)%[^\n]*")
_TAKEN = ("tabular", "tabular*")
_DROP_WITH_ARG = ("label", "caption", "footnote", "footnotetext", "tablefootnote", "captionof", "tnote",
                  "vspace", "vspace*")
_REFS = re.compile(
    r"(?:~|\s)?\\(?:cite[a-z]*\*?|[Cc]ref|[Aa]utoref|eqref|ref|pageref|nameref|nocite)"
    r"(?:\[[^\]]*\])*\{[^{}]*\}"
)
_FOOTMARK = re.compile(r"\\footnotemark(?:\[[^\]]*\])?")


@dataclass
class HarvestReport:
    """What a harvest kept and refused, with counts by reason."""

    kept: list[PoolTable]
    rejected: list[Rejected]
    files: int

    def counts(self) -> dict[str, int]:
        c = Counter(r.reason for r in self.rejected)
        return {"kept": len(self.kept), **dict(sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))}


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
    for path in files:
        name = str(path.relative_to(src)) if src.is_dir() else path.name
        if path.name.lower().endswith(".tex"):
            out.append((name, _decode(path.read_bytes()[:MAX_MEMBER_BYTES])))
        elif path.name.lower().endswith((".tar", ".gz", ".tgz")) or _is_gzip(path):  # arXiv: also no suffix
            if tarfile.is_tarfile(path):
                out += _from_tar(path, name)
                continue
            if not _is_gzip(path):
                raise ValueError(f"{path}: neither a tar archive nor a gzip file")
            try:
                with gzip.open(path) as fh:  # a single gzipped .tex; bounded read stops a gzip bomb
                    data = fh.read(MAX_MEMBER_BYTES)
            except (OSError, EOFError) as exc:
                raise ValueError(f"{path}: not a readable gzip file ({exc})") from None
            out.append((name, _decode(data)))
    return out


def _is_gzip(path: Path) -> bool:
    with path.open("rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


def _from_tar(path: Path, name: str) -> list[tuple[str, str]]:
    """The .tex members of a tar archive, read in memory (never extracted)."""
    out = []
    try:
        with tarfile.open(path) as tar:
            for member in sorted(tar.getmembers(), key=lambda m: m.name):
                if member.isfile() and member.name.lower().endswith(".tex") and member.size <= MAX_MEMBER_BYTES:
                    fh = tar.extractfile(member)
                    if fh is not None:
                        out.append((f"{name}:{member.name}", _decode(fh.read())))
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise ValueError(f"{path}: not a readable tar archive ({exc})") from None
    return out


# -- tables ----------------------------------------------------------------------------------


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
    text = _COMMENT.sub("", text)
    macros = find_macros(text)
    body_at = text.find("\\begin{document}")
    body = text[body_at:] if body_at >= 0 else text
    out: list[tuple[str, str | None]] = []
    for table in top_level_tabulars(body):
        try:  # a fresh budget per table
            out.append((strip_non_content(Expander(macros, MAX_TABLE_CHARS).expand(table)).strip(), None))
        except MacroExpansionError as exc:
            out.append((table, str(exc)))
    return out


def harvest(src: Path | str) -> HarvestReport:
    """Tables of every .tex under `src`: vetted, compiled standalone, measured, classified."""
    src = Path(src)
    sources = iter_sources(src)
    if not sources:
        raise ValueError(f"{src}: no .tex, .tar.gz or .gz sources found")
    candidates: list[tuple[str, str | None, str]] = []
    rejected: list[Rejected] = []
    seen: set[str] = set()
    for name, text in sources:
        for i, (latex, refusal) in enumerate(extract_tables(text)):
            where = f"{name}#{i}"
            if refusal:
                rejected.append(Rejected(where, "macro expansion", refusal))
                continue
            if latex in seen:
                rejected.append(Rejected(where, "duplicate", "the same table was harvested before"))
                continue
            seen.add(latex)
            candidates.append((latex, None, where))
    kept, refused = vet_tables(candidates)
    return HarvestReport(kept, rejected + refused, len(sources))


def write_pool(tables: list[PoolTable], out: Path | str) -> None:
    """The pool JSONL: latex, complexity, source, width and height (pt, reference layout)."""
    lines = [json.dumps({"latex": t.latex, "complexity": t.complexity, "source": t.source,
                         "width": t.width, "height": t.height}, ensure_ascii=False) for t in tables]
    Path(out).write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def run_harvest(args) -> int:
    """`tablebench harvest SRC --out pool.jsonl`: harvest, write, print counts by reason."""
    report = harvest(Path(args.src))
    write_pool(report.kept, args.out)
    print_harvest(report, f"harvest {args.src}: {report.files} .tex files -> {args.out}", "tables",
                  verbose=getattr(args, "verbose", False))
    return 0


def print_harvest(report, title: str, items: str, verbose: bool = False) -> None:
    """Counts by outcome as a rich table (kept first, then each refusal reason); with `verbose`
    one line per refused item. Shared by the table and the formula harvest."""
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
