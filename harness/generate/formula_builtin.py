"""The built-in formulas: seeded, compositional families of realistic formulas.

Families: fractions, sums/products/unions with limits, integrals (definite, Gaussian, surface,
contour), limits, derivatives and PDEs, matrices (pmatrix/bmatrix/vmatrix/Bmatrix, systems),
`cases`, norms and inner products, sets with `\\mathbb`/`\\mathcal`, probability, operators
(`\\arg\\min`, `\\det`, `\\max`), accents, sub/superscript stacks, roots and binomials,
physics laws, chemistry (`\\mathrm{H_{2}O}`-style species and mhchem `\\ce` reactions), and
multi-line bodies for `align` (derivations, linear systems, Maxwell's equations). Symbols,
indices, numbers, relations and shapes come from the seed, so there is no fixed list: the same
(seed, kind) always gives the same formula, and 400 seeds give some 300 different ones.
Inline families stay low (no display fractions, no big operators with limits above and
below, no environments); TeX checks each inline formula's height on the page anyway.
"""

from __future__ import annotations

import numpy as np

from tablebench.generate.formula_item import KINDS, Formula

# -- vocabulary ---------------------------------------------------------------------------------

LATIN = list("abcdfghkmnpqrstuvwxyz")
UPPER = list("ABCDFGHKLMNPQRSTUVWXYZ")
GREEK = ("alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta kappa lambda mu nu xi "
         "pi rho sigma tau phi varphi chi psi omega").split()
INDICES = list("ijklmn")
BB = list("RNZQCP")
CAL = list("LFONHABCDGMSTX")
FUNCS = ("sin cos tan log exp sinh cosh ln").split()
ACCENTS = ("hat bar tilde vec dot ddot widehat overline").split()
RELATIONS = ("=", "=", "=", "\\le", "\\ge", "<", ">", "\\approx", "\\neq", "\\equiv", "\\sim", "\\propto")
UNITS = ("\\mathrm{m}", "\\mathrm{s}", "\\mathrm{kg}", "\\mathrm{K}", "\\mathrm{J}", "\\mathrm{Hz}",
         "\\mathrm{m\\,s^{-1}}", "\\mathrm{mol\\,L^{-1}}", "\\mathrm{eV}", "\\mathrm{N\\,m}")
# balanced reactions (mhchem input) and formulas of common species (\mathrm with sub/superscripts)
REACTIONS = ("2H2 + O2 -> 2H2O", "CH4 + 2O2 -> CO2 + 2H2O", "N2 + 3H2 <=> 2NH3", "CaCO3 -> CaO + CO2",
             "2Na + Cl2 -> 2NaCl", "H2SO4 + 2NaOH -> Na2SO4 + 2H2O", "Fe2O3 + 3CO -> 2Fe + 3CO2",
             "C6H12O6 + 6O2 -> 6CO2 + 6H2O", "AgNO3 + NaCl -> AgCl v + NaNO3", "Zn + 2HCl -> ZnCl2 + H2 ^",
             "CH3COOH <=> CH3COO- + H+", "2KMnO4 -> K2MnO4 + MnO2 + O2", "NH4+ + OH- <=> NH3 + H2O",
             "Cu^2+ + 2e- -> Cu", "2H2O2 -> 2H2O + O2", "SO2 + 1/2 O2 -> SO3")
LESS = ("<", "\\le", "=")
BOUND = ("1", "r", "\\rho")
DAMPING = ("2\\zeta\\omega", "b", "\\gamma")
FORCING = ("0", "F(t)", "\\cos(\\Omega t)")
COMPLEXITY = ("n \\log n", "n^{2}", "n", "\\log n", "1")
NORMS = ("2", "1", "p", "\\infty")
TARGETS = ("0", "x", "\\infty")
ROWSEP = " \\\\ "
SPECIES = ("H_{2}O", "CO_{2}", "NH_{3}", "CH_{4}", "H_{2}SO_{4}", "NaCl", "O_{2}", "Fe^{3+}", "SO_{4}^{2-}",
           "H_{3}O^{+}", "OH^{-}", "C_{6}H_{12}O_{6}", "NO_{3}^{-}", "Ca^{2+}", "HCO_{3}^{-}", "KMnO_{4}")


class _Draw:
    """Seeded choices for one formula."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng([int(seed), 0xF0F0])

    def pick(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def chance(self, p: float) -> bool:
        return bool(self.rng.random() < p)

    def int(self, lo: int, hi: int) -> int:
        return int(self.rng.integers(lo, hi + 1))

    def greek(self) -> str:
        return "\\" + self.pick(GREEK)

    def letter(self) -> str:
        return self.pick(LATIN)

    def sym(self) -> str:
        """A variable: a Latin or Greek letter, sometimes indexed or accented."""
        s = self.greek() if self.chance(0.35) else self.letter()
        r = self.rng.random()
        if r < 0.25:
            s = f"{s}_{{{self.pick(INDICES)}}}"
        elif r < 0.32:
            s = f"{s}_{{{self.int(0, 3)}}}"
        elif r < 0.38:
            s = f"\\{self.pick(('hat', 'bar', 'tilde'))}{{{s}}}"
        return s

    def num(self) -> str:
        if self.chance(0.2):
            return f"{self.int(1, 9)}.{self.int(0, 99):02d}".rstrip("0").rstrip(".")
        return str(self.int(2, 12))

    def power(self, base: str) -> str:
        e = self.pick(("2", "2", "3", "n", "k", "-1", "p", "1/2", str(self.int(2, 5))))
        return f"{base}^{{{e}}}"

    def term(self) -> str:
        """A monomial-like term: coefficient, symbol, power, function."""
        r = self.rng.random()
        x = self.sym()
        if r < 0.3:
            return f"{self.num() if self.chance(0.5) else ''}{self.power(x)}"
        if r < 0.5:
            return f"\\{self.pick(FUNCS)}{self.paren(x)}"
        if r < 0.65:
            return f"e^{{-{self.sym()} {self.letter()}}}"
        if r < 0.8:
            return f"{self.sym()} {self.sym()}"
        return f"{self.num()}{x}"

    def poly(self, n_min: int = 2, n_max: int = 3) -> str:
        n = self.int(n_min, n_max)
        out = self.term()
        for _ in range(n - 1):
            out += f" {self.pick(('+', '-', '+'))} {self.term()}"
        return out

    def paren(self, inner: str, big: bool = False) -> str:
        return f"\\left({inner}\\right)" if big else f"({inner})"

    def func_name(self) -> str:
        return self.pick(("f", "g", "h", "F", "G", "u", "\\phi", "\\psi", "L", "V"))


# -- display families -----------------------------------------------------------------------------


def _fraction(d: _Draw) -> str:
    f, x = d.func_name(), d.letter()
    num = d.poly(1, 3)
    den = d.poly(1, 2)
    if d.chance(0.4):
        return f"{f}({x}) = \\frac{{{num}}}{{{den}}}"
    return f"\\frac{{{num}}}{{{den}}} {d.pick(RELATIONS)} \\frac{{{d.term()}}}{{{d.num()}}} + {d.term()}"


def _sum(d: _Draw) -> str:
    i = d.pick(INDICES[:4])
    n = d.pick(("n", "N", "m", "K", "\\infty"))
    op = d.pick(("sum", "sum", "sum", "prod", "bigcup", "bigoplus"))
    a = d.pick(("a", "x", "w", "c", "b", "\\alpha", "\\lambda"))
    summand = d.pick((f"{a}_{{{i}}} {d.letter()}^{{{i}}}", f"\\frac{{{d.letter()}^{{{i}}}}}{{{i}!}}",
                      f"\\frac{{1}}{{{i}^{{{d.int(2, 4)}}}}}", f"{a}_{{{i}}} \\, {d.func_name()}({d.letter()}_{{{i}}})",
                      f"\\binom{{{n if n != chr(92) + 'infty' else 'n'}}}{{{i}}} p^{{{i}}} (1-p)^{{n-{i}}}"))
    lhs = d.pick((f"S_{{{n if n != chr(92) + 'infty' else 'n'}}}", d.func_name() + f"({d.letter()})", "Z", d.sym()))
    low = d.pick((f"{i}=1", f"{i}=0", f"{i} \\in \\mathcal{{{d.pick(CAL)}}}", f"{i}={d.int(1, 3)}"))
    out = f"{lhs} = \\{op}_{{{low}}}^{{{n}}} {summand}"
    if d.chance(0.3):
        j = d.pick([k for k in INDICES if k != i])
        out = f"{lhs} = \\sum_{{{i}=1}}^{{{n}}} \\sum_{{{j}=1}}^{{{d.pick(('m', 'M', i))}}} {a}_{{{i}{j}}} {d.letter()}_{{{i}}} {d.letter()}_{{{j}}}"
    return out


def _integral(d: _Draw) -> str:
    x = d.pick(("x", "t", "s", "u", "\\tau", "r"))
    dx = d.pick((f"\\,d{x}", f"\\,\\mathrm{{d}}{x}", f"\\, d{x}"))
    a, b = d.pick((("0", "1"), ("0", "\\infty"), ("-\\infty", "\\infty"), ("a", "b"), ("0", "T"), ("-\\pi", "\\pi")))
    f = d.func_name()
    big = f.upper() if f.isalpha() else "F"
    c = d.pick(("a", "\\alpha", "\\lambda"))
    region = d.pick(("\\Omega", "D", "S", "R"))
    surface = d.pick(("\\Sigma", "S", "D"))
    var = d.pick(("s", "y", "\\xi"))
    choices = (
        f"\\int_{{{a}}}^{{{b}}} {f}({x}) {dx} = {big}({b}) - {big}({a})",
        f"\\int_{{-\\infty}}^{{\\infty}} e^{{-{c} {x}^{{2}}}} {dx} = \\sqrt{{\\frac{{\\pi}}{{{c}}}}}",
        f"\\iint_{{{region}}} {d.poly(1, 2)} \\, dA",
        f"\\oint_{{\\partial {surface}}} \\mathbf{{{d.pick(('F', 'E', 'B', 'v'))}}} \\cdot d\\mathbf{{l}}",
        f"{f}({x}) = \\int_{{{a}}}^{{{x}}} {d.term()} \\, d{var}",
        f"\\left| \\int_{{{a}}}^{{{b}}} {f}({x}) {dx} \\right| \\le \\int_{{{a}}}^{{{b}}} |{f}({x})| {dx}",
        f"\\hat{{{f}}}(\\omega) = \\int_{{-\\infty}}^{{\\infty}} {f}({x}) e^{{-i \\omega {x}}} {dx}",
    )
    return d.pick(choices)


def _limit(d: _Draw) -> str:
    x = d.pick(("x", "h", "n", "t", "\\epsilon"))
    to = d.pick(("0", "\\infty", "a", "0^{+}", "x_{0}"))
    f = d.func_name()
    return d.pick((
        f"\\lim_{{{x} \\to {to}}} \\frac{{{f}({x}) - {f}({to})}}{{{x} - {to}}} = {f}'({to})",
        f"\\lim_{{n \\to \\infty}} \\left(1 + \\frac{{{d.letter()}}}{{n}}\\right)^{{n}} = e^{{{d.letter()}}}",
        f"\\lim_{{{x} \\to 0}} \\frac{{\\{d.pick(('sin', 'tan', 'sinh'))} {x}}}{{{x}}} = 1",
        f"\\limsup_{{n \\to \\infty}} |a_{{n}}|^{{1/n}} {d.pick(LESS)} {d.pick(BOUND)}",
        f"{f}'({x}) = \\lim_{{h \\to 0}} \\frac{{{f}({x} + h) - {f}({x})}}{{h}}",
    ))


def _derivative(d: _Draw) -> str:
    u = d.pick(("u", "\\phi", "\\psi", "T", "c", "\\rho"))
    t, x = d.pick((("t", "x"), ("t", "z"), ("\\tau", "x")))
    coeff = d.pick(("\\alpha", "D", "c^{2}", "\\kappa", "\\nu"))
    return d.pick((
        f"\\frac{{\\partial {u}}}{{\\partial {t}}} = {coeff} \\frac{{\\partial^{{2}} {u}}}{{\\partial {x}^{{2}}}}",
        f"\\frac{{\\partial^{{2}} {u}}}{{\\partial {t}^{{2}}}} = {coeff} \\nabla^{{2}} {u}",
        f"\\frac{{d^{{2}} y}}{{d {x}^{{2}}}} + {d.pick(DAMPING)} \\frac{{dy}}{{d{x}}} + \\omega^{{2}} y = {d.pick(FORCING)}",
        f"\\frac{{\\partial^{{2}} {d.func_name()}}}{{\\partial {x} \\, \\partial y}} = \\frac{{\\partial^{{2}} {d.func_name()}}}{{\\partial y \\, \\partial {x}}}",
        f"\\nabla \\cdot \\mathbf{{{d.pick(('J', 'u', 'v'))}}} + \\frac{{\\partial {u}}}{{\\partial {t}}} = 0",
        f"\\frac{{d}}{{d{x}}} \\left[ {d.func_name()}({x}) g({x}) \\right] = {d.func_name()}'({x}) g({x}) + {d.func_name()}({x}) g'({x})",
        f"\\dot{{{d.letter()}}} = {d.poly(1, 2)}",
    ))


def _matrix(d: _Draw) -> str:
    env = d.pick(("pmatrix", "pmatrix", "bmatrix", "vmatrix", "Bmatrix"))
    n = d.int(2, 3)
    m = d.int(2, 3) if env != "vmatrix" else n
    entry = d.pick(("num", "sym", "idx"))
    name = d.pick(UPPER[:8])

    def cell(r: int, c: int) -> str:
        if entry == "num":
            return str(d.int(-9, 9))
        if entry == "idx":
            return f"{d.pick(('a', 'b', 'm', 'w'))}_{{{r + 1}{c + 1}}}"
        return d.pick((d.sym(), "0", "1", d.num(), f"-{d.letter()}"))

    rows = " \\\\ ".join(" & ".join(cell(r, c) for c in range(m)) for r in range(n))
    mat = f"\\begin{{{env}}} {rows} \\end{{{env}}}"
    if env == "vmatrix":
        return f"\\det {name} = {mat}"
    if d.chance(0.3) and m == n:
        vec = " \\\\ ".join(f"{d.letter()}_{{{k + 1}}}" for k in range(m))
        return f"{mat} \\begin{{pmatrix}} {vec} \\end{{pmatrix}} = \\begin{{pmatrix}} {ROWSEP.join(d.num() for _ in range(n))} \\end{{pmatrix}}"
    return f"{name} = {mat}"


def _cases(d: _Draw) -> str:
    f, x = d.func_name(), d.letter()
    c = d.pick(("0", "a", "1", "\\theta"))
    rows = [f"{d.poly(1, 2)} & \\text{{if }} {x} {d.pick(LESS[:2])} {c}",
            f"{d.term()} & \\text{{otherwise}}" if d.chance(0.6) else f"{d.term()} & \\text{{if }} {x} > {c}"]
    if d.chance(0.35):
        rows.insert(1, f"{d.num()} & \\text{{if }} {x} = {c}")
    return f"{f}({x}) = \\begin{{cases}} {ROWSEP.join(rows)} \\end{{cases}}"


def _norm(d: _Draw) -> str:
    x, y = d.pick((("x", "y"), ("u", "v"), ("\\mathbf{x}", "\\mathbf{y}"), ("f", "g")))
    p = d.pick(("p", "2", "1", "\\infty", "q"))
    return d.pick((
        f"\\| {x} + {y} \\|_{{{p}}} \\le \\| {x} \\|_{{{p}}} + \\| {y} \\|_{{{p}}}",
        f"| \\langle {x}, {y} \\rangle | \\le \\| {x} \\| \\, \\| {y} \\|",
        f"\\| {x} \\|_{{{p}}} = \\left( \\sum_{{i=1}}^{{n}} |{x}_{{i}}|^{{{p}}} \\right)^{{1/{p}}}",
        "\\| A \\|_{F} = \\sqrt{\\sum_{i,j} |a_{ij}|^{2}} = \\sqrt{\\operatorname{tr}(A^{\\top} A)}",
        f"\\| {x} - {x}^{{*}} \\|_{{2}} \\le {d.greek()}^{{k}} \\| {x}_{{0}} - {x}^{{*}} \\|_{{2}}",
    ))


def _sets(d: _Draw) -> str:
    b = d.pick(BB)
    n = d.pick(("n", "d", "m", "3", "2"))
    return d.pick((
        f"\\{{ x \\in \\mathbb{{{b}}}^{{{n}}} : \\| x \\|_{{2}} \\le {d.pick(BOUND)} \\}}",
        "\\forall \\epsilon > 0 \\; \\exists \\delta > 0 : | x - y | < \\delta \\Rightarrow | f(x) - f(y) | < \\epsilon",
        f"{d.func_name()} \\colon \\mathbb{{{b}}}^{{{n}}} \\to \\mathbb{{{d.pick(BB)}}}, \\quad x \\mapsto {d.term()}",
        f"\\mathcal{{{d.pick(CAL)}}}(\\theta) = -\\sum_{{i=1}}^{{N}} \\log p_{{\\theta}}(y_{{i}} \\mid x_{{i}})",
        "A \\cap (B \\cup C) = (A \\cap B) \\cup (A \\cap C)",
        f"\\mathcal{{{d.pick(CAL)}}} = \\{{ {d.letter()} \\in \\mathbb{{{b}}} \\mid {d.letter()} \\ge {d.num()} \\}}",
        "\\bigcap_{k=1}^{\\infty} A_{k} \\subseteq \\bigcup_{k=1}^{\\infty} B_{k}",
    ))


def _probability(d: _Draw) -> str:
    X = d.pick(("X", "Y", "Z"))
    return d.pick((
        "P(A \\mid B) = \\frac{P(B \\mid A) \\, P(A)}{P(B)}",
        f"\\mathbb{{E}}[{X}] = \\sum_{{x}} x \\, p(x)",
        f"\\operatorname{{Var}}({X}) = \\mathbb{{E}}[{X}^{{2}}] - (\\mathbb{{E}}[{X}])^{{2}}",
        f"{X} \\sim \\mathcal{{N}}(\\mu, \\sigma^{{2}}), \\quad p(x) = \\frac{{1}}{{\\sqrt{{2 \\pi \\sigma^{{2}}}}}} e^{{-\\frac{{(x - \\mu)^{{2}}}}{{2 \\sigma^{{2}}}}}}",
        f"P({X} = k) = \\binom{{n}}{{k}} p^{{k}} (1 - p)^{{n - k}}",
        "D_{\\mathrm{KL}}(P \\,\\|\\, Q) = \\sum_{x} P(x) \\log \\frac{P(x)}{Q(x)}",
        f"P({X} = k) = \\frac{{\\lambda^{{k}} e^{{-\\lambda}}}}{{k!}}",
    ))


def _operator(d: _Draw) -> str:
    th = d.pick(("\\theta", "w", "\\beta", "x"))
    return d.pick((
        f"\\hat{{{th}}} = \\arg\\min_{{{th}}} \\sum_{{i=1}}^{{n}} ( y_{{i}} - {th}^{{\\top}} x_{{i}} )^{{2}} + \\lambda \\| {th} \\|_{{2}}^{{2}}",
        "\\max_{1 \\le i \\le n} | a_{i} | \\le \\sum_{i=1}^{n} | a_{i} |",
        "\\det(A - \\lambda I) = 0",
        "\\log \\det \\Sigma = \\sum_{i=1}^{d} \\log \\lambda_{i}",
        "\\sup_{x \\in K} | f_{n}(x) - f(x) | \\to 0",
        "\\operatorname{rank}(A) + \\dim \\ker A = n",
        "\\exp(A) = \\sum_{k=0}^{\\infty} \\frac{A^{k}}{k!}",
    ))


def _accents(d: _Draw) -> str:
    x = d.letter()
    return d.pick((
        f"\\bar{{{x}}} = \\frac{{1}}{{n}} \\sum_{{i=1}}^{{n}} {x}_{{i}}",
        f"\\tilde{{{x}}}_{{k}} = \\frac{{{x}_{{k}} - \\mu}}{{\\sigma}}",
        f"\\vec{{{d.pick(('F', 'v', 'a', 'p'))}}} = m \\ddot{{\\vec{{r}}}}",
        "\\overline{z_{1} z_{2}} = \\overline{z_{1}} \\, \\overline{z_{2}}",
        f"\\widehat{{{d.pick(('AB', 'xy', 'PQ'))}}} + \\hat{{{x}}} = \\dot{{{d.letter()}}}",
    ))


def _scripts(d: _Draw) -> str:
    x = d.pick(("x", "w", "\\theta", "u"))
    i, j = d.pick((("i", "j"), ("m", "n"), ("k", "l")))
    return d.pick((
        f"{x}_{{{i},{j}}}^{{(k+1)}} = {x}_{{{i},{j}}}^{{(k)}} - \\eta \\, \\nabla_{{{x}}} \\mathcal{{L}}",
        "a_{n_{k}}^{2} + b_{n_{k}}^{2} = c_{n_{k}}^{2}",
        "R^{\\rho}{}_{\\sigma \\mu \\nu} = \\partial_{\\mu} \\Gamma^{\\rho}_{\\nu \\sigma} - \\partial_{\\nu} \\Gamma^{\\rho}_{\\mu \\sigma}",
        "T^{\\mu\\nu} = (\\rho + p) u^{\\mu} u^{\\nu} + p g^{\\mu\\nu}",
        f"e^{{-{x}^{{2}}/2}} \\, 2^{{2^{{{d.letter()}}}}}",
        f"{x}^{{(t)}}_{{{i}}} = \\sigma \\left( \\sum_{{{j}}} W_{{{i}{j}}}^{{(l)}} {x}^{{(t-1)}}_{{{j}}} + b_{{{i}}}^{{(l)}} \\right)",
    ))


def _roots(d: _Draw) -> str:
    a, b, c = d.pick((("a", "b", "c"), ("p", "q", "r")))
    return d.pick((
        f"x_{{1,2}} = \\frac{{-{b} \\pm \\sqrt{{{b}^{{2}} - 4{a}{c}}}}}{{2{a}}}",
        "\\binom{n}{k} = \\frac{n!}{k! \\, (n - k)!}",
        f"\\sqrt[{d.int(3, 5)}]{{{d.poly(1, 2)}}} {d.pick(RELATIONS)} {d.term()}",
        f"r = \\sqrt{{{d.letter()}^{{2}} + {d.letter()}^{{2}}}}",
        "(x + y)^{n} = \\sum_{k=0}^{n} \\binom{n}{k} x^{k} y^{n-k}",
    ))


def _physics(d: _Draw) -> str:
    return d.pick((
        "\\nabla \\cdot \\mathbf{E} = \\frac{\\rho}{\\varepsilon_{0}}",
        "\\nabla \\times \\mathbf{E} = -\\frac{\\partial \\mathbf{B}}{\\partial t}",
        "\\nabla \\times \\mathbf{B} = \\mu_{0} \\mathbf{J} + \\mu_{0} \\varepsilon_{0} \\frac{\\partial \\mathbf{E}}{\\partial t}",
        "i \\hbar \\frac{\\partial}{\\partial t} \\Psi(\\mathbf{r}, t) = \\hat{H} \\Psi(\\mathbf{r}, t)",
        "\\gamma = \\frac{1}{\\sqrt{1 - v^{2}/c^{2}}}",
        "E = \\frac{1}{2} m v^{2} + m g h",
        "F = G \\frac{m_{1} m_{2}}{r^{2}}",
        "\\dot{q}_{i} = \\frac{\\partial H}{\\partial p_{i}}, \\quad \\dot{p}_{i} = -\\frac{\\partial H}{\\partial q_{i}}",
        "\\frac{d}{dt} \\frac{\\partial L}{\\partial \\dot{q}} - \\frac{\\partial L}{\\partial q} = 0",
        f"p V = n R T, \\quad T = {d.int(250, 400)} \\, \\mathrm{{K}}",
        "\\Delta x \\, \\Delta p \\ge \\frac{\\hbar}{2}",
        f"\\lambda = \\frac{{h}}{{p}} = \\frac{{h}}{{m v}}, \\quad v = {d.int(1, 9)} \\times 10^{{{d.int(3, 7)}}} \\, \\mathrm{{m\\,s^{{-1}}}}",
        "S = k_{B} \\ln \\Omega",
    ))


def _chemistry(d: _Draw) -> str:
    r = d.rng.random()
    if r < 0.5:
        return f"\\ce{{{d.pick(REACTIONS)}}}"
    if r < 0.75:
        s1, s2 = d.pick(SPECIES), d.pick(SPECIES)
        return f"{d.int(1, 4)} \\, \\mathrm{{{s1}}} + \\mathrm{{{s2}}} \\rightarrow \\mathrm{{{d.pick(SPECIES)}}}"
    return d.pick((
        "K_{a} = \\frac{[\\mathrm{H^{+}}][\\mathrm{A^{-}}]}{[\\mathrm{HA}]}",
        "\\mathrm{pH} = -\\log_{10} [\\mathrm{H_{3}O^{+}}]",
        f"\\Delta G = \\Delta H - T \\Delta S, \\quad \\Delta H = {-d.int(10, 900)} \\, \\mathrm{{kJ\\,mol^{{-1}}}}",
        "k = A e^{-E_{a}/(R T)}",
    ))


def _align(d: _Draw) -> str:
    """A multi-line body (rows joined by \\\\, aligned at &)."""
    r = d.rng.random()
    if r < 0.35:
        a, b = d.pick((("a", "b"), ("x", "y"), ("u", "v")))
        return (f"({a} + {b})^{{2}} &= ({a} + {b})({a} + {b}) \\\\ &= {a}^{{2}} + {a}{b} + {b}{a} + {b}^{{2}} \\\\ "
                f"&= {a}^{{2}} + 2{a}{b} + {b}^{{2}}")
    if r < 0.65:
        rows = []
        for k in range(d.int(2, 3)):
            rows.append(f"{d.num()} x {d.pick(('+', '-'))} {d.num()} y {d.pick(('+', '-'))} {d.num()} z &= {d.int(-9, 20)}")
        return " \\\\ ".join(rows)
    f = d.func_name()
    return (f"{f}({d.letter()}) &= {d.poly(2, 3)} \\\\ {f}'({d.letter()}) &= {d.poly(1, 2)} \\\\ "
            f"&\\le {d.term()}")


def _maxwell(d: _Draw) -> str:
    rows = ["\\nabla \\cdot \\mathbf{E} &= \\frac{\\rho}{\\varepsilon_{0}}", "\\nabla \\cdot \\mathbf{B} &= 0",
            "\\nabla \\times \\mathbf{E} &= -\\frac{\\partial \\mathbf{B}}{\\partial t}",
            "\\nabla \\times \\mathbf{B} &= \\mu_{0} \\mathbf{J} + \\mu_{0} \\varepsilon_{0} \\frac{\\partial \\mathbf{E}}{\\partial t}"]
    k = d.int(2, 4)
    start = d.int(0, 4 - k)
    return " \\\\ ".join(rows[start : start + k])


DISPLAY_FAMILIES = {
    "fraction": _fraction, "sum": _sum, "integral": _integral, "limit": _limit, "derivative": _derivative,
    "matrix": _matrix, "cases": _cases, "norm": _norm, "sets": _sets, "probability": _probability,
    "operator": _operator, "accents": _accents, "scripts": _scripts, "roots": _roots, "physics": _physics,
    "chemistry": _chemistry,
}
MULTILINE_FAMILIES = {"align": _align, "maxwell": _maxwell}


# -- inline families (low: no display fractions, big operators only in text style) -----------------


def _inline(d: _Draw) -> tuple[str, str]:
    x, i = d.letter(), d.pick(INDICES)
    g = d.greek()
    k = d.pick(list("ikm"))  # no descender: a subscript under a sum stays within the line
    low = d.pick(list("acemnorsuvwxz"))  # no ascender: an accent on it stays within the line
    options = (
        ("scripts", f"{x}_{{{i}}}^{{2}}"), ("scripts", f"{x}_{{{i},{d.pick(INDICES)}}}"),
        ("greek", f"{g} \\in (0, 1)"), ("greek", f"{g} > 0"), ("greek", f"{g}^{{2}}"),
        ("sets", f"\\mathbb{{{d.pick(BB)}}}^{{{d.pick(('n', 'd', '3', 'm'))}}}"),
        ("sets", f"{d.func_name()} \\colon \\mathbb{{{d.pick(BB)}}}^{{n}} \\to \\mathbb{{R}}"),
        ("operator", f"O({d.pick(COMPLEXITY)})"),
        ("norm", f"\\| {x} \\|_{{{d.pick(NORMS)}}}"),
        ("fraction", f"{d.letter()}/{d.letter()}"), ("fraction", f"({d.letter()} + 1)/{d.int(2, 9)}"),
        ("accents", f"\\hat{{{low}}}_{{n}}"), ("accents", f"\\bar{{{low}}}"), ("accents", f"\\tilde{{{low}}}"),
        ("chemistry", f"\\mathrm{{{d.pick(SPECIES)}}}"), ("chemistry", f"\\ce{{{d.pick(('CO2', 'H2O', 'NaCl', 'CH4', 'NH3', 'SO4^2-', 'Fe^3+', 'H2SO4'))}}}"),
        ("physics", "E = m c^{2}"), ("physics", f"T = {d.int(250, 400)}\\,\\mathrm{{K}}"),
        ("physics", f"{d.pick(('v', 'f', 'm', 'E', 'p'))} = {d.num()}\\,{d.pick(UNITS)}"),
        ("sum", f"\\sum_{{{k}}} w_{{{k}}} = 1"), ("sum", f"\\sum_{{{k}=1}}^{{n}} {x}_{{{k}}}"),
        ("probability", f"p({x} \\mid {d.letter()})"), ("probability", "\\mathbb{E}[X]"),
        ("probability", "X \\sim \\mathcal{N}(0, \\sigma^{2})"),
        ("norm", "\\langle u, v \\rangle"), ("norm", f"|z| \\le {d.pick(BOUND)}"),
        ("operator", f"\\nabla {d.func_name()}({x})"), ("operator", "\\lambda_{\\max}"),
        ("operator", f"\\log {d.letter()}"), ("operator", f"{x} \\mapsto e^{{-{x}}}"),
        ("sets", f"\\mathcal{{{d.pick(CAL)}}}"), ("sets", f"{x} \\notin A \\cup B"),
        ("relation", f"{d.term()} {d.pick(RELATIONS)} {d.term()}"),
        ("limit", f"{x}_{{n}} \\to {d.pick(TARGETS)}"),
    )
    return d.pick(options)


def builtin_formula(seed: int, kind: str) -> Formula:
    """The built-in formula for (seed, kind): "inline" (low, in a sentence) or "display"."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    d = _Draw(seed)
    if kind == "inline":
        family, body = _inline(d)
        return Formula(body, "inline", f"builtin:{family}")
    if d.chance(0.18):
        name = "maxwell" if d.chance(0.2) else "align"  # Maxwell's equations: real, but only a few
        return Formula(MULTILINE_FAMILIES[name](d), "display", f"builtin:{name}", multiline=True)
    name = d.pick(sorted(DISPLAY_FAMILIES))
    return Formula(DISPLAY_FAMILIES[name](d), "display", f"builtin:{name}")
