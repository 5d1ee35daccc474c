"""Page layouts sampled from a seed, recorded as a plain dict, rendered as a LaTeX preamble.

Fonts are those of `fonts.py`. Non-English text uses babel's ini locales with English
hyphenation patterns, because the apt TeX set has no German/French/Spanish patterns; without
any patterns narrow columns would overflow. `localize` sets a sampled layout to a
`--languages` language, whose engine, fonts and babel lines come from `languages.py`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

import numpy as np

from tablebench.cases.regions import PAPERS
from tablebench.generate import languages
from tablebench.generate.fonts import FONTS

DOCCLASSES = ("article", "article", "report", "book", "scrartcl", "scrartcl", "scrreprt", "scrbook")
LANGUAGES = {"en": "english", "de": "german", "fr": "french", "es": "spanish"}
FAKER_LOCALES = {"en": "en_US", "de": "de_DE", "fr": "fr_FR", "es": "es_ES"}
SPACINGS = {"single": "", "onehalf": r"\onehalfspacing", "double": r"\doublespacing"}


@dataclass(frozen=True, slots=True)
class PageLayout:
    """Everything that decides how a page looks; `to_dict()` goes into the ground truth."""

    docclass: str = "article"
    font: str = "latin-modern"
    fontsize: int = 10
    paper: str = "a4"
    margins_mm: tuple[float, float, float, float] = (25.0, 25.0, 25.0, 25.0)  # top right bottom left
    spacing: str = "single"
    parindent_pt: float = 15.0
    parskip_pt: float = 0.0
    columns: int = 1
    columnsep_mm: float = 8.0
    language: str = "en"
    engine: str = ""  # "" = pdflatex with the default setup; set by `generate --languages`

    def to_dict(self) -> dict:
        d = asdict(self)
        d["margins_mm"] = list(self.margins_mm)
        if not self.engine:
            del d["engine"]  # default pages keep their ground truth byte-identical
        return d

    @classmethod
    def from_dict(cls, d: dict) -> PageLayout:
        d = dict(d)
        d["margins_mm"] = tuple(d["margins_mm"])
        return cls(**d)

    @property
    def textwidth_pt(self) -> float:
        w = PAPERS[self.paper][0] - self.margins_mm[1] - self.margins_mm[3]
        return w * 72.27 / 25.4

    @property
    def columnwidth_pt(self) -> float:
        sep = self.columnsep_mm * 72.27 / 25.4
        return (self.textwidth_pt - sep * (self.columns - 1)) / self.columns

    def preamble(self) -> str:
        """Documentclass to `\\begin{document}`-ready preamble (packages the tables need too)."""
        extra = ""
        if self.engine:  # --languages pages: engine, fonts and babel per language
            setup, extra = languages.preamble_lines(self.language, self.font)
        elif self.docclass not in DOCCLASSES or self.font not in FONTS or self.language not in LANGUAGES:
            raise ValueError(f"unknown layout: {self.docclass}/{self.font}/{self.language}")
        koma = self.docclass.startswith("scr")
        opts = [f"{self.fontsize}pt", "a4paper" if self.paper == "a4" else "letterpaper"]
        if self.columns == 2:
            opts.append("twocolumn")
        if self.docclass in ("book", "scrbook"):
            opts.append("oneside")  # one page: no recto/verso margins or blank versos
        if koma:
            opts.append("parskip=false")
        t, r, b, l = self.margins_mm
        if not self.engine:
            lang = LANGUAGES[self.language]
            babel = (
                r"\usepackage[english]{babel}"
                if self.language == "en"
                else "\\usepackage{babel}\n" + f"\\babelprovide[import,main,hyphenrules=english]{{{lang}}}"
            )
            setup = [r"\usepackage[T1]{fontenc}", r"\usepackage[utf8]{inputenc}", FONTS[self.font], babel]
        lines = [
            f"\\documentclass[{','.join(opts)}]{{{self.docclass}}}",
            *setup,
            f"\\usepackage[top={t}mm,right={r}mm,bottom={b}mm,left={l}mm,columnsep={self.columnsep_mm}mm]{{geometry}}",
            r"\usepackage{setspace}",
            r"\usepackage{amsmath,amssymb}",
            r"\usepackage{booktabs,multirow,array,adjustbox,graphicx,makecell}",  # makecell: common in real tables
            r"\usepackage[table]{xcolor}",
            SPACINGS[self.spacing],
            f"\\setlength{{\\parindent}}{{{self.parindent_pt}pt}}",
            f"\\setlength{{\\parskip}}{{{self.parskip_pt}pt plus 1pt}}",
            r"\setlength{\emergencystretch}{3em}",
            r"\raggedbottom",
            r"\pagestyle{plain}",
            extra,
        ]
        return "\n".join(line for line in lines if line) + "\n"


def _round(x: float, step: float) -> float:
    return float(round(round(x / step) * step, 3))


def sample_layout(seed: int) -> PageLayout:
    """A layout drawn from `seed` alone: same seed, same layout, on every machine."""
    rng = np.random.default_rng([int(seed), 0x1A7])
    columns = int(rng.choice([1, 2], p=[0.45, 0.55]))
    fontsize = int(rng.choice([10, 11, 12], p=[0.5, 0.3, 0.2] if columns == 2 else [0.35, 0.35, 0.3]))
    side = _round(rng.uniform(15, 22) if columns == 2 else rng.uniform(20, 32), 0.5)
    top = _round(rng.uniform(18, 30), 0.5)
    spacing = str(rng.choice(list(SPACINGS), p=[0.8, 0.15, 0.05] if columns == 2 else [0.6, 0.25, 0.15]))
    indent = bool(rng.random() < 0.8)
    return PageLayout(
        docclass=str(rng.choice(DOCCLASSES)),
        font=str(rng.choice(list(FONTS))),
        fontsize=fontsize,
        paper=str(rng.choice(["a4", "letter"], p=[0.6, 0.4])),
        margins_mm=(top, side, _round(top + rng.uniform(-3, 6), 0.5), side),
        spacing=spacing,
        parindent_pt=_round(rng.uniform(10, 20), 0.5) if indent else 0.0,
        parskip_pt=0.0 if indent else _round(rng.uniform(3, 8), 0.5),
        columns=columns,
        columnsep_mm=_round(rng.uniform(5, 10), 0.5),
        language=str(rng.choice(list(LANGUAGES), p=[0.55, 0.15, 0.15, 0.15])),
    )


def localize(layout: PageLayout, code: str, seed: int) -> PageLayout:
    """`layout` set to `--languages` language `code` with its engine (recorded in the ground truth)."""
    lang = languages.LANGUAGES[code]
    font = layout.font
    if lang.font:
        font = lang.font
    columns = layout.columns
    if code in ("zh", "ja", "hi", "ar") and columns == 2 and layout.fontsize == 12:
        rng = np.random.default_rng([int(seed), 0x1A8])  # long words / wide glyphs: fewer 12pt 2-column pages
        columns = 1 if rng.random() < 0.5 else 2
    return replace(layout, language=code, engine=lang.engine, font=font, columns=columns)
