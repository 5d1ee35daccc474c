"""LaTeX text and math -> the Unicode a reader of the compiled PDF sees.

`math_to_unicode("\\alpha^{2}")` gives "α²"; `latex_to_text("\\textbf{F-1} $\\uparrow$")` gives
"F-1 ↑". Both run over one token list from `tokens.tokenize` (a single regex pass; the table
reader splits cells on the same tokens, so a cell is never tokenized twice). The walk is
`walker.Walker`, driven by the data of `commands` and `symbols`; this module adds the
commands with a layout of their own (fractions, roots, siunitx, nested environments, ...).

Choices, where LaTeX leaves the page open:
- `\\cite{..}` -> "[?]" and `\\ref{..}` -> "??": what pdflatex prints without .bib/.aux, which
  is how the generator compiles its pages; `\\label`, `\\footnote`, `\\footnotemark` -> nothing
  (footnote text is lost inside tabular and the mark number is unknowable).
- `\\mathbb{R}` -> "ℝ" (parsers emit double-struck letters); `\\mathcal`/`\\mathscr`/`\\mathfrak`
  -> the plain letters (PDF text of calligraphic fonts extracts as ASCII).
- In math, `^{..}`/`_{..}` become Unicode super/subscripts only when every character has one,
  else the plain text (`x^{q}` -> "xq"); outside math (a compile error, but parsers write it)
  they stay the characters `^`/`_`. Accents become combining marks, then NFC.
- White space: TeX drops the space after a control word (`\\dag x` -> "†x"). Math keeps the
  author's spaces (as one) except after a command that is not an operator or relation:
  `a \\leq b` -> "a ≤ b", `(\\frac{1}{8}, \\frac{1}{4})` -> "(1/8, 1/4)", `\\mu m` -> "μm".
  Spacing commands (`\\,` `\\quad` `~`) give a space; `\\!` and `\\hphantom{..}` nothing.
- Unknown commands: the name is dropped, its braced arguments are read as text.
"""

from __future__ import annotations

import re
import unicodedata

from tablebench.tex.arguments import Arg, arg_source, group_arg, skip_space
from tablebench.tex.commands import ENV_ARGS, MULTIROW_ARGS, SI_ARGS
from tablebench.tex.regions import ARGUMENT_MATH_ENVS, MATH_MODE_ENVS
from tablebench.tex.scripts import to_subscript, to_superscript
from tablebench.tex.symbols import DING
from tablebench.tex.tokens import Token, Tokens, tokenize
from tablebench.tex.walker import Handler, Walker, double_struck, fraction


# --- commands with a layout of their own ---------------------------------------------
def _h_frac(r: Walker, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    k = skip_space(r.toks, i, j)
    if k < j and r.toks[k][0] == "text" and len(r.toks[k][1]) >= 2:  # \frac12: one digit per argument
        v = r.toks[k][1]
        return fraction(v[0], v[1]) + v[2:], k + 1
    args, k = r.args(i, j, "mm")
    return fraction(r.arg_text(args[0], True), r.arg_text(args[1], True)), k


def _h_binom(r: Walker, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    args, k = r.args(i, j, "mm")
    return f"({r.arg_text(args[0], True).strip()} {r.arg_text(args[1], True).strip()})", k


def _h_sqrt(r: Walker, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    args, k = r.args(i, j, "om")
    index = r.arg_text(args[0], True).strip()
    body = r.arg_text(args[1], True).strip()
    root = (to_superscript(index) or index) + "√" if index else "√"
    return root + (body if body.isalnum() or len(body) <= 1 else f"({body})"), k


def _h_mathbb(r: Walker, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    args, k = r.args(i, j, "m")
    return double_struck(r.arg_text(args[0], True)), k


def _h_script_text(r: Walker, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    args, k = r.args(i, j, "m")
    inner = r.arg_text(args[0], False).strip()
    conv = to_subscript(inner) if name == "textsubscript" else to_superscript(inner)
    return (conv if conv is not None else inner), k


def _h_ding(r: Walker, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    args, k = r.args(i, j, "m")
    return DING.get(r.arg_text(args[0], False).strip(), ""), k


def _h_multirow(r: Walker, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    args, k = r.args(i, j, MULTIROW_ARGS)
    content = args[-1]
    return ("" if content is None else r.render(content[0], content[1], math)), k


def _h_diagbox(r: Walker, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    args, k = r.args(i, j, "omm")
    parts = [r.arg_text(args[1], math), r.arg_text(args[2], math)]
    third = skip_space(r.toks, k, j)
    if third < j and r.toks[third][0] == "{":
        extra, k = r.args(k, j, "m")
        parts.append(r.arg_text(extra[0], math))
    return " ".join(p.strip() for p in parts), k


def _h_begin(r: Walker, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    """A nested environment: a nested tabular's specs are skipped, its cells read in order."""
    args, k = r.args(i, j, "m")
    env = arg_source(r.toks, args[0]) if args[0] else ""
    if env in ENV_ARGS:  # tabular-like (spec skipped) or minipage
        _, k = r.args(k, j, ENV_ARGS[env])
    elif env in MATH_MODE_ENVS:  # every math environment reads as its formula (not only equation and align)
        if env in ARGUMENT_MATH_ENVS:  # alignat's column count is no part of the formula
            _, k = r.args(k, j, ARGUMENT_MATH_ENVS[env])
        end = _find_end(r.toks, k, j, env)
        return r.render(k, end, True), end
    return " ", k


def _find_end(toks: list[Token], i: int, j: int, env: str) -> int:
    """Index of the `\\end{env}` closing a math environment (j when it is not closed)."""
    for k in range(i, j):
        if toks[k][0] == "cmd" and toks[k][1] == "end":
            a = group_arg(toks, k + 1, j)
            if a and arg_source(toks, a) == env:
                return k
    return j


def _h_end(r: Walker, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    _, k = r.args(i, j, "m")
    return " ", k


def _h_math_switch(r: Walker, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    """`\\(..\\)` / `\\[..\\]`: read up to the closing command in math mode."""
    close = ")" if name == "(" else "]"
    for k in range(i, j):
        if r.toks[k][0] == "cmd" and r.toks[k][1] == close:
            return r.render(i, k, True), k + 1
    return r.render(i, j, True), j


def _h_not(r: Walker, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    k = skip_space(r.toks, i, j)
    if k < j:
        kind, value = r.toks[k][0], r.toks[k][1]
        if kind == "text" and value.startswith("="):
            return "≠" + value[1:], k + 1
        if kind == "cmd" and value == "in":
            return "∉", k + 1
        text, k2 = r.command(k, j, math) if kind == "cmd" else (value, k + 1)
        return (text[:1] + "\u0338" + text[1:]) if text else "", k2
    return "", k


def _h_si(r: Walker, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    """siunitx: \\SI{v}{unit} -> "v unit", \\si{unit}, \\num{1e3} -> 1×10³, \\qty, \\ang."""
    args, k = r.args(i, j, SI_ARGS[name])
    vals = args[1:]

    def unit(a: Arg | None) -> str:
        r.units = True
        try:
            return r.arg_text(a, True).replace(" ", "")
        finally:
            r.units = False

    if name in ("si", "unit"):
        return unit(vals[0]), k
    if name == "ang":
        return _siunitx_number(r.arg_text(vals[0], True)) + "°", k
    if name in ("SIrange", "qtyrange"):
        u = unit(vals[2])
        return f"{_siunitx_number(r.arg_text(vals[0], True))} {u} to {_siunitx_number(r.arg_text(vals[1], True))} {u}", k
    if name == "numrange":
        return f"{_siunitx_number(r.arg_text(vals[0], True))} to {_siunitx_number(r.arg_text(vals[1], True))}", k
    number = _siunitx_number(r.arg_text(vals[0], True))
    if name == "num":
        return number, k
    u = unit(vals[1])
    return (number + u if u in ("%", "°") else f"{number} {u}"), k


_SI_EXP = re.compile(r"^\s*([-+]?[\d.,]*)\s*[eE]\s*([-+]?\d+)\s*$")


def _siunitx_number(text: str) -> str:
    text = text.replace("+-", "±").strip()
    m = _SI_EXP.match(text)
    if m:
        mant, exp = m.group(1), m.group(2).lstrip("+")
        power = "10" + (to_superscript(exp) or f"^{exp}")
        return f"{mant} × {power}" if mant else power
    return text


_HANDLERS: dict[str, Handler] = {
    "frac": _h_frac, "dfrac": _h_frac, "tfrac": _h_frac, "cfrac": _h_frac, "nicefrac": _h_frac,
    "sfrac": _h_frac, "xfrac": _h_frac, "binom": _h_binom, "tbinom": _h_binom,
    "dbinom": _h_binom, "sqrt": _h_sqrt, "mathbb": _h_mathbb, "textsuperscript": _h_script_text,
    "textsubscript": _h_script_text, "tnote": _h_script_text, "ding": _h_ding, "multirow": _h_multirow,
    "diagbox": _h_diagbox, "backslashbox": _h_diagbox, "slashbox": _h_diagbox,
    "begin": _h_begin, "end": _h_end, "(": _h_math_switch, "[": _h_math_switch, "not": _h_not,
    "SI": _h_si, "si": _h_si, "num": _h_si, "qty": _h_si, "unit": _h_si, "ang": _h_si,
    "SIrange": _h_si, "numrange": _h_si, "qtyrange": _h_si,
}


# --------------------------------------------------------------------------------------
def render_tokens(toks: list[Token], i: int, j: int, math: bool = False) -> str:
    """Render toks[i:j] and tidy the result: NFC, white space collapsed and stripped."""
    text = Walker(toks, _HANDLERS).render(i, j, math)
    return " ".join(unicodedata.normalize("NFC", text).split())


def latex_to_text(latex: str) -> str:
    """A cell's LaTeX (text mode, `$..$` math inside) as the page shows it, e.g. "F-1 ↑"."""
    if not isinstance(latex, str):
        raise TypeError(f"latex_to_text expects a str, got {type(latex).__name__}")
    toks = tokenize(latex)
    return render_tokens(toks, 0, len(toks), math=False)


def math_to_unicode(latex: str) -> str:
    """Math-mode LaTeX (without `$`) as Unicode: "\\alpha^{2} \\leq \\frac{1}{8}" -> "α² ≤ 1/8"."""
    if not isinstance(latex, str):
        raise TypeError(f"math_to_unicode expects a str, got {type(latex).__name__}")
    toks = tokenize(latex.strip())
    if toks and toks[0][0] in ("$", "$$") and toks[-1][0] == toks[0][0] and len(toks) > 1:
        toks = Tokens(toks[1:-1])  # alttext sometimes keeps its dollars
    return render_tokens(toks, 0, len(toks), math=True)
