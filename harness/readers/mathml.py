"""Presentation MathML -> LaTeX, so MathML output meets the same canonical tokens as LaTeX.

A TeX annotation (`<annotation encoding="application/x-tex">`), when the parser kept one,
is taken as is. Otherwise the layout elements map one to one: `msup` -> `^{}`, `mfrac` ->
`\\frac`, `msqrt`/`mroot`, `mover` with an accent character -> `\\hat{}` and friends,
`mtable` -> a matrix, `mfenced` -> its delimiters; token elements (`mi`, `mn`, `mo`,
`mtext`) give their text (Unicode symbols are canonicalised later). Namespaces and prefixes
(`m:math`) are ignored.
"""

from __future__ import annotations

from lxml import etree

_ACCENT = {"^": "hat", "ˆ": "hat", "\u0302": "hat", "~": "tilde", "˜": "tilde", "\u0303": "tilde",
           "¯": "bar", "‾": "bar", "_": "bar", "\u0304": "bar", "\u0305": "bar", "→": "vec",
           "\u20d7": "vec", "˙": "dot", "\u0307": "dot", "¨": "ddot", "\u0308": "ddot"}
_SKIP = frozenset({"mspace", "mphantom", "none", "mprescripts", "maligngroup", "malignmark"})
_ESCAPE = {"{": r"\{", "}": r"\}", "%": r"\%", "#": r"\#", "&": r"\&", "$": r"\$", "\\": r"\backslash "}


class MathMLError(ValueError):
    """The MathML is not well-formed XML (one line)."""


def _local(tag: object) -> str:
    """An element's name without its namespace, in lower case (HTML's tag names have no case: `<MFRAC>`)."""
    return etree.QName(tag).localname.lower() if isinstance(tag, str) else ""


def _text(el) -> str:
    raw = "".join(el.itertext()).strip()
    return "".join(_ESCAPE.get(c, c) for c in raw)


def _kids(el) -> list:
    return [k for k in el if isinstance(k.tag, str)]


def _conv(el) -> str:
    tag = _local(el.tag)
    kids = _kids(el)
    args = [_conv(k) for k in kids]
    if tag in _SKIP:
        return ""
    if tag in ("mi", "mn", "mo", "mtext", "ms"):
        return _text(el) + " "
    if tag == "semantics":
        return args[0] if args else ""
    if tag in ("annotation", "annotation-xml"):
        return ""
    if tag == "msup" and len(args) >= 2:
        return f"{{{args[0]}}}^{{{args[1]}}}"
    if tag == "msub" and len(args) >= 2:
        return f"{{{args[0]}}}_{{{args[1]}}}"
    if tag in ("msubsup", "munderover") and len(args) >= 3:
        return f"{{{args[0]}}}_{{{args[1]}}}^{{{args[2]}}}"
    if tag == "mfrac" and len(args) >= 2:
        return f"\\frac{{{args[0]}}}{{{args[1]}}}"
    if tag == "msqrt":
        return f"\\sqrt{{{''.join(args)}}}"
    if tag == "mroot" and len(args) >= 2:
        return f"\\sqrt[{args[1]}]{{{args[0]}}}"
    if tag == "mover" and len(args) >= 2:
        accent = _ACCENT.get("".join(kids[1].itertext()).strip())
        return f"\\{accent}{{{args[0]}}}" if accent else f"\\overset{{{args[1]}}}{{{args[0]}}}"
    if tag == "munder" and len(args) >= 2:
        mark = "".join(kids[1].itertext()).strip()
        return f"\\underline{{{args[0]}}}" if mark in ("_", "¯", "‾") else f"\\underset{{{args[1]}}}{{{args[0]}}}"
    if tag == "mtable":
        rows = [" & ".join(_conv(c) for c in _kids(r)) if _local(r.tag) in ("mtr", "mlabeledtr") else _conv(r)
                for r in kids]
        return "\\begin{matrix}" + r" \\ ".join(rows) + "\\end{matrix}"
    if tag == "mfenced":
        open_, close = el.get("open", "("), el.get("close", ")")
        sep = el.get("separators", ",").strip()[:1]
        return _ESCAPE.get(open_, open_) + f" {sep} ".join(args) + _ESCAPE.get(close, close)
    return "".join(args)


def mathml_to_latex(mathml: str) -> str:
    """LaTeX for a `<math>` element (its TeX annotation when present)."""
    try:
        root = etree.fromstring(mathml.encode("utf-8"), etree.XMLParser(recover=True, resolve_entities=False,
                                                                           no_network=True))
    except etree.XMLSyntaxError as exc:
        raise MathMLError(f"unreadable MathML: {exc}") from None
    if root is None:
        raise MathMLError("unreadable MathML: no element")
    for el in root.iter():
        if _local(el.tag) == "annotation" and "tex" in (el.get("encoding") or "").lower() and (el.text or "").strip():
            return el.text.strip()
    return " ".join(_conv(root).split())
