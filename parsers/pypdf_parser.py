"""pypdf: plain text only, the no-structure baseline every table parser should beat."""

from __future__ import annotations

import time
from pathlib import Path

from tablebench.parse.protocol import ParseOutput, output, package_version, require

ADAPTER_REVISION = "1"


class PypdfParser:
    """`pypdf`: `extract_text()` of every page; tables come out as loose lines."""

    name = "pypdf"

    def __init__(self) -> None:
        self.version = f"{package_version('pypdf')}+a{ADAPTER_REVISION}"
        self.config: dict[str, str] = {}

    def prepare(self) -> None:
        require("pypdf")

    def parse(self, pdf_path: Path) -> ParseOutput:
        pypdf = require("pypdf")
        started = time.perf_counter()
        reader = pypdf.PdfReader(str(pdf_path))
        text = "\n\n".join(page.extract_text() or "" for page in reader.pages)
        return output(text, started, format="text")
