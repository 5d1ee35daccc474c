"""Formulas typeset in report.html: LaTeX -> MathML, re-serialised through an allowlist.

Why MathML: browsers render MathML Core natively (no script, no font download, nothing the
report's Content-Security-Policy would block), so the drill-down can show the ground truth
and the extraction as typeset formulas beside their source.

The conversion is `latex2mathml` (optional: without it, or for LaTeX it cannot convert, the
report shows the source only). Its output is untrusted like the LaTeX it came from, so it is
parsed and written again keeping only MathML elements and presentation attributes from
fixed lists, every text node and attribute value escaped: nothing but MathML can come out.
"""

from __future__ import annotations

import re
from html import escape
from html.parser import HTMLParser

from tablebench.tex.regions import ALIGNMENT_ENVS, env_pattern

MAX_LATEX = 4_000  # longer formulas are shown as source only (conversion cost, page size)
TAGS = frozenset({
    "math", "mi", "mn", "mo", "ms", "mtext", "mspace", "mrow", "mfrac", "msqrt", "mroot", "mstyle", "merror",
    "mpadded", "mphantom", "menclose", "msub", "msup", "msubsup", "munder", "mover", "munderover",
    "mmultiscripts", "mprescripts", "none", "mtable", "mtr", "mtd", "mlabeledtr", "semantics",
})
ATTRS = frozenset({
    "display", "mathvariant", "stretchy", "fence", "separator", "lspace", "rspace", "columnalign", "rowalign",
    "columnspacing", "rowspacing", "columnlines", "rowlines", "frame", "linethickness", "accent", "accentunder",
    "movablelimits", "largeop", "symmetric", "minsize", "maxsize", "displaystyle", "scriptlevel", "width",
    "height", "depth", "form", "notation", "linebreak", "rowspan", "columnspan",
})
VOID = frozenset({"mspace", "mprescripts", "none"})
_ALIGN_AMP = re.compile(r"(?<!\\)&")
_ALIGNED = re.compile(r"\\begin\{(?:" + env_pattern(ALIGNMENT_ENVS) + r")\}")
_GRID = re.compile(r"\\begin\{(?:\w*matrix|array|cases)\}")  # where & separates cells: kept


class _Sanitiser(HTMLParser):
    """Re-serialise parsed MathML: allowlisted elements and attributes, everything escaped."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.stack: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in TAGS:
            return
        kept = "".join(f' {name}="{escape(value or "", quote=True)}"' for name, value in attrs if name in ATTRS)
        if tag in VOID:
            self.out.append(f"<{tag}{kept}></{tag}>")
            return
        self.out.append(f"<{tag}{kept}>")
        self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in TAGS:
            kept = "".join(f' {name}="{escape(value or "", quote=True)}"' for name, value in attrs if name in ATTRS)
            self.out.append(f"<{tag}{kept}></{tag}>")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.stack:  # close what is open up to it: the output stays well nested
            while self.stack:
                top = self.stack.pop()
                self.out.append(f"</{top}>")
                if top == tag:
                    break

    def handle_data(self, data: str) -> None:
        if self.stack:
            self.out.append(escape(data, quote=False))

    def result(self) -> str:
        return "".join(self.out) + "".join(f"</{t}>" for t in reversed(self.stack))


def sanitise_mathml(markup: str) -> str:
    """Only allowlisted MathML of `markup`, well nested, text escaped."""
    parser = _Sanitiser()
    parser.feed(markup)
    parser.close()
    return parser.result()


def formula_mathml(latex: str, display: bool) -> str | None:
    """Sanitised MathML of a formula (any delimiters), or None when it cannot be converted here."""
    if not latex or len(latex) > MAX_LATEX:
        return None
    from tablebench.tex.render import formula_body  # our own module: an import error must surface

    try:
        from latex2mathml.converter import convert
    except ImportError:  # the optional [formulas] extra: without it the drill-down shows the source only
        return None
    try:
        body = formula_body(latex)
        if _ALIGNED.search(body) and not _GRID.search(body):
            body = _ALIGN_AMP.sub(" ", body)  # alignment points only position rows (the converter shows them)
        markup = convert(body, display="block" if display else "inline")
    except Exception:  # noqa: BLE001 -- untrusted LaTeX: no MathML, the source is still shown
        return None
    clean = sanitise_mathml(markup)
    return clean if clean.startswith("<math") else None
