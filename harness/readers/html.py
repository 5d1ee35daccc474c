"""HTML tables -> `Table`s: thead/tbody/tfoot, th, inline markup, MathML, malformed input.

Table boundaries are found by scanning tags (so each table keeps its literal span in the
input, which the locator needs) and each table is then parsed leniently by lxml.
"""

from __future__ import annotations

import re

import lxml.html
from lxml import etree

from harness.readers.scripts import to_subscript, to_superscript
from harness.table import Cell, NoTableError, Table

_TABLE_TAG = re.compile(r"<(/?)table\b[^>]*>", re.IGNORECASE)
_SPAN_VALUE = re.compile(r"\s*[\"']?\s*(\d+)")
_SKIP = {"script", "style", "caption", "colgroup", "col", "head", "title"}


def table_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every top-level `<table>...</table>` in `text`; an unclosed one runs to the end."""
    spans: list[tuple[int, int]] = []
    depth, start = 0, 0
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
        rows = [_read_row(tr, in_head, collapse_whitespace) for tr, in_head in _rows(root)]
        if any(rows):
            tables.append(Table(rows, fmt="html", span=(start, end)))
    if not tables:
        raise NoTableError("no HTML <table> with cells found")
    return tables


def _parse_fragment(fragment: str) -> etree._Element | None:
    try:
        doc = lxml.html.document_fromstring(f"<html><body>{fragment}</body></html>")
    except (etree.ParserError, ValueError):
        return None
    found = doc.find(".//table")
    return found


def _rows(table: etree._Element) -> list[tuple[etree._Element, bool]]:
    """The table's own `<tr>`s in document order, with whether each sits in a `<thead>`."""
    out: list[tuple[etree._Element, bool]] = []

    def walk(el: etree._Element, in_head: bool) -> None:
        for child in el:
            tag = _tag(child)
            if tag == "tr":
                out.append((child, in_head))
            elif tag in ("table",) or tag in _SKIP:
                continue
            else:
                walk(child, in_head or tag == "thead")

    walk(table, False)
    return out


def _read_row(tr: etree._Element, in_head: bool, collapse: bool) -> list[Cell]:
    cells = []
    for el in tr:
        tag = _tag(el)
        if tag not in ("td", "th"):
            continue
        text = _text(el)
        text = " ".join(text.split()) if collapse else text
        raw = etree.tostring(el, encoding="unicode", with_tail=False)
        cells.append(Cell(text=text, rowspan=_span(el.get("rowspan")), colspan=_span(el.get("colspan")),
                          header=in_head or tag == "th", raw=raw))
    return cells


def _text(el: etree._Element) -> str:
    """What a reader sees of an element: <br> as a line break, sup/sub as Unicode, MathML by its alttext."""
    parts = [el.text or ""]
    for child in el:
        tag = _tag(child)
        if tag == "br":
            parts.append("\n")
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
        try:
            from harness.readers.latex_math import math_to_unicode
        except ImportError:  # pragma: no cover - the LaTeX reader ships with the package
            return alt
        return math_to_unicode(alt)
    return "".join(el.itertext())


def _span(value: str | None) -> int:
    if not value:
        return 1
    m = _SPAN_VALUE.match(value)
    return max(1, int(m.group(1))) if m else 1


def _tag(el: etree._Element) -> str:
    tag = el.tag
    if not isinstance(tag, str):  # comments, processing instructions
        return "#"
    return tag.rsplit("}", 1)[-1].lower()
