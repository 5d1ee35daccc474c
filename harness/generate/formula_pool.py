"""The formulas a formula page draws: external pools, vetted, with built-in ones behind them.

A slot with no pool formula left takes a built-in one (`formula_builtin.py`: seeded,
compositional, no fixed list), so a page never runs short and the built-in pool is just an
empty `FormulaPool()`.

External pools are JSONL, one `{"latex": ..., "kind": "inline"|"display"}` per line (what
`tablebench harvest --formulas` writes). `latex` is the math body or a delimited formula
(`$..$`, `$$..$$`, `\\(..\\)`, `\\[..\\]`, an `equation`/`align`/`gather`/`multline` environment,
starred or not); the kind defaults to what the delimiters say. Every pool formula is vetted
before it can reach a page: unsafe LaTeX and definitions are refused before compiling
(`tex.safety.unsafe_reasons`, with math environments allowed), then the structure (balanced
braces, no math delimiters or paragraph breaks inside, no `&`/`\\\\` in an inline formula),
then one batched pdflatex run in the reference layout (a broken formula is isolated by
bisection) and an empty box is refused. A pool formula's body is used exactly as vetted.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from harness.generate.layouts import PageLayout
from harness.generate.pool import Rejected, cached_vetting, read_pool_lines
from harness.tex.runner import LatexError, run_pdflatex
from harness.tex.safety import unsafe_reasons

KINDS = ("inline", "display")
REFERENCE = PageLayout()  # where pool formulas are compiled for vetting
VET_VERSION = "1"
CHUNK = 128
MIXED_TABLES = (1, 3)  # built-in tables per page on the "mixed" track
MAX_CHARS = 2000  # a longer "formula" is a paragraph of math, not one formula
# preamble lines every formula page (and the vetting run) adds to the layout's preamble
PACKAGES = "\\usepackage{mathtools}\n\\usepackage[version=4]{mhchem}\n"
MATH_ENVIRONMENTS = frozenset(
    "equation equation* align align* gather gather* multline multline* aligned alignedat gathered split "
    "matrix pmatrix bmatrix Bmatrix vmatrix Vmatrix smallmatrix array subarray cases dcases rcases".split())
_DISALLOWED_ENV = re.compile(r"^\\begin\{([^}]*)\}: environment not allowed")
_DISPLAY_ENV = re.compile(r"^\\begin\{(equation|align|gather|multline)(\*?)\}(.*)\\end\{\1\2\}$", re.S)
_DELIMS = (("$$", "$$", "display"), ("\\[", "\\]", "display"), ("\\(", "\\)", "inline"), ("$", "$", "inline"))
_INNER_MATH = re.compile(r"(?<!\\)\$|\\[()\[\]]")
_LABELS = re.compile(r"\\(?:label|tag\*?)\s*\{[^{}]*\}|\\(?:nonumber|notag)(?![A-Za-z])")


@dataclass(frozen=True, slots=True)
class Formula:
    """One formula: its math body (no delimiters), where it may go, where it came from.

    `multiline` bodies hold `&`/`\\\\` rows and are set in `align`; `kind` "inline" formulas
    may also be displayed, "display" ones are never put inside a sentence."""

    body: str
    kind: str
    source: str
    multiline: bool = False


class FormulaError(ValueError):
    """A pool formula that must not reach a page (one line)."""


# -- vetting --------------------------------------------------------------------------------------


def formula_unsafe(body: str) -> list[str]:
    """Why `body` must not be compiled (safety + definitions); math environments are allowed."""
    return [r for r in unsafe_reasons(body)
            if not ((m := _DISALLOWED_ENV.match(r)) and m.group(1) in MATH_ENVIRONMENTS)]


def _balanced(body: str) -> bool:
    depth = 0
    k = 0
    while k < len(body):
        c = body[k]
        if c == "\\":
            k += 2
            continue
        depth += c == "{"
        depth -= c == "}"
        if depth < 0:
            return False
        k += 1
    return depth == 0


def _top_level_rows(body: str) -> bool:
    """Whether `body` has `&` or `\\\\` outside every environment (a multi-line body)."""
    depth = 0
    for m in re.finditer(r"\\begin\{[^}]*\}|\\end\{[^}]*\}|\\\\|(?<!\\)&", body):
        tok = m.group(0)
        if tok.startswith("\\begin"):
            depth += 1
        elif tok.startswith("\\end"):
            depth -= 1
        elif depth == 0:
            return True
    return False


def split_delimiters(latex: str) -> tuple[str, str | None]:
    """(math body, kind the delimiters imply or None) of a pool entry; labels and tags dropped."""
    s = latex.strip()
    kind = None
    m = _DISPLAY_ENV.match(s)
    if m:
        s, kind = m.group(3), "display"
    else:
        for left, right, k in _DELIMS:
            if s.startswith(left) and s.endswith(right) and len(s) > len(left) + len(right):
                inner = s[len(left) : -len(right)]
                if not _INNER_MATH.search(inner):
                    s, kind = inner, k
                break
    return _LABELS.sub("", s).strip(), kind


def check_formula(body: str, kind: str) -> None:
    """Raise `FormulaError` (one line) for a body that must not be compiled or placed as `kind`."""
    if not body.strip():
        raise FormulaError("empty formula")
    if len(body) > MAX_CHARS:
        raise FormulaError(f"longer than {MAX_CHARS} characters")
    unsafe = formula_unsafe(body)
    if unsafe:
        raise FormulaError(f"unsafe LaTeX refused before compiling: {unsafe[0]}")
    if not _balanced(body):
        raise FormulaError("unbalanced braces")
    if _INNER_MATH.search(body):
        raise FormulaError("math delimiters inside the formula")
    if re.search(r"\n\s*\n|\\par(?![A-Za-z])", body):
        raise FormulaError("paragraph break inside the formula")
    if kind == "inline" and _top_level_rows(body):
        raise FormulaError("rows (& or \\\\) in an inline formula")


def measure_source(formula: Formula) -> str:
    """What the page and the vetting run typeset to measure a formula (its natural box)."""
    if formula.kind == "inline":
        return f"${formula.body}$"
    if formula.multiline:
        return f"$\\displaystyle\\begin{{aligned}}{formula.body}\\end{{aligned}}$"
    return f"$\\displaystyle {formula.body}$"


def _vet_document(formulas: list[Formula]) -> str:
    size = "\\the\\wd\\tbm:\\the\\ht\\tbm:\\the\\dp\\tbm"
    body = "".join(f"\\sbox\\tbm{{{measure_source(f)}}}\\typeout{{TB:S:{i}:{size}}}\n" for i, f in enumerate(formulas))
    return (REFERENCE.preamble() + PACKAGES + "\\newsavebox\\tbm\n\\begin{document}\n" + body
            + "\\mbox{}\n\\end{document}\n")


def _compile_sizes(formulas: list[Formula]) -> list[tuple[float, float, float] | str]:
    """Natural (width, height, depth) per formula in one run, or the error of a formula that
    does not compile (a failing batch is halved until the culprit is alone)."""
    try:
        res = run_pdflatex(_vet_document(formulas))
        sizes: dict[int, tuple[float, float, float]] = {}
        for line in res.log.messages:
            parts = line.split(":")
            if parts[1] == "S":
                w, h, dp = (float(p.removesuffix("pt")) for p in parts[3:6])
                sizes[int(parts[2])] = (w, h, dp)
        if len(sizes) != len(formulas):
            raise LatexError(f"pdflatex measured {len(sizes)} of {len(formulas)} formulas")
        return [sizes[i] for i in range(len(formulas))]
    except LatexError as exc:
        if len(formulas) == 1:
            return [str(exc)]
    mid = len(formulas) // 2
    return _compile_sizes(formulas[:mid]) + _compile_sizes(formulas[mid:])


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
        ready.append(Formula(body, kind, source, multiline=kind == "display" and _top_level_rows(body)))
    kept: list[Formula] = []
    for start in range(0, len(ready), CHUNK):
        chunk = ready[start : start + CHUNK]
        for f, size in zip(chunk, _compile_sizes(chunk), strict=True):
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
                 name: str = "builtin", sha256: str = "", tables: tuple[int, int] = (0, 0)) -> None:
        self.tables = tables  # built-in tables per page (min, max): (0, 0) formulas only, else "mixed"
        self.formulas = formulas or []
        self.rejected = rejected or []
        self.name = name
        self.sha256 = sha256
        self.by_kind = {k: [f for f in self.formulas if f.kind == k] for k in KINDS}

    @property
    def track(self) -> str:
        return "mixed" if self.tables[1] else "formulas"

    @classmethod
    def from_jsonl(cls, path: Path | str, cache_dir: Path | str | None = None,
                   tables: tuple[int, int] = (0, 0)) -> FormulaPool:
        """Read and vet a pool file (outcome cached per file content); an error if none survives."""
        path = Path(path)
        data = path.read_bytes() if path.is_file() else b""
        sha = hashlib.sha256(data).hexdigest()
        if cache_dir is not None and data:
            key = hashlib.sha256(b"\0".join([data, _vet_document([]).encode(), VET_VERSION.encode()])).hexdigest()
            outcome = cached_vetting(cache_dir, key, Formula, lambda: vet_formulas(read_jsonl(path)), "formulas-")
        else:
            outcome = vet_formulas(read_jsonl(path))
        kept, rejected = outcome
        if not kept:
            reasons = sorted({r.reason for r in rejected})
            raise ValueError(f"{path}: no usable formula in the pool (rejected: {', '.join(reasons)})")
        return cls(kept, rejected, path.name, sha, tables)

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
        from harness.generate.formula_builtin import (
            builtin_formula,  # it imports this module
        )

        for attempt in range(20):
            f = builtin_formula(seed + attempt, kind)
            if f.body not in exclude:
                return f
        return f
