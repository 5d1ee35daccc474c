"""Unicode math -> LaTeX macros, so a plain-text extraction can be typeset by pdflatex.

Text-only parsers write formulas as Unicode (`ν ∈ (0,1) ∪ (1,2)`); the locator keeps that
(`plain_to_latex` only restores scripts), and the token metrics read Unicode as canonical
already. pdflatex cannot typeset `ν` or `∈` in math, so without this the rendered score
(`cdm_like`) would give every plain-text extraction 0 whatever it says. The symbol table is
the LaTeX reader's (`harness.tex.latex_math`), inverted: one macro per character.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from harness.tex import latex_math

_EXTRA = {"−": "-", "…": "\\ldots ", "⋯": "\\cdots ", "′": "'", "″": "''", "·": "\\cdot ", "∞": "\\infty "}
_MATH_ALNUM = range(0x1D400, 0x1D800)  # 𝑥, 𝐀, ...: styled letters and digits


@lru_cache(maxsize=1)
def _table() -> dict[str, str]:
    out = dict(_EXTRA)
    symbols = {**latex_math._GREEK, **latex_math._MATH_SYMBOLS}  # noqa: SLF001 - the reader's own table
    for name, char in symbols.items():
        if len(char) == 1 and name.isalpha() and not name.startswith("up") and not char.isascii():
            out.setdefault(char, f"\\{name} ")
    for letter, char in latex_math._DOUBLE_STRUCK.items():  # noqa: SLF001
        out.setdefault(char, f"\\mathbb{{{letter}}}")
    return out


def unicode_to_latex(text: str) -> str:
    """`text` with every Unicode math symbol it knows as a LaTeX macro (ASCII text unchanged)."""
    if text.isascii():
        return text
    table = _table()
    return "".join(table.get(c) or (unicodedata.normalize("NFKC", c) if ord(c) in _MATH_ALNUM else c) for c in text)
