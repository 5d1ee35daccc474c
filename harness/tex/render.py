"""Render one formula with pdflatex and read back its glyphs with their positions.

Every render goes through `generate.latex_runner.run_pdflatex` (private temp dir, no shell
escape, paranoid file access, timeout) after `tex.safety.unsafe_reasons` (the safety
check plus macro definitions) refused anything that reads or writes files or redefines
commands; math environments beyond the table allowlist are accepted.
The glyphs (character + box, in pt from the page's top left; fraction bars and root
overlines, which pdfTeX draws as rules, come as the character "rule") are cached as JSON
(`tablebench.core.cache`) under a key that is the sha256 of the full LaTeX source: the same
formula is compiled once.

A compile takes at most RENDER_TIMEOUT seconds (an ordinary formula renders in under one; the
safety check refuses typesetting bombs before any compile). A caller can bound all the renders
of a block of work together (`render_budget`: the evaluator gives one page's renders the page's
budget): past it a render raises `RenderSkipped`, which says what was skipped and is never cached.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablebench.core.cache import ContentCache
from tablebench.tex.regions import ARGUMENT_MATH_ENVS, MATH_ENVS, MATH_MODE_ENVS, env_pattern
from tablebench.tex.runner import LatexError, run_pdflatex
from tablebench.tex.safety import unsafe_reasons

RENDER_CACHE = Path(".tablebench-cache/formula-render")  # when no run said where (`use_render_cache`)
_render_cache: Path = RENDER_CACHE
TEMPLATE_VERSION = "2"
PREAMBLE = (
    "\\documentclass{article}\n"
    "\\usepackage[paperwidth=120cm,paperheight=40cm,margin=1cm]{geometry}\n"
    "\\usepackage{amsmath,amssymb,mathtools,bm,mhchem}\n"
    "\\pagestyle{empty}\n"
    "\\begin{document}\n"
)
# Display environments whose body we typeset inside align* (which takes & and \\ anywhere).
# (alignat's column count would be typeset as text: it stays inside its own environment)
_DISPLAY_ENVS = MATH_MODE_ENVS - ARGUMENT_MATH_ENVS.keys()
MATH_ENVIRONMENTS = MATH_ENVS
_OUTER = re.compile(r"^\s*(\$\$|\$|\\\[|\\\()(.*?)(\$\$|\$|\\\]|\\\))\s*$", re.S)
_ENV_WRAP = re.compile(r"^\s*\\begin\{(" + env_pattern(_DISPLAY_ENVS) + r")\}(.*)\\end\{\1\}\s*$", re.S)
_INNER_MATH = re.compile(r"(?<!\\)\$|\\[(\[]")
_BLANK_LINES = re.compile(r"\n\s*\n")
_DISALLOWED_ENV = re.compile(r"^\\begin\{([^}]*)\}: environment not allowed")


RENDER_TIMEOUT = 10.0  # seconds for one compile
_budget: tuple[float, float, str] | None = None  # (deadline on time.monotonic, seconds, whose) of `render_budget`


class RenderError(ValueError):
    """The formula could not be typeset: unsafe, or pdflatex failed (one line)."""


class RenderSkipped(RenderError):
    """Not rendered: the budget of the work it belongs to was spent. Says nothing of the formula,
    so it is never cached and never scored as a formula that does not compile."""


@contextmanager
def render_budget(seconds: float, whose: str) -> Iterator[None]:
    """Let the renders inside the block compile for `seconds` in all; past that each raises
    `RenderSkipped` ("formula not rendered: `whose` 120 s budget for rendering formulas is spent")."""
    global _budget
    previous, _budget = _budget, (time.monotonic() + seconds, seconds, whose)
    try:
        yield
    finally:
        _budget = previous


@dataclass(frozen=True, slots=True)
class Glyph:
    char: str
    x0: float
    y0: float
    x1: float
    y1: float


def formula_body(latex: str) -> str:
    """The math inside the formula's delimiters / display environment."""
    body = latex.strip()
    for _ in range(3):  # `$$\begin{equation}..\end{equation}$$` and the like
        m = _OUTER.match(body) or _ENV_WRAP.match(body)
        if not m or _INNER_MATH.search(m.group(2)):
            break  # `$a$ and $b$` is text with two formulas, not one formula
        body = m.group(2)
    return body.strip()


def check_formula(body: str) -> None:
    """Raise `RenderError` for LaTeX the safety check refuses (math environments are allowed)."""
    reasons = [r for r in unsafe_reasons(body)
               if not ((m := _DISALLOWED_ENV.match(r)) and m.group(1) in MATH_ENVIRONMENTS)]
    if reasons:
        raise RenderError(f"unsafe LaTeX refused before compiling: {reasons[0]}")


def formula_source(latex: str) -> str:
    """The whole document that typesets `latex` as one display (align* around its body).

    Text with several math parts (`$a$ and $b$`, how some parsers split one formula) is set
    as a paragraph with its own delimiters. Blank lines (paragraph breaks) become one newline.
    """
    body = _BLANK_LINES.sub("\n", formula_body(latex))
    check_formula(body)
    if _INNER_MATH.search(body):
        text = _BLANK_LINES.sub("\n", latex.strip())
        return PREAMBLE + "\\noindent " + text + "\n\\end{document}\n"
    return PREAMBLE + "\\begin{align*}\n" + body + "\n\\end{align*}\n\\end{document}\n"


def use_render_cache(parse_cache: Path | str | None) -> None:
    """Cache renders in the run's cache folder (`--parse-cache`), under formula-render; None: the default."""
    global _render_cache
    _render_cache = Path(parse_cache) / "formula-render" if parse_cache is not None else RENDER_CACHE


def render_cache() -> Path:
    """Where renders are cached now (see `use_render_cache`)."""
    return _render_cache


class RunCache:
    """The render cache the run chose (`render_cache()`), looked up when a formula is rendered."""


CURRENT = RunCache()


def render_glyphs(latex: str, cache_dir: Path | str | RunCache | None = CURRENT) -> list[Glyph]:
    """The glyphs of the typeset formula; raises `RenderError` (cached too) when it does not compile.
    `cache_dir`: the run's render cache by default, a folder, or None for no cache."""
    if isinstance(cache_dir, RunCache):
        cache_dir = _render_cache
    source = formula_source(latex)
    if cache_dir is None:
        return _decode(_render(source))
    key = hashlib.sha256((TEMPLATE_VERSION + source).encode("utf-8")).hexdigest()
    data, _ = ContentCache(cache_dir).fetch(key, _well_formed, lambda: _render(source))
    return _decode(data)


def _well_formed(data: Any) -> dict:
    """A stored render as `_render` writes it (a compile error, or glyph rows of a character
    and four numbers); ValueError for anything else, which is then rendered again."""
    if isinstance(data, dict) and isinstance(data.get("error"), str) and data["error"]:
        return data
    rows = data.get("glyphs") if isinstance(data, dict) else None
    if isinstance(rows, list) and all(isinstance(g, list) and len(g) == 5 and isinstance(g[0], str)
                                      and all(isinstance(v, (int, float)) for v in g[1:]) for g in rows):
        return data
    raise ValueError("not a formula render")


def _decode(data: dict) -> list[Glyph]:
    if data.get("error"):
        raise RenderError(data["error"])
    return [Glyph(*g) for g in data["glyphs"]]


def _render(source: str) -> dict:
    """Compile and extract; compile errors become a cacheable {"error": ...}; a compile the
    budget (`render_budget`) has no time for, or that it cut short, raises `RenderSkipped`."""
    timeout = RENDER_TIMEOUT
    if _budget is not None:
        deadline, seconds, whose = _budget
        skipped = RenderSkipped(f"formula not rendered: {whose} {seconds:g} s budget for rendering formulas is spent")
        if deadline - time.monotonic() < 0.05:
            raise skipped
        timeout = min(timeout, deadline - time.monotonic())
    try:
        result = run_pdflatex(source, timeout=timeout)
    except LatexError as exc:
        if timeout < RENDER_TIMEOUT and "timed out" in str(exc):
            raise skipped from None
        return {"error": str(exc)}
    return {"glyphs": [list(g) for g in glyphs_of_pdf(result.pdf or b"")]}


def glyphs_of_pdf(pdf: bytes) -> list[tuple]:
    """(char, x0, y0, x1, y1) of every character and every filled rule on the first page."""
    try:
        import pymupdf
    except ImportError:
        raise OSError("the rendered formula score needs pymupdf: pip install 'tablebench[formulas]'") from None

    out: list[tuple] = []
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        page = doc[0]
        for block in page.get_text("rawdict")["blocks"]:
            for line in block.get("lines", []):
                for span in line["spans"]:
                    for ch in span["chars"]:
                        if not ch["c"].isspace():
                            out.append((ch["c"], *(round(v, 2) for v in ch["bbox"])))
        for drawing in page.get_drawings():
            for item in drawing["items"]:
                if item[0] == "re":
                    r = item[1]
                    out.append(("rule", round(r.x0, 2), round(r.y0, 2), round(r.x1, 2), round(r.y1, 2)))
                elif item[0] == "l":
                    a, b = item[1], item[2]
                    out.append(("rule", round(min(a.x, b.x), 2), round(min(a.y, b.y), 2),
                                round(max(a.x, b.x), 2), round(max(a.y, b.y), 2)))
    return out
