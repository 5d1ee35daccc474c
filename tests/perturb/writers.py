"""A `Table` written as a parser would write it: HTML, Markdown, LaTeX or aligned plain text.

`Table.to_html` is the only writer the harness has; the suite needs the others to rewrite a
ground truth in every format the readers take. Each writer is the plain, common form of its
format (no styling), so that reading it back shows what the format itself keeps and loses:
Markdown has no spans (a span is repeated, or written once over blank cells) and one header
row; plain text has no delimiters.
"""

from __future__ import annotations

import html

from tablebench.core.table import Table

_LATEX_SPECIAL = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                  "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}


def origins(table: Table) -> tuple[list[list[str]], list[list[bool]], int]:
    """Per slot: the text shown once (at a cell's top-left slot; "" elsewhere), whether the slot
    is a cell's top-left, and the number of header rows."""
    lay = table.layout()
    cells = table.cells()
    n_rows, n_cols = lay.shape
    text = [[""] * n_cols for _ in range(n_rows)]
    first = [[False] * n_cols for _ in range(n_rows)]
    for i, (r, c) in enumerate(lay.origins):
        if lay.grid[r, c] == i:
            text[r][c], first[r][c] = cells[i].text, True
    return text, first, table.header_rows


def html_table(table: Table, *, th: bool = True, thead: bool = False, row_th: bool = False) -> str:
    """HTML with header cells as `<th>` (`th`), header rows in `<thead>` (`thead`), and the first
    column's body cells as `<th>` too (`row_th`, as writers that mark row headers do)."""
    h = table.header_rows
    parts = ["<table>"]
    for r, row in enumerate(table.rows):
        if thead and r == 0 and h:
            parts.append("<thead>")
        if thead and r == h:
            parts.append("</thead><tbody>" if h else "<tbody>")
        parts.append("<tr>")
        for k, cell in enumerate(row):
            tag = "th" if (th and cell.header) or (row_th and r >= h and k == 0 and _starts_row(table, r)) else "td"
            attrs = (f' colspan="{cell.colspan}"' if cell.colspan > 1 else "") + (
                f' rowspan="{cell.rowspan}"' if cell.rowspan > 1 else "")
            parts.append(f"<{tag}{attrs}>{html.escape(cell.text, quote=False)}</{tag}>")
        parts.append("</tr>")
    parts.append("</tbody></table>" if thead else "</table>")
    return "\n".join(parts)


def _starts_row(table: Table, r: int) -> bool:
    """Whether row `r`'s first cell sits in the first column (not under a rowspan from above)."""
    lay = table.layout()
    first_id = sum(len(row) for row in table.rows[:r])
    return bool(table.rows[r]) and lay.origins[first_id][1] == 0


def markdown_table(table: Table, *, repeat_spans: bool = True, flat_header: bool = False) -> str:
    """A pipe table. Spans are repeated in every slot (`repeat_spans`) or written once over
    blank slots. The first row is the Markdown header; with `flat_header`, all header rows are
    fused into it column by column ("MNLI EM"), as writers of one-row headers do."""
    text, _, h = origins(table)
    grid = table.text_grid(fill="") if repeat_spans else text
    rows = [list(r) for r in grid]
    if flat_header and h > 1:
        fused = []
        for c in range(len(rows[0])):
            levels: list[str] = []
            for r in range(h):
                if rows[r][c] and (not levels or levels[-1] != rows[r][c]):
                    levels.append(rows[r][c])
            fused.append(" ".join(levels))
        rows = [fused] + rows[h:]
    lines = ["| " + " | ".join(_md_cell(t) for t in row) + " |" for row in rows]
    lines.insert(1, "|" + "---|" * len(rows[0]))
    return "\n".join(lines)


def _md_cell(text: str) -> str:
    """A cell's text as Markdown writes it: a backslash is escaped (`\\#` would read as `#`), a pipe too."""
    return " ".join(text.replace("\\", "\\\\").replace("|", "\\|").split())


def latex_table(table: Table) -> str:
    """A booktabs tabular: `\\multicolumn` / `\\multirow` for spans, rules around the header."""
    lay = table.layout()
    n_rows, n_cols = lay.shape
    h = table.header_rows
    cells = table.cells()
    lines = [r"\begin{tabular}{" + "l" * n_cols + "}", r"\toprule"]
    for r in range(n_rows):
        parts, c = [], 0
        while c < n_cols:
            i = int(lay.grid[r, c])
            if i < 0:
                parts.append("")
                c += 1
                continue
            r0 = lay.origins[i][0]
            cs = int((lay.grid[r, c:] == i).sum())
            body = _latex_text(cells[i].text) if r0 == r else ""
            if r0 == r and cells[i].rowspan > 1:
                body = rf"\multirow{{{cells[i].rowspan}}}{{*}}{{{body}}}"
            parts.append(rf"\multicolumn{{{cs}}}{{c}}{{{body}}}" if cs > 1 else body)
            c += cs
        lines.append(" & ".join(parts) + r" \\")
        if h and r == h - 1:
            lines.append(r"\midrule")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines)


def _latex_text(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in " ".join(text.split()))


def plain_table(table: Table, gap: int = 3) -> str:
    """Column-aligned lines, as a PDF text layer shows a table: a span's text once, at its
    first column; columns apart by at least `gap` spaces."""
    text, _, _ = origins(table)
    lay = table.layout()
    n_cols = lay.shape[1]
    width = [1] * n_cols
    spans = []
    for r, row in enumerate(text):
        for c, t in enumerate(row):
            i = int(lay.grid[r, c])
            extent = int((lay.grid[r] == i).sum())
            if t and extent == 1:
                width[c] = max(width[c], len(" ".join(t.split())))
            elif t:
                spans.append((extent, c, len(" ".join(t.split()))))
    # a span wider than its columns widens the last of them, as a typesetter does: every cell's
    # text then starts at its own column, and no label is pushed over the next column's values
    for extent, c, need in sorted(spans):
        have = sum(width[c:c + extent]) + gap * (extent - 1)
        width[c + extent - 1] += max(0, need - have)
    lines = []
    for row in text:
        line = ""
        for c, t in enumerate(row):
            start = sum(width[:c]) + gap * c
            t = " ".join(t.split())
            if t:
                line = line.ljust(start if not line else max(start, len(line) + gap)) + t
        lines.append(line.rstrip())
    return "\n".join(line for line in lines if line.strip())


def lines_text(table: Table) -> str:
    """A line per row, its cells' text apart by single spaces, each text written once (what a
    text layer gives when it keeps the words and loses the grid: pypdf, pymupdf4llm without a
    layout model). A cell's own spaces are kept: where a cell of several words ends is lost."""
    text, _, _ = origins(table)
    return "\n".join(" ".join(" ".join(t.split()) for t in row if t.strip()) for row in text if any(t.strip() for t in row))
