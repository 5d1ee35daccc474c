"""The symbol database: LaTeX commands -> Unicode, and Unicode -> LaTeX, as plain data.

One table per family, read by the Unicode renderer (`latex_math`), the formula parser
(`formula`: equivalent spellings, negations, double-struck letters), the plain-text formula
reader (`readers.formula_text`) and the inverse used to typeset plain-text extractions
(`unicode_latex`). `SYMBOLS` is what a command prints in text or math; `LATEX_FOR` is the
inverse direction: one macro per Unicode character (the first name listed wins).
"""

from __future__ import annotations

GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ",
    "varkappa": "ϰ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "omicron": "ο", "pi": "π",
    "varpi": "ϖ", "rho": "ρ", "varrho": "ϱ", "sigma": "σ", "varsigma": "ς", "tau": "τ",
    "upsilon": "υ", "phi": "ϕ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
    "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π",
    "Sigma": "Σ", "Upsilon": "Υ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
    "digamma": "ϝ", "upmu": "μ", "upalpha": "α", "upbeta": "β",
}
MATH_SYMBOLS = {
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
TEXT_SYMBOLS = {
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
# What a symbol command prints; three names of TEXT_SYMBOLS take an argument instead.
SYMBOLS = {name: char for name, char in {**GREEK, **MATH_SYMBOLS, **TEXT_SYMBOLS}.items()
           if name not in ("ding", "textsuperscript", "ensuremath")}

# Combining marks for text accents (control symbols and letters) and math accents.
ACCENT_MARKS = {"'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303",
                "=": "\u0304", ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b",
                "c": "\u0327", "k": "\u0328", "r": "\u030a", "d": "\u0323", "b": "\u0331",
                "t": "\u0361", "hat": "\u0302", "widehat": "\u0302", "bar": "\u0304",
                "overline": "\u0305", "tilde": "\u0303", "widetilde": "\u0303", "vec": "\u20d7",
                "dot": "\u0307", "ddot": "\u0308", "acute": "\u0301", "grave": "\u0300",
                "breve": "\u0306", "check": "\u030c", "mathring": "\u030a",
                "overrightarrow": "\u20d7"}

DOUBLE_STRUCK = {"C": "ℂ", "H": "ℍ", "N": "ℕ", "P": "ℙ", "Q": "ℚ", "R": "ℝ", "Z": "ℤ"}
DOUBLE_STRUCK_LETTERS = {char: letter for letter, char in DOUBLE_STRUCK.items()}  # "ℝ" -> "R"
DING = {"51": "✓", "52": "✔", "55": "✗", "56": "✘", "54": "✖", "53": "✕", "108": "●",
        "110": "■", "72": "★", "73": "☆", "43": "☞", "217": "➔", "218": "➘", "229": "➥"}
# siunitx unit macros.
UNITS = {"percent": "%", "metre": "m", "meter": "m", "second": "s", "gram": "g",
         "kilogram": "kg", "hertz": "Hz", "volt": "V", "watt": "W", "ampere": "A",
         "kelvin": "K", "celsius": "°C", "degreeCelsius": "°C", "degree": "°", "joule": "J",
         "newton": "N", "pascal": "Pa", "byte": "B", "bit": "bit", "hour": "h",
         "minute": "min", "litre": "L", "liter": "L", "mole": "mol", "ohm": "Ω",
         "decibel": "dB", "electronvolt": "eV", "kilo": "k", "mega": "M", "giga": "G",
         "tera": "T", "milli": "m", "micro": "µ", "nano": "n", "pico": "p", "centi": "c",
         "per": "/", "squared": "²", "cubed": "³", "square": "", "cubic": "", "day": "d",
         "flops": "FLOPS", "arcsecond": "″", "arcminute": "′"}

# Characters that make a fraction's part need parentheses; relations and operators TeX spaces.
OPERATORS = set("+-−*/×·=<>≤≥±∓, ")
SPACED_OPERATORS = frozenset("=<>≤≥⩽⩾≠±∓×÷⋅∗∘≈∼≃≅≡∝≪≫≺≻⊂⊃⊆⊇∈∉∋∣∥→←↔⇒⇐⇔⟶⟵⟹⟸⟷⟺↦∪∩∧∨⊕⊖⊗⊙∖≲≳≔≜")

# Unicode spellings that mean the same symbol -> one of them.
EQUIVALENT = {"⩽": "≤", "⩾": "≥", "∣": "|", "−": "-", "–": "-", "⋯": "…", "·": "⋅", "∙": "⋅",
              "∗": "*", "∖": "\\", "⟶": "→", "⟵": "←", "⟹": "⇒", "⟸": "⇐", "⟺": "⇔",
              "⟷": "↔", "ϵ": "ε", "∕": "/", "’": "′", "∶": ":", "〈": "⟨", "〉": "⟩", "｜": "|",
              "∥": "‖", "µ": "μ", "◦": "∘"}
# A relation struck through by `\\not` (or U+0338) -> its negated character.
NEGATED = {"=": "≠", "∈": "∉", "∋": "∌", "⊂": "⊄", "⊆": "⊈", "≡": "≢", "∼": "≁", "<": "≮",
           ">": "≯", "≤": "≰", "≥": "≱", "|": "∤"}


def _latex_for() -> dict[str, str]:
    """Unicode -> the macro that typesets it in math: the Greek and math tables inverted
    (one-character symbols with a letters-only name, not the upright `\\up..` variants)."""
    out = {"−": "-", "…": "\\ldots ", "⋯": "\\cdots ", "′": "'", "″": "''", "·": "\\cdot ", "∞": "\\infty "}
    for name, char in {**GREEK, **MATH_SYMBOLS}.items():
        if len(char) == 1 and name.isalpha() and not name.startswith("up") and not char.isascii():
            out.setdefault(char, f"\\{name} ")
    for letter, char in DOUBLE_STRUCK.items():
        out.setdefault(char, f"\\mathbb{{{letter}}}")
    return out


LATEX_FOR = _latex_for()
