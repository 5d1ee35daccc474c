"""tesseract: the offline OCR baseline — reads pages as images, so it works on scans too.

Every page is rendered (pdftoppm), its background flattened and deskewed, and read by the
Tesseract CLI (Debian `tesseract-ocr`) as TSV word boxes; calling the CLI directly keeps the
dependency to the apt package (pytesseract would only wrap the same call). Tables come from
geometry (`tablebench.parsers.ocr_tables`): ruled regions, rows, cells, columns and column spans. Text
outside tables is kept paragraph by paragraph, in the engine's reading order.
"""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from PIL import Image

from tablebench.core.raster import RasterError, rasterise
from tablebench.core.table import Table
from tablebench.parse.protocol import ParseOutput, ParserError, check_choice, output
from tablebench.parsers.layout import TABLE_FORMATS, Block, compose, rows_to_markdown
from tablebench.parsers.ocr_image import deskew, erase_lines, find_rules, flatten, skew_angle
from tablebench.parsers.ocr_tables import Region, Word, build_table, table_regions

ADAPTER_REVISION = "1"
TIMEOUT = 300  # seconds per page image


def tesseract_version() -> str:
    """`tesseract --version`'s number, or "missing" (part of the cache key)."""
    if shutil.which("tesseract") is None:
        return "missing"
    proc = subprocess.run(["tesseract", "--version"], capture_output=True, text=True)
    match = re.search(r"tesseract\s+(\S+)", proc.stdout + proc.stderr)
    return match.group(1) if match else "unknown"


class TesseractParser:
    """`tesseract[?tables=html|markdown&dpi=300&lang=eng]`; needs apt tesseract-ocr (+ language packs)."""

    name = "tesseract"

    def __init__(self, tables: str = "html", dpi: str = "300", lang: str = "eng") -> None:
        self.tables = check_choice("tables", tables, TABLE_FORMATS)
        if not dpi.isdigit() or not 100 <= int(dpi) <= 600:
            raise ValueError(f"tesseract option dpi={dpi!r} must be an integer from 100 to 600")
        if not re.fullmatch(r"[A-Za-z_]+(\+[A-Za-z_]+)*", lang):
            raise ValueError(f"tesseract option lang={lang!r} must look like eng or eng+deu")
        self.dpi, self.lang = int(dpi), lang
        self.version = f"{tesseract_version()}+a{ADAPTER_REVISION}"
        self.config = {"tables": self.tables, "dpi": self.dpi, "lang": self.lang}

    def prepare(self) -> None:
        if shutil.which("tesseract") is None:
            raise ParserError("tesseract is missing: apt-get install tesseract-ocr tesseract-ocr-eng (./dev.sh setup)")

    def parse(self, pdf_path: Path) -> ParseOutput:
        self.prepare()
        started = time.perf_counter()
        try:
            images = rasterise(pdf_path, self.dpi, gray=True)
        except RasterError as exc:
            raise ParserError(str(exc)) from None
        pages, n_tables = [], 0
        for image in images:
            text, found = self._page(image)
            pages.append(text)
            n_tables += found
        return output("\n\n".join(pages), started, format=self.tables, tables=n_tables,
                      message="tesseract read no text")

    def _page(self, image: Image.Image) -> tuple[str, int]:
        page = flatten(image, self.dpi)
        page = deskew(page, skew_angle(page, self.dpi))
        rules = find_rules(page, self.dpi)
        clean = erase_lines(page, self.dpi, rules)
        words = self._words(clean, psm=3)  # the page's layout: paragraphs in reading order
        regions = table_regions(rules, words, page.shape[1])
        blocks = []
        for region in regions:
            table = build_table(region, self._region_words(clean, region))
            if not table.is_empty():
                blocks.append(Block(region.top, region.x0, self._render(table), True))
        rest = [w for w in words if not any(r.holds(w) for r in regions)]
        paragraphs: dict[tuple[int, ...], list[Word]] = {}
        for word in rest:
            paragraphs.setdefault(word.line_key[:2], []).append(word)
        for members in paragraphs.values():
            lines: dict[tuple[int, ...], list[str]] = {}
            for word in members:
                lines.setdefault(word.line_key, []).append(word.text)
            text = "\n".join(" ".join(ws) for ws in lines.values())
            blocks.append(Block(min(w.top for w in members), min(w.left for w in members), text))
        return compose(blocks), len(regions)

    def _region_words(self, page: np.ndarray, region: Region) -> list[Word]:
        """A table read again on its own as sparse text (psm 11): page segmentation merges a
        row label centred on several rows (multirow) with its neighbours into garbage."""
        pad = self.dpi // 20
        top, left = max(0, region.top - pad), max(0, region.x0 - pad)
        crop = page[top:region.bottom + pad, left:region.x1 + pad]
        found = [replace(w, left=w.left + left, top=w.top + top) for w in self._words(crop, psm=11)]
        return [w for w in found if region.holds(w)]

    def _words(self, page: np.ndarray, psm: int) -> list[Word]:
        """Tesseract's words (TSV level 5) with their boxes; one line of stderr on failure."""
        with tempfile.TemporaryDirectory(prefix="tablebench-ocr-") as tmp:
            png = Path(tmp) / "page.pgm"  # uncompressed: PNG encoding would cost ~1 s a page
            Image.fromarray((page * 255 + 0.5).astype(np.uint8), "L").save(png)
            env = {**os.environ, "OMP_THREAD_LIMIT": "1"}  # one page per core; the harness parallelises pages
            try:
                proc = subprocess.run(["tesseract", str(png), "stdout", "-l", self.lang, "--psm", str(psm),
                                       "--dpi", str(self.dpi), "tsv"], capture_output=True, env=env, timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                raise ParserError(f"tesseract took over {TIMEOUT} s on one page") from None
        if proc.returncode != 0:
            lines = proc.stderr.decode("utf-8", errors="replace").strip().splitlines()
            raise ParserError(f"tesseract exited with code {proc.returncode}" + (f": {lines[-1][:200]}" if lines else ""))
        return parse_tsv(proc.stdout.decode("utf-8", errors="replace"))

    def _render(self, table: Table) -> str:
        if self.tables == "html":
            return table.to_html()
        return rows_to_markdown([[t for c in row for t in [c.text] + [""] * (c.colspan - 1)] for row in table.rows])


def parse_tsv(tsv: str) -> list[Word]:
    """Words of Tesseract's TSV output (level 5, non-blank text), keyed by block/paragraph/line."""
    words = []
    for row in csv.DictReader(io.StringIO(tsv), delimiter="\t", quoting=csv.QUOTE_NONE):
        text = (row.get("text") or "").strip().strip("|").strip()  # "|": a vertical rule read as text
        if row.get("level") != "5" or not text:
            continue
        words.append(Word(text, int(row["left"]), int(row["top"]), int(row["width"]), int(row["height"]),
                          (int(row["block_num"]), int(row["par_num"]), int(row["line_num"]))))
    return words
