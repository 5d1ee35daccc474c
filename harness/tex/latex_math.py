"""LaTeX text and math -> the Unicode a reader of the compiled PDF sees.

`math_to_unicode("\\alpha^{2}")` gives "α²"; `latex_to_text("\\textbf{F-1} $\\uparrow$")` gives
"F-1 ↑". Both run over one token list from `tokenize` (a single regex pass; the table reader
splits cells on the same tokens, so a cell is never tokenized twice).

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
from collections.abc import Callable

from harness.tex.scripts import to_subscript, to_superscript

# --------------------------------------------------------------------------------------
# Tokens: (kind, value, start, end). kind is "cmd" (value = name without backslash),
# "text", "space", "verb" (value = verbatim content) or the character itself for
# { } [ ] $ $$ & ^ _ ~ # *. Comments are dropped.
Token = tuple[str, str, int, int]


class Tokens(list):
    """A token list that knows, once computed, where each `{` closes (keeps brace matching linear)."""

    _closers: list[int] | None = None

    def closers(self) -> list[int]:
        """closers()[i] is the index of the `}` matching a `{` at i (len(self) when unclosed)."""
        if self._closers is None:
            n = len(self)
            out = [n] * n
            stack: list[int] = []
            for k, tok in enumerate(self):
                if tok[0] == "{":
                    stack.append(k)
                elif tok[0] == "}" and stack:
                    out[stack.pop()] = k
            self._closers = out
        return self._closers

_TOKEN_RE = re.compile(
    r"(?P<verb>\\verb\*?([^A-Za-z\s*])(.*?)(?:\2|$))"
    r"|\\(?P<cmd>[A-Za-z@]+|.|\n|$)"
    r"|(?P<comment>%[^\n]*\n?[ \t]*)"
    r"|(?P<space>\s+)"
    r"|(?P<dollar>\$\$?)"
    r"|(?P<char>[{}\[\]&^_~#*])"
    r"|(?P<text>[^\\%\s${}\[\]&^_~#*]+)",
    re.S,
)


def tokenize(text: str) -> Tokens:
    """Split LaTeX into tokens in one pass; `%` comments (not `\\%`) vanish with their line end."""
    out = Tokens()
    append = out.append
    for m in _TOKEN_RE.finditer(text):
        kind = m.lastgroup
        s, e = m.span()
        if kind == "text":
            append(("text", m.group("text"), s, e))
        elif kind == "cmd":
            append(("cmd", m.group("cmd"), s, e))
        elif kind == "space":
            append(("space", " ", s, e))
        elif kind == "char":
            c = m.group("char")
            append((c, c, s, e))
        elif kind == "dollar":
            d = m.group("dollar")
            append((d, d, s, e))
        elif kind == "verb":
            append(("verb", m.group(3), s, e))
        # comments are dropped
    return out


# --------------------------------------------------------------------------------------
# Argument helpers over a token list (shared with the table reader).
def skip_space(toks: list[Token], i: int, j: int) -> int:
    """The first index at or after `i` (before `j`) that is not white space."""
    while i < j and toks[i][0] == "space":
        i += 1
    return i


def group_arg(toks: list[Token], i: int, j: int) -> tuple[int, int, int] | None:
    """A mandatory argument at `i`: (content start, content end, next index), or None at the end.

    A braced group gives its inside; otherwise one token (TeX's undelimited argument).
    """
    i = skip_space(toks, i, j)
    if i >= j:
        return None
    kind = toks[i][0]
    if kind == "{":
        k = _close_brace(toks, i, j)
        return i + 1, k, min(k + 1, j)
    if kind == "}":
        return None
    return i, i + 1, i + 1


def _close_brace(toks: list[Token], i: int, j: int) -> int:
    """Index of the `}` closing the `{` at i, or j when it does not close before j."""
    if isinstance(toks, Tokens):
        return min(toks.closers()[i], j)
    depth = 0
    for k in range(i, j):
        kind = toks[k][0]
        if kind == "{":
            depth += 1
        elif kind == "}":
            depth -= 1
            if depth == 0:
                return k
    return j


def optional_arg(toks: list[Token], i: int, j: int) -> tuple[int, int, int] | None:
    """An optional `[...]` argument at `i` (spaces skipped), or None when there is none."""
    k = skip_space(toks, i, j)
    if k < j and toks[k][0] == "[":
        depth = 0
        for m in range(k, j):
            kind = toks[m][0]
            if kind == "{":
                depth += 1
            elif kind == "}":
                depth -= 1
            elif kind == "]" and depth == 0:
                return k + 1, m, m + 1
        return k + 1, j, j
    return None


def star(toks: list[Token], i: int, j: int) -> int:
    """Skip a `*` right after a command (as in `\\\\*`, `\\vspace*`)."""
    return i + 1 if i < j and toks[i][0] == "*" else i


def paren_arg(toks: list[Token], i: int, j: int) -> int:
    """Skip a `(lr)`-style trim argument (booktabs `\\cmidrule`); returns the next index."""
    k = skip_space(toks, i, j)
    if k < j and toks[k][0] == "text" and toks[k][1].startswith("("):
        for m in range(k, j):
            if toks[m][0] == "text" and ")" in toks[m][1]:
                return m + 1
    return i


# --------------------------------------------------------------------------------------
# Symbol tables.
_GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ",
    "varkappa": "ϰ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "omicron": "ο", "pi": "π",
    "varpi": "ϖ", "rho": "ρ", "varrho": "ϱ", "sigma": "σ", "varsigma": "ς", "tau": "τ",
    "upsilon": "υ", "phi": "ϕ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
    "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π",
    "Sigma": "Σ", "Upsilon": "Υ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
    "digamma": "ϝ", "upmu": "μ", "upalpha": "α", "upbeta": "β",
}
_MATH_SYMBOLS = {
    # operators
    "pm": "±", "mp": "∓", "times": "×", "div": "÷", "cdot": "⋅", "ast": "∗", "star": "⋆",
    "circ": "∘", "bullet": "∙", "oplus": "⊕", "ominus": "⊖", "otimes": "⊗", "oslash": "⊘",
    "odot": "⊙", "cup": "∪", "cap": "∩", "sqcup": "⊔", "sqcap": "⊓", "vee": "∨", "wedge": "∧",
    "lor": "∨", "land": "∧", "setminus": "∖", "smallsetminus": "∖", "wr": "≀", "dagger": "†",
    "ddagger": "‡", "amalg": "⨿", "uplus": "⊎", "diamond": "⋄", "bigcirc": "◯",
    "triangle": "△", "triangleleft": "◁", "triangleright": "▷", "bigtriangleup": "△",
    "bigtriangledown": "▽", "dotplus": "∔", "ltimes": "⋉", "rtimes": "⋊", "Cap": "⋒",
    "doublecap": "⋒", "Cup": "⋓", "doublecup": "⋓", "leftthreetimes": "⋋",
    "rightthreetimes": "⋌", "barwedge": "⌅", "curlywedge": "⋏", "veebar": "⊻",
    "curlyvee": "⋎", "doublebarwedge": "⩞", "boxminus": "⊟", "circleddash": "⊝",
    "boxtimes": "⊠", "circledast": "⊛", "boxdot": "⊡", "circledcirc": "⊚", "boxplus": "⊞",
    "centerdot": "⋅", "divideontimes": "⋇", "intercal": "⊺",
    # relations
    "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥", "leqslant": "⩽", "geqslant": "⩾",
    "neq": "≠", "ne": "≠", "approx": "≈", "sim": "∼", "simeq": "≃", "cong": "≅",
    "equiv": "≡", "propto": "∝", "ll": "≪", "gg": "≫", "prec": "≺", "succ": "≻",
    "preceq": "⪯", "succeq": "⪰", "subset": "⊂", "supset": "⊃", "subseteq": "⊆",
    "supseteq": "⊇", "in": "∈", "notin": "∉", "ni": "∋", "mid": "∣", "parallel": "∥",
    "perp": "⊥", "models": "⊨", "vdash": "⊢", "dashv": "⊣", "asymp": "≍", "doteq": "≐",
    "lesssim": "≲", "gtrsim": "≳", "coloneqq": "≔", "triangleq": "≜", "nsim": "≁",
    # arrows
    "uparrow": "↑", "downarrow": "↓", "leftarrow": "←", "rightarrow": "→", "to": "→",
    "gets": "←", "leftrightarrow": "↔", "updownarrow": "↕", "Uparrow": "⇑",
    "Downarrow": "⇓", "Leftarrow": "⇐", "Rightarrow": "⇒", "Leftrightarrow": "⇔",
    "longrightarrow": "⟶", "longleftarrow": "⟵", "Longrightarrow": "⟹",
    "Longleftarrow": "⟸", "longleftrightarrow": "⟷", "iff": "⟺", "implies": "⟹",
    "mapsto": "↦", "nearrow": "↗", "searrow": "↘", "nwarrow": "↖", "swarrow": "↙",
    "hookrightarrow": "↪", "rightleftharpoons": "⇌", "uparrowbold": "↑",
    # misc
    "infty": "∞", "partial": "∂", "nabla": "∇", "forall": "∀", "exists": "∃",
    "nexists": "∄", "emptyset": "∅", "varnothing": "∅", "neg": "¬", "lnot": "¬",
    "angle": "∠", "prime": "′", "ell": "ℓ", "hbar": "ℏ", "Re": "ℜ", "Im": "ℑ", "aleph": "ℵ",
    "wp": "℘", "top": "⊤", "bot": "⊥", "sum": "∑", "prod": "∏", "coprod": "∐", "int": "∫",
    "iint": "∬", "oint": "∮", "bigcup": "⋃", "bigcap": "⋂", "bigoplus": "⨁",
    "bigotimes": "⨂", "bigvee": "⋁", "bigwedge": "⋀", "sqrt": "√", "surd": "√",
    "cdots": "⋯", "ldots": "…", "dots": "…", "vdots": "⋮", "ddots": "⋱", "dotsc": "…",
    "dotsb": "⋯", "langle": "⟨", "rangle": "⟩", "lceil": "⌈", "rceil": "⌉",
    "lfloor": "⌊", "rfloor": "⌋", "vert": "|", "Vert": "‖", "lvert": "|", "rvert": "|",
    "lVert": "‖", "rVert": "‖", "backslash": "\\", "colon": ":", "square": "□",
    "Box": "□", "blacksquare": "■", "lozenge": "◊", "blacklozenge": "⧫", "checkmark": "✓",
    "clubsuit": "♣", "diamondsuit": "♢", "heartsuit": "♡", "spadesuit": "♠",
    "flat": "♭", "natural": "♮", "sharp": "♯", "degree": "°", "imath": "ı", "jmath": "ȷ",
    "complement": "∁", "therefore": "∴", "because": "∵", "lbrace": "{", "rbrace": "}",
    "lbrack": "[", "rbrack": "]", "varpropto": "∝", "blacktriangle": "▲",
    "blacktriangledown": "▼", "vartriangle": "△", "bigstar": "★",
    "textbullet": "•",
}
_TEXT_SYMBOLS = {
    "dag": "†", "ddag": "‡", "S": "§", "P": "¶", "copyright": "©", "textcopyright": "©",
    "textregistered": "®", "texttrademark": "™", "pounds": "£", "textsterling": "£",
    "euro": "€", "texteuro": "€", "yen": "¥", "textyen": "¥", "textdollar": "$",
    "ldots": "…", "textellipsis": "…", "dots": "…", "textasciitilde": "~",
    "textasciicircum": "^", "textbackslash": "\\", "textunderscore": "_", "textbar": "|",
    "textless": "<", "textgreater": ">", "textendash": "–", "textemdash": "—",
    "textquoteleft": "‘", "textquoteright": "’", "textquotedblleft": "“",
    "textquotedblright": "”", "textdagger": "†", "textdaggerdbl": "‡", "textdegree": "°",
    "textperthousand": "‰", "textmu": "µ", "textpm": "±", "texttimes": "×",
    "textdiv": "÷", "textsection": "§", "textparagraph": "¶", "textbullet": "•",
    "textperiodcentered": "·", "textonehalf": "½", "textonequarter": "¼",
    "textthreequarters": "¾", "textminus": "−", "checkmark": "✓", "cmark": "✓",
    "xmark": "✗", "ding": "", "i": "ı", "j": "ȷ", "ss": "ß", "o": "ø", "O": "Ø", "ae": "æ",
    "AE": "Æ", "oe": "œ", "OE": "Œ", "aa": "å", "AA": "Å", "l": "ł", "L": "Ł",
    "LaTeX": "LaTeX", "TeX": "TeX", "today": "", "&": "&", "%": "%", "_": "_", "#": "#",
    "$": "$", "{": "{", "}": "}", "textbraceleft": "{", "textbraceright": "}",
    "slash": "/", "|": "‖", "textsuperscript": "", "ensuremath": "", "textcelsius": "℃",
    "textohm": "Ω", "textasteriskcentered": "∗", "textvisiblespace": "␣",
}
_SYMBOLS = {**_GREEK, **_MATH_SYMBOLS, **_TEXT_SYMBOLS}
_SYMBOLS.pop("ding")
_SYMBOLS.pop("textsuperscript")
_SYMBOLS.pop("ensuremath")

_FUNCTION_NAMES = frozenset(
    "log ln lg exp sin cos tan cot sec csc arcsin arccos arctan sinh cosh tanh coth max min "
    "sup inf lim liminf limsup arg argmax argmin det dim ker deg gcd hom Pr mod bmod "
    "Tr tr diag sgn var Var Cov E".split()
)
_SPACES = {",": " ", ";": " ", ":": " ", ">": " ", " ": " ", "\n": " ", "\t": " ", "quad": " ",
           "qquad": " ", "enspace": " ", "thinspace": " ", "medspace": " ", "thickspace": " ",
           "nobreakspace": " ", "space": " ", "hfill": " ", "hfil": " ", "enskip": " ",
           "!": "", "negthinspace": "", "negmedspace": "", "/": "", "-": "",
           "@": "", "nobreak": "", "allowbreak": "", "xspace": "", "relax": "",
           "protect": "", "null": "", "noindent": "", "par": " ", "newline": " ",
           "linebreak": " ", "break": " ", "cr": " ", "crcr": " ", "tabularnewline": " ",
           "\\": " ", "limits": "", "nolimits": "", "displaystyle": "", "textstyle": "",
           "scriptstyle": "", "scriptscriptstyle": "", "left": "", "right": "", "middle": "",
           "big": "", "Big": "", "bigg": "", "Bigg": "", "bigl": "", "bigr": "", "Bigl": "",
           "Bigr": "", "biggl": "", "biggr": "", "Biggl": "", "Biggr": "", "bigm": "",
           "Bigm": "", "strut": "", "mathstrut": "", "unskip": "", "ignorespaces": "",
           "leavevmode": "", "smallskip": "", "medskip": "", "bigskip": "", "hline": "",
           "toprule": "", "midrule": "", "bottomrule": "", "hdashline": "", "firsthline": "",
           "lasthline": "", "endhead": "", "endfirsthead": "", "endfoot": "",
           "endlastfoot": "", "centering": "", "raggedright": "", "raggedleft": "",
           "arraybackslash": "", "bfseries": "", "itshape": "", "mdseries": "",
           "upshape": "", "slshape": "", "scshape": "", "rmfamily": "", "sffamily": "",
           "ttfamily": "", "normalfont": "", "em": "", "bf": "", "it": "", "rm": "",
           "sf": "", "tt": "", "sc": "", "sl": "", "cal": "", "boldmath": "",
           "unboldmath": "", "tiny": "", "scriptsize": "", "footnotesize": "", "small": "",
           "normalsize": "", "large": "", "Large": "", "LARGE": "", "huge": "", "Huge": "",
           "hspace": " ", "vspace": "", "footnotemark": "", "hskip": " ", "vskip": ""}

# Combining marks for text accents (control symbols and letters) and math accents.
_ACCENTS = {"'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303",
            "=": "\u0304", ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b",
            "c": "\u0327", "k": "\u0328", "r": "\u030a", "d": "\u0323", "b": "\u0331",
            "t": "\u0361", "hat": "\u0302", "widehat": "\u0302", "bar": "\u0304",
            "overline": "\u0305", "tilde": "\u0303", "widetilde": "\u0303", "vec": "\u20d7",
            "dot": "\u0307", "ddot": "\u0308", "acute": "\u0301", "grave": "\u0300",
            "breve": "\u0306", "check": "\u030c", "mathring": "\u030a",
            "overrightarrow": "\u20d7"}

_DOUBLE_STRUCK = {"C": "ℂ", "H": "ℍ", "N": "ℕ", "P": "ℙ", "Q": "ℚ", "R": "ℝ", "Z": "ℤ"}
_DING = {"51": "✓", "52": "✔", "55": "✗", "56": "✘", "54": "✖", "53": "✕", "108": "●",
         "110": "■", "72": "★", "73": "☆", "43": "☞", "217": "➔", "218": "➘", "229": "➥"}
_UNITS = {"percent": "%", "metre": "m", "meter": "m", "second": "s", "gram": "g",
          "kilogram": "kg", "hertz": "Hz", "volt": "V", "watt": "W", "ampere": "A",
          "kelvin": "K", "celsius": "°C", "degreeCelsius": "°C", "degree": "°", "joule": "J",
          "newton": "N", "pascal": "Pa", "byte": "B", "bit": "bit", "hour": "h",
          "minute": "min", "litre": "L", "liter": "L", "mole": "mol", "ohm": "Ω",
          "decibel": "dB", "electronvolt": "eV", "kilo": "k", "mega": "M", "giga": "G",
          "tera": "T", "milli": "m", "micro": "µ", "nano": "n", "pico": "p", "centi": "c",
          "per": "/", "squared": "²", "cubed": "³", "square": "", "cubic": "", "day": "d",
          "flops": "FLOPS", "arcsecond": "″", "arcminute": "′"}

# Commands whose arguments are skipped without output, by argument pattern:
# o = optional [..], m = mandatory, p = booktabs (..) trim.
DROPPED_ARGS = {
    "label": "m", "vspace": "m", "hspace": "m", "hphantom": "m", "vphantom": "m",
    "phantom": "m", "rule": "omm", "color": "om", "rowcolor": "om", "cellcolor": "om",
    "columncolor": "om", "arrayrulecolor": "om", "setlength": "mm", "addtolength": "mm",
    "addlinespace": "o", "cline": "m", "cmidrule": "opm", "toprule": "o",
    "midrule": "o", "bottomrule": "o", "specialrule": "mmm", "hhline": "m",
    "cdashline": "m", "Xhline": "m", "Xcline": "mm", "footnote": "om", "footnotetext": "om",
    "footnotemark": "o", "noalign": "m", "index": "m", "nocite": "m", "vline": "",
    "renewcommand": "mm", "rowfont": "m", "SetCell": "om", "SetRow": "m", "pagebreak": "o",
    "nopagebreak": "o", "captionsetup": "om", "caption": "om", "linespread": "m",
    "fontsize": "mm", "selectfont": "", "arraystretch": "", "tabcolsep": "",
    "definecolor": "mmm", "extrarowheight": "", "hdashline": "o", "belowrulesep": "",
    "aboverulesep": "", "smash": "om", "newcolumntype": "mom", "tablefootnote": "m",
}
# Commands that show their last mandatory argument, by argument pattern.
_SHOW_LAST = {
    "textbf": "m", "textit": "m", "emph": "m", "underline": "m", "textsc": "m",
    "texttt": "m", "textrm": "m", "textsf": "m", "textup": "m", "textmd": "m", "textsl": "m",
    "textnormal": "m", "uline": "m", "uuline": "m", "uwave": "m", "sout": "m", "xout": "m",
    "st": "m", "hl": "m", "ul": "m", "mbox": "m", "hbox": "m", "fbox": "m", "text": "m",
    "mathbf": "m", "mathrm": "m", "mathit": "m", "mathsf": "m",
    "mathtt": "m", "mathnormal": "m", "boldsymbol": "m", "bm": "m", "pmb": "m",
    "mathcal": "m", "mathscr": "m", "mathfrak": "m", "operatorname": "m",
    "mathop": "m", "mathrel": "m", "mathbin": "m", "mathord": "m",
    "mathpunct": "m", "mathopen": "m", "mathclose": "m", "ensuremath": "m",
    "textcolor": "om m", "colorbox": "omm", "fcolorbox": "ommm", "rotatebox": "omm",
    "scalebox": "mom", "resizebox": "mmm", "raisebox": "moom",
    "makebox": "oom", "framebox": "oom", "parbox": "ooomm", "adjustbox": "mm",
    "href": "mm", "multicolumn": "mmm", "makecell": "om", "thead": "om",
    "shortstack": "om", "substack": "m", "underbrace": "m", "overbrace": "m",
    "overset": "mm", "underset": "mm", "stackrel": "mm", "uppercase": "m", "lowercase": "m",
    "MakeUppercase": "m", "cancel": "m", "boxed": "m", "foreignlanguage": "mm", "textenglish": "m",
    "mathds": "m", "mathbbm": "m",
}
_SHOW_LAST = {k: v.replace(" ", "") for k, v in _SHOW_LAST.items()}
_CITES = frozenset("cite citep citet citealp citealt citeauthor citeyear parencite textcite "
                   "autocite footcite cite* citep* citet* nocite".split())
_REFS = frozenset("ref eqref autoref cref Cref pageref nameref vref".split())
TABULAR_ENVS = frozenset("tabular tabular* tabularx tabulary array longtable longtable* "
                          "tblr longtblr NiceTabular supertabular xtabular".split())
_MAX_DEPTH = 64  # nested groups rendered structurally; deeper input is read as plain text
_OPERATORS = set("+-−*/×·=<>≤≥±∓, ")
_SPACED_OPERATORS = frozenset("=<>≤≥⩽⩾≠±∓×÷⋅∗∘≈∼≃≅≡∝≪≫≺≻⊂⊃⊆⊇∈∉∋∣∥→←↔⇒⇐⇔⟶⟵⟹⟸⟷⟺↦∪∩∧∨⊕⊖⊗⊙∖≲≳≔≜")


# --------------------------------------------------------------------------------------
class _Renderer:
    """Walks a token list and writes what the page shows; `math` is the current mode."""

    def __init__(self, toks: list[Token]) -> None:
        self.toks = toks
        self.units = False  # inside siunitx \SI / \si unit arguments
        self.depth = 0  # nesting of render calls

    # -- driving ------------------------------------------------------------------
    def render(self, i: int, j: int, math: bool) -> str:
        """Render toks[i:j]; past _MAX_DEPTH nested groups only the plain text is kept (never a crash)."""
        if self.depth >= _MAX_DEPTH:
            return "".join(t[1] for t in self.toks[i:j] if t[0] in ("text", "space"))
        self.depth += 1
        try:
            return self._render(i, j, math)
        finally:
            self.depth -= 1

    def _render(self, i: int, j: int, math: bool) -> str:
        """Render toks[i:j]; a top-level `\\over` makes it a fraction."""
        over = self._find_over(i, j)
        if over is not None:
            num = self.render(i, over, math).strip()
            den = self.render(over + 1, j, math).strip()
            return f"({num} {den})" if self.toks[over][1] == "choose" else _fraction(num, den)
        out: list[str] = []
        toks = self.toks
        while i < j:
            kind, value, _, _ = toks[i]
            if kind == "text":
                out.append(_text_ligatures(value) if not math else value.replace("'", "′"))
                i += 1
            elif kind == "space":
                out.append(" ")
                i += 1
            elif kind == "cmd":
                text, i = self._command(i, j, math)
                out.append(text)
            elif kind == "{":
                k = _close_brace(toks, i, j)
                out.append(self.render(i + 1, k, math))
                i = k + 1
            elif kind in ("$", "$$"):
                math = not math
                i += 1
            elif kind in ("^", "_"):
                if math:
                    text, i = self._script(i, j, math, kind == "^")
                    out.append(text)
                else:  # a compile error in text mode; parsers' LaTeX means the character itself
                    out.append(value)
                    i += 1
            elif kind == "~":
                out.append(" ")
                i += 1
            elif kind == "&":
                out.append(" ")
                i += 1
            elif kind == "verb":
                out.append(value)
                i += 1
            elif kind == "}":
                i += 1
            else:  # [ ] # *
                out.append(value)
                i += 1
        return "".join(out)

    def _find_over(self, i: int, j: int) -> int | None:
        toks = self.toks
        k = i
        while k < j:
            kind = toks[k][0]
            if kind == "{":
                k = _close_brace(toks, k, j)
            elif kind == "cmd" and toks[k][1] in ("over", "choose"):
                return k
            k += 1
        return None

    def arg_text(self, arg: tuple[int, int, int] | None, math: bool) -> str:
        return "" if arg is None else self.render(arg[0], arg[1], math)

    def _args(self, i: int, j: int, pattern: str) -> tuple[list[tuple[int, int, int] | None], int]:
        """Parse arguments by pattern (o optional, m mandatory, p paren trim); returns them and the next index."""
        args: list[tuple[int, int, int] | None] = []
        for p in pattern:
            if p == "o":
                a = optional_arg(self.toks, i, j)
            elif p == "p":
                i = paren_arg(self.toks, i, j)
                continue
            else:
                a = group_arg(self.toks, i, j)
            args.append(a)
            if a is not None:
                i = a[2]
        return args, i

    # -- scripts ------------------------------------------------------------------
    def _script(self, i: int, j: int, math: bool, sup: bool) -> tuple[str, int]:
        """`^x` / `_{..}`: Unicode scripts when every character has one, else the plain text."""
        k = skip_space(self.toks, i + 1, j)
        if k >= j:
            return "", j
        kind, value, s, e = self.toks[k]
        if kind == "text" and len(value) > 1:  # only the first character is the argument
            inner, rest = value[0], value[1:]
            conv = to_superscript(inner) if sup else to_subscript(inner)
            return (conv if conv is not None else inner) + rest, k + 1
        if kind == "cmd":  # `_\mathrm{max}`: the command takes its own arguments
            inner, nxt = self._command(k, j, True)
            conv = to_superscript(inner) if sup else to_subscript(inner)
            return (conv if conv is not None else inner.strip()), nxt
        arg = group_arg(self.toks, k, j)
        if arg is None:
            return "", k
        inner = self.render(arg[0], arg[1], True)
        conv = to_superscript(inner) if sup else to_subscript(inner)
        return (conv if conv is not None else inner.strip()), arg[2]

    # -- commands -----------------------------------------------------------------
    def _command(self, i: int, j: int, math: bool) -> tuple[str, int]:
        """Render the command at i (with its arguments): (text, next index)."""
        if self.depth >= _MAX_DEPTH:  # e.g. thousands of chained accents: skip the name
            return "", i + 1
        self.depth += 1
        try:
            return self._command_at(i, j, math)
        finally:
            self.depth -= 1

    def _command_at(self, i: int, j: int, math: bool) -> tuple[str, int]:
        toks = self.toks
        name = toks[i][1]
        nxt = i + 1
        is_word = name[:1].isalpha() or name[:1] == "@"
        # TeX drops the space after a control word; in math the author's space after an
        # operator or relation is kept ("a \leq b" -> "a ≤ b"), after anything else dropped.
        eat = is_word and not (math and _SYMBOLS.get(name, "x") in _SPACED_OPERATORS)
        if is_word and nxt < j and toks[nxt][0] == "*" and name in _STARRABLE:
            nxt += 1
        if self.units and name in _UNITS:
            return _UNITS[name], _skip_word_space(toks, nxt, j, eat)
        handler = _HANDLERS.get(name)
        if handler is not None:
            return handler(self, nxt, j, math, name)
        if name in DROPPED_ARGS:
            _, k = self._args(nxt, j, DROPPED_ARGS[name])
            out = " " if name == "hspace" else ""
            return out, k
        if name in _SHOW_LAST:
            args, k = self._args(nxt, j, _SHOW_LAST[name])
            last = args[-1] if args else None
            text = self.arg_text(last, math and name not in _TEXT_IN_MATH)
            return _STYLE_POST.get(name, _identity)(text), k
        if name in _SYMBOLS:
            return _SYMBOLS[name], _skip_word_space(toks, nxt, j, eat)
        if name in _SPACES:
            k = nxt
            if name in ("\\", "newline", "tabularnewline", "cr"):
                k = star(toks, k, j)
                o = optional_arg(toks, k, j)
                k = o[2] if o else k
            elif name in ("left", "right", "middle", "big", "Big", "bigg", "Bigg", "bigl",
                          "bigr", "Bigl", "Bigr", "biggl", "biggr", "Biggl", "Biggr"):
                k = skip_space(toks, k, j)
                if k < j and toks[k][0] == "text" and toks[k][1].startswith("."):
                    rest = toks[k][1][1:]
                    return rest, k + 1
                return "", k
            return _SPACES[name], _skip_word_space(toks, k, j, eat)
        if name in _ACCENTS:
            return self._accent(nxt, j, math, name)
        if name in _FUNCTION_NAMES:  # \log x keeps its space in math, as TeX spaces it
            return name, _skip_word_space(toks, nxt, j, is_word and not math)
        if name in _CITES:
            _, k = self._args(nxt, j, "oom")
            return "[?]", k
        if name in _REFS:
            _, k = self._args(nxt, j, "m")
            return "??", k
        if not is_word:  # an unknown control symbol prints itself (\| \, etc. handled above)
            return name, nxt
        # Unknown control word: drop the name and an immediate [..]; braced args read as text.
        k = nxt
        if k < j and toks[k][0] == "[":
            o = optional_arg(toks, k, j)
            if o:
                k = o[2]
        return "", _skip_word_space(toks, k, j, eat)

    def _accent(self, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
        mark = _ACCENTS[name]
        k = skip_space(self.toks, i, j) if name.isalpha() else i
        if k < j and self.toks[k][0] == "text":
            value = self.toks[k][1]
            return unicodedata.normalize("NFC", value[0] + mark) + value[1:], k + 1
        if k < j and self.toks[k][0] == "cmd":  # \"\i: the command reads its own arguments
            inner, nxt = self._command(k, j, math)
            arg = (k, k, nxt)
        else:
            arg = group_arg(self.toks, k, j)
            if arg is None:
                return "", k
            inner = self.render(arg[0], arg[1], math)
        inner = inner.replace("ı", "i").replace("ȷ", "j")  # an accent sits on the dotless form
        if name == "overline":
            return "".join(ch + mark for ch in inner) if len(inner) <= 3 else inner, arg[2]
        if not inner:
            return "", arg[2]
        return unicodedata.normalize("NFC", inner[0] + mark + inner[1:]) if len(inner) == 1 \
            else unicodedata.normalize("NFC", inner + mark), arg[2]


def _skip_word_space(toks: list[Token], k: int, j: int, is_word: bool) -> int:
    """TeX eats the white space after a control word."""
    if is_word and k < j and toks[k][0] == "space":
        return k + 1
    return k


def _identity(text: str) -> str:
    return text


def _fraction(num: str, den: str) -> str:
    num, den = num.strip(), den.strip()
    return f"{_paren(num)}/{_paren(den)}"


def _paren(text: str) -> str:
    if len(text) > 1 and any(ch in _OPERATORS for ch in text):
        return f"({text})"
    return text


_TEXT_LIGATURES = re.compile(r"---|--|``|''|!`|\?`")
_LIGATURE = {"---": "—", "--": "–", "``": "“", "''": "”", "!`": "¡", "?`": "¿"}


def _text_ligatures(value: str) -> str:
    """Text-mode ligatures: -- en dash, --- em dash, `` and '' curly double quotes."""
    if "-" not in value and "`" not in value and "'" not in value:
        return value
    return _TEXT_LIGATURES.sub(lambda m: _LIGATURE[m.group(0)], value)


def _double_struck(text: str) -> str:
    return "".join(_DOUBLE_STRUCK.get(ch, ch) for ch in text)


_STYLE_POST: dict[str, Callable[[str], str]] = {
    "mathbb": _double_struck, "mathds": _double_struck, "mathbbm": _double_struck,
    "uppercase": str.upper, "MakeUppercase": str.upper, "lowercase": str.lower,
}
_TEXT_IN_MATH = frozenset("text textrm textbf textit textsf texttt textup textmd textnormal "
                          "mbox hbox emph textsc operatorname fbox".split())
_STARRABLE = frozenset("vspace hspace operatorname makecell resizebox cite citep citet cmidrule "
                       "hline section caption footnote mbox thead".split())


# --- special handlers ------------------------------------------------------------------
Handler = Callable[[_Renderer, int, int, bool, str], tuple[str, int]]


def _h_frac(r: _Renderer, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    k = skip_space(r.toks, i, j)
    if k < j and r.toks[k][0] == "text" and len(r.toks[k][1]) >= 2:  # \frac12: one digit per argument
        v = r.toks[k][1]
        return _fraction(v[0], v[1]) + v[2:], k + 1
    args, k = r._args(i, j, "mm")
    return _fraction(r.arg_text(args[0], True), r.arg_text(args[1], True)), k


def _h_binom(r: _Renderer, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    args, k = r._args(i, j, "mm")
    return f"({r.arg_text(args[0], True).strip()} {r.arg_text(args[1], True).strip()})", k


def _h_sqrt(r: _Renderer, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    args, k = r._args(i, j, "om")
    index = r.arg_text(args[0], True).strip()
    body = r.arg_text(args[1], True).strip()
    root = (to_superscript(index) or index) + "√" if index else "√"
    return root + (body if body.isalnum() or len(body) <= 1 else f"({body})"), k


def _h_mathbb(r: _Renderer, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    args, k = r._args(i, j, "m")
    return _double_struck(r.arg_text(args[0], True)), k


def _h_script_text(r: _Renderer, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    args, k = r._args(i, j, "m")
    inner = r.arg_text(args[0], False).strip()
    conv = to_subscript(inner) if name == "textsubscript" else to_superscript(inner)
    return (conv if conv is not None else inner), k


def _h_ding(r: _Renderer, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    args, k = r._args(i, j, "m")
    return _DING.get(r.arg_text(args[0], False).strip(), ""), k


def _h_multirow(r: _Renderer, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    content, k = multirow_args(r.toks, i, j)
    return ("" if content is None else r.render(content[0], content[1], math)), k


def _h_diagbox(r: _Renderer, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    args, k = r._args(i, j, "omm")
    parts = [r.arg_text(args[1], math), r.arg_text(args[2], math)]
    third = skip_space(r.toks, k, j)
    if third < j and r.toks[third][0] == "{":
        extra, k = r._args(k, j, "m")
        parts.append(r.arg_text(extra[0], math))
    return " ".join(p.strip() for p in parts), k


def _h_begin(r: _Renderer, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    """A nested environment: a nested tabular's specs are skipped, its cells read in order."""
    args, k = r._args(i, j, "m")
    env = "".join(t[1] for t in r.toks[args[0][0]:args[0][1]]) if args[0] else ""
    if env in TABULAR_ENVS:
        k = env_preamble(r.toks, k, j, env)[1]
    elif env == "minipage":
        _, k = r._args(k, j, "ooom")
    elif env in ("equation", "equation*", "align", "align*", "gather", "math", "displaymath"):
        end = _find_end(r.toks, k, j, env)
        return r.render(k, end, True), end
    return " ", k


def _find_end(toks: list[Token], i: int, j: int, env: str) -> int:
    for k in range(i, j):
        if toks[k][0] == "cmd" and toks[k][1] == "end":
            a = group_arg(toks, k + 1, j)
            if a and "".join(t[1] for t in toks[a[0]:a[1]]) == env:
                return k
    return j


def _h_end(r: _Renderer, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    _, k = r._args(i, j, "m")
    return " ", k


def _h_math_switch(r: _Renderer, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    """`\\(..\\)` / `\\[..\\]`: read up to the closing command in math mode."""
    close = ")" if name == "(" else "]"
    for k in range(i, j):
        if r.toks[k][0] == "cmd" and r.toks[k][1] == close:
            return r.render(i, k, True), k + 1
    return r.render(i, j, True), j


def _h_not(r: _Renderer, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    k = skip_space(r.toks, i, j)
    if k < j:
        kind, value = r.toks[k][0], r.toks[k][1]
        if kind == "text" and value.startswith("="):
            return "≠" + value[1:], k + 1
        if kind == "cmd" and value == "in":
            return "∉", k + 1
        text, k2 = r._command(k, j, math) if kind == "cmd" else (value, k + 1)
        return (text[:1] + "\u0338" + text[1:]) if text else "", k2
    return "", k


def _h_si(r: _Renderer, i: int, j: int, math: bool, name: str) -> tuple[str, int]:
    """siunitx: \\SI{v}{unit} -> "v unit", \\si{unit}, \\num{1e3} -> 1×10³, \\qty, \\ang."""
    pattern = {"SI": "omm", "qty": "omm", "si": "om", "unit": "om", "num": "om", "ang": "om",
               "SIrange": "ommm", "numrange": "omm", "qtyrange": "ommm"}[name]
    args, k = r._args(i, j, pattern)
    vals = args[1:]

    def unit(a: tuple[int, int, int] | None) -> str:
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


def multirow_args(toks: list[Token], i: int, j: int) -> tuple[tuple[int, int, int] | None, int]:
    """`\\multirow[vpos]{n}[struts]{width}[vmove]{text}` after the name: (text arg, next index).

    The width may be `*` or `=` without braces, as authors write `\\multirow{2}*{text}`.
    """
    o = optional_arg(toks, i, j)
    k = o[2] if o else i
    n = group_arg(toks, k, j)
    k = n[2] if n else k
    o = optional_arg(toks, k, j)
    k = o[2] if o else k
    w = group_arg(toks, k, j)
    k = w[2] if w else k
    o = optional_arg(toks, k, j)
    k = o[2] if o else k
    text = group_arg(toks, k, j)
    return text, (text[2] if text else k)


def env_preamble(toks: list[Token], i: int, j: int, env: str) -> tuple[tuple[int, int], int]:
    """Skip a tabular-like environment's width (tabular*/x/y) and [pos]: (column spec range, body start)."""
    k = i
    if env in ("tabular*", "tabularx", "tabulary", "xtabular*"):
        w = group_arg(toks, k, j)
        k = w[2] if w else k
    o = optional_arg(toks, k, j)
    k = o[2] if o else k
    spec = group_arg(toks, k, j)
    if spec is None:
        return (k, k), k
    return (spec[0], spec[1]), spec[2]


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
    text = _Renderer(toks).render(i, j, math)
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
