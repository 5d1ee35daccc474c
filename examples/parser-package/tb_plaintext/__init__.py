"""A minimal tablebench parser: the PDF's text layer via pypdf, tables as aligned columns."""

from __future__ import annotations

import time
from pathlib import Path

from tablebench.parse.protocol import ParseOutput, ParserError

MODES = ("plain", "layout")


class PlainTextParser:
    """`--parser=tb-plaintext` or `--parser=tb-plaintext?mode=layout`."""

    name = "tb-plaintext"
    version = "0.1.0"  # bump when the output changes (the cache also keys on the package's code)

    def __init__(self, mode: str = "layout") -> None:  # `?mode=...` arrives as a str keyword
        if mode not in MODES:
            raise ValueError(f"mode={mode!r} is not one of {', '.join(MODES)}")
        self.config = {"mode": mode}  # JSON-able; part of the cache key

    def prepare(self) -> None:
        """Optional: runs once per worker process, before the first page (limit: the page timeout + 10 s)."""
        import pypdf  # noqa: F401 — heavy imports here keep `--help` and collection fast

    def parse(self, pdf_path: Path) -> ParseOutput:
        from pypdf import PdfReader
        from pypdf.errors import PdfReadError

        started = time.perf_counter()
        try:
            pages = PdfReader(pdf_path).pages
        except PdfReadError as exc:
            raise ParserError(f"unreadable PDF: {exc}") from None  # one line, outcome "error"
        text = "\n".join(page.extract_text(extraction_mode=self.config["mode"]) or "" for page in pages)
        meta = {"format": "text", "seconds": time.perf_counter() - started, "cost": 0.0}
        return ParseOutput(text, meta)
