"""Per-language page setup for `generate --languages`: TeX engine, fonts, babel, filler text.

pdflatex where its 8-bit encodings carry the script with Type 1 fonts (Latin T1, Greek LGR
with cbfonts). Cyrillic T2A would need cm-super, which also replaces bitmap fallback fonts
on *default* pages and so changes their bytes: Russian goes to XeLaTeX with PT Serif
(fonts-paratype) and texlive-lang-cyrillic's patterns. XeLaTeX with system fonts for CJK
(AR PL UMing, IPAex Mincho; XeTeX's own line breaking between ideographs), Arabic (Amiri,
babel `bidi=default`, right-to-left tables via `layout=tabular`) and Devanagari (Lohit,
shaped by HarfBuzz). Without `--languages` none of this is used: pages stay byte-identical.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass

from tablebench.generate.fonts import FONTS


@dataclass(frozen=True, slots=True)
class Language:
    """How a page in one language is typeset."""

    code: str
    babel: str  # babel language name
    engine: str  # "pdflatex" | "xelatex"
    faker: str | None  # Faker locale, None: our own sentences (Faker's hi_IN writes Lorem)
    font: str  # layout.font: a key of fonts.FONTS (pdflatex) or a system font family (xelatex)
    rtl: bool = False
    sentence_end: str = "."


LANGUAGES: dict[str, Language] = {
    "en": Language("en", "english", "pdflatex", "en_US", ""),
    "de": Language("de", "german", "pdflatex", "de_DE", ""),
    "fr": Language("fr", "french", "pdflatex", "fr_FR", ""),
    "es": Language("es", "spanish", "pdflatex", "es_ES", ""),
    "ru": Language("ru", "russian", "xelatex", "ru_RU", "PT Serif"),
    "el": Language("el", "greek", "pdflatex", "el_GR", "latin-modern"),
    "zh": Language("zh", "chinese", "xelatex", "zh_CN", "AR PL UMing CN", sentence_end="。"),
    "ja": Language("ja", "japanese", "xelatex", "ja_JP", "IPAexMincho", sentence_end="。"),
    "ar": Language("ar", "arabic", "xelatex", "ar_AA", "Amiri", rtl=True),
    "hi": Language("hi", "hindi", "xelatex", None, "Lohit Devanagari", sentence_end="।"),
}
# \tracinglostchars=3: a character the font lacks is an error, not a silent gap (TeX Live >= 2021)
LOST_CHARS = "\\tracinglostchars=3\n"


def parse_languages(text: str) -> tuple[str, ...]:
    """`ru,el,zh` -> ("ru", "el", "zh"); one clear error for an unknown or empty list."""
    codes = tuple(c.strip() for c in text.split(",") if c.strip())
    unknown = [c for c in codes if c not in LANGUAGES]
    if not codes or unknown:
        raise ValueError(f"--languages: unknown {', '.join(unknown) or '(empty)'}; choose from {', '.join(LANGUAGES)}")
    return codes


def preamble_lines(code: str, font: str) -> tuple[list[str], str]:
    """(font/language preamble lines, what follows the layout's own lines) of a page in
    language `code` set in `font` (a key of `fonts.FONTS` for pdflatex languages)."""
    lang = LANGUAGES[code]
    if lang.engine == "pdflatex":
        enc = "LGR,T1" if lang.code == "el" else "T1"
        babel = (r"\usepackage[english]{babel}" if lang.code == "en"
                 else "\\usepackage{babel}\n" + f"\\babelprovide[import,main,hyphenrules=english]{{{lang.babel}}}")
        if lang.code == "el":  # real patterns ship with texlive-lang-greek
            babel = f"\\usepackage[english,{lang.babel}]{{babel}}"
        return [f"\\usepackage[{enc}]{{fontenc}}", r"\usepackage[utf8]{inputenc}", FONTS[font], babel], LOST_CHARS
    if lang.rtl:
        babel = ("\\usepackage[bidi=default,layout=tabular.columns]{babel}\n"
                 f"\\babelprovide[import,main]{{{lang.babel}}}\n\\babelfont{{rm}}{{{lang.font}}}\n\\babelfont{{sf}}{{{lang.font}}}\n"
                 "\\newcommand\\tbltr[1]{\\beginL#1\\endL}")  # see page.MACROS_I18N
    elif lang.code in ("hi", "ru"):  # Russian patterns: texlive-lang-cyrillic; Hindi: babel's own
        opts, sans = ("[Script=Devanagari]", lang.font) if lang.code == "hi" else ("", "PT Sans")
        babel = (f"\\usepackage{{babel}}\n\\babelprovide[import,main]{{{lang.babel}}}\n"
                 f"\\babelfont{{rm}}{opts}{{{lang.font}}}\n\\babelfont{{sf}}{opts}{{{sans}}}")
    else:  # CJK: no babel patterns; XeTeX breaks between ideographs itself
        babel = ("\\usepackage[english]{babel}\n\\usepackage{fontspec}\n"
                 f"\\setmainfont{{{lang.font}}}\n\\setsansfont{{{lang.font}}}\n\\XeTeXlinebreaklocale \"{lang.code}\"\n"
                 "\\XeTeXlinebreakskip=0pt plus 1pt")
    return [babel], LOST_CHARS


def missing_setup(codes: tuple[str, ...]) -> list[str]:
    """What this machine lacks for pages in `codes`: engines, system fonts, TeX encodings."""
    problems: list[str] = []
    for code in dict.fromkeys(codes):
        lang = LANGUAGES[code]
        if shutil.which(lang.engine) is None:
            problems.append(f"{code}: {lang.engine} not found (apt texlive-xetex)")
        elif lang.engine == "xelatex":
            found = subprocess.run(["fc-list", f":family={lang.font}"], capture_output=True, text=True).stdout.strip()
            if not found:
                problems.append(f"{code}: font {lang.font!r} not installed ({FONT_PACKAGES[code]})")
        elif code in ENCODING_FILES:
            found = subprocess.run(["kpsewhich", ENCODING_FILES[code]], capture_output=True, text=True).stdout.strip()
            if not found:
                problems.append(f"{code}: {ENCODING_FILES[code]} not found ({FONT_PACKAGES[code]})")
    return problems


FONT_PACKAGES = {"zh": "apt fonts-arphic-uming", "ja": "apt fonts-ipaexfont-mincho", "ar": "apt fonts-hosny-amiri",
                 "hi": "apt fonts-lohit-deva", "ru": "apt fonts-paratype", "el": "apt texlive-lang-greek"}
ENCODING_FILES = {"el": "lgrenc.def"}


def check_engines(codes: tuple[str, ...]) -> None:
    """One clear error, before any page is compiled, when an engine or font is missing."""
    problems = missing_setup(codes)
    if problems:
        raise OSError("--languages needs: " + "; ".join(problems) + " (./dev.sh setup installs them)")
