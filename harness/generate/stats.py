"""Light structural statistics of a LaTeX `tabular`, without rendering its cells.

Used to classify a table's complexity by its spans (for pools without a label) and to
compare the built-in generator with real tables (rows, columns, spans, numeric share, math).
The tabular is found by the LaTeX reader's environment finder; its body is split on
top-level `\\\\` and `&` (outside brace groups, `tex.macros.brace_group`) into raw cell
strings, which is all these numbers need.
"""

from __future__ import annotations

import re

from tablebench.readers.latex import environment_spans
from tablebench.tex.macros import brace_group
from tablebench.tex.regions import TABULAR_ENVS

_RULES = re.compile(
    r"\\(?:toprule|midrule|bottomrule|hline|hhline\{[^}]*\}|specialrule\{[^}]*\}\{[^}]*\}\{[^}]*\}"
    r"|cmidrule(?:\([^)]*\))?\{[^}]*\}|cline\{[^}]*\}|rowcolor(?:\[[^]]*\])?\{[^}]*\}"
    r"|addlinespace(?:\[[^]]*\])?|noalign\{[^}]*\})"
)
_MCOL = re.compile(r"\\multicolumn\{(\d+)\}")
_MROW = re.compile(r"\\multirow\{(-?\d+)\}")
_NUMERIC = re.compile(  # 71.2, -3, (0.5), 12,345, 1e-4, 45%, 71.2±0.3, 3.2×10^{-4}, 0.9*
    r"^[(\[]?[-+−~≈<>]?\d[\d.,]*(?:[eE][-+]?\d+)?%?[)\]]?(?:±\d[\d.,]*%?)?(?:×10\^?\{?-?\d+\}?)?[*†‡]?$"
)


def split_tabular(latex: str) -> list[list[str]]:
    """Rows of raw cell strings of the first tabular in `latex` (rules and empty rows dropped).

    The tabular is found by the LaTeX reader's environment finder (the first top-level table
    environment of any kind `tex.regions` knows); one that never closes is an error."""
    env = next((e for e in environment_spans(latex) if e.name in TABULAR_ENVS), None)
    if env is None:
        raise ValueError("no tabular environment found")
    if not env.closed:
        raise ValueError(f"unbalanced braces or no \\end{{{env.name}}} in tabular")
    body = re.sub(r"(?<!\\)%[^\n]*", "", latex[env.body_start : env.body_end])
    rows: list[list[str]] = []
    cells: list[str] = []
    start = k = 0
    while k < len(body):
        if body[k] == "{":  # a group is one piece of its cell (an unclosed one runs to the end)
            group = brace_group(body, k)
            k = group[1] if group else len(body)
        elif body.startswith("\\\\", k):
            cells.append(body[start:k])
            rows.append(cells)
            cells, start = [], k + 2
            k += 2
        elif body[k] == "\\":  # a backslash and the character after it: `\&` is no cell break
            k += 2
        elif body[k] == "&":
            cells.append(body[start:k])
            start = k = k + 1
        else:
            k += 1
    cells.append(body[start:])
    rows.append(cells)
    out = []
    for row in rows:
        row = [_RULES.sub("", c).strip() for c in row]
        if len(row) > 1 or row[0]:
            out.append(row)
    return out


def _plain(cell: str) -> str:
    """A cell's visible characters, roughly: commands dropped, ±/× kept, no spaces."""
    s = cell.replace(r"\pm", "±").replace(r"\times", "×").replace(r"\%", "%").replace("--", "-")
    s = re.sub(r"\\(?:multicolumn|multirow)\{[^}]*\}\{[^}]*\}", "", s)
    s = re.sub(r"\\(?:dagger|ddagger|ast)\b", "*", s)
    s = re.sub(r"\\[A-Za-z]+\*?", "", s)
    return re.sub(r"[{}$\s~^_]|\\[,;!]", "", s)


def table_stats(latex: str) -> dict[str, float]:
    """rows, cols, cells, spanning share, numeric share and math share of one tabular."""
    rows = split_tabular(latex)
    n_cols = 0
    cells = spanning = numeric = math = 0
    for row in rows:
        width = 0
        for c in row:
            mc = _MCOL.search(c)
            mr = _MROW.search(c)
            width += int(mc.group(1)) if mc else 1
            if not c and not mc:
                continue  # an empty slot (often under a \multirow)
            cells += 1
            spanning += bool((mc and int(mc.group(1)) > 1) or (mr and abs(int(mr.group(1))) > 1))
            plain = _plain(c)
            numeric += bool(plain) and bool(_NUMERIC.match(plain))
            math += "$" in c or "\\(" in c
        n_cols = max(n_cols, width)
    return {
        "rows": len(rows),
        "cols": n_cols,
        "cells": cells,
        "spanning": spanning / max(cells, 1),
        "numeric": numeric / max(cells, 1),
        "math": math / max(cells, 1),
        "has_multirow": float(bool(_MROW.search(latex))),
        "has_multicolumn": float(any(int(x) > 1 for x in _MCOL.findall(latex))),
    }


def classify_complexity(latex: str) -> str:
    """simple: no spans; moderate: one kind of merging; complex: both kinds, or nested row groups.

    This matches how the 91 labelled real tables of pdf-parse-bench are classed (the rule
    "both \\multicolumn and \\multirow -> complex" agrees with 72 of 91 labels).
    """
    mcols = [int(x) for x in _MCOL.findall(latex) if int(x) > 1]
    mrows = [abs(int(x)) for x in _MROW.findall(latex) if abs(int(x)) > 1]
    if not mcols and not mrows:
        return "simple"
    nested = any(sum(bool(_MROW.search(c)) for c in row) > 1 for row in split_tabular(latex))
    return "complex" if (mcols and mrows) or nested else "moderate"
