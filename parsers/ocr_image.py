"""Page-image clean-up and ruling lines for the OCR parser (numpy + scipy.ndimage, no OpenCV).

Scanned and photographed pages arrive skewed, unevenly lit and noisy. Before OCR the
background is flattened (divide by a local maximum, so shading and paper tone go away) and
the page is deskewed (the angle whose row profile is sharpest). Horizontal ruling lines
(booktabs rules, `\\hline`s) are then found as long, thin runs of ink: they bound tables.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PIL import Image
from scipy import ndimage

INK = 0.6  # below this (after flattening; paper = 1) a pixel is ink
RULE_INK = 0.75  # ruling lines are thin: blur leaves them lighter than text strokes


@dataclass(frozen=True, slots=True)
class Rule:
    """A horizontal line from x0 to x1 at height y (pixels of the cleaned page)."""

    x0: int
    x1: int
    y: int

    @property
    def width(self) -> int:
        return self.x1 - self.x0


def flatten(image: Image.Image, dpi: int) -> np.ndarray:
    """Gray page as floats with the background divided out: paper ~1, ink ~0, shading gone."""
    gray = np.asarray(image.convert("L"), dtype=np.float32) / 255.0
    step = max(1, dpi // 75)  # estimate the background at ~75 dpi: cheap and smooth
    small = gray[::step, ::step]
    window = max(3, int(0.2 * dpi / step))  # wider than any glyph stroke, narrower than the shading
    background = ndimage.maximum_filter(small, size=window)
    background = ndimage.uniform_filter(background, size=window)
    full = np.asarray(Image.fromarray(background).resize(image.size, Image.Resampling.BILINEAR), dtype=np.float32)
    return np.clip(gray / np.maximum(full, 0.05), 0.0, 1.0)


def skew_angle(page: np.ndarray, dpi: int, limit: float = 4.0) -> float:
    """The rotation (degrees, PIL's sense) that makes text lines horizontal: sharpest row profile."""
    step = max(1, dpi // 75)
    small = page[::step, ::step] < INK
    long = max(10, int(0.4 * dpi / step))
    small &= ~(_runs(small, long, axis=1) | _runs(small, long, axis=0))  # rules and sheet edges: not text
    h, w = small.shape
    small = small[h // 10:h - h // 10, w // 10:w - w // 10]  # a photo's desk shows at the borders
    ink = Image.fromarray((small * 255).astype(np.uint8))

    def sharpness(angle: float) -> float:
        rows = np.asarray(ink.rotate(angle, resample=Image.Resampling.BILINEAR), dtype=np.float32).sum(axis=1)
        return float(np.square(np.diff(rows)).sum())

    best = max(np.arange(-limit, limit + 1e-9, 0.25), key=sharpness)
    fine = max(np.arange(best - 0.25, best + 0.25 + 1e-9, 0.05), key=sharpness)
    return round(float(fine), 2)


def deskew(page: np.ndarray, angle: float) -> np.ndarray:
    """The page rotated by `angle` degrees, new corners filled with paper."""
    if abs(angle) < 0.05:
        return page
    image = Image.fromarray(page.astype(np.float32), "F")
    return np.asarray(image.rotate(angle, resample=Image.Resampling.BILINEAR, fillcolor=1.0), dtype=np.float32)


def _runs(ink: np.ndarray, length: int, axis: int) -> np.ndarray:
    """Pixels of ink runs at least `length` long along `axis` (a few noisy gaps allowed)."""
    full = ndimage.uniform_filter1d(ink.astype(np.float32), size=length, axis=axis) > 0.97
    return ndimage.maximum_filter1d(full, size=length, axis=axis) & ink


def erase_lines(page: np.ndarray, dpi: int, rules: list[Rule] = ()) -> np.ndarray:
    """The page with ruling lines (horizontal and vertical) painted over with paper.

    OCR reads a vertical rule as "|" or "l" and garbles letters touching a rule; geometry
    keeps the rules (`find_rules` runs on the unerased page). Solid runs are erased where
    found (vertical ones); each of `rules` (horizontal, maybe faint or drifting) is traced
    piece by piece and erased where it runs, not over a whole band that text may share."""
    ink = page < INK
    lines = _runs(ink, max(20, int(0.25 * dpi)), axis=0)
    lines = ndimage.binary_dilation(lines, iterations=2) & (page < 0.9)
    out = page.copy()
    out[lines] = 1.0
    faint = page < RULE_INK
    step, half = max(8, dpi // 10), max(2, dpi // 100)
    for rule in rules:
        reach = max(6, int(0.013 * rule.width)) + half
        top = max(0, rule.y - reach)
        x0, x1 = max(0, rule.x0 - half), rule.x1 + half
        for x in range(x0, x1, step):
            cols = slice(x, min(x + step, x1))
            band = faint[top:rule.y + reach, cols]
            if band.size == 0:
                continue
            centre = top + int(np.argmax(band.sum(axis=1)))
            rows = slice(max(0, centre - half - 1), centre + half + 2)
            out[rows, cols][page[rows, cols] < 0.9] = 1.0
    return out


def find_rules(page: np.ndarray, dpi: int) -> list[Rule]:
    """Horizontal ruling lines: ink runs at least ~0.4 inch long and ~0.05 inch thick (plus drift).

    Ink is smeared 2 px up and down first, so a line a little off horizontal still forms
    one run; a faint line (a blurred photo) counts with a looser ink threshold, and pieces of
    one line broken by noise are joined. Components touching the image border (a desk
    around a photographed sheet) are not rules."""
    raw = page < RULE_INK
    ink = ndimage.maximum_filter1d(raw, size=5, axis=0)
    length = max(20, int(0.4 * dpi))
    labels, _ = ndimage.label(_runs(ink, length // 2, axis=1))
    h, w = page.shape
    off = max(3, dpi // 75)
    pieces = []
    for ys, xs in ndimage.find_objects(labels):
        width = xs.stop - xs.start
        # thin, but a long line may drift by ~1.5 degrees (perspective left after deskewing)
        if ys.stop - ys.start > max(8, int(0.05 * dpi)) + 0.026 * width:
            continue
        if ys.start <= off + 2 or xs.start <= 1 or ys.stop >= h - off - 2 or xs.stop >= w - 1:
            continue
        # a line has paper just above and below it; a blurred line of text does not
        above, below = raw[ys.start - off - 2:ys.start - off, xs].mean(), raw[ys.stop + off:ys.stop + off + 2, xs].mean()
        if max(above, below) > 0.45:
            continue
        pieces.append(Rule(xs.start, xs.stop, (ys.start + ys.stop) // 2))
    rules = [r for r in _join(pieces, gap=dpi // 10, dy=max(3, dpi // 50)) if r.width >= length]
    return sorted(rules, key=lambda r: (r.y, r.x0))


def _join(pieces: list[Rule], gap: int, dy: int) -> list[Rule]:
    """Collinear pieces (ends at most `gap` apart, heights within `dy`) joined left to right."""
    joined: list[Rule] = []
    for piece in sorted(pieces, key=lambda r: (r.x0, r.y)):
        for k, rule in enumerate(joined):
            if 0 <= piece.x0 - rule.x1 <= gap and abs(piece.y - rule.y) <= dy:
                joined[k] = Rule(rule.x0, max(rule.x1, piece.x1), (rule.y + piece.y) // 2)
                break
        else:
            joined.append(piece)
    return joined
