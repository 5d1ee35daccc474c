"""HTML tables -> `Table`s: thead/tbody/tfoot, th, inline markup, MathML, malformed input.

Table boundaries are found by scanning tags (so each table keeps its literal span in the
input, which the locator needs; tags inside comments do not count) and each table is then
parsed leniently by lxml. What lxml leaves as a browser would not is fixed here: cells
outside any `<tr>` form a row, `<tfoot>` rows go last, block elements inside a cell (a
nested table, `<p>`, `<div>`) break its text, comments are not text.
"""

from __future__ import annotations

import re

from lxml import etree

from tablebench.core.table import MAX_SPAN, Cell, NoTableError, Table, TableLike, clamp_span
from tablebench.readers.textnorm import cell_text_form
from tablebench.tex.latex_math import math_to_unicode
from tablebench.tex.scripts import to_subscript, to_superscript

# `[^<>]*`: a scan for a tag's end stops at the next `<`, so `<table` repeated without `>` is read in
# linear time (with `[^>]*` each opener scanned to the end of the output: quadratic, issue 46)
_TABLE_TAG = re.compile(r"<(/?)table\b[^<>]*>", re.IGNORECASE)
_SPAN_VALUE = re.compile(r"\s*[\"']?\s*(\d+)")
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_SKIP = {"script", "style", "caption", "colgroup", "col", "head", "title", "#"}
_SECTIONS = {"thead", "tbody", "tfoot"}
_PARSER = etree.HTMLParser()  # plain elements: lxml.html's element classes cost a lookup per node
_BLOCKS = {"table", "tr", "td", "th", "p", "div", "li", "ul", "ol", "dl", "dt", "dd", "blockquote",
           "h1", "h2", "h3", "h4", "h5", "h6", "pre", "hr", "thead", "tbody", "tfoot"}


def table_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every top-level `<table>...</table>` in `text`; an unclosed one runs to the end."""
    spans: list[tuple[int, int]] = []
    depth, start = 0, 0
    if "<!--" in text:  # blank comments out, keeping offsets
        text = _COMMENT.sub(lambda m: " " * len(m.group()), text)
    for m in _TABLE_TAG.finditer(text):
        if m.group(1):  # closing tag
            if depth == 0:
                continue
            depth -= 1
            if depth == 0:
                spans.append((start, m.end()))
        else:
            if depth == 0:
                start = m.start()
            depth += 1
    if depth > 0:
        spans.append((start, len(text)))
    return spans


def read_html(text: str, collapse_whitespace: bool = True) -> list[Table]:
    """Every top-level table in `text`, in order.

    `collapse_whitespace` folds runs of white space to one space and strips the ends, as a
    browser shows the text; False keeps cell text verbatim (what the reference metrics see).
    Raises `NoTableError` when no table with at least one cell is found.
    """
    tables: list[Table] = []
    for start, end in table_spans(text):
        root = _parse_fragment(text[start:end])
        if root is None:
            continue
        rows = [_read_row(cells, in_head, collapse_whitespace) for cells, in_head in _rows(root)]
        if any(rows):
            tables.append(Table(rows, fmt="html", span=(start, end)))
    if not tables:
        raise NoTableError("no HTML <table> with cells found")
    return tables


def table_from_html(text: str) -> Table:
    """The first table of an HTML string (canonical or not), whitespace kept verbatim: the
    inverse of `Table.to_html`."""
    return read_html(text, collapse_whitespace=False)[0]


def as_table(value: TableLike) -> Table:
    """Accept a Table or an HTML string (as the metrics do); strings are read verbatim."""
    if isinstance(value, Table):
        return value
    if isinstance(value, str):
        return table_from_html(value)
    raise TypeError(f"expected a Table or an HTML string, got {type(value).__name__}")


def _parse_fragment(fragment: str) -> etree._Element | None:
    document = f"<html><body>{fragment}</body></html>"
    try:
        document.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: lxml would cut the text there
        document = document.encode("utf-8", "replace").decode("utf-8")
    try:
        doc = etree.fromstring(document, _PARSER)
    except (etree.ParserError, ValueError):
        return None
    return None if doc is None else doc.find(".//table")


_Row = tuple[list[etree._Element], bool]  # the cells of one row, and whether it sits in <thead>


def _rows(table: etree._Element) -> list[_Row]:
    """The table's own rows in display order (tfoot last), each with its in-`<thead>` flag.

    Cells lxml left outside any `<tr>` (`<table><td>a<td>b`) make one row per run.
    """
    body: list[_Row] = []
    foot: list[_Row] = []

    def walk(el: etree._Element, in_head: bool, out: list[_Row]) -> None:
        loose: list[etree._Element] = []
        for child in el:
            tag = _tag(child)
            if tag in ("td", "th"):
                loose.append(child)
                continue
            if loose:
                out.append((loose, in_head))
                loose = []
            if tag == "tr":  # the HTML parser's names are lower case: lxml filters them in C
                out.append((list(child.iterchildren("td", "th")), in_head))
            elif tag in _SECTIONS:
                walk(child, in_head or tag == "thead", foot if tag == "tfoot" else out)
            elif tag != "table" and tag not in _SKIP:  # stray wrappers such as <form>
                walk(child, in_head, out)
        if loose:
            out.append((loose, in_head))

    walk(table, False, body)
    return body + foot


def _read_row(elements: list[etree._Element], in_head: bool, collapse: bool) -> list[Cell]:
    """The row's cells; `raw` (the serialised element) only for cells with markup inside: the
    text of a plain cell is all its source says, and serialising every cell cost a third of a read."""
    cells = []
    for el in elements:
        if len(el):
            text, raw = _text(el), etree.tostring(el, encoding="unicode", with_tail=False)
        else:
            text, raw = el.text or "", None
        if collapse:
            text = " ".join(text.split())
        if not text.isascii():
            text = cell_text_form(text)
        attrib = el.attrib
        rowspan, colspan = (attrib.get("rowspan"), attrib.get("colspan")) if attrib else (None, None)
        cells.append(Cell(text, _span(rowspan) if rowspan else 1, _span(colspan) if colspan else 1,
                          in_head or _tag(el) == "th", raw))
    return cells


def _text(el: etree._Element) -> str:
    """What a reader sees of an element: <br> as a line break, sup/sub as Unicode, MathML by its alttext."""
    if not len(el):
        return el.text or ""
    parts = [el.text or ""]
    for child in el:
        tag = _tag(child)
        if tag == "br":
            parts.append("\n")
        elif tag in _BLOCKS:
            parts.append(f"\n{_text(child)}\n")
        elif tag in _SKIP:
            pass
        elif tag == "math":
            parts.append(_math_text(child))
        elif tag in ("sup", "sub"):
            inner = _text(child)
            converted = to_superscript(inner) if tag == "sup" else to_subscript(inner)
            parts.append(converted if converted is not None else inner)
        else:
            parts.append(_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _math_text(el: etree._Element) -> str:
    alt = el.get("alttext")
    if alt:
        return _math_text_of(alt)
    for node in el.iter():  # <semantics><annotation encoding="application/x-tex">
        if _tag(node) == "annotation" and "tex" in (node.get("encoding") or "").lower() and node.text:
            return _math_text_of(node.text)
    return "".join(t for t in el.itertext() if isinstance(t, str))


def _math_text_of(latex: str) -> str:
    """LaTeX as Unicode through `latex_math` (its source when that fails: never sink a page)."""
    try:
        return math_to_unicode(latex)
    except Exception:  # noqa: BLE001 - garbage math in one cell must not lose the whole table
        return latex


def _span(value: str | None) -> int:
    if not value:
        return 1
    m = _SPAN_VALUE.match(value)
    if not m:
        return 1
    digits = m.group(1).lstrip("0") or "0"
    return clamp_span(int(digits)) if len(digits) <= 9 else MAX_SPAN  # no 5,000-digit int() either


def _tag(el: etree._Element) -> str:
    tag = el.tag
    if not isinstance(tag, str):  # comments, processing instructions
        return "#"
    if "}" not in tag and tag.islower():  # what the HTML parser gives: lower-case names, no namespace
        return tag
    return tag.rsplit("}", 1)[-1].lower()


def element_lines(raw: str) -> list[str]:
    """The lines a reader sees in one serialised cell (`Cell.raw` of this reader): a `<br>` or a
    block element starts a new line. Blank lines are left out; unreadable markup gives none."""
    try:
        el = etree.fromstring(raw)
    except etree.XMLSyntaxError:
        return []
    return [cell_text_form(" ".join(line.split())) for line in _text(el).split("\n") if line.strip()]
