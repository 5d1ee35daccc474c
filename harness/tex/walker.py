"""The walk over LaTeX tokens that writes what the page shows, in Unicode (`latex_math`'s engine).

`Walker(toks, handlers).render(i, j, math)` reads toks[i:j] in text or math mode: text and
spaces, groups, `$` switches, scripts, accents, and every command family the data tables of
`commands` and `symbols` describe (symbols, spacing, dropped arguments, styles that show
their last argument, function names, citations). Commands with a layout of their own
(fractions, roots, siunitx, environments, ...) are the `handlers` table `latex_math` passes.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from tablebench.tex.arguments import Arg, group_arg, optional_arg, read_args, skip_space, star
from tablebench.tex.commands import (
    CITE_ARGS,
    CITES,
    DROPPED_ARGS,
    FUNCTION_NAMES,
    REF_ARGS,
    REFS,
    SHOW_LAST,
    SPACES,
    STARRABLE,
    TEXT_IN_MATH,
)
from tablebench.tex.scripts import to_subscript, to_superscript
from tablebench.tex.symbols import ACCENT_MARKS, DOUBLE_STRUCK, OPERATORS, SPACED_OPERATORS, SYMBOLS, UNITS
from tablebench.tex.tokens import Token, Tokens, close_brace

MAX_DEPTH = 64  # nested groups rendered structurally; deeper input is read as plain text
# A command with its own layout: (walker, first index after the name, window end, math mode, name)
# -> (its text, the index after its arguments).
Handler = Callable[["Walker", int, int, bool, str], tuple[str, int]]


class Walker:
    """Walks a token list and writes what the page shows; `math` is the current mode."""

    def __init__(self, toks: list[Token], handlers: dict[str, Handler]) -> None:
        self.toks = toks if isinstance(toks, Tokens) else Tokens(toks)  # brace matching stays linear
        self.handlers = handlers  # commands with a layout of their own (fractions, roots, ..)
        self.units = False  # inside siunitx \SI / \si unit arguments
        self.depth = 0  # nesting of render calls

    # -- driving ------------------------------------------------------------------
    def render(self, i: int, j: int, math: bool) -> str:
        """Render toks[i:j]; past MAX_DEPTH nested groups only the plain text is kept (never a crash)."""
        if self.depth >= MAX_DEPTH:
            return "".join(t[1] for t in self.toks[i:j] if t[0] in ("text", "space"))
        self.depth += 1
        try:
            return self._render(i, j, math)
        finally:
            self.depth -= 1

    def _render(self, i: int, j: int, math: bool) -> str:
        """Render toks[i:j]; a top-level `\\over` makes it a fraction."""
        over = self._find_over(i, j)
        if over is not None:
            num = self.render(i, over, math).strip()
            den = self.render(over + 1, j, math).strip()
            return f"({num} {den})" if self.toks[over][1] == "choose" else fraction(num, den)
        out: list[str] = []
        toks = self.toks
        while i < j:
            kind, value, _, _ = toks[i]
            if kind == "text":
                out.append(_text_ligatures(value) if not math else value.replace("'", "′"))
                i += 1
            elif kind == "space":
                out.append(" ")
                i += 1
            elif kind == "cmd":
                text, i = self.command(i, j, math)
                out.append(text)
            elif kind == "{":
                k = close_brace(toks, i, j)
                out.append(self.render(i + 1, k, math))
                i = k + 1
            elif kind in ("$", "$$"):
                math = not math
                i += 1
            elif kind in ("^", "_"):
                if math:
                    text, i = self._script(i, j, math, kind == "^")
                    out.append(text)
                else:  # a compile error in text mode; parsers' LaTeX means the character itself
                    out.append(value)
                    i += 1
            elif kind == "~":
                out.append(" ")
                i += 1
            elif kind == "&":
                out.append(" ")
                i += 1
            elif kind == "verb":
                out.append(value)
                i += 1
            elif kind == "}":
                i += 1
            else:  # [ ] # *
                out.append(value)
                i += 1
        return "".join(out)

    def _find_over(self, i: int, j: int) -> int | None:
        toks = self.toks
        k = i
        while k < j:
            kind = toks[k][0]
            if kind == "{":
                k = close_brace(toks, k, j)
            elif kind == "cmd" and toks[k][1] in ("over", "choose"):
                return k
            k += 1
        return None

    def arg_text(self, arg: Arg | None, math: bool) -> str:
        """An argument's rendered text ('' when it is absent)."""
        return "" if arg is None else self.render(arg[0], arg[1], math)

    def args(self, i: int, j: int, spec: str) -> tuple[list[Arg | None], int]:
        """The arguments of a spec (see `arguments.read_args`) and the next index."""
        return read_args(self.toks, i, j, spec)

    # -- scripts ------------------------------------------------------------------
    def _script(self, i: int, j: int, math: bool, sup: bool) -> tuple[str, int]:
        """`^x` / `_{..}`: Unicode scripts when every character has one, else the plain text."""
        k = skip_space(self.toks, i + 1, j)
        if k >= j:
            return "", j
        kind, value, s, e = self.toks[k]
        if kind == "text" and len(value) > 1:  # only the first character is the argument
            inner, rest = value[0], value[1:]
            conv = to_superscript(inner) if sup else to_subscript(inner)
            return (conv if conv is not None else inner) + rest, k + 1
        if kind == "cmd":  # `_\mathrm{max}`: the command takes its own arguments
            inner, nxt = self.command(k, j, True)
            conv = to_superscript(inner) if sup else to_subscript(inner)
            return (conv if conv is not None else inner.strip()), nxt
        arg = group_arg(self.toks, k, j)
        if arg is None:
            return "", k
        inner = self.render(arg[0], arg[1], True)
        conv = to_superscript(inner) if sup else to_subscript(inner)
        return (conv if conv is not None else inner.strip()), arg[2]

    # -- commands -----------------------------------------------------------------
    def command(self, i: int, j: int, math: bool) -> tuple[str, int]:
        """Render the command at i (with its arguments): (text, next index)."""
        if self.depth >= MAX_DEPTH:  # e.g. thousands of chained accents: skip the name
            return "", i + 1
        self.depth += 1
        try:
            return self._command_at(i, j, math)
        finally:
            self.depth -= 1

    def _command_at(self, i: int, j: int, math: bool) -> tuple[str, int]:
        toks = self.toks
        name = toks[i][1]
        nxt = i + 1
        is_word = name[:1].isalpha() or name[:1] == "@"
        # TeX drops the space after a control word; in math the author's space after an
        # operator or relation is kept ("a \leq b" -> "a ≤ b"), after anything else dropped.
        eat = is_word and not (math and SYMBOLS.get(name, "x") in SPACED_OPERATORS)
        if is_word and nxt < j and toks[nxt][0] == "*" and name in STARRABLE:
            nxt += 1
        if self.units and name in UNITS:
            return UNITS[name], _skip_word_space(toks, nxt, j, eat)
        handler = self.handlers.get(name)
        if handler is not None:
            return handler(self, nxt, j, math, name)
        if name in DROPPED_ARGS:
            _, k = self.args(nxt, j, DROPPED_ARGS[name])
            out = " " if name == "hspace" else ""
            return out, k
        if name in SHOW_LAST:
            args, k = self.args(nxt, j, SHOW_LAST[name])
            last = args[-1] if args else None
            text = self.arg_text(last, math and name not in TEXT_IN_MATH)
            return _STYLE_POST.get(name, _identity)(text), k
        if name in SYMBOLS:
            return SYMBOLS[name], _skip_word_space(toks, nxt, j, eat)
        if name in SPACES:
            k = nxt
            if name in ("\\", "newline", "tabularnewline", "cr"):
                k = star(toks, k, j)
                o = optional_arg(toks, k, j)
                k = o[2] if o else k
            elif name in ("left", "right", "middle", "big", "Big", "bigg", "Bigg", "bigl",
                          "bigr", "Bigl", "Bigr", "biggl", "biggr", "Biggl", "Biggr"):
                k = skip_space(toks, k, j)
                if k < j and toks[k][0] == "text" and toks[k][1].startswith("."):
                    rest = toks[k][1][1:]
                    return rest, k + 1
                return "", k
            return SPACES[name], _skip_word_space(toks, k, j, eat)
        if name in ACCENT_MARKS:
            return self._accent(nxt, j, math, name)
        if name in FUNCTION_NAMES:  # \log x keeps its space in math, as TeX spaces it
            return name, _skip_word_space(toks, nxt, j, is_word and not math)
        if name in CITES:
            _, k = self.args(nxt, j, CITE_ARGS)
            return "[?]", k
        if name in REFS:
            _, k = self.args(nxt, j, REF_ARGS)
            return "??", k
        if not is_word:  # an unknown control symbol prints itself (\| \, etc. handled above)
            return name, nxt
        # Unknown control word: drop the name and an immediate [..]; braced args read as text.
        k = nxt
        if k < j and toks[k][0] == "[":
            o = optional_arg(toks, k, j)
            if o:
                k = o[2]
        return "", _skip_word_space(toks, k, j, eat)

    def _accent(self, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
        mark = ACCENT_MARKS[name]
        k = skip_space(self.toks, i, j) if name.isalpha() else i
        if k < j and self.toks[k][0] == "text":
            value = self.toks[k][1]
            return unicodedata.normalize("NFC", value[0] + mark) + value[1:], k + 1
        if k < j and self.toks[k][0] == "cmd":  # \"\i: the command reads its own arguments
            inner, nxt = self.command(k, j, math)
            arg = (k, k, nxt)
        else:
            arg = group_arg(self.toks, k, j)
            if arg is None:
                return "", k
            inner = self.render(arg[0], arg[1], math)
        inner = inner.replace("ı", "i").replace("ȷ", "j")  # an accent sits on the dotless form
        if name == "overline":
            return "".join(ch + mark for ch in inner) if len(inner) <= 3 else inner, arg[2]
        if not inner:
            return "", arg[2]
        return unicodedata.normalize("NFC", inner[0] + mark + inner[1:]) if len(inner) == 1 \
            else unicodedata.normalize("NFC", inner + mark), arg[2]


def _skip_word_space(toks: list[Token], k: int, j: int, is_word: bool) -> int:
    """TeX eats the white space after a control word."""
    if is_word and k < j and toks[k][0] == "space":
        return k + 1
    return k


def _identity(text: str) -> str:
    return text


def fraction(num: str, den: str) -> str:
    """`a/b`, each part in parentheses when it holds an operator: `(a+b)/2`."""
    num, den = num.strip(), den.strip()
    return f"{_paren(num)}/{_paren(den)}"


def _paren(text: str) -> str:
    if len(text) > 1 and any(ch in OPERATORS for ch in text):
        return f"({text})"
    return text


_TEXT_LIGATURES = re.compile(r"---|--|``|''|!`|\?`")
_LIGATURE = {"---": "—", "--": "–", "``": "“", "''": "”", "!`": "¡", "?`": "¿"}


def _text_ligatures(value: str) -> str:
    """Text-mode ligatures: -- en dash, --- em dash, `` and '' curly double quotes."""
    if "-" not in value and "`" not in value and "'" not in value:
        return value
    return _TEXT_LIGATURES.sub(lambda m: _LIGATURE[m.group(0)], value)


def double_struck(text: str) -> str:
    """Letters with a double-struck form (`R` -> `ℝ`) take it; others stay."""
    return "".join(DOUBLE_STRUCK.get(ch, ch) for ch in text)


_STYLE_POST: dict[str, Callable[[str], str]] = {
    "mathbb": double_struck, "mathds": double_struck, "mathbbm": double_struck,
    "uppercase": str.upper, "MakeUppercase": str.upper, "lowercase": str.lower,
}
