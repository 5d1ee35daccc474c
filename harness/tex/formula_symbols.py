"""Symbols the formula reader needs beyond the shared symbol tables: AMS arrows, arrows set
over arrows, and what TeX itself typesets for a command no table knows.

- `AMS_ARROWS`: the amssymb arrow commands by their Unicode character (`\\rightleftarrows` ->
  `⇄`), so a formula reads the same whichever spelling it uses.
- `STACKED`: (upper, lower) -> the one character Unicode has for that pair, derived from the
  Unicode character names (`RIGHTWARDS ARROW OVER LEFTWARDS ARROW` is `⇄`, `RIGHTWARDS PAIRED
  ARROWS` is `⇉`): `\\overrightarrow{\\leftarrow}` and `\\overset{\\to}{\\gets}` typeset the
  same pair of arrows as `\\rightleftarrows`, so they read as the same symbol.
- `typeset_symbol(name)`: the character pdflatex prints for `\\name` alone (cached renders),
  for commands the tables do not know; None without TeX or when it is not one glyph, and the
  formula metrics then keep the command by name (the clear fallback).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

AMS_ARROWS = {
    "rightleftarrows": "⇄", "leftrightarrows": "⇆", "rightrightarrows": "⇉", "leftleftarrows": "⇇",
    "upuparrows": "⇈", "downdownarrows": "⇊", "leftrightharpoons": "⇋", "rightleftharpoons": "⇌",
    "rightharpoonup": "⇀", "rightharpoondown": "⇁", "leftharpoonup": "↼", "leftharpoondown": "↽",
    "upharpoonleft": "↿", "upharpoonright": "↾", "downharpoonleft": "⇃", "downharpoonright": "⇂",
    "twoheadrightarrow": "↠", "twoheadleftarrow": "↞", "rightarrowtail": "↣", "leftarrowtail": "↢",
    "looparrowright": "↬", "looparrowleft": "↫", "curvearrowright": "↷", "curvearrowleft": "↶",
    "circlearrowright": "↻", "circlearrowleft": "↺", "Rrightarrow": "⇛", "Lleftarrow": "⇚",
    "Lsh": "↰", "Rsh": "↱", "leftrightsquigarrow": "↭", "rightsquigarrow": "⇝", "leadsto": "⇝",
    "nrightarrow": "↛", "nleftarrow": "↚", "nRightarrow": "⇏", "nLeftarrow": "⇍",
    "nleftrightarrow": "↮", "nLeftrightarrow": "⇎", "hookleftarrow": "↩", "longmapsto": "⟼",
    "longleftrightarrow": "⟷", "Longleftrightarrow": "⟺", "multimap": "⊸",
}
# `\xrightarrow[below]{above}` and friends: the arrow they draw
EXTENSIBLE_ARROWS = {"xrightarrow": "→", "xleftarrow": "←", "xleftrightarrow": "↔", "xRightarrow": "⇒",
                     "xLeftarrow": "⇐", "xLeftrightarrow": "⇔", "xmapsto": "↦", "xrightleftharpoons": "⇌",
                     "xleftrightharpoons": "⇋", "xhookrightarrow": "↪", "xhookleftarrow": "↩"}
_ARROW_BLOCKS = ((0x2190, 0x2200), (0x27F0, 0x2800), (0x2900, 0x2980))


def _lookup(name: str, barb: str) -> str | None:
    for candidate in (name, f"{name} WITH BARB {barb}"):
        try:
            return unicodedata.lookup(candidate)
        except KeyError:
            continue
    return None


def _stacked() -> dict[tuple[str, str], str]:
    """(upper, lower) arrow -> the stacked pair's character, from the Unicode names."""
    out: dict[tuple[str, str], str] = {}
    for start, end in _ARROW_BLOCKS:
        for code in range(start, end):
            char = chr(code)
            name = unicodedata.name(char, "")
            if " OVER " in name:
                upper, lower = name.split(" OVER ", 1)
                pair = (_lookup(upper, "UPWARDS"), _lookup(lower, "DOWNWARDS"))
            elif name.endswith("WARDS PAIRED ARROWS") and name.split()[0] in ("RIGHTWARDS", "LEFTWARDS"):
                single = unicodedata.lookup(name.split()[0] + " ARROW")
                pair = (single, single)
            else:
                continue
            if pair[0] and pair[1]:
                out.setdefault((pair[0], pair[1]), char)
    return out


STACKED = _stacked()


@lru_cache(maxsize=1024)
def typeset_symbol(name: str) -> str | None:
    """What pdflatex prints for `\\name` in math, when it is one glyph; None without pdflatex,
    for a name that is not a plain control word, or when it does not compile to one glyph."""
    if not (name.isascii() and name.isalpha() and len(name) <= 40):
        return None
    from tablebench.tex.render import RenderError, render_glyphs
    from tablebench.tex.runner import have_pdflatex

    if not have_pdflatex():
        return None
    try:
        glyphs = render_glyphs(f"${{\\{name}}}$")
    except (RenderError, OSError):
        return None
    chars = [g.char for g in glyphs if g.char != "rule"]
    return chars[0] if len(chars) == 1 and len(glyphs) == 1 else None
