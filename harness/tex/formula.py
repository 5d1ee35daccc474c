"""A LaTeX formula -> a small tree -> its canonical token sequence.

Two spellings of the same formula should give the same tokens, so the metrics see only
differences that change what a reader sees. Normalised away: the delimiters (`$`, `$$`,
`\\(..\\)`, `\\[..\\]`) and display environments (equation, align, gather, multline,
aligned, with their `&` and `\\\\`), `\\label`, `\\tag`, `\\nonumber`; `{}` grouping;
spacing (`\\, \\; \\: \\! \\quad ~`); `\\left`/`\\right`/`\\big..`; `\\displaystyle`,
`\\limits`; fonts that do not change meaning (`\\mathrm`, `\\mathbf`, `\\text`,
`\\operatorname`, `\\boldsymbol`, ...: the letters stay); `\\frac`/`\\dfrac`/`\\tfrac`;
equivalent symbol macros (`\\le`/`\\leq`, `\\to`/`\\rightarrow`, `\\longrightarrow`,
`\\ldots`/`\\cdots`, a Unicode `≤` in the source) via one Unicode character each; the order
of sub- and superscript; `x'` and `x^{\\prime}`; `pmatrix` and `\\left(\\begin{array}..\\right)`;
trailing sentence punctuation; `\\ce{..}` (mhchem) as the plain formula.

Kept, as tokens a metric can weigh: every letter, digit and symbol (one token each),
`\\mathbb`/`\\mathcal`/`\\mathfrak` (a style prefix `bb:R`, cheap to get wrong),
sub/superscripts `_{ .. }` `^{ .. }`, fractions, roots, accents, matrices with their cells.

This module reads (`lex` over the shared tokenizer, then a recursive-descent parser); the
tree and its serialisation are `formula_tree`, what each token is `formula_classes`, and the
Unicode of a symbol command comes from the renderer and `symbols`.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from tablebench.tex.formula_symbols import AMS_ARROWS, EXTENSIBLE_ARROWS, STACKED
from tablebench.tex.formula_tree import Atom, Group, Script, Sep, Struct, serialise
from tablebench.tex.latex_math import math_to_unicode
from tablebench.tex.symbols import DOUBLE_STRUCK_LETTERS, EQUIVALENT, NEGATED
from tablebench.tex.tokens import match_braces, token_pattern


class FormulaError(ValueError):
    """The formula cannot be read (e.g. nested too deeply): a one-line message."""


# ---------------------------------------------------------------------------- tables
SPACING = frozenset(
    ", ; : ! > quad qquad enspace enskip thinspace medspace thickspace negthinspace negmedspace "
    "negthickspace nobreakspace space hfill hfil displaystyle textstyle scriptstyle scriptscriptstyle "
    "limits nolimits nonumber notag left right middle big Big bigg Bigg bigl bigr Bigl Bigr biggl "
    "biggr Biggl Biggr bigm Bigm biggm Biggm strut mathstrut relax protect nobreak allowbreak "
    "rm bf it sf tt sl sc em normalfont boldmath unboldmath mathversion hline centering "
    "tiny scriptsize footnotesize small normalsize large Large LARGE huge Huge ( ) [ ] / @ - "
    "cdotp".split()) | {" ", "\n", "\t"}
DROP_ONE_ARG = frozenset("label tag hspace vspace phantom hphantom vphantom color mspace kern "
                         "hskip mkern mathchoice".split())
FONTS = frozenset(
    "mathrm mathbf mathit mathsf mathtt mathnormal mathup boldsymbol bm pmb text textrm textbf "
    "textit textsf texttt textnormal textup textmd emph mbox hbox operatorname mathop mathrel "
    "mathbin mathord mathpunct mathopen mathclose mathinner ensuremath fbox smash "
    "boxed mathbold textsc".split())
STYLES = {"mathbb": "bb", "mathbbm": "bb", "mathds": "bb", "Bbb": "bb", "mathcal": "cal",
          "mathscr": "cal", "cal": "cal", "mathfrak": "frak"}
FRACS = {"frac": "frac", "dfrac": "frac", "tfrac": "frac", "cfrac": "frac", "genfrac": "frac",
         "binom": "binom", "dbinom": "binom", "tbinom": "binom", "choose": "binom"}
ACCENTS = {"hat": "hat", "widehat": "hat", "tilde": "tilde", "widetilde": "tilde",
           "bar": "bar", "overline": "bar", "vec": "vec", "overrightarrow": "vec",
           "overleftarrow": "overleftarrow", "dot": "dot", "ddot": "ddot", "dddot": "dddot",
           "acute": "acute", "grave": "grave", "breve": "breve", "check": "check",
           "mathring": "ring", "underline": "underline", "underbrace": "underbrace",
           "overbrace": "overbrace", "cancel": "cancel"}
MATRIX_ENVS = {"matrix": ("", ""), "pmatrix": ("(", ")"), "bmatrix": ("[", "]"),
               "Bmatrix": ("{", "}"), "vmatrix": ("|", "|"), "Vmatrix": ("‖", "‖"),
               "smallmatrix": ("", ""), "array": ("", ""), "subarray": ("", ""),
               "cases": ("{", ""), "dcases": ("{", ""), "rcases": ("", "}"), "tabular": ("", "")}
ENV_SKIP_ARG = frozenset({"array", "subarray", "alignedat", "alignat", "alignat*", "tabular"})
MAX_DEPTH = 200


@lru_cache(maxsize=4096)
def symbol(name: str) -> str:
    """What `\\name` shows, as Unicode ('' when unknown): `le` -> '≤', `sin` -> 'sin'."""
    return math_to_unicode("\\" + name) or AMS_ARROWS.get(name, "")


def _norm_char(c: str) -> Atom:
    c = EQUIVALENT.get(c, c)
    if c in DOUBLE_STRUCK_LETTERS:
        return Atom(DOUBLE_STRUCK_LETTERS[c], "bb")
    if len(c) == 1 and not c.isascii():
        c = unicodedata.normalize("NFKC", c) if unicodedata.category(c) == "Lm" else c
    return Atom(c)


# ---------------------------------------------------------------------------- lexer
Tok = tuple[str, str, str]  # (kind "cmd"|"char", value, raw source: a space before it kept as one " ")


def lex(latex: str) -> list[Tok]:
    """Control words/symbols and single characters; spaces and comments dropped (math mode).

    The shared tokenizer's tokens (math has no `\\verb`), split into characters. A control
    word is letters only (`\\a@b` is `\\a`, `@`, `b`) and keeps a `*` written right after it
    (`\\operatorname*`); a backslash that ends the input is the character itself. A token
    written after a space keeps it in its raw source (mhchem reads `A + B` apart from `A+`).
    """
    out: list[Tok] = []
    starred = -1  # offset of a `*` already read with the control word before it
    spaced = -1  # index of the token a space was written before
    for m in token_pattern(verbatim=False).finditer(latex):
        kind = m.lastgroup
        if 0 <= spaced < len(out):
            k, v, raw = out[spaced]
            out[spaced] = (k, v, " " + raw)
            spaced = -1
        if kind == "space":
            spaced = len(out)
        if kind == "cmd":
            value = m.group("cmd")
            if not value:
                out.append(("char", "\\", "\\"))
                continue
            at = value.find("@")
            if at < 0 or len(value) == 1:
                end = m.end()
                if latex.startswith("*", end) and value.isalpha() and value.isascii():
                    out.append(("cmd", value, latex[m.start():end + 1]))
                    starred = end
                else:
                    out.append(("cmd", value, m.group()))
                continue
            word = value[:at] or "@"  # `\@x`: the control symbol `\@`, then `x`
            out.append(("cmd", word, "\\" + word))
            out += [("char", c, c) for c in value[len(word):]]
        elif kind != "space" and kind != "comment" and m.start() != starred:
            out += [("char", c, c) for c in m.group()]
    if 0 <= spaced < len(out):
        k, v, raw = out[spaced]
        out[spaced] = (k, v, " " + raw)
    return out


# ---------------------------------------------------------------------------- parser
class _Parser:
    """Recursive descent over the token list; every step consumes at least one token."""

    def __init__(self, toks: list[Tok]) -> None:
        self.toks = toks
        self.i = 0
        self.depth = 0
        self._closers: list[int] | None = None  # where each `{` closes, once an argument is read raw

    def peek(self) -> Tok | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def parse_list(self, close: str | None = None, env: bool = False) -> list:
        """Nodes up to `close` (a char) or `\\end{..}` (env) or the end; the closer is consumed."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise FormulaError(f"formula nested more than {MAX_DEPTH} levels deep")
        out: list = []
        while self.i < len(self.toks):
            kind, value, _ = self.toks[self.i]
            if kind == "char" and value == close:
                self.i += 1
                break
            if env and kind == "cmd" and value == "end":
                self.i += 1
                self.read_arg_text()
                break
            if kind == "char" and value == "}" and close != "}":
                self.i += 1  # a stray closing brace: skip it
                continue
            self.step(out)
        self.depth -= 1
        return out

    def step(self, out: list) -> None:
        kind, value, _ = self.toks[self.i]
        self.i += 1
        if kind == "char":
            if value == "{":
                out.append(Group(self.parse_list("}")))
            elif value in "^_":
                self.attach(out, value, self.parse_arg())
            elif value == "'":
                primes = [Atom("′")]
                while (t := self.peek()) and t[:2] == ("char", "'"):
                    self.i += 1
                    primes.append(Atom("′"))
                self.attach(out, "^", primes)
            elif value == "&":
                out.append(Sep("&"))
            elif value in "~$":
                pass
            else:
                out.append(_norm_char(value))
            return
        self.command(value, out)

    def attach(self, out: list, which: str, arg: list) -> None:
        """Put `arg` in the sub/superscript slot of the last node (wrapping it in a Script)."""
        last = out[-1] if out else None
        if not isinstance(last, Script) or (last.sub if which == "_" else last.sup) is not None:
            if last is not None:
                out.pop()
            last = Script(last)
            out.append(last)
        if which == "_":
            last.sub = arg
        elif last.sup is not None and all(isinstance(a, Atom) and a.text == "′" for a in last.sup):
            last.sup = last.sup + arg  # x'^2
        else:
            last.sup = arg

    def parse_arg(self) -> list:
        """A mandatory argument: a braced group's nodes, or one token (with a command's own args)."""
        t = self.peek()
        if t is None:
            return []
        if t == ("char", "{", "{"):
            self.i += 1
            return self.parse_list("}")
        if t[0] == "char" and t[1] == "}":
            return []
        out: list = []
        self.step(out)
        return out

    def parse_optional(self) -> list | None:
        t = self.peek()
        if t is not None and t[:2] == ("char", "["):
            self.i += 1
            return self.parse_list("]")
        return None

    def read_arg_text(self, spaced: bool = False) -> str:
        """The source of the next braced argument (environment names, array column specs, an
        mhchem formula), without spaces unless `spaced` (then one where the source had some);
        an unclosed one runs to the end, less its last token."""
        t = self.peek()
        if t is None or t[:2] != ("char", "{"):
            return ""
        if self._closers is None:
            self._closers = match_braces([v if kind == "char" else "" for kind, v, _ in self.toks])
        start = self.i
        self.i = min(self._closers[start] + 1, len(self.toks))
        return "".join(t[2] if spaced else t[2].lstrip(" ") for t in self.toks[start + 1:self.i - 1])

    def command(self, name: str, out: list) -> None:
        if name in SPACING:
            if name in ("left", "right", "middle") or name.startswith(("big", "Big")):
                t = self.peek()
                if t is not None and t[:2] == ("char", "."):
                    self.i += 1  # \left. shows nothing
            return
        if name in DROP_ONE_ARG:
            self.parse_optional()
            self.parse_arg()
            return
        if name in FONTS:
            if name == "smash":
                self.parse_optional()
            out.append(Group(self.parse_arg()))
            return
        if name in STYLES:
            nodes = self.parse_arg() if name != "cal" else self.parse_list_rest()
            out.append(Group(_styled(nodes, STYLES[name])))
            return
        if name in FRACS:
            if name == "genfrac":
                for _ in range(4):
                    self.parse_arg()
            a = self.parse_arg()
            out.append(Struct(FRACS[name], [a, self.parse_arg()]))
            return
        if name == "sqrt":
            index = self.parse_optional()
            body = self.parse_arg()
            out.append(Struct("sqrt", [body] if not index else [index, body]))
            return
        if name == "not":
            nxt = self.parse_arg()
            if len(nxt) == 1 and isinstance(nxt[0], Atom) and nxt[0].text in NEGATED:
                out.append(Atom(NEGATED[nxt[0].text]))
            else:
                out.append(Struct("not", [nxt]))
            return
        if name in ACCENTS:
            arg = self.parse_arg()
            arrow = {"vec": "→", "overleftarrow": "←"}.get(ACCENTS[name])
            out.append(_stacked([Atom(arrow)], arg) if arrow and _stacked([Atom(arrow)], arg)
                       else Struct(ACCENTS[name], [arg]))
            return
        if name in ("overset", "stackrel", "underset"):
            over = self.parse_arg()
            under = self.parse_arg()
            pair = _stacked(under, over) if name == "underset" else _stacked(over, under)
            base = Group(under)
            out.append(pair or (Script(base, sub=over) if name == "underset" else Script(base, sup=over)))
            return
        if name in EXTENSIBLE_ARROWS:
            below = self.parse_optional()
            above = self.parse_arg()
            out.append(Script(Atom(EXTENSIBLE_ARROWS[name]), sub=below or None, sup=above or None))
            return
        if name in ("pmod", "bmod", "mod", "pod"):
            arg = self.parse_arg() if name in ("pmod", "pod") else []
            word = [Atom(c) for c in "mod"] if name != "pod" else []
            out.extend([Atom("("), *word, *arg, Atom(")")] if arg or name == "pmod" else word)
            return
        if name == "ce":
            out.append(Group(parse_nodes(_mhchem(self.read_arg_text(spaced=True)))))
            return
        if name == "begin":
            self.environment(self.read_arg_text().strip(), out)
            return
        if name == "end":
            self.read_arg_text()
            return
        if name == "\\" or name == "cr" or name == "newline":
            self.parse_optional()
            out.append(Sep("\\\\"))
            return
        text = symbol(name)
        if text:
            for c in text:
                if not c.isspace():
                    out.append(_norm_char(c))
        else:
            out.append(Atom("\\" + name))

    def parse_list_rest(self) -> list:
        """`{\\cal D}`: an old-style switch applies to the rest of the current group."""
        out: list = []
        while (t := self.peek()) is not None and t[:2] != ("char", "}"):
            self.step(out)
        return out

    def environment(self, env: str, out: list) -> None:
        base = env.rstrip("*")
        if env in ENV_SKIP_ARG or base in ENV_SKIP_ARG:
            self.parse_optional()
            self.read_arg_text()
        body = self.parse_list(env=True)
        if base not in MATRIX_ENVS:
            out.append(Group([n for n in body if not isinstance(n, Sep)]))
            return
        rows: list[list[list]] = [[[]]]
        for node in body:
            if isinstance(node, Sep):
                if node.text == "&":
                    rows[-1].append([])
                else:
                    rows.append([[]])
            else:
                rows[-1][-1].append(node)
        if rows and all(not cell for cell in rows[-1]):
            rows.pop()  # a trailing \\
        left, right = MATRIX_ENVS[base]
        if left:
            out.append(Atom(left))
        out.append(Struct("matrix", rows))
        if right:
            out.append(Atom(right))


def _single_atom(nodes: list) -> Atom | None:
    """The one symbol `nodes` show (through grouping braces), else None."""
    while len(nodes) == 1 and isinstance(nodes[0], Group):
        nodes = nodes[0].children
    return nodes[0] if len(nodes) == 1 and type(nodes[0]) is Atom else None


def _stacked(upper: list, lower: list) -> Atom | None:
    """Two arrows set one over the other as the one symbol Unicode has for the pair (`⇄`), else None."""
    a, b = _single_atom(upper), _single_atom(lower)
    char = STACKED.get((a.text, b.text)) if a is not None and b is not None else None
    return Atom(char) if char else None


def _styled(nodes: list, style: str) -> list:
    """Give every plain letter of `nodes` the style (ℝ is already bb)."""
    for node in nodes:
        if isinstance(node, Atom) and not isinstance(node, Sep) and not node.style:
            if node.text.isalpha():  # `{\cal D_{n}=..}`: only letters take the style
                node.style = style
        elif isinstance(node, Group):
            _styled(node.children, style)
        elif isinstance(node, Script) and node.base is not None:
            _styled([node.base], style)
    return nodes


_CE_NUMBER = re.compile(r"(?<=[A-Za-z)\]])(\d+)")
_CE_CHARGE = re.compile(r"\^(\d*[+-])")  # `As^3+`: the charge 3+ is the superscript
_CE_BARE_CHARGE = re.compile(r"(?<=[A-Za-z0-9)\]])(\d*[+-])(?=\s|$)")  # `Na+`, `SO4 2-` at a species' end


def _mhchem(text: str) -> str:
    """The mhchem rules formulas use: `H2O` -> `H_{2}O`, charges (`As^3+`, `Na+`) -> `^{3+}`,
    `^{+}`, arrows, no inner `$`. A `+` between spaces is the reaction's plus."""
    text = text.replace("$", " ")
    for arrow, tex in (("<=>", r"\rightleftharpoons "), ("<->", r"\leftrightarrow "),
                       ("->", r"\rightarrow "), ("<-", r"\leftarrow ")):
        text = text.replace(arrow, tex)
    text = _CE_CHARGE.sub(r"^{\1}", text)
    text = _CE_BARE_CHARGE.sub(r"^{\1}", text)
    return _CE_NUMBER.sub(r"_{\1}", text)


# ---------------------------------------------------------------------------- API
def parse_nodes(latex: str) -> list:
    """The tree of a formula (a list of top-level nodes); raises `FormulaError` when unreadable."""
    if not isinstance(latex, str):
        raise TypeError(f"a formula is a str, got {type(latex).__name__}")
    parser = _Parser(lex(latex))
    out: list = []
    while parser.i < len(parser.toks):
        out.extend(parser.parse_list())
    return out


TRAILING_PUNCTUATION = frozenset(",.;")


@lru_cache(maxsize=8192)
def canonical_tokens(latex: str) -> tuple[str, ...]:
    """The canonical token sequence of a formula (see the module docstring for what is normalised)."""
    tokens = serialise(parse_nodes(latex))
    while tokens and tokens[-1] in TRAILING_PUNCTUATION:
        tokens.pop()  # the sentence's punctuation after a formula is not part of it
    return tuple(tokens)
