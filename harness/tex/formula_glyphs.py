"""How alike two formula symbols look, from their typeset shapes (`similarity`).

A reader fixes `ρ` read as `p` at a glance and does not fix `π` read as `n`: the formula
score needs to know which symbols look alike, and the TeX fonts can tell. `build_shapes`
typesets every symbol of `ALPHABET` with pdflatex (each on its own page, as it appears in
a formula: letters in math italic, digits and capital Greek upright, 20 pt), rasterises a
fixed cell around its baseline origin (`CELL`, in em) with pymupdf and keeps the ink
coverage on a `GRID` of 4-bit levels. The result is generated once, by code, into
`formula_glyph_data.SHAPES` (`python -m harness.tex.formula_glyphs` rewrites it), so the
score reads the same shapes on a machine without TeX; a test rebuilds a sample and checks
that it still matches.

`similarity(a, b)` is the fuzzy Jaccard index of the two coverage maps (sum of minima over
sum of maxima), the best over shifts of up to one cell pixel: 1 for the same shape, about 0
for shapes that share no ink. Symbols outside the alphabet have no shape (None).
"""

from __future__ import annotations

import base64
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np

from harness.tex.symbols import GREEK, LATEX_FOR

GRID = (16, 16)  # rows (height), columns (width)
CELL = (-0.84, 0.30, -0.10, 1.16)  # top, bottom (em below the baseline), left, right (em from the origin)
SIZE = 20.0  # pt: the font size the shapes are set at
ZOOM = 8.0
SHIFT = 1  # pixels: the largest offset tried when comparing two shapes
LEVELS = 15


def _alphabet() -> str:
    """Latin letters, digits, Greek (both cases, variant forms) and the letter-like math symbols."""
    latin = "".join(chr(c) for c in range(ord("a"), ord("z") + 1)) + "".join(chr(c) for c in range(ord("A"), ord("Z") + 1))
    greek = "".join(dict.fromkeys(c for c in GREEK.values() if len(c) == 1 and c != "ο"))  # TeX's omicron is o
    return latin + "0123456789" + greek + "∞∂∇ℓℏ∅ıȷ℘ℜℑℵ"


ALPHABET = _alphabet()


def _macro(char: str) -> str:
    """The math-mode LaTeX of a symbol of the alphabet (`\\upsilon` is Greek, not an upright variant)."""
    greek = {c: f"\\{name}" for name, c in reversed(GREEK.items()) if name.isalpha()
             and (not name.startswith("up") or name.lower() == "upsilon")}
    return greek.get(char) or LATEX_FOR.get(char, char).strip()


def _source(chars: str) -> str:
    pages = []
    for c in chars:
        macro = _macro(c)
        pages.append(f"\\noindent$\\displaystyle {macro}$\\newpage")
    return ("\\documentclass{article}\n\\usepackage[paperwidth=4cm,paperheight=4cm,margin=1cm]{geometry}\n"
            "\\usepackage{amsmath,amssymb}\n\\pagestyle{empty}\n"
            f"\\begin{{document}}\\fontsize{{{SIZE:g}}}{{{SIZE * 1.2:g}}}\\selectfont\n" + "\n".join(pages)
            + "\n\\end{document}\n")


def build_shapes(chars: str = ALPHABET) -> dict[str, np.ndarray]:
    """Typeset each of `chars` and return its coverage map (GRID, values 0..1). Needs pdflatex and pymupdf."""
    import pymupdf

    from harness.tex.runner import run_pdflatex

    pdf = run_pdflatex(_source(chars), timeout=120.0).pdf or b""
    shapes: dict[str, np.ndarray] = {}
    top, bottom, left, right = CELL
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        for c, page in zip(chars, doc):
            origins = [ch["origin"] for block in page.get_text("rawdict")["blocks"]
                       for line in block.get("lines", []) for span in line["spans"] for ch in span["chars"]]
            if not origins:
                continue
            x, y = min(o[0] for o in origins), max(o[1] for o in origins)
            clip = pymupdf.Rect(x + left * SIZE, y + top * SIZE, x + right * SIZE, y + bottom * SIZE)
            pix = page.get_pixmap(matrix=pymupdf.Matrix(ZOOM, ZOOM), clip=clip, colorspace=pymupdf.csGRAY)
            ink = 1.0 - np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width) / 255.0
            shapes[c] = _pool(ink)
    return shapes


def _pool(ink: np.ndarray) -> np.ndarray:
    """Mean ink per grid cell."""
    rows = np.array_split(np.arange(ink.shape[0]), GRID[0])
    cols = np.array_split(np.arange(ink.shape[1]), GRID[1])
    return np.array([[ink[np.ix_(r, k)].mean() for k in cols] for r in rows])


def encode_shape(shape: np.ndarray) -> str:
    """A coverage map as base64 of 4-bit levels (two cells per byte)."""
    levels = np.clip(np.rint(shape * LEVELS), 0, LEVELS).astype(np.uint8).ravel()
    return base64.b64encode(bytes((levels[0::2] << 4) | levels[1::2])).decode("ascii")


def decode_shape(text: str) -> np.ndarray:
    raw = np.frombuffer(base64.b64decode(text), dtype=np.uint8)
    levels = np.empty(raw.size * 2, dtype=float)
    levels[0::2], levels[1::2] = raw >> 4, raw & 0x0F
    return (levels / LEVELS).reshape(GRID)


@lru_cache(maxsize=1)
def _shapes() -> dict[str, np.ndarray]:
    from harness.tex.formula_glyph_data import SHAPES

    return {c: decode_shape(text) for c, text in SHAPES.items()}


def has_shape(char: str) -> bool:
    return char in _shapes()


@lru_cache(maxsize=65536)
def similarity(a: str, b: str) -> float | None:
    """How alike two symbols look, in [0, 1] (see module doc); None when either has no shape."""
    shapes = _shapes()
    if a not in shapes or b not in shapes:
        return None
    return shape_similarity(shapes[a], shapes[b])


def shape_similarity(x: np.ndarray, y: np.ndarray) -> float:
    """Fuzzy Jaccard of two coverage maps, best over shifts of up to `SHIFT` cells."""
    best = 0.0
    pad = np.pad(y, SHIFT)
    for dr in range(-SHIFT, SHIFT + 1):
        for dc in range(-SHIFT, SHIFT + 1):
            ys = pad[SHIFT + dr:SHIFT + dr + x.shape[0], SHIFT + dc:SHIFT + dc + x.shape[1]]
            union = np.maximum(x, ys).sum()
            if union > 0:
                best = max(best, float(np.minimum(x, ys).sum() / union))
    return best


def write_data(path: Path) -> None:
    """Rewrite the generated module of shapes (`formula_glyph_data.py`)."""
    shapes = build_shapes()
    lines = ['"""Generated by `python -m harness.tex.formula_glyphs` from pdflatex renders: do not edit.',
             "", "Each symbol's ink coverage (see `formula_glyphs`), base64 of 4-bit levels.", '"""', "",
             f"GRID = {GRID}", "SHAPES = {"]
    lines += [f"    {c!r}: {encode_shape(s)!r}," for c, s in shapes.items()]
    lines += ["}", ""]
    path.write_text("\n".join(lines), encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover - regenerates the data module
    write_data(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("formula_glyph_data.py"))
