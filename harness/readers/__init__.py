"""Readers: text in some format -> list of `Table`s. Each raises `NoTableError` when it finds none."""

from __future__ import annotations

import re
from collections.abc import Callable

from tablebench.core.table import NoTableError, Table
from tablebench.tex.regions import TABULAR_ENVS, env_pattern

FORMATS = ("html", "markdown", "latex", "text", "csv")
_ALIASES = {"md": "markdown", "tex": "latex", "txt": "text", "tsv": "csv"}
_STRUCTURED = ("html", "latex", "markdown")  # formats with markup: one page may mix them
CSV_SHARE = 0.8  # delimited when this share of non-blank lines splits into one field count

_TRIGGER = {"html": "<", "latex": "\\begin", "markdown": "|"}
_EVIDENCE = {
    "html": re.compile(r"<table\b", re.IGNORECASE),
    # the environments `latex.read_latex` reads
    "latex": re.compile(r"\\begin\s*\{\s*(?:" + env_pattern(TABULAR_ENVS) + r")\s*\}"),
    # a separator row (|---|:-:|), or two consecutive lines that open and contain pipes
    "markdown": re.compile(r"^[ \t]*(?:\|[ \t]*)?:?-+:?[ \t]*\|(?:[ \t]*:?-+:?[ \t]*\|)*(?:[ \t]*:?-+:?)?[ \t]*$"
                           r"|^[ \t]*\|[^\n|]*\|[^\n]*\n[ \t]*\|[^\n|]*\|", re.MULTILINE),  # [^\n|]: linear on one long line
}


def detect_format(text: str) -> str:
    """The format of the tables in `text`: "html", "latex", "markdown", "csv" or "text".

    Markup wins in that order (an HTML table inside Markdown is still HTML); unmarked text is
    "csv" when most lines split evenly on one delimiter, else column-aligned "text".
    """
    if not isinstance(text, str):
        raise TypeError(f"detect_format expects str, got {type(text).__name__}")
    for fmt in _STRUCTURED:
        if _shows(fmt, text):
            return fmt
    return _plain_format(text)


def read_tables(text: str, fmt: str | None = None) -> list[Table]:
    """Every table in `text` read as `fmt`; with `fmt=None` as what `detect_format` finds.

    Without `fmt`, a page that mixes markup (Markdown prose with HTML tables, LaTeX tabulars)
    is read by each reader it shows evidence of; where two readers claim overlapping text the
    earlier in html > latex > markdown keeps it. Tables come back in the order of their spans.
    """
    if fmt is not None:
        return _reader(fmt)(text)
    if not isinstance(text, str):
        raise TypeError(f"read_tables expects str, got {type(text).__name__}")
    kept: list[Table] = []
    for name in _STRUCTURED:
        if not _shows(name, text):
            continue
        try:
            tables = _reader(name)(text)
        except NoTableError:
            continue
        kept.extend(t for t in tables if not any(_overlap(t, k) for k in kept))
    if kept:
        return sorted(kept, key=lambda t: t.span or (0, 0))
    return _reader(_plain_format(text))(text)


def _shows(fmt: str, text: str) -> bool:
    """Whether `text` holds markup of `fmt` (a cheap character test first: pages are long)."""
    return _TRIGGER[fmt] in text and _EVIDENCE[fmt].search(text) is not None


def _reader(fmt: str) -> Callable[[str], list[Table]]:
    name = _ALIASES.get(fmt.lower(), fmt.lower()) if isinstance(fmt, str) else fmt
    if name == "html":
        from tablebench.readers.html import read_html
        return read_html
    if name == "markdown":
        from tablebench.readers.markdown import read_markdown
        return read_markdown
    if name == "latex":
        from tablebench.readers.latex import read_latex  # written beside this package; lazy on purpose
        return read_latex
    if name == "text":
        from tablebench.readers.text import read_text
        return read_text
    if name == "csv":
        from tablebench.readers.text import read_delimited
        return read_delimited
    raise ValueError(f"unknown table format {fmt!r}; expected one of {', '.join(FORMATS)}")


def _plain_format(text: str) -> str:
    from tablebench.readers.text import delimited_share

    return "csv" if delimited_share(text) >= CSV_SHARE else "text"


def _overlap(a: Table, b: Table) -> bool:
    if a.span is None or b.span is None:
        return False
    return a.span[0] < b.span[1] and b.span[0] < a.span[1]
