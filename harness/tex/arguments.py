"""A command's arguments over a token list, read by the argument specs of `commands`.

Every helper takes a token list and a window `[i, j)` and returns token indices, never
copies: an argument is `(content start, content end, next index)`, so the caller renders
or splits the argument's tokens where they stand. `read_args` reads a whole spec
(`"omm"`: optional, mandatory, mandatory); the one-argument helpers are its parts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tablebench.tex.commands import ENV_ARGS
from tablebench.tex.tokens import Token, close_brace

Arg = tuple[int, int, int]  # (content start, content end, next index)
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d*)?")
_HUGE = 1e18  # a count beyond any table: int(inf) would raise


def skip_space(toks: list[Token], i: int, j: int) -> int:
    """The first index at or after `i` (before `j`) that is not white space."""
    while i < j and toks[i][0] == "space":
        i += 1
    return i


def group_arg(toks: list[Token], i: int, j: int) -> Arg | None:
    """A mandatory argument at `i`: (content start, content end, next index), or None at the end.

    A braced group gives its inside; otherwise one token (TeX's undelimited argument).
    """
    i = skip_space(toks, i, j)
    if i >= j:
        return None
    kind = toks[i][0]
    if kind == "{":
        k = close_brace(toks, i, j)
        return i + 1, k, min(k + 1, j)
    if kind == "}":
        return None
    return i, i + 1, i + 1


def brace_depths(toks: list[Token], i: int, j: int) -> Iterator[tuple[int, int]]:
    """(index, brace depth) of each token in [i, j): the groups opened and not closed before it,
    counted from `i`. A stray `}` takes the depth below 0, so nothing after it is at depth 0
    (the argument readers find no delimiter past it). A brace token gets the depth outside it."""
    depth = 0
    for k in range(i, j):
        kind = toks[k][0]
        if kind == "}":
            depth -= 1
        yield k, depth
        if kind == "{":
            depth += 1


def optional_arg(toks: list[Token], i: int, j: int) -> Arg | None:
    """An optional `[...]` argument at `i` (spaces skipped), or None when there is none.

    It closes at the first `]` at brace depth 0, counted from the `[` (an unclosed one runs to j)."""
    k = skip_space(toks, i, j)
    if k < j and toks[k][0] == "[":
        for m, depth in brace_depths(toks, k, j):
            if depth == 0 and toks[m][0] == "]":
                return k + 1, m, m + 1
        return k + 1, j, j
    return None


def star(toks: list[Token], i: int, j: int) -> int:
    """Skip a `*` right after a command (as in `\\\\*`, `\\vspace*`)."""
    return i + 1 if i < j and toks[i][0] == "*" else i


def paren_arg(toks: list[Token], i: int, j: int) -> int:
    """Skip a `(lr)`-style trim argument (booktabs `\\cmidrule`); returns the next index."""
    k = skip_space(toks, i, j)
    if k < j and toks[k][0] == "text" and toks[k][1].startswith("("):
        for m in range(k, j):
            if toks[m][0] == "text" and ")" in toks[m][1]:
                return m + 1
    return i


def read_args(toks: list[Token], i: int, j: int, spec: str) -> tuple[list[Arg | None], int]:
    """The arguments a spec names (`o` optional, `m` mandatory, `p` a skipped `(lr)` trim),
    from `i`: one entry per `o`/`m` (None when absent) and the index after the last one."""
    args: list[Arg | None] = []
    for p in spec:
        if p == "p":
            i = paren_arg(toks, i, j)
            continue
        a = optional_arg(toks, i, j) if p == "o" else group_arg(toks, i, j)
        args.append(a)
        if a is not None:
            i = a[2]
    return args, i


def env_preamble(toks: list[Token], i: int, j: int, env: str) -> tuple[tuple[int, int], int]:
    """Skip a tabular-like environment's width (tabular*/x/y) and [pos]: (column spec range, body start)."""
    args, k = read_args(toks, i, j, ENV_ARGS.get(env, "om"))
    spec = args[-1]
    if spec is None:
        return (k, k), k
    return (spec[0], spec[1]), spec[2]


def arg_source(toks: list[Token], arg: Arg) -> str:
    """The argument's token values joined (a command without its backslash, white space as one space)."""
    return "".join(t[1] for t in toks[arg[0]:arg[1]])


def count_arg(toks: list[Token], arg: Arg | None, default: int) -> int:
    """The first number in an argument, as an int (`{2}`, `{-3}`, `{1.5}` -> 1), else `default`."""
    if arg is None:
        return default
    m = _NUMBER.search(arg_source(toks, arg))
    if not m:
        return default
    value = float(m.group())  # 400 digits read as inf: bounded here, callers clamp further
    return int(max(min(value, _HUGE), -_HUGE))
