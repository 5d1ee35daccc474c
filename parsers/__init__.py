"""Parser adapters: PDF page in, text out (tables as Markdown / HTML where they stand).

`resolve("pdfplumber")` turns a spec string into a parser; `harness.parse` runs it
isolated and cached. See `parsers.base` for the protocol a third-party parser implements.
"""

from parsers.base import ParseOutput, Parser, ParserError
from parsers.registry import BUILTINS, resolve

__all__ = ["BUILTINS", "ParseOutput", "Parser", "ParserError", "resolve"]
