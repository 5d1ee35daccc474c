"""What LaTeX commands take and print, as data: argument specs and command families.

An argument spec is a string read by `arguments.read_args`, one letter per argument:
`m` a mandatory argument (a braced group or one token), `o` an optional `[..]`, `p` a
booktabs `(lr)` trim. The renderer (`latex_math`) and the table reader (`readers.latex`)
both read commands through these tables, so a command's shape is written once.
"""

from __future__ import annotations

from tablebench.tex.regions import TABULAR_ENVS

# Operator names TeX sets upright (`\log x` keeps its space in math).
FUNCTION_NAMES = frozenset(
    "log ln lg exp sin cos tan cot sec csc arcsin arccos arctan sinh cosh tanh coth max min "
    "sup inf lim liminf limsup arg argmax argmin det dim ker deg gcd hom Pr mod bmod "
    "Tr tr diag sgn var Var Cov E".split()
)
# Spacing, layout and font switches: what each prints (a space or nothing).
SPACES = {",": " ", ";": " ", ":": " ", ">": " ", " ": " ", "\n": " ", "\t": " ", "quad": " ",
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
SHOW_LAST = {
    "textbf": "m", "textit": "m", "emph": "m", "underline": "m", "textsc": "m",
    "texttt": "m", "textrm": "m", "textsf": "m", "textup": "m", "textmd": "m", "textsl": "m",
    "textnormal": "m", "uline": "m", "uuline": "m", "uwave": "m", "sout": "m", "xout": "m",
    "st": "m", "hl": "m", "ul": "m", "mbox": "m", "hbox": "m", "fbox": "m", "text": "m",
    "mathbf": "m", "mathrm": "m", "mathit": "m", "mathsf": "m",
    "mathtt": "m", "mathnormal": "m", "boldsymbol": "m", "bm": "m", "pmb": "m",
    "mathcal": "m", "mathscr": "m", "mathfrak": "m", "operatorname": "m",
    "mathop": "m", "mathrel": "m", "mathbin": "m", "mathord": "m",
    "mathpunct": "m", "mathopen": "m", "mathclose": "m", "ensuremath": "m",
    "textcolor": "omm", "colorbox": "omm", "fcolorbox": "ommm", "rotatebox": "omm",
    "scalebox": "mom", "resizebox": "mmm", "raisebox": "moom",
    "makebox": "oom", "framebox": "oom", "parbox": "ooomm", "adjustbox": "mm",
    "href": "mm", "multicolumn": "mmm", "makecell": "om", "thead": "om",
    "shortstack": "om", "substack": "m", "underbrace": "m", "overbrace": "m",
    "overset": "mm", "underset": "mm", "stackrel": "mm", "uppercase": "m", "lowercase": "m",
    "MakeUppercase": "m", "cancel": "m", "boxed": "m", "foreignlanguage": "mm", "textenglish": "m",
    "mathds": "m", "mathbbm": "m",
}
# Citations print "[?]" and references "??": pdflatex without .bib/.aux.
CITES = frozenset("cite citep citet citealp citealt citeauthor citeyear parencite textcite "
                  "autocite footcite cite* citep* citet* nocite".split())
REFS = frozenset("ref eqref autoref cref Cref pageref nameref vref".split())
CITE_ARGS, REF_ARGS = "oom", "m"  # \cite[pre][post]{keys}, \ref{label}
# Environments whose arguments come before the body (a tabular's width, position and
# column spec; a minipage's position, height, inner position and width).
ENV_ARGS = {**{env: "om" for env in sorted(TABULAR_ENVS)}, "tabular*": "mom", "tabularx": "mom", "tabulary": "mom",
            "minipage": "ooom"}
# \multirow[vpos]{n}[struts]{width}[vmove]{text}
MULTIROW_ARGS = "omomom"
# siunitx: \SI[opts]{value}{unit}, \num[opts]{value}, ...
SI_ARGS = {"SI": "omm", "qty": "omm", "si": "om", "unit": "om", "num": "om", "ang": "om",
           "SIrange": "ommm", "numrange": "omm", "qtyrange": "ommm"}
# Commands whose argument is text even inside math.
TEXT_IN_MATH = frozenset("text textrm textbf textit textsf texttt textup textmd textnormal "
                         "mbox hbox emph textsc operatorname fbox".split())
# Commands with a starred form (the `*` is read with the name).
STARRABLE = frozenset("vspace hspace operatorname makecell resizebox cite citep citet cmidrule "
                      "hline section caption footnote mbox thead".split())
