"""The formulas a formula page draws: external pools, vetted, with built-in ones behind them.

A slot with no pool formula left takes a built-in one (`formula_builtin.py`: seeded,
compositional, no fixed list), so a page never runs short and the built-in pool is just an
empty `FormulaPool()`.

External pools are JSONL, one `{"latex": ..., "kind": "inline"|"display"}` per line (what
`tablebench harvest --formulas` writes). `latex` is the math body or a delimited formula
(`formula_item.split_delimiters`); the kind defaults to what the delimiters say. Every pool
formula is vetted before it can reach a page: `formula_item.check_formula` first (unsafe
LaTeX, definitions and malformed bodies are refused before compiling), then one batched
pdflatex run in the reference layout (a broken formula is isolated by bisection) and an
empty box is refused. One vetting has VET_BUDGET seconds in all (each run at most the 60 s
pdflatex timeout and what is left): formulas not compiled by then are refused with that
reason. A pool formula's body is used exactly as vetted.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from tablebench.generate.formula_builtin import builtin_formula
from tablebench.generate.formula_item import (
    KINDS,
    Formula,
    FormulaError,
    check_formula,
    has_rows,
    measure_source,
    split_delimiters,
)
from tablebench.generate.layouts import PageLayout
from tablebench.generate.measure import bisect_batch, logged_sizes, run_timeout
from tablebench.generate.pool_file import Rejected, read_pool_lines, vetted_pool
from tablebench.tex.runner import run_pdflatex

REFERENCE = PageLayout()  # where pool formulas are compiled for vetting
VET_VERSION = "3"  # bump when vetting rules change: cached outcomes are then redone
CHUNK = 128
VET_BUDGET = 300.0  # seconds for all the compiles of one vetting (a bisected timeout cost 8 x 60 s)
MIXED_TABLES = (1, 3)  # built-in tables per page on the "mixed" track
# preamble lines every formula page (and the vetting run) adds to the layout's preamble
PACKAGES = "\\usepackage{mathtools}\n\\usepackage[version=4]{mhchem}\n"


def _vet_document(formulas: list[Formula]) -> str:
    size = "\\the\\wd\\tbm:\\the\\ht\\tbm:\\the\\dp\\tbm"
    body = "".join(f"\\sbox\\tbm{{{measure_source(f)}}}\\typeout{{TB:S:{i}:{size}}}\n" for i, f in enumerate(formulas))
    return (REFERENCE.preamble() + PACKAGES + "\\newsavebox\\tbm\n\\begin{document}\n" + body
            + "\\mbox{}\n\\end{document}\n")


def _compile_sizes(formulas: list[Formula], deadline: float) -> list[tuple[float, float, float] | str]:
    """Natural (width, height, depth) per formula in one run, or the error of a formula that
    does not compile (a failing batch is halved until the culprit is alone), all by `deadline`."""
    def measure(batch: list[Formula]) -> list[tuple[float, float, float]]:
        return logged_sizes(run_pdflatex(_vet_document(batch), timeout=run_timeout(deadline)), len(batch), "formulas")

    return bisect_batch(formulas, measure, str, deadline)


def vet_formulas(candidates: list[tuple[str, str | None, str]]) -> tuple[list[Formula], list[Rejected]]:
    """Vet (latex, kind or None, source) entries: checks first, then one batched compile."""
    ready: list[Formula] = []
    rejected: list[Rejected] = []
    for latex, kind, source in candidates:
        body, implied = split_delimiters(latex)
        kind = kind or implied or "display"
        try:
            check_formula(body, kind)
        except FormulaError as exc:
            msg = str(exc)  # "unsafe LaTeX refused before compiling: \\input: reads a file" -> "unsafe \\input"
            reason = "unsafe " + msg.split(": ")[1] if msg.startswith("unsafe") else msg
            rejected.append(Rejected(source, reason, msg))
            continue
        ready.append(Formula(body, kind, source, multiline=kind == "display" and has_rows(body)))
    kept: list[Formula] = []
    deadline = time.monotonic() + VET_BUDGET
    for start in range(0, len(ready), CHUNK):
        chunk = ready[start : start + CHUNK]
        for f, size in zip(chunk, _compile_sizes(chunk, deadline), strict=True):
            if isinstance(size, str):
                rejected.append(Rejected(f.source, "compile failure", size))
            elif size[0] <= 0:
                rejected.append(Rejected(f.source, "prints nothing", "the formula's box is empty"))
            else:
                kept.append(f)
    return kept, rejected


def read_jsonl(path: Path | str) -> list[tuple[str, str | None, str]]:
    """(latex, kind or None, source) per line of a formula pool file; one-line errors."""
    return read_pool_lines(path, "kind", KINDS, what="formula pool file", items="formulas")


class FormulaPool:
    """Where a formula page draws its formulas: vetted external formulas, else built-in ones
    (`formula_builtin`).

    Picklable (worker processes get it whole). With no external formulas of a kind, every
    slot of that kind takes a built-in formula."""

    def __init__(self, formulas: list[Formula] | None = None, rejected: list[Rejected] | None = None,
                 name: str = "builtin", sha256: str = "", tables: tuple[int, int] = (0, 0),
                 displays: bool = True) -> None:
        self.tables = tables  # built-in tables per page (min, max): (0, 0) formulas only, else "mixed"
        self.displays = displays  # False: prose with inline formulas only (the "prose" track)
        self.formulas = formulas or []
        self.rejected = rejected or []
        self.name = name
        self.sha256 = sha256
        self.by_kind = {k: [f for f in self.formulas if f.kind == k] for k in KINDS}

    @property
    def track(self) -> str:
        return "mixed" if self.tables[1] else "formulas" if self.displays else "prose"

    @classmethod
    def from_jsonl(cls, path: Path | str, cache_dir: Path | str | None = None,
                   tables: tuple[int, int] = (0, 0), displays: bool = True) -> FormulaPool:
        """Read and vet a pool file (outcome cached per file content); an error if none survives."""
        path = Path(path)
        salt = "\0".join([_vet_document([]), VET_VERSION])
        kept, rejected, sha = vetted_pool(path, cache_dir, salt, Formula, lambda: vet_formulas(read_jsonl(path)),
                                          items="formula", prefix="formulas-")
        return cls(kept, rejected, path.name, sha, tables, displays)

    def info(self) -> dict:
        """What goes into the manifest."""
        if not self.formulas:
            return {"track": self.track, "formulas": "builtin"}
        return {"track": self.track, "file": self.name, "sha256": self.sha256, "formulas": len(self.formulas),
                "rejected": len(self.rejected)}

    def draw(self, seed: int, kind: str, exclude: set[str]) -> Formula:
        """A formula for a slot of `kind` (a pool one not in `exclude`, else a built-in one)."""
        fits = [f for f in self.by_kind[kind] if f.body not in exclude]
        if kind == "display":  # a low formula reads fine displayed too
            fits += [f for f in self.by_kind["inline"] if f.body not in exclude]
        if fits:
            rng = np.random.default_rng([int(seed), 0xF001])
            return fits[int(rng.integers(len(fits)))]
        for attempt in range(20):
            f = builtin_formula(seed + attempt, kind)
            if f.body not in exclude:
                return f
        return f
