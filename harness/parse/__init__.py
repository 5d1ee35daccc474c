"""Parsing: the `Parser` protocol, spec strings -> parsers, and the isolated, cached runner.

`resolve("pdfplumber")` turns a spec string into a parser (built-ins and third-party parsers
through the `tablebench.parsers` entry-point group; `command:`, `dir:`, `vlm:` schemes);
`runner.ParseRunner` runs it in a worker process with a timeout and an on-disk cache.
"""

from tablebench.parse.protocol import ParseOutput, Parser, ParserError
from tablebench.parse.registry import builtin_parsers, resolve

__all__ = ["ParseOutput", "Parser", "ParserError", "builtin_parsers", "resolve"]
