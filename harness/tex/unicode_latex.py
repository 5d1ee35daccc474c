"""Unicode math -> LaTeX macros, so a plain-text extraction can be typeset by pdflatex.

Text-only parsers write formulas as Unicode (`ν ∈ (0,1) ∪ (1,2)`); the locator keeps that
(`plain_to_latex` only restores scripts), and the token metrics read Unicode as canonical
already. pdflatex cannot typeset `ν` or `∈` in math, so without this the rendered score
(`glyph_f1`) would give every plain-text extraction 0 whatever it says. The table is the
symbol database's inverse direction (`symbols.LATEX_FOR`): one macro per character.
"""

from __future__ import annotations

import unicodedata

from tablebench.tex.symbols import LATEX_FOR

_MATH_ALNUM = range(0x1D400, 0x1D800)  # 𝑥, 𝐀, ...: styled letters and digits


def unicode_to_latex(text: str) -> str:
    """`text` with every Unicode math symbol it knows as a LaTeX macro (ASCII text unchanged)."""
    if text.isascii():
        return text
    return "".join(LATEX_FOR.get(c) or (unicodedata.normalize("NFKC", c) if ord(c) in _MATH_ALNUM else c) for c in text)
