"""Code spans, math, `<sup>`/`<sub>` and emphasis of one Markdown cell, found in linear time.

Why not the lazy regexes (`(`+)(.+?)\\1`, `\\[(.+?)\\]`, `\\*\\*(?=\\S)(.+?)(?<=\\S)\\*\\*`, ...):
from every opener without a closer they rescan the rest of the cell, so a huge cell of
repeated unclosed openers (a model's repetition loop: 160 KB of `\\[x `) costs time quadratic
in its length (28 s). Each function here gives the matches of one such regex's `sub`, in the
same order: whether a position closes a span depends only on the text around it, so the
closers are listed once and each opener takes the first closer far enough on (a bisection),
as `tablebench.tex.math_spans` does for a whole output.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable

from tablebench.tex.regions import DISPLAY_DELIMITERS, INLINE_DELIMITERS

# -- the lazy patterns' openers and closers, as zero-width matches (every position is tried) -----
_DOLLAR_OPEN = re.compile(r"(?<![\\$])(?=\$\S)")
_DOLLAR_CLOSE = re.compile(r"(?<=\S)(?<!\\)(?=\$(?!\d))")
# opener -> closer of the two-character delimiters (a single `$` is read below)
_MATH_PAIRS = {o: c for o, c in (DISPLAY_DELIMITERS | INLINE_DELIMITERS).items() if len(o) == 2}
_MATH_START = re.compile(r"[$\\]")
_SCRIPT_OPEN = re.compile(r"<(sup|sub)\b[^<>]*>", re.IGNORECASE)
_SCRIPT_CLOSE = re.compile(r"</(sup|sub)\s*>", re.IGNORECASE)
_WORD_GUARD = r"[^\W_]"  # a letter or digit: `_x_` / `__x__` need none on their outer sides
# delimiter, whether the outer sides are guarded; the order of `tablebench.readers.markdown`'s passes
EMPHASIS = (("**", False), ("__", True), ("~~", False), ("*", False), ("_", True))


def _starts(pattern: re.Pattern[str], text: str) -> list[int]:
    return [m.start() for m in pattern.finditer(text)]


def _first(starts: list[int], at: int) -> int:
    """The first of the sorted `starts` at or after `at`, or -1."""
    i = bisect_left(starts, at)
    return starts[i] if i < len(starts) else -1


def _replace(text: str, spans: Iterable[tuple[int, int, str]]) -> str:
    """`text` with each (start, end, replacement) put in, spans in order and not overlapping."""
    parts, done = [], 0
    for start, end, replacement in spans:
        parts += [text[done:start], replacement]
        done = end
    parts.append(text[done:])
    return "".join(parts)


# -- emphasis --------------------------------------------------------------------------------
def _emphasis_patterns(delimiter: str, guarded: bool) -> tuple[re.Pattern[str], re.Pattern[str]]:
    d = re.escape(delimiter)
    before, after = (f"(?<!{_WORD_GUARD})", f"(?!{_WORD_GUARD})") if guarded else ("", "")
    return re.compile(f"{before}(?={d}\\S)"), re.compile(f"(?<=\\S)(?={d}{after})")


_EMPHASIS_PATTERNS = [_emphasis_patterns(d, g) for d, g in EMPHASIS]


def strip_emphasis(text: str, which: int) -> str:
    """`text` with every span of `EMPHASIS[which]` replaced by its inside (`D(?=\\S)(.+?)(?<=\\S)D`)."""
    delimiter = EMPHASIS[which][0]
    if delimiter not in text:
        return text
    size = len(delimiter)
    opens, closes = (_starts(p, text) for p in _EMPHASIS_PATTERNS[which])

    def spans() -> Iterable[tuple[int, int, str]]:
        done = 0
        for p in opens:
            if p < done:
                continue
            q = _first(closes, p + size + 1)  # `.+?`: at least one character inside
            if q >= 0:
                yield p, q + size, text[p + size:q]
                done = q + size

    return _replace(text, spans())


# -- math: $$..$$, \(..\), \[..\], $..$ --------------------------------------------------------
def sub_math(text: str, inner: Callable[[str], str]) -> str:
    """The `sub` of the four lazy alternatives `$$(.+?)$$`, `\\((.+?)\\)`, `\\[(.+?)\\]` and
    `(?<![\\$])$(?=\\S)(.+?)(?<=\\S)(?<!\\)$(?!\\d)` (regex escapes of `$`, `(`, `[` left out; DOTALL),
    tried in that order at each position, each span replaced by `inner(its inside)`."""
    if "$" not in text and "\\" not in text:
        return text
    closers = {opener: [m.start() for m in re.finditer(f"(?={re.escape(closer)})", text)]
               for opener, closer in _MATH_PAIRS.items()}
    dollar_opens = set(_starts(_DOLLAR_OPEN, text))
    dollar_closes = _starts(_DOLLAR_CLOSE, text)

    def at(p: int) -> tuple[int, int, int] | None:
        """(inside start, inside end, span end) of the first alternative matching at `p`."""
        pair = text[p:p + 2]
        if pair in _MATH_PAIRS:
            q = _first(closers[pair], p + 3)
            if q >= 0:
                return p + 2, q, q + 2
        if p in dollar_opens:
            q = _first(dollar_closes, p + 2)
            if q >= 0:
                return p + 1, q, q + 1
        return None

    def spans() -> Iterable[tuple[int, int, str]]:
        done = 0
        for m in _MATH_START.finditer(text):
            p = m.start()
            if p < done:
                continue
            found = at(p)
            if found is not None:
                start, end, done = found
                yield p, done, inner(text[start:end])

    return _replace(text, spans())


# -- <sup>..</sup>, <sub>..</sub> --------------------------------------------------------------
def sub_script(text: str, inner: Callable[[str, str], str]) -> str:
    """The `sub` of `<(sup|sub)\\b[^<>]*>(.*?)</\\1\\s*>` (IGNORECASE, DOTALL), each span replaced by
    `inner(tag name as written, inside)`. The closer names the opener's tag, compared lower-cased
    as the regex's back-reference does."""
    if "<" not in text:
        return text
    closers: dict[str, list[tuple[int, int]]] = {}
    for m in _SCRIPT_CLOSE.finditer(text):
        closers.setdefault(m.group(1).lower(), []).append(m.span())

    def spans() -> Iterable[tuple[int, int, str]]:
        done = 0
        for m in _SCRIPT_OPEN.finditer(text):
            if m.start() < done:
                continue
            listed = closers.get(m.group(1).lower(), [])
            i = bisect_left(listed, (m.end(), -1))
            if i < len(listed):
                start, done = listed[i]
                yield m.start(), done, inner(m.group(1), text[m.end():start])

    return _replace(text, spans())


# -- `code` -------------------------------------------------------------------------------------
class _Runs:
    """The backtick runs of a text, and the first run at or after an index as long as asked."""

    def __init__(self, text: str) -> None:
        spans = [m.span() for m in re.finditer("`+", text)]
        self.starts = [a for a, _ in spans]
        self.ends = [b for _, b in spans]
        size = 1
        while size < len(spans):
            size *= 2
        self.size = size
        self.tree = [0] * (2 * size)  # max run length per segment
        for i, (a, b) in enumerate(spans):
            self.tree[size + i] = b - a
        for i in range(size - 1, 0, -1):
            self.tree[i] = max(self.tree[2 * i], self.tree[2 * i + 1])

    def first_long(self, index: int, length: int) -> int:
        """The first run index >= `index` at least `length` long, or -1."""
        if index >= len(self.starts):
            return -1
        node = self.size + index
        if self.tree[node] >= length:
            return index
        while True:  # climb until a right sibling holds a long enough run
            while node % 2 == 1:
                node //= 2
                if node == 0:
                    return -1
            node += 1
            if self.tree[node] >= length:
                break
        while node < self.size:  # then descend to its leftmost such leaf
            node = 2 * node if self.tree[2 * node] >= length else 2 * node + 1
        i = node - self.size
        return i if i < len(self.starts) else -1

    def closer(self, at: int, length: int) -> int:
        """The first position >= `at` where `length` backticks start, or -1."""
        i = bisect_right(self.starts, at) - 1  # the run holding `at`, if any
        if i >= 0 and self.ends[i] - at >= length:
            return at
        j = self.first_long(i + 1, length)
        return self.starts[j] if j >= 0 else -1


def sub_code(text: str, inner: Callable[[str], str]) -> str:
    """The `sub` of `(`+)(.+?)\\1` (DOTALL), each span replaced by `inner(its inside)`.

    At a run of L backticks the regex tries openers of L, L-1, ... 1 backticks and takes the first
    that some later run closes; a closer for n backticks is one for n - 1 too, so the longest that
    works is found by bisection. An opener that no length closes fails at every later position of
    its run as well (the closers a later start may use are fewer), so the search skips the run."""
    if "`" not in text:
        return text
    runs = _Runs(text)

    def spans() -> Iterable[tuple[int, int, str]]:
        done, r = 0, 0
        while r < len(runs.starts):
            p = max(runs.starts[r], done)
            if p >= runs.ends[r]:
                r += 1
                continue
            low, high, best = 1, runs.ends[r] - p, (-1, 0)
            while low <= high:  # the longest opener that has a closer
                mid = (low + high) // 2
                q = runs.closer(p + mid + 1, mid)  # `.+?`: at least one character inside
                if q >= 0:
                    best, low = (q, mid), mid + 1
                else:
                    high = mid - 1
            q, size = best
            if q < 0:
                r += 1
                continue
            yield p, q + size, inner(text[p + size:q])
            done = q + size
            r = max(0, bisect_right(runs.starts, done) - 1)  # the run `done` falls in, or the one before it

    return _replace(text, spans())
