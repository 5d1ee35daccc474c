"""What is a table, math or a float in an output written in LaTeX: the one list of each.

Why one module: every reader of an output asks the same question (which `\\begin{..}` opens a
table, which opens math, what delimits inline math), and a list copied into each reader drifts:
a `tblr` table was read as a table by the table reader and as prose by the prose reader. The
readers, the formula locator, the renderer, the safety policy and the side tools derive their
patterns from these sets (`env_pattern`); `tests/test_regions.py` fails on a list of
environment names written out again anywhere else.
"""

from __future__ import annotations


def starred(names: str) -> frozenset[str]:
    """Each of the space-separated `names` and its starred form (`align`, `align*`)."""
    return frozenset(n + s for n in names.split() for s in ("", "*"))


# Environments a table is: their rows are cells (`tablebench.tex.environments` finds them).
TABULAR_ENVS = frozenset("tabular tabular* tabularx tabulary array longtable longtable* "
                         "tblr longtblr NiceTabular supertabular xtabular".split())

# Environments that open math from running text: a display (or `math`, inline) a reader reads as a
# formula, never as words. `alignat` takes its column count as an argument (`ARGUMENT_MATH_ENVS`).
MATH_MODE_ENVS = starred("equation align gather multline flalign alignat eqnarray") | {"displaymath", "math"}
ARGUMENT_MATH_ENVS = {"alignat": "m", "alignat*": "m", "alignedat": "m"}  # argument spec (`tex.arguments`)
# Blocks inside math that set several rows of one display.
INNER_ROW_ENVS = frozenset({"aligned", "alignedat", "gathered", "split"})
# Where `&` marks an alignment point, not a cell: an aligned display drops it, a grid keeps it.
ALIGNMENT_ENVS = starred("align eqnarray") | {"aligned", "split", "gathered"}
# A display that sets several formulas as its rows (the formula locator reads each row).
ROW_DISPLAY_ENVS = starred("align gather") | INNER_ROW_ENVS
# Grids inside math: `&` separates their cells.
MATRIX_ENVS = frozenset("matrix pmatrix bmatrix Bmatrix vmatrix Vmatrix smallmatrix array subarray "
                        "cases dcases rcases".split())
# Every environment that is math (the renderer typesets any of them; the others are refused).
MATH_ENVS = MATH_MODE_ENVS | INNER_ROW_ENVS | MATRIX_ENVS
# Displays a formula pool keeps as one formula each (the side tool's harvest): eqnarray's `&=&`
# columns and flalign's or alignat's column layout do not survive as one formula.
HARVESTED_DISPLAY_ENVS = starred("equation align gather multline")
# Floats: a table or figure with its caption, an item of its own (the prose reader leaves it out).
FLOAT_ENVS = starred("table figure")

# Math delimiters of running text, opener -> closer, display first (`$$` before `$`).
DISPLAY_DELIMITERS = {"$$": "$$", "\\[": "\\]"}
INLINE_DELIMITERS = {"\\(": "\\)", "$": "$"}


def env_pattern(names: frozenset[str] | set[str]) -> str:
    """A regex alternation of `names` (longest first, so `align*` wins over `align`), escaped."""
    import re

    return "|".join(re.escape(n) for n in sorted(names, key=lambda n: (-len(n), n)))
