"""Where the tabular-like environments of a LaTeX source are, and how many columns they declare.

One tokenizer pass finds every top-level tabular-like environment (comments and `\\verb`
cannot fake or hide one; a nested one belongs to its outer table). The table reader
(`readers.latex`) reads their rows; `tablebench harvest` and `stats.py` take their source
through `environment_spans`.
"""

from __future__ import annotations

from typing import NamedTuple

from tablebench.tex.arguments import arg_source, count_arg, env_preamble, group_arg, optional_arg, skip_space
from tablebench.tex.regions import TABULAR_ENVS
from tablebench.tex.tokens import Token, tokenize

# Column letters whose arguments follow in braces: p{3cm}, w{l}{1cm}, D{.}{.}{2}, @{..}.
_SPEC_ARGS = {"p": 1, "m": 1, "b": 1, "w": 2, "W": 2, "D": 3, "@": 1, "!": 1, ">": 1, "<": 1,
              "P": 1, "M": 1, "B": 1}


class EnvironmentSpan(NamedTuple):
    """Where a tabular-like environment sits: `text[start:end]` is all of it (`\\begin` to
    `\\end{..}`), `text[body_start:body_end]` its rows; `closed` is False when it runs to the end."""

    name: str
    start: int
    end: int
    body_start: int
    body_end: int
    closed: bool


class TabularEnv(NamedTuple):
    """A tabular-like environment: token positions of its parts and its literal span in the text."""

    name: str
    body: int  # first body token
    spec: tuple[int, int]  # column spec token range
    end: int  # the `\end` token (or len(toks) when unclosed)
    span: tuple[int, int]  # characters from `\begin` to the end of `\end{..}`


def environment_spans(text: str) -> list[EnvironmentSpan]:
    """Every top-level tabular-like environment of `text`, in order.

    The finder `read_latex` uses, for callers that want the environments' source rather
    than `Table`s (`tablebench harvest`, `stats.py`).
    """
    toks = tokenize(text)
    n = len(toks)

    def at(k: int) -> int:
        return toks[k][2] if k < n else len(text)

    return [EnvironmentSpan(e.name, *e.span, at(e.body), at(e.end), e.end < n)
            for e in tabular_environments(toks, len(text))]


def env_name(toks: list[Token], i: int) -> tuple[str, int] | None:
    """The `{name}` after `\\begin`/`\\end` at `i`: (name, next index), or None."""
    k = skip_space(toks, i, len(toks))
    if k >= len(toks) or toks[k][0] != "{":
        return None
    arg = group_arg(toks, k, len(toks))
    assert arg is not None
    return arg_source(toks, arg).strip(), arg[2]


def tabular_environments(toks: list[Token], text_len: int) -> list[TabularEnv]:
    """Top-level tabular-like environments in order; a nested one belongs to its outer table."""
    found: list[TabularEnv] = []
    n = len(toks)
    i = 0
    while i < n:
        kind, value, start, _ = toks[i]
        if kind == "cmd" and value == "begin":
            named = env_name(toks, i + 1)
            if named and named[0] in TABULAR_ENVS:
                name, k = named
                spec, body = env_preamble(toks, k, n, name)
                end_tok, after, end_char = _matching_end(toks, body, n, text_len)
                found.append(TabularEnv(name, body, spec, end_tok, (start, end_char)))
                i = after
                continue
        i += 1
    return found


def _matching_end(toks: list[Token], i: int, n: int, text_len: int) -> tuple[int, int, int]:
    """The `\\end` closing the environment whose body starts at `i`: (its index, next index, char end)."""
    depth = 0
    k = i
    while k < n:
        kind, value = toks[k][0], toks[k][1]
        if kind == "cmd" and value in ("begin", "end"):
            named = env_name(toks, k + 1)
            if named and named[0] in TABULAR_ENVS:
                if value == "begin":
                    depth += 1
                elif depth == 0:
                    after = named[1]
                    return k, after, toks[after - 1][3]
                else:
                    depth -= 1
                k = named[1]
                continue
        k += 1
    return n, n, text_len  # unclosed: the table runs to the end of the input


def spec_columns(toks: list[Token], i: int, j: int) -> int:
    """How many columns a column spec declares: `*{3}{c}` counts 3, `@{}`/`|`/`>{..}` count 0."""
    count = 0
    k = i
    while k < j:
        kind, value = toks[k][0], toks[k][1]
        if kind == "*":
            reps = group_arg(toks, k + 1, j)
            inner = group_arg(toks, reps[2], j) if reps else None
            if reps is None or inner is None:
                return count
            count += count_arg(toks, reps, 1) * spec_columns(toks, inner[0], inner[1])
            k = inner[2]
            continue
        if kind == "text":
            last = value[-1]
            count += sum(1 for ch in value[:-1] if ch.isalpha())
            if last.isalpha():
                count += 1
            if last in _SPEC_ARGS:
                for _ in range(_SPEC_ARGS[last]):
                    a = group_arg(toks, k + 1, j)
                    if a is None or toks[skip_space(toks, k + 1, j)][0] != "{":
                        break
                    k = a[2] - 1
            k += 1
            o = optional_arg(toks, k, j)  # S[table-format=2.1], X[2]
            if o:
                k = o[2]
            continue
        if kind == "{":  # a stray group (e.g. after a user macro): skip it
            a = group_arg(toks, k, j)
            k = a[2] if a else k + 1
            continue
        k += 1
    return count
