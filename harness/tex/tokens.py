"""The one LaTeX tokenizer: tokens with their source offsets, and where each `{` closes.

Every reader of LaTeX in the package starts here: the table reader and the Unicode renderer
(`tokenize`), the formula parser (`formula.lex`: the same tokens without `\\verb`, split into
characters), and the macro expander (`brace_group`: a braced group read by the tokenizer's
command rule from any offset of a raw text). A token is `(kind, value, start, end)`: kind is
"cmd" (value = the name without its backslash), "text", "space", "verb" (value = the
verbatim content) or the character itself for `{ } [ ] $ $$ & ^ _ ~ # *`. `%` comments are
dropped with their line end and the indentation after it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

Token = tuple[str, str, int, int]

_VERB = r"(?P<verb>\\verb\*?([^A-Za-z\s*])(.*?)(?:\2|$))|"
_COMMAND = r"\\(?P<cmd>[A-Za-z@]+|.|\n|$)"
_REST = (r"|(?P<comment>%[^\n]*\n?[ \t]*)"
         r"|(?P<space>\s+)"
         r"|(?P<dollar>\$\$?)"
         r"|(?P<char>[{}\[\]&^_~#*])"
         r"|(?P<text>[^\\%\s${}\[\]&^_~#*]+)")
_PATTERNS = {verbatim: re.compile((_VERB if verbatim else "") + _COMMAND + _REST, re.S) for verbatim in (True, False)}
# What a raw brace scan reads: commands (which hide the brace after a backslash) and braces.
_BRACES = re.compile(_COMMAND + r"|(?P<brace>[{}])", re.S)


def token_pattern(verbatim: bool = True) -> re.Pattern[str]:
    """The tokenizer's regex; without `verbatim`, `\\verb` is an ordinary command (math has none)."""
    return _PATTERNS[verbatim]


def match_braces(kinds: Sequence[str]) -> list[int]:
    """For each `{` in `kinds`, the index of its matching `}` (len(kinds) when it never closes).

    Entries that are not `{` get len(kinds) too; a `}` with nothing open is skipped.
    """
    n = len(kinds)
    out = [n] * n
    stack: list[int] = []
    for k, kind in enumerate(kinds):
        if kind == "{":
            stack.append(k)
        elif kind == "}" and stack:
            out[stack.pop()] = k
    return out


class Tokens(list):
    """A token list that knows, once computed, where each `{` closes (keeps brace matching linear)."""

    _closers: list[int] | None = None

    def closers(self) -> list[int]:
        """closers()[i] is the index of the `}` matching a `{` at i (len(self) when unclosed)."""
        if self._closers is None:
            self._closers = match_braces([tok[0] for tok in self])
        return self._closers


def tokenize(text: str, verbatim: bool = True) -> Tokens:
    """Split LaTeX into tokens in one pass; `%` comments (not `\\%`) vanish with their line end."""
    out = Tokens()
    append = out.append
    for m in token_pattern(verbatim).finditer(text):
        kind = m.lastgroup
        s, e = m.span()
        if kind == "text":
            append(("text", m.group("text"), s, e))
        elif kind == "cmd":
            append(("cmd", m.group("cmd"), s, e))
        elif kind == "space":
            append(("space", " ", s, e))
        elif kind == "char":
            c = m.group("char")
            append((c, c, s, e))
        elif kind == "dollar":
            d = m.group("dollar")
            append((d, d, s, e))
        elif kind == "verb":
            append(("verb", m.group(3), s, e))
        # comments are dropped
    return out


def close_brace(toks: Tokens, i: int, j: int) -> int:
    """Index of the `}` closing the `{` at i, or j when it does not close before j."""
    if not isinstance(toks, Tokens):
        toks = Tokens(toks)
    return min(toks.closers()[i], j)


def brace_group(text: str, i: int) -> tuple[str, int] | None:
    """The balanced {...} at text[i] (after spaces): its content and the index after it.

    Read by the tokenizer's command rule, every brace counted (also in a `%` comment): a
    backslash escapes the next character (`\\{`, `\\}`, and `\\\\` before a brace). None when
    no group starts there or it never closes.
    """
    while i < len(text) and text[i] in " \t\n":
        i += 1
    if i >= len(text) or text[i] != "{":
        return None
    depth = 0
    for m in _BRACES.finditer(text, i):
        brace = m.group("brace")
        if brace == "{":
            depth += 1
        elif brace == "}":
            depth -= 1
            if depth == 0:
                return text[i + 1 : m.start()], m.end()
    return None
