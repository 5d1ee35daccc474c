"""camelot: lattice (ruled) tables, falling back to stream (whitespace) when none is found.

Camelot returns tables only; the text around them comes from pdfminer.six (a camelot
dependency), line by line, leaving out lines whose centre lies inside a table.
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path
from typing import Any

from tablebench.parse.protocol import ParseOutput, check_choice, output, package_version, require
from tablebench.parsers.layout import TABLE_FORMATS, Block, compose, inside, render_table

ADAPTER_REVISION = "1"


class CamelotParser:
    """`camelot[?tables=html|markdown&flavor=auto|lattice|stream]`; auto = lattice, then stream."""

    name = "camelot"

    def __init__(self, tables: str = "html", flavor: str = "auto") -> None:
        self.tables = check_choice("tables", tables, TABLE_FORMATS)
        self.flavor = check_choice("flavor", flavor, ("auto", "lattice", "stream"))
        self.version = f"{package_version('camelot-py')}+a{ADAPTER_REVISION}"
        self.config = {"tables": self.tables, "flavor": self.flavor}

    def prepare(self) -> None:
        require("camelot")
        require("pdfminer.high_level")

    def parse(self, pdf_path: Path) -> ParseOutput:
        camelot = require("camelot")
        high_level = require("pdfminer.high_level")
        layout = require("pdfminer.layout")
        started = time.perf_counter()
        flavors = ["lattice", "stream"] if self.flavor == "auto" else [self.flavor]
        with warnings.catch_warnings():  # camelot warns on every page without a table
            warnings.simplefilter("ignore")
            for flavor in flavors:
                found = list(camelot.read_pdf(str(pdf_path), flavor=flavor, pages="all"))
                if found:
                    break
        pages = []
        for number, page in enumerate(high_level.extract_pages(str(pdf_path)), start=1):
            tables = [t for t in found if int(t.page) == number]
            pages.append(self._page(page, tables, layout))
        return output("\n\n".join(pages), started, format=self.tables, flavor=flavor)

    def _page(self, page: Any, tables: list[Any], layout: Any) -> str:
        height = page.height
        # camelot's bbox is (x0, y0, x1, y1) with y up; turn it into (x0, top, x1, bottom)
        boxes = [(x0, height - y1, x1, height - y0) for x0, y0, x1, y1 in (t._bbox for t in tables)]
        rows = [t.df.values.tolist() for t in tables]
        blocks = [Block(box[1], box[0], render_table(r, self.tables), True) for box, r in zip(boxes, rows)]
        for element in page:
            if not isinstance(element, layout.LTTextContainer):
                continue
            for line in element:
                if not isinstance(line, layout.LTTextLine):
                    continue
                x, y = (line.x0 + line.x1) / 2, height - (line.y0 + line.y1) / 2
                text = line.get_text().strip()
                if text and not any(inside(x, y, box) for box in boxes):
                    blocks.append(Block(height - line.y1, line.x0, text))
        return compose(blocks)
