"""Math spans of a parser's output in one linear pass: every opener finds its closer by lookup.

The spans are those of one leftmost-first regex with lazy bodies (`\\[.+?\\]`, `<math ...>.*?</math>`,
`\\begin{equation}.*?\\end{equation}`, `$$..$$`, `\\(..\\)`, `$..$`; a `$..$` may hold an escaped `\\$` and
no blank line, as in TeX; a MathML tag in any letter case, as in HTML), but such a regex rescans the
rest of the output from every opener that has no closer: an output that repeats an unclosed
`\\[` (a model's repetition loop) costs time quadratic in its length (600 KB: minutes). Here the
closers of each kind are listed once, in order, and each opener takes the first closer that may
end it (a bisection), so the cost is linear in the output plus a logarithm per opener.

The one finder of math in an output: the formula locator reads every span as a candidate, the
prose reader leaves the spans out of the words (`dollar=False`: it reads a single `$` its own,
stricter way, since prose writes prices). The environments are `tex.regions`'s math-mode ones.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

from tablebench.tex.regions import MATH_MODE_ENVS, env_pattern

ENVIRONMENTS = env_pattern({name.rstrip("*") for name in MATH_MODE_ENVS})  # each may be starred

# Where each kind may start; a lookahead, so every position is tried (a `$$` with no closer may
# still hold a `$` opener one character on, as the regex would find).
_OPENERS = (r"(?P<env>\\begin\{(?P<name>" + ENVIRONMENTS + r")(?P<star>\*?)\})"
            r"|(?P<dd>(?<!\\)\$\$)"
            r"|(?P<br>\\\[)"
            r"|(?P<pa>\\\()"
            r"|(?P<d>(?<!\\)\$(?!\$))"
            r"|(?P<mml><(?P<pfx>\w+:)?(?i:math)\b)")
_OPEN = {True: re.compile(f"(?=(?:{_OPENERS}))"),
         False: re.compile(f"(?=(?:{_OPENERS.replace('|(?P<d>', '|(?P<d>(?!)')}))")}
_ENV_BEGIN = re.compile(r"\\begin\{(?:" + ENVIRONMENTS + r")\*?\}")
_ENV_END = re.compile(r"\\end\{(" + ENVIRONMENTS + r")(\*?)\}")
_MML_END = re.compile(r"</(\w+:)?math>", re.IGNORECASE)  # HTML's tag names have no case
_DD_END = re.compile(r"(?<!\\)(?=\$\$)")
_BR_END = re.compile(r"(?=\\\])")
_PA_END = re.compile(r"(?=\\\))")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


@dataclass(frozen=True, slots=True)
class MathSpan:
    """One math span: its kind (`env`, `dd`, `br`, `pa`, `d`, `mml`) and [start, end) in the output."""

    kind: str
    start: int
    end: int


class _Closers:
    """Start offsets of every closer of each kind, listed once per output (lazily per kind)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._lists: dict[object, list[int]] = {}
        self._built: set[str] = set()

    def first(self, key: object, family: str, at: int) -> int:
        """The first closer of `key` starting at or after `at`, or -1."""
        if family not in self._built:
            self._build(family)
        starts = self._lists.get(key, [])
        i = bisect_left(starts, at)
        return starts[i] if i < len(starts) else -1

    def _build(self, family: str) -> None:
        self._built.add(family)
        if family == "env":
            for m in _ENV_END.finditer(self.text):
                self._lists.setdefault(("env", m.group(1), m.group(2)), []).append(m.start())
        elif family == "mml":
            for m in _MML_END.finditer(self.text):
                self._lists.setdefault(("mml", (m.group(1) or "").lower()), []).append(m.start())
        else:
            pattern = {"dd": _DD_END, "br": _BR_END, "pa": _PA_END}[family]
            self._lists[family] = [m.start() for m in pattern.finditer(self.text)]


def math_spans(text: str, *, dollar: bool = True) -> list[MathSpan]:
    """Every math span in `text`, leftmost first and not overlapping (the lazy regex's matches);
    `dollar` False: a single `$` opens nothing (a `$$` still does)."""
    closers = _Closers(text)
    spans: list[MathSpan] = []
    done = 0
    for m in _OPEN[dollar].finditer(text):
        p = m.start()
        if p < done:
            continue
        kind = str(m.lastgroup)  # the kind's group closes after its inner ones (name, star, pfx)
        end = _end(text, m, kind, closers)
        if end > 0:
            spans.append(MathSpan(kind, p, end))
            done = end
    return spans


def inside(text: str, span: MathSpan) -> str:
    """The formula of `span` without its delimiters (an environment's body; MathML as it stands)."""
    if span.kind == "d":
        return text[span.start + 1:span.end - 1]
    if span.kind == "env":
        opened = _ENV_BEGIN.match(text, span.start)
        return text[opened.end() if opened else span.start:text.rfind("\\end", span.start, span.end)]
    if span.kind == "mml":
        return text[span.start:span.end]
    return text[span.start + 2:span.end - 2]


def _end(text: str, m: re.Match[str], kind: str, closers: _Closers) -> int:
    """Where the span opened at `m` ends (after its closer), or -1 when nothing closes it."""
    opened = m.end(kind)
    if kind == "env":
        name, star = m.group("name"), m.group("star")
        j = closers.first(("env", name, star), "env", opened)
        return j + len(name) + len(star) + 6 if j >= 0 else -1  # \end{ + name + star + }
    if kind == "d":  # the next `$` not escaped closes, in the same paragraph (TeX ends math at a blank line)
        j = opened
        while (j := text.find("$", j)) > 0 and text[j - 1] == "\\":
            j += 1  # `\$` is a dollar sign inside the formula
        return j + 1 if j >= 0 and not _PARAGRAPH_BREAK.search(text, opened, j) else -1
    if kind == "mml":
        pfx = (m.group("pfx") or "").lower()
        ends = [(j, len(p) + 7) for p in {pfx, ""} if (j := closers.first(("mml", p), "mml", opened)) >= 0]
        if not ends:
            return -1
        j, size = min(ends)
        return j + size  # </ + prefix + math>
    j = closers.first(kind, kind, opened + 1)  # `.+?`: at least one character inside
    return j + 2 if j >= 0 else -1
