"""PDF pages to images (poppler's pdftoppm) and images back to an image-only PDF.

Shared by the scan/photo page variants and the OCR parser. The PDF writer is ours, a few
objects long, because it must be byte-stable: no dates, no IDs, the JPEG bytes embedded as
they are (DCTDecode), so the same image gives the same file, and there is no text layer.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from PIL import Image

_SIZE = re.compile(r"^Page\s+(\d+)\s+size:\s+([\d.]+)\s+x\s+([\d.]+)\s+pts", re.MULTILINE)
# pdftoppm writes a 1 x 1 image and exits 0 when it cannot allocate a page ("Bogus memory
# allocation size"): an image this small is a page not rendered, not a blank page
MIN_PIXELS = 2


class RasterError(RuntimeError):
    """A page could not be rendered; the message is one line."""


def _poppler(tool: str) -> str:
    found = shutil.which(tool)
    if found is None:
        raise RasterError(f"{tool} is missing: install poppler-utils")
    return found


def page_sizes(pdf_path: Path | str) -> list[tuple[float, float]]:
    """Width and height in points of every page (pdfinfo), so a rebuilt PDF keeps the media box."""
    proc = subprocess.run([_poppler("pdfinfo"), "-f", "1", "-l", "100000", str(pdf_path)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RasterError(f"pdfinfo failed on {Path(pdf_path).name}: {_last_line(proc.stderr)}")
    sizes = [(float(w), float(h)) for _, w, h in _SIZE.findall(proc.stdout)]
    if not sizes:
        raise RasterError(f"pdfinfo found no pages in {Path(pdf_path).name}")
    return sizes


def rasterise(pdf_path: Path | str, dpi: int, gray: bool = True) -> list[Image.Image]:
    """Every page as a PIL image ("L" when `gray`, else "RGB") at `dpi`, in page order."""
    if dpi < 10 or dpi > 1200:
        raise ValueError(f"dpi must be between 10 and 1200, got {dpi}")
    with tempfile.TemporaryDirectory(prefix="tablebench-raster-") as tmp:
        # netpbm output: PNG encoding of a noisy scan costs pdftoppm seconds per page
        argv = [_poppler("pdftoppm"), "-r", str(dpi)] + (["-gray"] if gray else [])
        proc = subprocess.run(argv + [str(pdf_path), f"{tmp}/page"], capture_output=True, text=True)
        if proc.returncode != 0:
            raise RasterError(f"pdftoppm failed on {Path(pdf_path).name}: {_last_line(proc.stderr)}")
        files = sorted(Path(tmp).glob("page*.p[gp]m"), key=lambda p: int(re.sub(r"\D", "", p.stem) or 0))
        if not files:
            raise RasterError(f"pdftoppm rendered no pages of {Path(pdf_path).name}")
        images = []
        for number, file in enumerate(files, start=1):
            with Image.open(file) as image:
                check_rendered(image.size, number, pdf_path, proc.stderr)
                images.append(image.convert("L" if gray else "RGB"))
        return images


def check_rendered(size: tuple[int, int], page: int, pdf_path: Path | str, stderr: str) -> None:
    """Raise RasterError when pdftoppm's image of `page` is the stand-in it writes for a page it refused."""
    width, height = size
    if width < MIN_PIXELS or height < MIN_PIXELS:
        raise RasterError(f"pdftoppm could not render page {page} of {Path(pdf_path).name} "
                          f"({width} x {height} pixels): {_last_line(stderr)}")


def jpeg_bytes(image: Image.Image, quality: int, dpi: int) -> bytes:
    """Baseline JPEG at `quality` (deterministic: no EXIF, no optimisation pass)."""
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=int(quality), dpi=(dpi, dpi), optimize=False, progressive=False)
    return buffer.getvalue()


def image_pdf(pages: list[tuple[bytes, tuple[int, int], str, tuple[float, float]]]) -> bytes:
    """A PDF of full-page JPEG images and nothing else: (jpeg, (w_px, h_px), mode, (w_pt, h_pt)) each.

    No text layer, no dates: the bytes depend only on the images and page sizes."""
    objects: list[bytes] = []  # object n is objects[n - 1]
    kids = []
    objects.append(b"")  # 1: catalog, filled below
    objects.append(b"")  # 2: page tree, filled below
    for jpeg, (w_px, h_px), mode, (w_pt, h_pt) in pages:
        colour = {"L": b"/DeviceGray", "RGB": b"/DeviceRGB"}[mode]
        image_id, content_id, page_id = len(objects) + 1, len(objects) + 2, len(objects) + 3
        objects.append(b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace %s "
                       b"/BitsPerComponent 8 /Filter /DCTDecode /Length %d >>\nstream\n%s\nendstream"
                       % (w_px, h_px, colour, len(jpeg), jpeg))
        content = b"q %s 0 0 %s 0 0 cm /Im0 Do Q" % (_num(w_pt), _num(h_pt))
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content))
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %s %s] /Resources << /XObject "
                       b"<< /Im0 %d 0 R >> >> /Contents %d 0 R >>" % (_num(w_pt), _num(h_pt), image_id, content_id))
        kids.append(b"%d 0 R" % page_id)
    objects[0] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(kids), len(kids))
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _num(value: float) -> bytes:
    return (b"%.3f" % value).rstrip(b"0").rstrip(b".")


def _last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1][:200] if lines else "no message"
