"""One Unicode form for cell text, whatever code points a parser chose for the same glyphs.

Why in the readers: metrics keep their reference definitions (TEDS, GriTS, T-LAG compare code
points), so equal text must arrive as equal code points. Parsers write Greek tonos, Cyrillic
й or Arabic hamza decomposed (base letter + combining mark) or composed, and pdftotext writes
shaped Arabic as presentation forms (U+FB50-FDFF, U+FE70-FEFF). Each base+marks cluster is
composed (NFC) and those forms are folded to their letters: the text a reader of the page
sees. Nothing else changes: singletons such as the OHM SIGN stay distinct from Ω, as the
reference implementations keep them (a conformance pair checks exactly that).
"""

from __future__ import annotations

import re
import unicodedata

# combining marks of the BMP (vowel signs, virama, harakat, accents); `re`'s \w leaves them out
MARKS = "".join(chr(c) for c in range(0x300, 0x10000) if unicodedata.category(chr(c)) in ("Mn", "Mc", "Me"))
_CLUSTER = re.compile(f"[^{MARKS}][{MARKS}]+")
_PRESENTATION = re.compile("[\ufb50-\ufdff\ufe70-\ufeff]+")


# Inline HTML tags that only style the text they wrap: a reader of the page sees the text alone,
# so readers and scores drop them without a trace (others, like <sup> or <br>, separate).
STYLE_TAGS = ("b", "big", "code", "del", "em", "font", "i", "ins", "mark", "s", "small", "span", "strong", "tt", "u")

# An italic symbol a converter glued into its words: J_·_kg, 1.77_ ×_ 1015 (a reader sees J·kg, 1.77 × 1015).
GLUED_SYMBOL_ITALIC = re.compile(r"(?<=[\w)\]])_(\s?[^\w\s\\]{1,3}\s?)_(?=[\s\w(\[])")


# Markup as a score or a locator drops it from text, in two readings kept apart on purpose (each
# decides scores and spans as it stands):
# any tag: "<" to the next ">" within 200 characters, whatever is inside (the semantic score's cell
# text, the label line between two table fragments), so "a < b > c" loses "< b >";
ANY_TAG = re.compile(r"<[^>]{0,200}>")
# an element's tag: "<" or "</", a letter, no "<" inside (the locator's content profile), so the
# words and numbers of "1 < 2 > 0" stay.
ELEMENT_TAG = re.compile(r"</?[A-Za-z][^<>]{0,200}>")


def tag_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    """Opening or closing tags of `names`, with any attributes (case-insensitive)."""
    return re.compile(r"</?(?:" + "|".join(sorted(names)) + r")\b[^<>]*>", re.IGNORECASE)


def cell_text_form(text: str) -> str:
    """`text` with base+mark clusters composed and Arabic presentation forms folded to letters."""
    if text.isascii():
        return text
    text = _PRESENTATION.sub(lambda m: unicodedata.normalize("NFKC", m.group(0)), text)
    return _CLUSTER.sub(lambda m: unicodedata.normalize("NFC", m.group(0)), text)
