"""Plain parser text read the way a reader sees it: canonical formula tokens with their offsets.

Text-only parsers (pymupdf4llm, pdfplumber, ...) write math as decorated Unicode:
`_ξ_<sup>2</sup>`, `N<sup>_d_</sup>`, `_n_ ¯`, `𝑥²`. A reader sees `ξ^{2}`, `N^{d}`, `\\bar{n}`,
`x^{2}`; `reader_tokens` gives the same canonical tokens `parse.canonical_tokens` gives for
that LaTeX (letter styles dropped, see `gt_tokens`), each with the span of the source text it
came from, so a ground-truth formula can be matched as an exact token span of a line.

Read as formatting (no token): Markdown emphasis `_ * \\``, HTML formatting tags, spaces.
Read as structure: `<sup>..</sup>` / superscript characters -> `^{ .. }`, `<sub>..</sub>` /
subscript characters -> `_{ .. }`; a spacing or combining accent (`¯ ˆ ˜ ˙ ¨`, U+0304..) on the
letter it follows (or, with no letter before it, the letter it precedes) -> `\\bar{ x }`.
A relation struck through (`∈/`, `/∈`, `θ̸ =` with U+0338 on the letter before) -> its negation (`∉`, `≠`).
Unicode math letters (`𝑥`, `ℕ`, `ℎ`) -> their base letter, like the styles dropped in `gt_tokens`.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from tablebench.tex.formula import FormulaError, canonical_tokens
from tablebench.tex.scripts import to_subscript, to_superscript
from tablebench.tex.symbols import DOUBLE_STRUCK_LETTERS, EQUIVALENT, NEGATED

Token = tuple[str, int, int]  # (canonical token, start, end in the source text)

# Spacing forms and combining marks of the accents `parse.ACCENTS` keeps.
ACCENT_CHARS = {"¯": "bar", "\u0304": "bar", "\u0305": "bar", "ˉ": "bar", "ˆ": "hat", "\u0302": "hat",
                "˜": "tilde", "\u0303": "tilde", "˙": "dot", "\u0307": "dot", "¨": "ddot", "\u0308": "ddot",
                "\u20d7": "vec", "ˇ": "check", "\u030c": "check", "˘": "breve", "\u0306": "breve",
                "´": "acute", "\u0301": "acute", "`": "grave", "\u0300": "grave"}
ACCENT_CHARS.pop("`")  # a backtick is Markdown code, not a grave accent
_SUP = {to_superscript(c): c for c in "0123456789+-=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVW"
        if to_superscript(c)}
_SUB = {to_subscript(c): c for c in "0123456789+-=()aehijklmnoprstuvx" if to_subscript(c)}
# a style tag's end is searched up to the next `<` only (`[^<>]*`): linear on openers without `>` (issue 46)
_PIECE = re.compile(r"<(/?)(sup|sub)\s*>|</?(?:em|strong|i|b|span|code)\b[^<>]*>|[*_`\s]+|.", re.S | re.I)


def base_char(c: str) -> str:
    """One character as a reader names it: equivalent symbols unified, math letters to their base."""
    c = EQUIVALENT.get(c, c)
    if c in DOUBLE_STRUCK_LETTERS:
        return DOUBLE_STRUCK_LETTERS[c]
    if not c.isascii() and (0x1D400 <= ord(c) <= 0x1D7FF or c == "ℎ"):
        return unicodedata.normalize("NFKC", c)
    return c


def reader_tokens(text: str) -> list[Token]:
    """Canonical tokens of decorated Unicode text, each with its source span (see module doc)."""
    out: list[Token] = []
    open_scripts: list[int] = []  # depth counter for tags, to ignore a stray closing tag
    pending_accent: tuple[str, int, int] | None = None  # an accent waiting for the next letter
    pending_not = -1  # end of a negation overlay (U+0338) waiting for the next relation
    for m in _PIECE.finditer(text):
        s, a, b = m.group(0), m.start(), m.end()
        if m.group(2):  # <sup>, </sup>, <sub>, </sub>
            if not m.group(1):
                opener = "^{" if m.group(2).lower() == "sup" else "_{"
                if out and out[-1][0] == "}" and _near(text, out[-1][2], a) and _last_opener(out) == opener:
                    out.pop()  # `<sup>−</sup><sup>k</sup>`: one superscript
                else:
                    out.append((opener, a, b))
                open_scripts.append(len(out))
            elif open_scripts:
                open_scripts.pop()
                out.append(("}", a, b))
            continue
        if len(s) > 1 or s in "*_`" or s.isspace():
            continue  # formatting tag, emphasis or spacing
        if s in ACCENT_CHARS:
            if out and out[-1][0].isalpha() and len(out[-1][0]) == 1 and _near(text, out[-1][2], a) \
                    and not text[max(0, out[-1][1] - 1):out[-1][1]].isalnum():  # a lone letter, not a word's end
                tok, ta, tb = out.pop()
                out += [(f"\\{ACCENT_CHARS[s]}{{", ta, tb), (tok, ta, tb), ("}", a, b)]
            else:
                pending_accent = (ACCENT_CHARS[s], a, b)
            continue
        if s in _SUP or s in _SUB:
            table, opener = (_SUP, "^{") if s in _SUP else (_SUB, "_{")
            if not (out and out[-1][0] == "}" and out[-1][1] == a and _last_opener(out) == opener):
                out.append((opener, a, a))
            else:
                out.pop()  # extend the script run just closed
            out += [(base_char(table[s]), a, b), ("}", b, b)]
            continue
        struck = bool(out) and out[-1][0] in NEGATED and _near(text, out[-1][2], a)
        if s == "\u0338" or (s == "/" and struck):
            if struck:
                tok, ta, _ = out.pop()
                out.append((NEGATED[tok], ta, b))  # `∈/`, `≠`: the relation struck through
            elif s == "\u0338":
                pending_not = b
            else:
                out.append(("/", a, b))
            continue
        c = base_char(s)
        if pending_not >= 0 and c in NEGATED and _near(text, pending_not, a):
            out.append((NEGATED[c], a, b))
            pending_not = -1
            continue
        if c in NEGATED and out and out[-1][0] == "/" and out[-1][2] == a:
            out[-1] = (NEGATED[c], out[-1][1], b)  # `/∈`: the stroke set before the relation
            continue
        pending_not = -1 if pending_not >= 0 and not s.isalnum() else pending_not
        if pending_accent and c.isalpha() and _near(text, pending_accent[2], a):
            name, pa, _ = pending_accent
            out += [(f"\\{name}{{", pa, b), (c, a, b), ("}", b, b)]
        else:
            out.append((c, a, b))
        pending_accent = None
    return out


def _near(text: str, end: int, start: int) -> bool:
    """Only formatting (emphasis, at most one space) between two pieces of the text."""
    gap = text[end:start]
    return len(gap.replace("_", "").replace("*", "")) <= 1 and (not gap or not gap.strip("_* "))


def _last_opener(out: list[Token]) -> str:
    """The opener of the script group `out` ends with."""
    depth = 0
    for tok, _, _ in reversed(out):
        if tok == "}":
            depth += 1
        elif tok.endswith("{"):
            depth -= 1
            if depth == 0:
                return tok
    return ""


@lru_cache(maxsize=8192)
def gt_tokens(latex: str) -> tuple[str, ...]:
    """A ground-truth formula's canonical tokens without letter styles (`bb:N` -> `N`): text has none."""
    try:
        tokens = canonical_tokens(latex)
    except FormulaError:
        return ()
    return tuple(t.split(":", 1)[1] if ":" in t[1:] and not t.startswith("\\") else t for t in tokens)
