"""Glyphs a reader cannot tell apart, folded to one spelling each, from Unicode's own data.

A printed table shows a glyph, not a code point: `−` (minus sign), `–` (en dash) and `-` look
alike in a cell; `◯`, `○`, `∘` and `\\circ` are all "an open circle"; `✓` and `✔` both tick.
Rather than listing strings, every code point of the blocks tables draw from is classed
once, at import, by what Unicode says about it:

- NFKC compatibility decomposition (full-width forms, ligatures, `µ`→`μ`, `ϵ`→`ε`, `ℓ`→`l`,
  no-break and thin spaces → space);
- its general category (`Pd`, dash punctuation, → `-`; `Zs`, spaces, → space);
- its character name, read as a shape: the words of size and weight (SMALL, LARGE, HEAVY,
  BOLD, ...) are dropped, what remains names the shape (WHITE CIRCLE, RING OPERATOR,
  CHECK MARK, BALLOT X, MINUS SIGN, PRIME, MIDDLE DOT, ...) and maps to one representative.

A cell that holds nothing but one mark (yes / no / partly) is read by the mark's shape: the
glyphs, letters and digits that print like it in a cell of their own are that mark (`MARKS`:
text layers and OCR write ✓ as √, ✗ as × or x, ◯ as O or 0, a box ☐ for an open circle). Inside
longer text they are other things (√2, 2×3, x86, O(n)), so only a whole cell is read so.

Super- and subscript characters (the `<super>`/`<sub>` decompositions) become their plain
text after a space: `β₂`, `β_2` and `β2` are read alike (the cell comparison ignores spaces),
while a footnote mark on a number (`91.2¹`) stays a separate token and never turns the number
into another one (91.21).
"""

from __future__ import annotations

import re
import unicodedata

# Words of size, weight and colour-fill that change how big or bold a glyph is, not what it is.
_SIZE = re.compile(r"\b(?:VERY|EXTREMELY|SMALL|MEDIUM|LARGE|HEAVY|BOLD|LIGHT|THIN|SLIGHTLY|LOWER RIGHT SHADOWED|"
                   r"UPPER RIGHT SHADOWED|SHADOWED)\b")
# Shapes (a name after `_SIZE` is dropped) -> the one glyph each stands for.
_SHAPES = {
    "WHITE CIRCLE": "○", "CIRCLE": "○", "RING OPERATOR": "○", "WHITE BULLET": "○",
    "BLACK CIRCLE": "●", "BULLET": "●",
    "CHECK MARK": "✓", "WHITE CHECK MARK": "✓",
    "BALLOT X": "✗", "MULTIPLICATION X": "✗", "CROSS MARK": "✗", "BALLOT SCRIPT X": "✗", "SALTIRE": "✗",
    "MINUS SIGN": "-", "MODIFIER LETTER MINUS SIGN": "-", "HYPHEN-MINUS": "-", "MINUS": "-",
    "PRIME": "'", "MODIFIER LETTER PRIME": "'", "REVERSED PRIME": "'", "APOSTROPHE": "'", "DOUBLE PRIME": "''",
    "TRIPLE PRIME": "'''", "MODIFIER LETTER DOUBLE PRIME": "''",
    "MIDDLE DOT": "·", "DOT OPERATOR": "·", "BULLET OPERATOR": "·", "WORD SEPARATOR MIDDLE DOT": "·",
    "KATAKANA MIDDLE DOT": "·", "RAISED DOT": "·",
    "STAR OPERATOR": "*", "ASTERISK OPERATOR": "*", "LOW ASTERISK": "*",
    "LEFT SINGLE QUOTATION MARK": "'", "RIGHT SINGLE QUOTATION MARK": "'",
    "LEFT DOUBLE QUOTATION MARK": '"', "RIGHT DOUBLE QUOTATION MARK": '"',
    "TILDE OPERATOR": "~",
    # an ellipsis elides alike in any direction: a text layer writes the vertical one of a column as "..."
    "VERTICAL ELLIPSIS": "...", "MIDLINE HORIZONTAL ELLIPSIS": "...", "UP RIGHT DIAGONAL ELLIPSIS": "...",
    "DOWN RIGHT DIAGONAL ELLIPSIS": "...",
}
_SHAPE_WORD = re.compile("|".join(sorted({w for k in _SHAPES for w in k.split()} - {"LEFT", "RIGHT", "SIGN", "MARK",
                                                                                 "MODIFIER", "LETTER", "WHITE"})))
# The blocks tables draw symbols from: Latin-1 to CJK symbols, half/full-width forms, mathematical
# alphanumerics (𝛼, 𝐷: what PDF text of math fonts extracts as), pictographs.
_RANGES = ((0x00A0, 0x3040), (0xFE30, 0xFF70), (0x1D400, 0x1D800), (0x1F100, 0x1FBFF))


def _fold_table() -> tuple[dict[int, str], str]:
    """code point -> replacement for every glyph that prints like another; and the script characters."""
    table: dict[int, str] = {}
    scripts = []
    for lo, hi in _RANGES:
        for cp in range(lo, hi):
            ch = chr(cp)
            decomposition = unicodedata.decomposition(ch)
            if decomposition.startswith(("<super>", "<sub>")):
                scripts.append(ch)
                continue
            name = unicodedata.name(ch, "")
            shape = " ".join(_SIZE.sub(" ", name).split()) if _SHAPE_WORD.search(name) else ""
            if shape in _SHAPES:
                out = _SHAPES[shape]
            elif unicodedata.category(ch) == "Pd" and "WAV" not in name:  # dashes and hyphens, not wave dashes
                out = "-"
            elif unicodedata.category(ch) == "Zs":
                out = " "
            else:
                out = unicodedata.normalize("NFKC", ch)
            if out != ch:
                table[cp] = out
    return table, "".join(scripts)


_FOLD, _SCRIPT_CHARS = _fold_table()
_SCRIPT_RUN = re.compile(f"[{re.escape(_SCRIPT_CHARS)}]+")


def fold_glyphs(text: str) -> str:
    """`text` with every glyph replaced by the one spelling of its shape (see the module docstring)."""
    if text.isascii():
        return text
    text = _SCRIPT_RUN.sub(lambda m: " " + unicodedata.normalize("NFKC", m.group(0)), text)
    return unicodedata.normalize("NFC", text.translate(_FOLD))


# Marks a table uses as values, by class: the representative, then what prints like it in a cell
# of its own. `0` is a digit: it is the open mark only when compared (`same_mark`), never
# rewritten, so that a cell "0" stays a number for the header and stub reading.
MARKS = {"✓": "✓√☑", "✗": "✗×xX☒", "○": "○Oo☐□0"}
_MARK_OF = {ch: rep for rep, chars in MARKS.items() for ch in chars}


def fold_mark(cell: str) -> str:
    """A whole (glyph-folded) cell that is one mark, as its class's representative; other cells,
    and a digit, unchanged."""
    if len(cell) != 1 or cell.isdigit():
        return cell
    return _MARK_OF.get(cell, cell)


def same_mark(a: str, b: str) -> bool:
    """Whether two whole cells show the same mark (a digit that prints like one counts)."""
    return len(a) == 1 == len(b) and a in _MARK_OF and _MARK_OF[a] == _MARK_OF.get(b)
