"""LaTeX tabular environments -> `Table`s, with the text a reader of the PDF sees.

One tokenizer pass over the input (`tex.tokens.tokenize`) finds every top-level tabular-like
environment (`tex.environments`: comments and `\\verb` cannot fake one), splits its body into
rows and cells on depth-0 `&` and `\\\\`, and renders each cell through the same tokens
(`tex.latex_math`); command arguments are read by the specs of `tex.commands`. Spans follow
what the page shows: a `\\multirow` takes the empty cells it covers out of the rows below (a
negative count covers the rows above and moves the cell up to the top of its span); a covered
cell that is not empty stops the span there, since LaTeX would print both on top of each other.

Rows are kept as written (a short row is not padded); the column spec is parsed to check
rows with `strict=True`. Rows above the first `\\hline`/`\\midrule` that follows content are
header rows (when that rule is not the table's last line); a table without such a rule ends
its header at the first row boundary whose `\\cline`/`\\cmidrule`s cover every column, or else
at the first of them after content.

Simple macros the input defines (`\\newcommand`, `\\def`, see `tex.macros`) are expanded
in the cells that use them, within that module's bounds (past them, the cell is read as if
the macros were unknown); the definitions themselves print nothing. A `\\multirow` keeps its
span when wrapped in a style command (`\\textbf{\\multirow{2}{*}{x}}`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tablebench.core.table import Cell, NoTableError, Table, clamp_span
from tablebench.readers.textnorm import cell_text_form
from tablebench.tex.arguments import Arg, arg_source, brace_depths, count_arg, optional_arg, read_args, skip_space, star
from tablebench.tex.commands import DROPPED_ARGS, MULTIROW_ARGS, SHOW_LAST
from tablebench.tex.environments import EnvironmentSpan, TabularEnv, environment_spans, spec_columns, tabular_environments
from tablebench.tex.latex_math import render_tokens
from tablebench.tex.macros import Definition, Expander, MacroExpansionError, find_definitions, strip_definitions
from tablebench.tex.tokens import Token, tokenize

# The environment finder and column counter are `tex.environments`'; callers reach them here too.
__all__ = ["EnvironmentSpan", "environment_spans", "read_latex", "spec_columns"]

# Rules and spacing that sit between rows: dropped; the first group also ends the header.
_HEADER_RULES = frozenset({"hline", "midrule", "Xhline", "hhline", "thickhline"})
_PARTIAL_RULES = frozenset({"cline", "cmidrule", "Xcline", "cdashline"})  # end a header only without the above
_ROW_RULES = _HEADER_RULES | frozenset({
    "toprule", "bottomrule", "cmidrule", "cline", "specialrule", "addlinespace", "arrayrulecolor",
    "cdashline", "hdashline", "Xcline", "noalign", "morecmidrules", "firsthline", "lasthline",
    "vspace", "rowcolors", "hlineB", "clineB", "bigstrut", "doublerulesep",
})
_ROW_ENDS = frozenset({"\\", "tabularnewline", "cr", "crcr"})
_LONGTABLE_MARKS = frozenset({"endfirsthead", "endhead", "endfoot", "endlastfoot"})
_RANGE = re.compile(r"(\d+)(?:\s*-\s*(\d+))?")
_DEFINES = re.compile(r"\\(?:newcommand|renewcommand|providecommand|DeclareRobustCommand|def|DeclareMathOperator)"
                      r"(?![A-Za-z@])")
_COMMENT = re.compile(r"(?<!\\)%[^\n]*")


@dataclass(slots=True)
class _Slot:
    """A cell while spans are resolved: its first column in the source row and its spans."""

    col: int
    colspan: int
    rowspan: int  # negative: \multirow{-n} counts upwards
    cell: Cell
    removed: bool = False

    @property
    def removable(self) -> bool:
        return self.cell.text == "" and self.rowspan == 1


@dataclass(slots=True)
class _Macros:
    """The input's own macro definitions, and the expander of the table being read."""

    definitions: list[Definition]
    expander: Expander


@dataclass(slots=True)
class _Row:
    slots: list[_Slot]
    rules: set[str | int]  # rules written just before this row; ints: columns a \cline-like rule covers
    section: str = "body"  # longtable head/foot section


def read_latex(text: str, strict: bool = False) -> list[Table]:
    """Every top-level tabular-like environment of `text`, in order, with its literal span.

    `strict=True` raises ValueError when a row has more columns than the column spec
    declares (LaTeX's "Extra alignment tab"); by default rows are kept as written.
    Raises `NoTableError` when there is no such environment.
    """
    if not isinstance(text, str):
        raise TypeError(f"read_latex expects a str, got {type(text).__name__}")
    toks = tokenize(text)
    envs = tabular_environments(toks, len(text))
    if not envs:
        raise NoTableError("no LaTeX tabular-like environment found (`tablebench.tex.regions.TABULAR_ENVS`)")
    definitions = _definitions(text)
    return [_read_env(text, toks, env, strict, definitions) for env in envs]


def _definitions(text: str) -> list[Definition]:
    """The input's simple macro definitions (not those in comments); [] without any (fast)."""
    if not _DEFINES.search(text):
        return []
    return find_definitions(_COMMENT.sub(lambda m: " " * len(m.group()), text))


# -- rows and cells --------------------------------------------------------------------
def _validate(rows: list[_Row], columns: int) -> None:
    """LaTeX's "Extra alignment tab": a source row wider than the spec (covered cells included)."""
    if columns <= 0:
        return
    for r, row in enumerate(rows):
        width = sum(s.colspan for s in row.slots)
        if width > columns:
            raise ValueError(f"row {r} has {width} columns but the column spec declares {columns}")


def _read_env(text: str, toks: list[Token], env: TabularEnv, strict: bool, definitions: list[Definition]) -> Table:
    macros = _Macros(definitions, Expander({d.name: d.macro for d in definitions})) if definitions else None
    rows = _split_rows(text, toks, env.body, env.end, env.name == "array", macros)  # array cells are math
    if strict:
        _validate(rows, spec_columns(toks, *env.spec))
    rows = _longtable_sections(rows) if env.name.startswith("longtable") else rows
    _resolve_rowspans(rows)
    header = _header_rows(rows)
    out: list[list[Cell]] = []
    for r, row in enumerate(rows):
        cells = [s.cell for s in sorted((s for s in row.slots if not s.removed), key=lambda s: s.col)]
        for cell in cells:
            cell.header = r < header
        out.append(cells)
    return Table(out, fmt="latex", span=env.span)


def _split_rows(text: str, toks: list[Token], i: int, j: int, math: bool, macros: _Macros | None = None) -> list[_Row]:
    """Split the body on depth-0 `&` and row ends; rules before a row's first cell are noted, not kept.

    Its own depth walk, apart from `brace_depths` on purpose: groups and nested environments count
    as one depth, never below 0, so a stray `}` or `\\end` in a parser's output stays in its cell
    instead of fusing every row after it into one."""
    rows: list[_Row] = []
    cells: list[tuple[int, int]] = []
    row_rules: set[str | int] = set()  # rules seen since the last row was closed
    section_marks: list[tuple[int, str]] = []
    k = _skip_rules(toks, i, j, row_rules)
    start = k
    depth = 0
    while k < j:
        kind, value = toks[k][0], toks[k][1]
        if kind == "{":
            depth += 1
        elif kind == "}":
            depth = max(depth - 1, 0)
        elif kind == "cmd" and value in ("begin", "end"):
            depth += 1 if value == "begin" else -1
            depth = max(depth, 0)
        elif depth == 0 and kind == "&":
            cells.append((start, k))
            start = k + 1
        elif depth == 0 and kind == "cmd" and (value in _ROW_ENDS or value in _LONGTABLE_MARKS):
            cells.append((start, k))
            if _close_row(text, toks, rows, cells, row_rules, math, macros):
                row_rules = set()
            if value in _LONGTABLE_MARKS:
                section_marks.append((len(rows), value))
                k += 1
            else:
                k = star(toks, k + 1, j)
                o = optional_arg(toks, k, j)
                k = o[2] if o else k
            cells = []
            k = _skip_rules(toks, k, j, row_rules)
            start = k
            continue
        k += 1
    cells.append((start, j))
    _close_row(text, toks, rows, cells, row_rules, math, macros)  # rules after the last row are dropped
    for r_end, mark in section_marks:
        _mark_section(rows, r_end, mark)
    return rows


def _skip_rules(toks: list[Token], k: int, j: int, found: set[str | int]) -> int:
    """Skip rule commands (with their arguments) and white space at a row's start; note their
    names in `found`, and the (1-based) columns a `\\cline`-like rule covers."""
    while True:
        k = skip_space(toks, k, j)
        if k >= j or toks[k][0] != "cmd" or toks[k][1] not in _ROW_RULES:
            return k
        name = toks[k][1]
        found.add(name)
        spec = DROPPED_ARGS.get(name, "")
        args, k = read_args(toks, star(toks, k + 1, j), j, spec)
        if name in _PARTIAL_RULES:  # the column range is its mandatory argument
            for a, p in zip(args, spec.replace("p", "")):
                if p != "o" and a is not None:
                    found.update(_rule_columns(toks, a))


def _rule_columns(toks: list[Token], arg: Arg) -> range:
    """The columns `{2-4}` names (`{3}` is one column); empty when it is not a range."""
    m = _RANGE.fullmatch(arg_source(toks, arg).strip())
    if m is None:
        return range(0)
    lo = int(m.group(1))
    return range(lo, min(int(m.group(2) or lo), lo + 1000) + 1)


def _close_row(text: str, toks: list[Token], rows: list[_Row], cells: list[tuple[int, int]],
               rules: set[str | int], math: bool, macros: _Macros | None) -> bool:
    """Append the row made of these cell token ranges; False for a blank line or a caption."""
    if len(cells) == 1 and (skip_space(toks, *cells[0]) >= cells[0][1] or _is_caption(toks, *cells[0])):
        return False
    slots: list[_Slot] = []
    col = 0
    for a, b in cells:
        cell, colspan, rowspan = _read_cell(text, toks, a, b, math, macros)
        slots.append(_Slot(col, colspan, rowspan, cell))
        col += colspan
    rows.append(_Row(slots, set(rules)))
    return True


def _is_caption(toks: list[Token], a: int, b: int) -> bool:
    k = skip_space(toks, a, b)
    return k < b and toks[k][0] == "cmd" and toks[k][1] == "caption"


def _read_cell(text: str, toks: list[Token], a: int, b: int, math: bool,
               macros: _Macros | None = None) -> tuple[Cell, int, int]:
    """One cell: its rendered text, raw LaTeX, and spans from `\\multicolumn` / `\\multirow`."""
    s = skip_space(toks, a, b)
    raw = text[toks[s][2]:toks[b - 1][3]].strip() if s < b else ""
    expanded = _expanded(text, toks, s, b, macros) if macros is not None and s < b else None
    if expanded is not None:
        etoks = tokenize(expanded)
        rendered, colspan, rowspan = _cell_content(etoks, 0, len(etoks), math)
    else:
        rendered, colspan, rowspan = _cell_content(toks, a, b, math)
    return Cell(text=cell_text_form(rendered), raw=raw), colspan, rowspan


def _expanded(text: str, toks: list[Token], a: int, b: int, macros: _Macros) -> str | None:
    """The cell's source with its definitions dropped and macros expanded; None when it has
    neither, or when the expansion exceeds its bounds (then the macros read as unknown)."""
    start, end = toks[a][2], toks[b - 1][3]
    source = text[start:end]
    inside = [Definition(d.name, d.macro, d.start - start, d.end - start)
              for d in macros.definitions if start <= d.start and d.end <= end]
    if not inside and not macros.expander.uses(source):
        return None
    try:
        return macros.expander.expand(strip_definitions(source, inside))
    except MacroExpansionError:
        return None


def _cell_content(toks: list[Token], a: int, b: int, math: bool) -> tuple[str, int, int]:
    """Rendered text, colspan and rowspan of the cell toks[a:b]."""
    colspan, rowspan = 1, 1
    lo, hi = a, b
    mc = _find_cmd(toks, a, b, "multicolumn")
    if mc is not None:
        (n, _, content), _ = read_args(toks, mc + 1, b, SHOW_LAST["multicolumn"])  # {n}{spec}{content}
        colspan = count_arg(toks, n, 1)
        if content:
            lo, hi = content[0], content[1]
    mr = _find_cmd(toks, lo, hi, "multirow", any_depth=True)  # \textbf{\multirow{..}} spans too
    if mr is not None:
        (_, n), _ = read_args(toks, mr + 1, hi, MULTIROW_ARGS[:2])  # \multirow[vpos]{n}
        rowspan = count_arg(toks, n, 1)
    # the bound every reader shares: a huge N is a parser bug, and each span unit costs work below
    rowspan = -clamp_span(-rowspan) if rowspan < 0 else clamp_span(rowspan)
    return render_tokens(toks, a, b, math), clamp_span(colspan), rowspan


def _find_cmd(toks: list[Token], a: int, b: int, name: str, any_depth: bool = False) -> int | None:
    """Index of a depth-0 `\\name` in toks[a:b]; with `any_depth`, also inside groups (never
    inside a nested environment, whose cells are its own)."""
    envs = 0
    for k, depth in brace_depths(toks, a, b):
        kind = toks[k][0]
        if kind == "cmd" and toks[k][1] in ("begin", "end"):
            envs = max(envs + (1 if toks[k][1] == "begin" else -1), 0)
        elif (depth == 0 or any_depth) and envs == 0 and kind == "cmd" and toks[k][1] == name:
            return k
    return None


# -- spans, sections, header -----------------------------------------------------------
def _overlapping(row: _Row, col: int, colspan: int) -> list[_Slot]:
    """The live cells of `row` that share a column with [col, col + colspan)."""
    return [s for s in row.slots if not s.removed and s.col < col + colspan and col < s.col + s.colspan]


def _resolve_rowspans(rows: list[_Row]) -> None:
    """Make multirow spans HTML-like: covered empty cells go; a non-empty one stops the span."""
    n = len(rows)
    for r in range(n):
        for slot in list(rows[r].slots):
            if slot.removed or slot.rowspan == 1:
                continue
            if slot.rowspan > 1:
                reach = 1
                for rr in range(r + 1, min(r + slot.rowspan, n)):
                    covered = _overlapping(rows[rr], slot.col, slot.colspan)
                    if not all(s.removable for s in covered):
                        break
                    for s in covered:
                        s.removed = True
                    reach += 1
                slot.rowspan = reach
            else:  # \multirow{-n}: the cell sits in the span's bottom row
                top = r
                for rr in range(r - 1, max(r + slot.rowspan, -1), -1):
                    covered = _overlapping(rows[rr], slot.col, slot.colspan)
                    if not all(s.removable for s in covered):
                        break
                    for s in covered:
                        s.removed = True
                    top = rr
                slot.rowspan = r - top + 1
                if top < r:
                    rows[r].slots.remove(slot)
                    rows[top].slots.append(slot)
    for row in rows:
        for slot in row.slots:
            slot.cell.colspan = slot.colspan
            slot.cell.rowspan = slot.rowspan


def _mark_section(rows: list[_Row], end: int, mark: str) -> None:
    """Label rows up to `end` (not yet labelled) with the longtable section that `mark` closes."""
    section = mark[3:]  # firsthead, head, foot, lastfoot
    for r in range(end):
        if rows[r].section == "body":
            rows[r].section = section


def _longtable_sections(rows: list[_Row]) -> list[_Row]:
    """Page 1 of a longtable: its first head, the body, then the last foot."""
    sections = {row.section for row in rows}
    head = "firsthead" if "firsthead" in sections else "head"
    top = [row for row in rows if row.section == head]
    body = [row for row in rows if row.section == "body"]
    foot = [row for row in rows if row.section == "lastfoot"]
    if top and body:  # the rule closing the head block ends the header
        body[0].rules.add("hline")
    return top + body + foot


def _header_rows(rows: list[_Row]) -> int:
    """Rows before the first header-ending rule that follows content and is not the last line.

    Without one, a header set off only by `\\cline`-like rules ends at the first row boundary
    whose partial rules together cover every column, else at the first partial rule."""
    first = [r for r in range(1, len(rows)) if rows[r].rules & _HEADER_RULES]
    if first:
        return first[0]
    width = set(range(1, max((sum(s.colspan for s in row.slots) for row in rows), default=0) + 1))
    partial = [r for r in range(1, len(rows)) if rows[r].rules & _PARTIAL_RULES]
    return next((r for r in partial if width <= rows[r].rules), partial[0] if partial else 0)
