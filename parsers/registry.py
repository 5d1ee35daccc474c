"""Spec string -> parser: built-in names, `command:`, `dir:`, `vlm:` and entry points.

Grammar: `NAME[?key=value&...]` for built-ins and third-party parsers (the
`tablebench.parsers` entry-point group; the entry point loads a class or factory that is
called with the options as string keyword arguments), `vlm:MODEL[?key=value&...]`, and
`command:CLI` / `dir:FOLDER`, where everything after the colon is taken verbatim.
"""

from __future__ import annotations

import importlib
import inspect
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Callable, Iterable
from urllib.parse import parse_qsl

from parsers.base import Parser

ENTRY_POINT_GROUP = "tablebench.parsers"

BUILTINS: dict[str, str] = {
    "pymupdf4llm": "parsers.pymupdf4llm_parser:Pymupdf4llmParser",
    "pdfplumber": "parsers.pdfplumber_parser:PdfplumberParser",
    "camelot": "parsers.camelot_parser:CamelotParser",
    "pypdf": "parsers.pypdf_parser:PypdfParser",
    "tesseract": "parsers.tesseract_parser:TesseractParser",
}


def split_options(spec: str) -> tuple[str, dict[str, str]]:
    """`name?a=1&b=2` -> ("name", {"a": "1", "b": "2"}); a repeated key is an error."""
    base, _, query = spec.partition("?")
    pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    options: dict[str, str] = {}
    for key, value in pairs:
        if key in options:
            raise ValueError(f"parser spec {spec!r} repeats option {key!r}")
        options[key] = value
    return base.strip(), options


def _load(target: str) -> Callable[..., Any]:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def _build(factory: Callable[..., Any], label: str, *args: Any, **options: str) -> Parser:
    """Call a parser factory, turning unknown options into a one-line ValueError."""
    try:
        inspect.signature(factory).bind(*args, **options)
    except TypeError as exc:
        raise ValueError(f"parser {label!r}: bad options {sorted(options)}: {exc}") from None
    except ValueError:  # builtins without a signature: let the call decide
        pass
    parser = factory(*args, **options)
    missing = [a for a in ("name", "version", "parse") if not hasattr(parser, a)]
    if missing:
        raise ValueError(f"parser {label!r} lacks {', '.join(missing)}: not a tablebench parser")
    return parser


def resolve(spec: str, *, eps: Iterable[EntryPoint] | None = None) -> Parser:
    """The parser a spec string names; `eps` replaces the installed entry points (tests)."""
    spec = spec.strip()
    if not spec:
        raise ValueError("empty parser spec")
    kind, colon, rest = spec.partition(":")
    if colon and kind == "command":
        from parsers.command import CommandParser

        return CommandParser(rest)
    if colon and kind == "dir":
        from parsers.directory import DirParser

        return DirParser(rest)
    if colon and kind == "vlm":
        model, options = split_options(rest)
        from parsers.vlm import VlmParser

        return _build(VlmParser, spec, model, **options)
    name, options = split_options(spec)
    if name in BUILTINS:
        return _build(_load(BUILTINS[name]), name, **options)
    found = {ep.name: ep for ep in (entry_points(group=ENTRY_POINT_GROUP) if eps is None else eps)}
    if name in found:
        return _build(found[name].load(), name, **options)
    known = sorted(BUILTINS) + sorted(found) + ["command:CLI", "dir:FOLDER", "vlm:MODEL"]
    raise ValueError(f"unknown parser {name!r}; known: {', '.join(known)}")
