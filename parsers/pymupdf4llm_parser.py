"""pymupdf4llm: PyMuPDF's Markdown export, tables as pipe tables (pinned 1.28.2).

pymupdf4llm 1.28 installs pymupdf-layout and uses its layout model by default: about 9x
slower here (~2.4 vs ~0.3 s per page) but it finds far more tables. `layout=off` gives the
classic rule-based export; the mode is part of the config, so each has its own cache.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tablebench.parse.protocol import ParseOutput, check_choice, output, package_version, require

ADAPTER_REVISION = "1"


class Pymupdf4llmParser:
    """`pymupdf4llm[?layout=on|off]`: `to_markdown()` of the whole PDF, as the package gives it."""

    name = "pymupdf4llm"

    def __init__(self, layout: str = "on") -> None:
        self.layout = check_choice("layout", layout, ("on", "off"))
        model = f"+layout-{package_version('pymupdf-layout')}" if self.layout == "on" else ""
        self.version = f"{package_version('pymupdf4llm')}{model}+a{ADAPTER_REVISION}"
        self.config = {"layout": self.layout}

    def prepare(self) -> None:
        self._module()

    def _module(self) -> Any:
        pymupdf4llm = require("pymupdf4llm")
        if self.layout == "on":
            require("pymupdf.layout")  # else pymupdf4llm would quietly fall back to classic
        pymupdf4llm.use_layout(self.layout == "on")
        return pymupdf4llm

    def parse(self, pdf_path: Path) -> ParseOutput:
        pymupdf4llm = self._module()
        started = time.perf_counter()
        text = pymupdf4llm.to_markdown(str(pdf_path), show_progress=False)
        return output(text, started, format="markdown", layout=self.layout)
