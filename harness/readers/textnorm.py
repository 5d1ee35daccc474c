"""How a reader reads an output's text: the one owner of text normalisation, in two readings.

Each reading is a processor (a callable str -> str, as rapidfuzz's `processor=`) that every
scorer comparing text is given, so two scorers never answer differently what a character is:

- **as written** (`as_written`): the code points a reader of the page read, nothing more. Parsers
  write Greek tonos, Cyrillic й or Arabic hamza decomposed (base letter + combining mark) or
  composed, and pdftotext writes shaped Arabic as presentation forms (U+FB50-FDFF, U+FE70-FEFF):
  each base+marks cluster is composed (NFC) and those forms are folded to their letters. Nothing
  else changes: singletons such as the OHM SIGN stay distinct from Ω, as the reference
  implementations keep them. The readers read every cell so, and the reference metrics (TEDS,
  GriTS, T-LAG) compare what it gives, which keeps them equal to their references
  (../shared/conformance/metric_pairs.jsonl).
- **as a reader forgives** (`forgiven`): what prints alike reads alike. HTML entities are
  resolved (twice: Markdown escapes them again); invisible characters (soft hyphen, zero widths,
  word joiner, BOM) go; Unicode compatibility forms are folded (NFKC: ligatures ﬁ → fi,
  full-width letters, the ohm sign → Ω, µ → μ, no-break and thin spaces → space); typographic
  quotes, primes and guillemets become ' and ", every dash and the minus sign "-"; glyphs of one
  shape one glyph (`_SHAPES`: ◯ ○ ∘ are an open circle, ✓ ✔ a tick); a vulgar fraction is its
  digits and a slash (½ → 1/2, ¹⁄₈ → 1/8, as a typist writes it); a super- or subscript character
  is its plain character (Al₂O₃ → Al2O3, as a text layer writes it). Case is not forgiven here: a
  scorer that finds by content folds it with `fold_case`, which keeps Greek case (Ω, the ohm, is
  not ω).

The semantic score, the prose words of the text kind and the table locator's profiles read
`forgiven`; the reference metrics read `as_written`. The semantic score, which reads numbers,
first sets each run of scripts apart (`scripts_apart`: 91.2¹ → "91.2 1", so a footnote mark never
turns 91.2 into 91.21); its comparison of cells then ignores the space (β₂ and β2 agree).
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable
from dataclasses import replace

from tablebench.core.table import Table

Processor = Callable[[str], str]

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


as_written: Processor = cell_text_form  # the reading of the reference metrics (see the module docstring)


def read_as(table: Table, processor: Processor) -> Table:
    """`table` with each cell's text as `processor` reads it: the same table when nothing changes
    (a reader's table read `as_written` again), else a copy."""
    rows = [[(cell, processor(cell.text)) for cell in row] for row in table.rows]
    if all(text == cell.text for row in rows for cell, text in row):
        return table
    return Table([[replace(cell, text=text) for cell, text in row] for row in rows], table.fmt, table.span)


# -- as a reader forgives ------------------------------------------------------------------------
# Words of size, weight and colour-fill that change how big or bold a glyph is, not what it is.
_SIZE = re.compile(r"\b(?:VERY|EXTREMELY|SMALL|MEDIUM|LARGE|HEAVY|BOLD|LIGHT|THIN|SLIGHTLY|LOWER RIGHT SHADOWED|"
                   r"UPPER RIGHT SHADOWED|SHADOWED)\b")
# Shapes (a character's name after `_SIZE` is dropped) -> the one glyph each stands for.
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
    "LEFT SINGLE QUOTATION MARK": "'", "RIGHT SINGLE QUOTATION MARK": "'", "SINGLE LOW-9 QUOTATION MARK": "'",
    "SINGLE HIGH-REVERSED-9 QUOTATION MARK": "'",
    "LEFT DOUBLE QUOTATION MARK": '"', "RIGHT DOUBLE QUOTATION MARK": '"', "DOUBLE LOW-9 QUOTATION MARK": '"',
    "DOUBLE HIGH-REVERSED-9 QUOTATION MARK": '"', "LEFT-POINTING DOUBLE ANGLE QUOTATION MARK": '"',
    "RIGHT-POINTING DOUBLE ANGLE QUOTATION MARK": '"',
    "TILDE OPERATOR": "~", "FRACTION SLASH": "/",
    # an ellipsis elides alike in any direction: a text layer writes the vertical one of a column as "..."
    "VERTICAL ELLIPSIS": "...", "MIDLINE HORIZONTAL ELLIPSIS": "...", "UP RIGHT DIAGONAL ELLIPSIS": "...",
    "DOWN RIGHT DIAGONAL ELLIPSIS": "...",
}
_SHAPE_WORD = re.compile("|".join(sorted({w for k in _SHAPES for w in k.split()} - {"LEFT", "RIGHT", "SIGN", "MARK",
                                                                                 "MODIFIER", "LETTER", "WHITE"})))
# The blocks text draws symbols from, classed once at import: Latin-1 to CJK symbols, half/full-width
# forms, mathematical alphanumerics (𝛼, 𝐷: what PDF text of math fonts extracts as), pictographs.
# Outside them NFKC alone applies (ligatures ﬁ ﬂ, CJK compatibility units ㎏).
_RANGES = ((0x00A0, 0x3040), (0xFE30, 0xFF70), (0x1D400, 0x1D800), (0x1F100, 0x1FBFF))
_INVISIBLE = "\u00ad\u200b\u200c\u200d\u2060\ufeff"  # soft hyphen, zero widths, word joiner, BOM
_FRACTION = re.compile("[⁰¹²³⁴-⁹]+⁄[₀-₉]+|[¼½¾⅐-⅟↉]")  # ¹⁄₈ and ½ are what 1/8 and 1/2 look like


def _fold_table() -> tuple[dict[int, str | None], str]:
    """code point -> replacement for every glyph that prints like another (None: invisible); and
    the super- and subscript characters."""
    table: dict[int, str | None] = dict.fromkeys(map(ord, _INVISIBLE))
    scripts = []
    for lo, hi in _RANGES:
        for cp in range(lo, hi):
            ch = chr(cp)
            if cp in table:
                continue
            if unicodedata.decomposition(ch).startswith(("<super>", "<sub>")):
                scripts.append(ch)  # its plain character, folded as that one is (⁻ is "-"), below
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
    for ch in scripts:
        plain = unicodedata.normalize("NFKC", ch)
        table[ord(ch)] = "".join(str(table.get(ord(c)) or c) for c in plain)
    return table, "".join(scripts)


_FOLD, _SCRIPT_CHARS = _fold_table()
_SCRIPT_RUN = re.compile(f"[{re.escape(_SCRIPT_CHARS)}]+")


def forgiven(text: str) -> str:
    """`text` as a reader forgives it (see the module docstring): what prints alike, alike."""
    if text.isascii() and "&" not in text:  # already in every normal form: most text of most outputs
        return text
    if "&" in text:
        text = html.unescape(html.unescape(text))
        if text.isascii():
            return text
    if "⁄" in text or _FRACTION.search(text):
        text = _FRACTION.sub(lambda m: unicodedata.normalize("NFKC", m.group(0)), text)
    return unicodedata.normalize("NFKC", text.translate(_FOLD)).replace("⁄", "/")


def scripts_apart(text: str) -> str:
    """`text` with each run of super- or subscript characters set apart by a space, as its plain
    text (91.2¹ → "91.2 1"), a fraction of them read as the fraction (¹⁄₈ → 1/8): what a reader
    of numbers keeps apart before forgiving the rest (`forgiven` alone reads 91.2¹ as 91.21)."""
    if text.isascii():
        return text
    if "⁄" in text or _FRACTION.search(text):
        text = _FRACTION.sub(lambda m: unicodedata.normalize("NFKC", m.group(0)).replace("⁄", "/"), text)
    return _SCRIPT_RUN.sub(lambda m: " " + unicodedata.normalize("NFKC", m.group(0)), text)


_GREEK_RUN = re.compile("([\u0370-\u03ff]+)")


def fold_case(text: str) -> str:
    """`text` case folded for finding it, Greek keeping its case (Γ ≠ γ, Ω ≠ ω: another symbol).
    Case folding maps character by character, so folding the runs between Greek letters is
    folding each."""
    if text.isascii():  # no Greek letter: the common case, without the split
        return text.casefold()
    parts = _GREEK_RUN.split(text)
    if len(parts) == 1:
        return text.casefold()
    return "".join(part if i % 2 else part.casefold() for i, part in enumerate(parts))
