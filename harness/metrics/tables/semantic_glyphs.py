"""A cell that is one mark, read by the mark's shape (yes / no / partly).

Glyphs that print alike are folded by the one reading of what a reader forgives
(`tablebench.readers.textnorm.forgiven`: ◯ ○ ∘ are an open circle, ✓ ✔ a tick). What is the
semantic score's own is a whole cell: the glyphs, letters and digits that print like a mark in a
cell of their own are that mark (`MARKS`: text layers and OCR write ✓ as √, ✗ as × or x, ◯ as O or
0, a box ☐ for an open circle). Inside longer text they are other things (√2, 2×3, x86, O(n)), so
only a whole cell is read so.
"""

from __future__ import annotations

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
