"""pdfplumber: ruled tables found by its line strategy, written into the page text where they stand."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tablebench.parse.protocol import ParseOutput, check_choice, output, package_version, require
from tablebench.parsers.layout import TABLE_FORMATS, Block, compose, inside, render_table

ADAPTER_REVISION = "1"


class PdfplumberParser:
    """`pdfplumber[?tables=html|markdown&strategy=lines|text]`; text lines outside tables kept."""

    name = "pdfplumber"

    def __init__(self, tables: str = "html", strategy: str = "lines") -> None:
        self.tables = check_choice("tables", tables, TABLE_FORMATS)
        self.strategy = check_choice("strategy", strategy, ("lines", "text"))
        self.version = f"{package_version('pdfplumber')}+a{ADAPTER_REVISION}"
        self.config = {"tables": self.tables, "strategy": self.strategy}

    def prepare(self) -> None:
        require("pdfplumber")

    def parse(self, pdf_path: Path) -> ParseOutput:
        pdfplumber = require("pdfplumber")
        started = time.perf_counter()
        with pdfplumber.open(str(pdf_path)) as pdf:
            pages = [self._page(page) for page in pdf.pages]
        return output("\n\n".join(pages), started, format=self.tables)

    def _page(self, page: Any) -> str:
        settings = {"vertical_strategy": self.strategy, "horizontal_strategy": self.strategy}
        found = page.find_tables(table_settings=settings)
        boxes = [t.bbox for t in found]
        blocks = [Block(t.bbox[1], t.bbox[0], render_table(t.extract(), self.tables), True) for t in found]

        def outside(obj: dict) -> bool:
            x, y = (obj["x0"] + obj["x1"]) / 2, (obj["top"] + obj["bottom"]) / 2
            return not any(inside(x, y, box) for box in boxes)

        text_page = page.filter(outside) if boxes else page
        for line in text_page.extract_text_lines(return_chars=False):
            blocks.append(Block(line["top"], line["x0"], line["text"]))
        return compose(blocks)
