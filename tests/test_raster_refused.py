"""A page pdftoppm refuses to render (it exits 0 with a 1 x 1 image) is an error, never an empty page."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PIL import Image

from tablebench.core.raster import RasterError, image_pdf, jpeg_bytes, rasterise
from tablebench.parse.protocol import ParserError
from tablebench.parse.vlm import render_pages

needs_poppler = pytest.mark.skipif(shutil.which("pdftoppm") is None,
                                   reason="poppler-utils is not installed (./dev.sh setup)")


def one_page(path: Path, size_pt: tuple[float, float]) -> Path:
    image = Image.new("L", (8, 8), 255)
    path.write_bytes(image_pdf([(jpeg_bytes(image, 90, 72), image.size, "L", size_pt)]))
    return path


@needs_poppler
def test_a_page_too_large_to_allocate_is_an_error_for_the_raster_and_the_vlm_renderer(tmp_path):
    huge = one_page(tmp_path / "huge.pdf", (200_000, 200_000))  # 416,667 pixels a side at 150 dpi
    with pytest.raises(RasterError, match=r"could not render page 1 of huge\.pdf \(1 x 1 pixels\)"):
        rasterise(huge, 150)
    with pytest.raises(ParserError, match=r"could not render page 1 of huge\.pdf"):
        render_pages(huge, 150)


@needs_poppler
def test_an_ordinary_page_still_renders(tmp_path):
    page = one_page(tmp_path / "a4.pdf", (595.0, 842.0))
    assert [image.size for image in rasterise(page, 72)] == [(595, 842)]
    assert len(render_pages(page, 72)) == 1
