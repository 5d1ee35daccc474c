"""Simple LaTeX macros defined in a source, expanded with hard bounds: one expander for all.

The LaTeX reader uses it so a table that uses its own `\\newcommand` reads as the page shows
it; `tablebench harvest` uses it so a paper's table compiles standalone. Recognised:
`\\newcommand`/`\\renewcommand`/`\\providecommand`/`\\DeclareRobustCommand` (with `[n]` arguments
and an optional first argument's default), `\\def\\name{..}` without parameter text, and
`\\DeclareMathOperator`.

Expansion is bounded because its input is untrusted: a 100 KB macro used 2,000 times would
make 200 MB. Each macro's body is expanded once (memoised) and a macro that reaches itself
is refused, so there are no rounds to run away; every run has a budget of output characters
and of substitutions, and anything over it raises `MacroExpansionError` with one line.
Braced names, bodies and arguments are read by the shared scanner (`tokens.brace_group`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tablebench.tex.tokens import brace_group

MAX_CHARS = 400_000  # output of one expansion run (a real table is far below)
MAX_STEPS = 20_000  # macro substitutions in one run
MAX_DEPTH = 32  # macros in macro arguments, nested

_NEWCOMMAND = re.compile(r"\\(?:newcommand|renewcommand|providecommand|DeclareRobustCommand)\*?\s*")
_DEF = re.compile(r"\\def\s*\\([A-Za-z@]+)\s*\{")
_MATHOP = re.compile(r"\\DeclareMathOperator\*?\s*\{?\\([A-Za-z]+)\}?\s*\{")
_NAME = re.compile(r"\\[A-Za-z@]+")
_NARGS = re.compile(r"\s*\[(\d)\]")
_OPTIONAL = re.compile(r"\s*\[([^\]]*)\]")
_ENDS_IN_WORD = re.compile(r"\\[A-Za-z@]+$")
_PARAM = re.compile(r"#([1-9])")


class MacroExpansionError(ValueError):
    """Expanding the macros would exceed a bound (size, steps, nesting) or never end."""


@dataclass(frozen=True, slots=True)
class Macro:
    """A simple macro: how many arguments, the default of an optional first one, its body."""

    nargs: int
    default: str | None
    body: str


@dataclass(frozen=True, slots=True)
class Definition:
    """Where a macro is defined in the source: `text[start:end]` is the whole definition."""

    name: str
    macro: Macro
    start: int
    end: int


def find_definitions(text: str) -> list[Definition]:
    """Every simple macro definition in `text`, in order (a later one overrides an earlier one)."""
    found: list[Definition] = []
    for m in _NEWCOMMAND.finditer(text):
        i = m.end()
        if text.startswith("{", i):
            g = brace_group(text, i)
            if g is None:
                continue
            name, i = g[0].strip(), g[1]
        else:
            nm = _NAME.match(text, i)
            if not nm:
                continue
            name, i = nm.group(0), nm.end()
        if not _NAME.fullmatch(name):
            continue
        nargs, default = 0, None
        am = _NARGS.match(text, i)
        if am:
            nargs, i = int(am.group(1)), am.end()
            dm = _OPTIONAL.match(text, i)
            if dm:
                default, i = dm.group(1), dm.end()
        body = brace_group(text, i)
        if body is not None:
            found.append(Definition(name[1:], Macro(nargs, default, body[0]), m.start(), body[1]))
    for m in _DEF.finditer(text):
        body = brace_group(text, m.end() - 1)
        if body is not None:
            found.append(Definition(m.group(1), Macro(0, None, body[0]), m.start(), body[1]))
    for m in _MATHOP.finditer(text):
        body = brace_group(text, m.end() - 1)
        if body is not None:
            found.append(Definition(m.group(1), Macro(0, None, f"\\operatorname{{{body[0]}}}"), m.start(), body[1]))
    return sorted(found, key=lambda d: d.start)


def find_macros(text: str) -> dict[str, Macro]:
    """name (without backslash) -> `Macro` of every simple macro defined in `text`."""
    return {d.name: d.macro for d in find_definitions(text)}


def strip_definitions(text: str, definitions: list[Definition]) -> str:
    """`text` without the given definitions (they print nothing where they stand)."""
    out, pos = [], 0
    for d in definitions:
        if d.start >= pos:
            out.append(text[pos : d.start])
            pos = d.end
    return "".join(out) + text[pos:]


class Expander:
    """Expands uses of `macros` in texts; one budget of characters and steps for all its runs."""

    def __init__(self, macros: dict[str, Macro], max_chars: int = MAX_CHARS, max_steps: int = MAX_STEPS) -> None:
        self.macros = macros
        self.chars_left = max_chars
        self.steps_left = max_steps
        self.max_chars, self.max_steps = max_chars, max_steps
        self._bodies: dict[str, str] = {}
        names = sorted(map(re.escape, macros), key=len, reverse=True)
        self._use = re.compile(r"\\(" + "|".join(names) + r")(?![A-Za-z@])") if names else None

    def uses(self, text: str) -> bool:
        """Whether `text` uses one of the macros (a cheap test before expanding)."""
        return self._use is not None and self._use.search(text) is not None

    def expand(self, text: str) -> str:
        """`text` with every use expanded; `MacroExpansionError` when a bound is exceeded."""
        return self._expand(text, (), 0)

    # -- internals -----------------------------------------------------------------------
    def _charge(self, chars: int) -> None:
        self.steps_left -= 1
        self.chars_left -= chars
        if self.steps_left < 0:
            raise MacroExpansionError(f"macro expansion needs more than {self.max_steps} substitutions")
        if self.chars_left < 0:
            raise MacroExpansionError(f"macro expansion makes more than {self.max_chars} characters")

    def _body(self, name: str, stack: tuple[str, ...]) -> str:
        """The macro's body with the macros it uses expanded (its `#k` left in place), memoised."""
        if name in stack:
            loop = " -> ".join(f"\\{n}" for n in (*stack[stack.index(name):], name))
            raise MacroExpansionError(f"recursive macro {loop}")
        if name not in self._bodies:
            self._bodies[name] = self._expand(self.macros[name].body, (*stack, name), 0)
        return self._bodies[name]

    def _substitute(self, body: str, args: list[str], stack: tuple[str, ...], depth: int) -> str:
        """`body` with `#k` replaced by the expanded k-th argument; charged before it is built."""
        slots = [int(k) for k in _PARAM.findall(body)]
        expanded = {k: self._expand(args[k - 1], stack, depth + 1) for k in set(slots) if k <= len(args)}
        self._charge(len(body) + sum(len(expanded.get(k, "")) for k in slots))
        if not expanded:
            return body
        return _PARAM.sub(lambda m: expanded.get(int(m.group(1)), m.group(0)), body)

    def _expand(self, text: str, stack: tuple[str, ...], depth: int) -> str:
        if self._use is None:
            return text
        if depth > MAX_DEPTH:
            raise MacroExpansionError(f"macros nested deeper than {MAX_DEPTH} levels")
        out: list[str] = []
        pos = 0
        for m in self._use.finditer(text):
            if m.start() < pos:
                continue
            name = m.group(1)
            macro = self.macros[name]
            i = m.end()
            args: list[str] = []
            if macro.default is not None:
                om = _OPTIONAL.match(text, i)
                args.append(om.group(1) if om else macro.default)
                i = om.end() if om else i
            while len(args) < macro.nargs:
                g = brace_group(text, i)
                if g is None:
                    break
                args.append(g[0])
                i = g[1]
            if len(args) < macro.nargs:
                continue  # malformed use: left for pdflatex to judge
            piece = self._substitute(self._body(name, stack), args, stack, depth)
            if macro.nargs == 0:  # TeX skips the spaces after a control word
                while i < len(text) and text[i] in " \t":
                    i += 1
            if _ENDS_IN_WORD.search(piece):
                piece += " "  # \foo -> \alpha: keep it from fusing with a following letter
            out.append(text[pos : m.start()])
            out.append(piece)
            pos = i
        if not out:
            return text
        out.append(text[pos:])
        return "".join(out)


def expand_macros(latex: str, macros: dict[str, Macro], max_chars: int = MAX_CHARS) -> str:
    """`latex` with `macros` expanded (bounded, see `Expander`)."""
    return Expander(macros, max_chars=max_chars).expand(latex)
