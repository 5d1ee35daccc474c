r"""Markdown pipe tables -> `Table`s, tolerant of what real parsers emit.

Parsers (pymupdf4llm, marker, docling, mistral, olmocr, ...) write GFM pipe tables with
optional outer pipes, escaped `\|`, alignment rows, sometimes no separator row, ragged rows,
and inline Markdown / HTML / LaTeX math inside cells. A table is a run of consecutive lines
holding an unescaped pipe; a separator row is only the second line of such a run with every
cell like `:---:` (anything else that looks like one is content, never dropped). Rows before
the separator are the header. Markdown has no spans, so every cell is 1x1 and ragged rows stay
ragged: padding them would invent cells the parser never wrote.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache

from tablebench.core.table import Cell, NoTableError, Table
from tablebench.readers.cell_markup import EMPHASIS, strip_emphasis, sub_code, sub_math, sub_script
from tablebench.readers.textnorm import GLUED_SYMBOL_ITALIC, STYLE_TAGS, cell_text_form, tag_pattern
from tablebench.tex.latex_math import math_to_unicode
from tablebench.tex.scripts import to_subscript, to_superscript

_PIPE_OR_ESCAPE = re.compile(r"\\.|\|", re.DOTALL)
_SEPARATOR_CELL = re.compile(r"[ \t]*:?-+:?[ \t]*\Z")
# inline math as pandoc delimits it: `$` then a non-space, up to a `$` after a non-space that no
# digit follows; `\$` is a dollar sign. Each `$` starts at most one scan to the next `$`: linear.
_MATH = re.compile(r"(?<!\\)\$(?=[^\s$])(?:[^$\\]|\\.)*?(?<=[^\s\\])\$(?!\d)")


def read_markdown(text: str) -> list[Table]:
    """Every pipe table in `text`, in order, each with its literal `span`.

    Raises `NoTableError` when no run of pipe rows forms a table (>= 2 rows, or a header
    row followed by a separator row).
    """
    if not isinstance(text, str):
        raise TypeError(f"read_markdown expects str, got {type(text).__name__}")
    tables = [t for block in _pipe_blocks(text) if (t := _block_table(block)) is not None]
    if not tables:
        raise NoTableError("no Markdown pipe table (>= 2 pipe rows, or header + separator) found")
    return tables


def split_row(line: str) -> list[str] | None:
    r"""The raw cells of one pipe row (outer pipes dropped, `\|` kept), or None if it has no pipe.
    A pipe inside inline math (`$|V|$`, `$\left|x\right|$`) is the formula's, not a cell boundary:
    a reader sees the formula whole. Math is delimited as pandoc does (`_MATH`), so `| $5 | $10 |`
    holds two cells of prices, not one formula."""
    s = line.strip()
    math = [m.span() for m in _MATH.finditer(s)] if "$" in s else []
    pipes = [m.start() for m in _PIPE_OR_ESCAPE.finditer(s)
             if m.group() == "|" and not any(a < m.start() < b for a, b in math)]
    if not pipes:
        return None
    bounds = [-1, *pipes, len(s)]
    cells = [s[a + 1:b] for a, b in zip(bounds, bounds[1:])]
    if pipes[0] == 0:
        cells = cells[1:]
    if pipes[-1] == len(s) - 1 and len(cells) > 1:
        cells = cells[:-1]
    return cells


def is_separator(cells: list[str]) -> bool:
    """True when every cell is an alignment marker such as `---`, `:--`, `:-:`."""
    return bool(cells) and all(_SEPARATOR_CELL.match(c) for c in cells)


# -- blocks of pipe lines -------------------------------------------------------------
_Line = tuple[int, int, list[str]]  # (start, end) of the stripped line in the input, raw cells


def _pipe_blocks(text: str) -> list[list[_Line]]:
    """Maximal runs of consecutive lines that contain an unescaped pipe."""
    blocks: list[list[_Line]] = []
    current: list[_Line] = []
    pos = 0
    for line in text.split("\n"):
        start, end = pos, pos + len(line)
        pos = end + 1
        cells = split_row(line) if "|" in line else None
        if cells is None:
            if current:
                blocks.append(current)
                current = []
            continue
        lead = len(line) - len(line.lstrip())
        current.append((start + lead, start + len(line.rstrip()), cells))
    if current:
        blocks.append(current)
    return blocks


def _block_table(block: list[_Line]) -> Table | None:
    """The table a block of pipe lines makes, or None (one row without separator, no text at all)."""
    rows = [cells for _, _, cells in block]
    has_separator = len(rows) >= 2 and is_separator(rows[1])
    if has_separator:
        rows = rows[:1] + rows[2:]
    elif len(rows) < 2:
        return None
    out = [[Cell(cell_text_form(cell_text(raw)), header=has_separator and r == 0, raw=raw.strip()) for raw in row]
           for r, row in enumerate(rows)]
    if has_separator:
        out[0] = [Cell("", header=True, raw=cell.raw) if _is_placeholder(cell.text, c) else cell
                  for c, cell in enumerate(out[0])]
    if not any(cell.text for row in out for cell in row):
        return None
    return Table(out, fmt="markdown", span=(block[0][0], block[-1][1]))


# Names tools give a header cell they found blank (a span's covered cell): PyMuPDF's `Col3`, pandas'
# `Unnamed: 2`, each naming its own column. A reader sees no label there, as in the PDF.
_PLACEHOLDER = re.compile(r"Col(\d+)|Unnamed: (\d+)(?:_level_\d+)?")


def _is_placeholder(text: str, column: int) -> bool:
    """Whether header text `text` in 0-based `column` is a tool's name for a blank header cell."""
    m = _PLACEHOLDER.fullmatch(text)
    return m is not None and (int(m.group(1)) == column + 1 if m.group(1) else int(m.group(2)) == column)


# -- what a reader sees of a cell -----------------------------------------------------
_STASH_OPEN, _STASH_CLOSE = "\ue000", "\ue001"
_STASH_REF = re.compile("\ue000(\\d+)\ue001")
_MARKUP_CHARS = re.compile("[*_~`$\\\\<&|\ue000\ue001]")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)
_TAG = tag_pattern((*STYLE_TAGS, "a", "abbr", "bdi", "bdo", "cite", "dfn", "div", "kbd", "p", "q", "samp", "strike",
                    "sub", "sup", "var", "wbr"))


# Underscores glued to a number or symbol (`0.777_±_0.003`, `71_._2`, `_−_77.2`): no
# Markdown renderer makes emphasis of them, but they are emphasis a converter split around
# math, never content, and a reader of the PDF sees `0.777±0.003`. Letters on either side
# keep their underscores (`t_a`, `MAE__AST`).
_GLUED_EMPHASIS = re.compile(r"(?:(?<=\d)|(?<=[^\w\s])|^)_+(?=[^\w\s])|(?<=[^\w\s])_+(?=\d|$)")
# An italic symbol between words or spaces (`_×_ ✓`, `a _×_`): emphasis around the symbol. A lone
# underscore after an escaped backslash (`\\_`) is no such pair and stays.
_SYMBOL_EMPHASIS = re.compile(r"(?<!\w)_+([^\w\s\ue000\ue001]+)_+(?!\w)")


# A whole `_..._` pair not inside a word (`_2.4%_`): emphasis, taken before a glued half is.
_UNDERSCORE_PAIR = re.compile(r"(?<![\w\\])_(?=[^\s_])([^_]*?[^\s_])_(?!\w)")


def cell_lines(raw: str) -> list[str]:
    """The lines a reader sees in one raw Markdown cell: a `<br>` starts a new line (blank ones left out)."""
    return [line for line in (cell_text_form(cell_text(part)) for part in _BR.split(raw)) if line.strip()]


@lru_cache(maxsize=65536)
def cell_text(raw: str) -> str:
    """A Markdown cell as a reader sees it: markup gone, `<br>` a space, sup/sub and math as Unicode.

    Code spans and math are set aside first so that nothing inside them is read as markup;
    backslash escapes are literal; entities are decoded last so `&lt;b&gt;` stays text. Spans are
    found in time linear in the cell (`tablebench.readers.cell_markup`), whatever it repeats.
    """
    if not _MARKUP_CHARS.search(raw):  # most cells (numbers, words) carry no markup at all
        return " ".join(raw.split())
    stash: list[str] = []

    def keep(value: str) -> str:
        stash.append(value)
        return f"{_STASH_OPEN}{len(stash) - 1}{_STASH_CLOSE}"

    s = raw.replace(_STASH_OPEN, "").replace(_STASH_CLOSE, "")
    if "\\|" in s:  # as in GFM, `\|` is a pipe everywhere in a cell, code and math included
        s = _PIPE_OR_ESCAPE.sub(lambda m: "|" if m.group() == "\\|" else m.group(), s)
    s = sub_code(s, lambda inner: keep(inner.strip()))
    s = sub_math(s, lambda inner: keep(math_text(inner)))
    s = _ESCAPE.sub(lambda m: keep(m.group(1)), s)
    s = _SYMBOL_EMPHASIS.sub(r"\1", s)
    s = _UNDERSCORE_PAIR.sub(r"\1", GLUED_SYMBOL_ITALIC.sub(r"\1", s))  # whole pairs first: `_2.4%_`, `J_·_kg`
    s = _GLUED_EMPHASIS.sub("", s)
    s = _BR.sub(" ", s)
    s = sub_script(s, lambda name, inner: keep(_script(name.lower(), inner)))
    s = _TAG.sub("", s)
    for _ in range(4):  # nested emphasis such as ***x*** or **_x_**
        before = s
        for which in range(len(EMPHASIS)):
            s = strip_emphasis(s, which)
        if s == before:
            break
    s = html.unescape(s)
    for _ in range(3):  # stashed text may itself hold stash references (math inside <sup>)
        if _STASH_OPEN not in s:
            break
        s = _STASH_REF.sub(lambda m: stash[int(m.group(1))] if int(m.group(1)) < len(stash) else "", s)
    return " ".join(s.split())


def _script(kind: str, inner: str) -> str:
    text = html.unescape(_TAG.sub("", inner))
    converted = to_superscript(text) if kind == "sup" else to_subscript(text)
    return converted if converted is not None else text


@lru_cache(maxsize=8192)
def math_text(latex: str) -> str:
    """LaTeX math as Unicode through `latex_math` (its source when that fails: never sink a page)."""
    latex = latex.strip()
    try:
        return math_to_unicode(latex)
    except Exception:  # noqa: BLE001 - a cell of garbage math must not sink the whole page
        return latex
