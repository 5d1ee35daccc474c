"""The distinct ground-truth tables the suite perturbs: committed case sets and ../shared.

Case sets are read through `tablebench.cases` (the committed ones and the pdf-parse-bench sample);
the table-metric-study files through the LaTeX reader, as meta-eval reads their `gt_table`.
Tables are deduplicated by content (the canonical HTML of what the reader saw, header marks
included): the same table on two pages is perturbed once.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from tablebench.cases import INSTALLED_CASES, load_case_set
from tablebench.core.table import NoTableError, Table
from tablebench.readers.latex import read_latex

BENCH_SAMPLE = ("data", "pdf-parse-bench-2026q1-tables-sample")
METRIC_STUDY = (("data", "table-metric-study", "dev.json"), ("data", "table-metric-study", "dev2.json"))


@dataclass(frozen=True)
class GtTable:
    """One ground-truth table: where it comes from, and the table as the LaTeX reader sees it."""

    source: str  # "synth-v1", "pdf-parse-bench-2026q1-tables-sample", "table-metric-study/dev2", ...
    ident: str  # "synth-v1/p001/t0"
    table: Table
    digest: str


@dataclass
class Corpus:
    tables: list[GtTable] = field(default_factory=list)
    per_source: dict[str, int] = field(default_factory=dict)  # distinct tables each source added
    duplicates: dict[str, int] = field(default_factory=dict)  # tables a source repeated (already in the corpus)
    skipped: dict[str, str] = field(default_factory=dict)  # source -> why it was not read

    def add(self, source: str, ident: str, table: Table, seen: set[str]) -> None:
        digest = content_digest(table)
        self.per_source.setdefault(source, 0)
        if digest in seen:
            self.duplicates[source] = self.duplicates.get(source, 0) + 1
            return
        seen.add(digest)
        self.per_source[source] += 1
        self.tables.append(GtTable(source, ident, table, digest))


def content_digest(table: Table) -> str:
    return hashlib.sha256(table.to_html(headers=True).encode("utf-8")).hexdigest()[:16]


def committed_sets(cases_dir: Path = INSTALLED_CASES) -> list[Path]:
    """The committed case sets that hold tables."""
    return sorted(p for p in cases_dir.iterdir() if (p / "manifest.json").is_file())


def collect(shared: Path | None, cases_dir: Path = INSTALLED_CASES, *, committed_only: bool = False) -> Corpus:
    """Every distinct ground-truth table of the committed sets, then of ../shared (`shared`;
    absent or None: those sources are listed as skipped with the reason)."""
    corpus, seen = Corpus(), set()
    for folder in committed_sets(cases_dir):
        _add_case_set(corpus, folder, folder.name, seen)
    if committed_only:
        return corpus
    if shared is None or not shared.is_dir():
        for name in (BENCH_SAMPLE[-1], *(f"table-metric-study/{Path(*p).stem}" for p in METRIC_STUDY)):
            corpus.skipped[name] = f"{shared} is absent (../shared beside the repo)"
        return corpus
    sample = shared.joinpath(*BENCH_SAMPLE)
    if sample.is_dir():
        _add_case_set(corpus, sample, sample.name, seen)
    else:
        corpus.skipped[sample.name] = f"{sample} is absent"
    for parts in METRIC_STUDY:
        path, name = shared.joinpath(*parts), f"table-metric-study/{Path(*parts).stem}"
        if not path.is_file():
            corpus.skipped[name] = f"{path} is absent"
            continue
        for gt in json.loads(path.read_text(encoding="utf-8")):
            try:
                corpus.add(name, f"{name}/{gt['gt_id']}", read_latex(gt["gt_table"])[0], seen)
            except NoTableError as exc:
                corpus.skipped[f"{name}/{gt['gt_id']}"] = f"unreadable ground truth: {exc}"
    return corpus


def _add_case_set(corpus: Corpus, folder: Path, name: str, seen: set[str]) -> None:
    cases = load_case_set(folder)
    for page in cases.pages:
        for gt in page.tables:
            try:
                table = gt.table
            except NoTableError as exc:
                corpus.skipped[f"{name}/{page.page_id}/t{gt.index}"] = f"unreadable ground truth: {exc}"
                continue
            corpus.add(name, f"{name}/{page.page_id}/t{gt.index}", table, seen)
