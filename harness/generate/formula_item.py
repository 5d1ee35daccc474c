"""One formula as pages and pools hold it, and the checks it passes before any compile.

A `Formula` is a math body without delimiters, its kind ("inline" | "display") and where it
came from; the built-in families (`formula_builtin`) and vetted pools (`formula_pool`) both
make them. `split_delimiters` turns a pool entry (`$..$`, `$$..$$`, `\\(..\\)`, `\\[..\\]`, an
`equation`/`align`/`gather`/`multline` environment, starred or not) into a body and the kind
its delimiters imply. `check_formula` refuses, in one line, a body that must not be compiled
or placed: unsafe LaTeX and definitions (`tex.safety.unsafe_reasons`, math environments
allowed), unbalanced braces, math delimiters or paragraph breaks inside, rows in an inline
formula. `measure_source` is what the page and the vetting run typeset to measure one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tablebench.tex.macros import brace_group
from tablebench.tex.regions import HARVESTED_DISPLAY_ENVS, MATH_ENVS, env_pattern
from tablebench.tex.safety import unsafe_reasons

KINDS = ("inline", "display")
MAX_CHARS = 2000  # a longer "formula" is a paragraph of math, not one formula
MATH_ENVIRONMENTS = MATH_ENVS  # the renderer's: a formula in any of them is no unsafe environment
_DISALLOWED_ENV = re.compile(r"^\\begin\{([^}]*)\}: environment not allowed")
_DISPLAY_ENV = re.compile(r"^\\begin\{(" + env_pattern({n.rstrip("*") for n in HARVESTED_DISPLAY_ENVS}) + r")(\*?)\}"
                          r"(.*)\\end\{\1\2\}$", re.S)
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


def formula_unsafe(body: str) -> list[str]:
    """Why `body` must not be compiled (safety + definitions); math environments are allowed."""
    return [r for r in unsafe_reasons(body)
            if not ((m := _DISALLOWED_ENV.match(r)) and m.group(1) in MATH_ENVIRONMENTS)]


def _balanced(body: str) -> bool:
    """Whether every brace of `body` pairs up: wrapped in one more group, the body closes it
    exactly at its end (the space keeps a trailing backslash from escaping that brace)."""
    group = brace_group("{" + body + " }", 0)
    return group is not None and group[1] == len(body) + 3


def has_rows(body: str) -> bool:
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
    if kind == "inline" and has_rows(body):
        raise FormulaError("rows (& or \\\\) in an inline formula")


def measure_source(formula: Formula) -> str:
    """What the page and the vetting run typeset to measure a formula (its natural box)."""
    if formula.kind == "inline":
        return f"${formula.body}$"
    if formula.multiline:
        return f"$\\displaystyle\\begin{{aligned}}{formula.body}\\end{{aligned}}$"
    return f"$\\displaystyle {formula.body}$"
