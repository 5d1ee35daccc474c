"""Scanned and photographed versions of a born-digital page: an image-only PDF, no text layer.

A text-layer parser reads cell text for free; on these pages only OCR/VLM parsers can. The
page is rasterised (pdftoppm) and degraded with parameters drawn from the seed:

- scan: slight skew, optical blur, paper and ink tone, a gentle lighting gradient, sensor
  noise, JPEG compression (grayscale);
- photo: the same, plus a slight perspective (corners moved by up to 1.2 %), a darker
  desk around the sheet, a stronger lighting gradient with vignetting and a warm tint (RGB).

Every random draw comes from one numpy Generator seeded with the page's variant seed, the
image operations are deterministic, and the PDF has no dates: same seed -> same bytes.
The drawn parameters are returned so the ground truth can record them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image, ImageFilter

from tablebench.core.files import sha256_file
from tablebench.core.raster import image_pdf, jpeg_bytes, page_sizes, rasterise
from tablebench.generate.seeds import derive_seed

VARIANTS = ("scan", "photo")
DEFAULT_DPI = 150
VARIANT_VERSION = "1"  # bump when a change alters the bytes made from the same seed


def check_variant(variant: str, dpi: int = DEFAULT_DPI) -> None:
    """A one-line ValueError for an unknown variant or an unusable DPI."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; known: {', '.join(VARIANTS)}")
    if not 50 <= dpi <= 600:
        raise ValueError(f"--dpi must be between 50 and 600, got {dpi}")


def draw_params(variant: str, rng: np.random.Generator) -> dict:
    """The degradation parameters of one page (plain floats/ints, JSON-ready, rounded)."""
    check_variant(variant)
    photo = variant == "photo"
    p = {
        "skew_deg": float(rng.choice([-1, 1]) * rng.uniform(0.3, 1.5 if photo else 1.0)),
        "blur_sigma_px": float(rng.uniform(0.5, 1.0) if photo else rng.uniform(0.3, 0.7)),
        "paper": float(rng.uniform(0.86, 0.95) if photo else rng.uniform(0.92, 0.98)),
        "ink": float(rng.uniform(0.08, 0.22)),
        "light_strength": float(rng.uniform(0.25, 0.4) if photo else rng.uniform(0.04, 0.12)),
        "light_angle_deg": float(rng.uniform(0, 360)),
        "noise_sigma": float(rng.uniform(0.02, 0.04) if photo else rng.uniform(0.01, 0.03)),
        "jpeg_quality": int(rng.integers(55, 76) if photo else rng.integers(60, 86)),
    }
    if photo:
        p["vignette"] = float(rng.uniform(0.1, 0.25))
        p["corners"] = [round(float(v), 4) for v in rng.uniform(-0.012, 0.012, size=8)]  # fractions of w/h
        p["desk"] = float(rng.uniform(0.25, 0.45))
        p["tint"] = [1.0, round(float(rng.uniform(0.95, 0.99)), 4), round(float(rng.uniform(0.84, 0.93)), 4)]
    return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in p.items()}


def _perspective_coeffs(size: tuple[int, int], corners: list[float]) -> list[float]:
    """PIL PERSPECTIVE coefficients mapping output pixels to the input page, corners moved."""
    w, h = size
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=float)
    src = dst + np.array(corners, dtype=float).reshape(4, 2) * [w, h]
    # the sheet's corners land at `src`; solve for the map from output (src) to input (dst)
    rows = []
    for (x, y), (u, v) in zip(src, dst):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    return [float(c) for c in np.linalg.solve(np.array(rows), dst.reshape(8))]


def _lighting(shape: tuple[int, int], p: dict) -> np.ndarray:
    """A multiplicative light field: a linear gradient across the page, plus vignetting for photos."""
    h, w = shape
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    x, y = x / w - 0.5, y / h - 0.5
    angle = np.deg2rad(p["light_angle_deg"])
    along = (np.cos(angle) * x + np.sin(angle) * y) / np.sqrt(0.5)  # -1 .. 1 across the page
    field = 1.0 - p["light_strength"] * (0.5 - 0.5 * along)
    if "vignette" in p:
        field *= 1.0 - p["vignette"] * (x * x + y * y) / 0.5
    return field.astype(np.float32)


def degrade(page: Image.Image, p: dict, rng: np.random.Generator) -> Image.Image:
    """One rendered page ("L") degraded with parameters `p`; "L" for scans, "RGB" for photos."""
    photo = "corners" in p
    image = page.rotate(p["skew_deg"], resample=Image.Resampling.BICUBIC, fillcolor=255)
    if photo:
        coeffs = _perspective_coeffs(image.size, p["corners"])
        # 0 marks the desk outside the sheet; the sheet itself is near white
        image = image.point(lambda v: max(v, 1))
        image = image.transform(image.size, Image.Transform.PERSPECTIVE, coeffs,
                                resample=Image.Resampling.BICUBIC, fillcolor=0)
    image = image.filter(ImageFilter.GaussianBlur(p["blur_sigma_px"]))
    ink = np.asarray(image, dtype=np.float32) / 255.0  # 1 = paper, 0 = ink
    tone = p["ink"] + (p["paper"] - p["ink"]) * ink
    if photo:
        desk = np.asarray(image, dtype=np.uint8) == 0
        tone = np.where(desk, np.float32(p["desk"]), tone)
    tone = tone * _lighting(tone.shape, p)
    tone = tone + rng.normal(0.0, p["noise_sigma"], size=tone.shape).astype(np.float32)
    if photo:
        tone = tone[..., None] * np.array(p["tint"], dtype=np.float32)
    return Image.fromarray(np.clip(tone * 255.0 + 0.5, 0, 255).astype(np.uint8), "RGB" if photo else "L")


def variant_pdf(pdf_path: Path | str, variant: str, seed: int, dpi: int = DEFAULT_DPI) -> tuple[bytes, dict]:
    """The `variant` of a PDF (every page) and the record of what was done, for the ground truth."""
    check_variant(variant, dpi)
    pdf_path = Path(pdf_path)
    sizes = page_sizes(pdf_path)
    images = rasterise(pdf_path, dpi, gray=True)
    if len(images) != len(sizes):
        raise ValueError(f"{pdf_path.name}: pdfinfo and pdftoppm disagree on the page count")
    rng = np.random.default_rng(seed)
    pages, params = [], []
    for image, size in zip(images, sizes):
        p = draw_params(variant, rng)
        out = degrade(image, p, rng)
        pages.append((jpeg_bytes(out, p["jpeg_quality"], dpi), out.size, out.mode, size))
        params.append(p)
    record = {
        "name": variant,
        "version": VARIANT_VERSION,
        "seed": seed,
        "dpi": dpi,
        "source_sha256": sha256_file(pdf_path),
        "params": params[0] if len(params) == 1 else params,
    }
    return image_pdf(pages), record


def variant_bytes(pdf: bytes, variant: str, seed: int, dpi: int = DEFAULT_DPI) -> tuple[bytes, dict]:
    """`variant_pdf` for a PDF held in memory (a freshly compiled page)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="tablebench-variant-") as tmp:
        path = Path(tmp) / "page.pdf"
        path.write_bytes(pdf)
        return variant_pdf(path, variant, seed, dpi)


def page_variant_seed(caseset_seed: int, variant: str, index: int) -> int:
    """The variant seed of page `index`: from the set's seed, so twins and generated sets agree."""
    return derive_seed(caseset_seed, "variant", variant, index)


def variant_summary(records: list[dict]) -> dict | None:
    """The manifest's `variant` entry: pages per variant and the DPIs and versions used; None if none."""
    found = [r["variant"] for r in records if isinstance(r.get("variant"), dict)]
    if not found:
        return None
    counts: dict[str, int] = {}
    for v in found:
        counts[v["name"]] = counts.get(v["name"], 0) + 1
    return {"pages": dict(sorted(counts.items())), "dpi": sorted({v["dpi"] for v in found}),
            "version": sorted({v["version"] for v in found}), "digital_pages": len(records) - len(found)}
