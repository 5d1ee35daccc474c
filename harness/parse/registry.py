"""Spec string -> parser: built-in names, `command:`, `dir:`, `vlm:` and entry points.

Grammar: `NAME[?key=value&...]` for built-ins and third-party parsers (the
`tablebench.parsers` entry-point group; the entry point loads a class or factory that is
called with the options as string keyword arguments), `module:Class[?key=value&...]` for a
class importable without an entry point (what an entry point's value would say),
`vlm:MODEL[?key=value&...]`, and `command:CLI` / `dir:FOLDER`, where everything after the
colon is taken verbatim.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any, Callable, Iterable
from urllib.parse import parse_qsl

from tablebench.parse.fingerprint import DECLARED
from tablebench.parse.protocol import Parser

_TARGET = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")  # module:Class, as an entry point's value

ENTRY_POINT_GROUP = "tablebench.parsers"

DIST = "tablebench"  # the built-in adapters (`parsers/`) are this distribution's own entry points


def _installed() -> list[EntryPoint]:
    return list(entry_points(group=ENTRY_POINT_GROUP))


def builtin_parsers() -> dict[str, EntryPoint]:
    """The built-in parsers: entry points of the group that this distribution declares."""
    return {ep.name: ep for ep in _installed() if ep.dist is not None and ep.dist.name == DIST}


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


def options_of(factory: Callable[..., Any], skip: int = 0) -> dict[str, str]:
    """The `?option=value`s a parser factory takes: name -> default ("" when it has none), after
    the first `skip` parameters (`vlm:`'s model); {} when its signature cannot be read."""
    try:
        params = list(inspect.signature(factory).parameters.values())[skip:]
    except (TypeError, ValueError):
        return {}
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return {p.name: "" if p.default is inspect.Parameter.empty else str(p.default) for p in params if p.kind in kinds}


def _build(factory: Callable[..., Any], label: str, *args: Any, **options: str) -> Parser:
    """Call a parser factory, turning unknown options into a one-line ValueError that lists the valid ones.
    `?version=V`, unless the factory takes a `version` itself, is the version of the parser's code
    declared by the user: it replaces the parser's `version` and keys its cache where its code
    cannot (`tablebench.parse.fingerprint.parser_identity`)."""
    declared = None
    if "version" in options and "version" not in options_of(factory, len(args)):
        options = dict(options)
        declared = options.pop("version")
    try:
        inspect.signature(factory).bind(*args, **options)
    except TypeError as exc:
        valid = options_of(factory, len(args))
        unknown = sorted(set(options) - set(valid))
        if unknown:
            raise ValueError(f"parser {label!r}: bad options {unknown}: valid options are "
                             f"{', '.join(valid) or 'none'}") from None
        raise ValueError(f"parser {label!r}: bad options {sorted(options)}: {exc}") from None
    except ValueError:  # builtins without a signature: let the call decide
        pass
    parser = factory(*args, **options)
    missing = [a for a in ("name", "version", "parse") if not hasattr(parser, a)]
    if missing:
        raise ValueError(f"parser {label!r} lacks {', '.join(missing)}: not a tablebench parser")
    if declared is not None:
        try:
            parser.version = declared
            setattr(parser, DECLARED, True)
        except (AttributeError, TypeError) as exc:
            raise ValueError(f"parser {label!r}: ?version= cannot be set on it ({exc})") from None
    return parser


def importable_from(folder: Path | str) -> None:
    """Let a `module:Class` parser come from `folder` (a project's rootdir, or the current folder for
    the command line) without installing it: the folder is appended to `sys.path`, after every
    installed package, so it never shadows one. Worker processes inherit the path."""
    entry = str(Path(folder).resolve())
    if entry not in sys.path:
        sys.path.append(entry)


def resolve(spec: str, *, eps: Iterable[EntryPoint] | None = None) -> Parser:
    """The parser a spec string names; `eps` replaces the installed third-party entry points (tests)."""
    spec = spec.strip()
    if not spec:
        raise ValueError("empty parser spec")
    kind, colon, rest = spec.partition(":")
    if colon and kind == "command":
        from tablebench.parse.command import CommandParser

        return CommandParser(rest)
    if colon and kind == "dir":
        from tablebench.parse.directory import DirParser

        return DirParser(rest)
    if colon and kind == "vlm":
        model, options = split_options(rest)
        from tablebench.parse.vlm import VlmParser

        return _build(VlmParser, spec, model, **options)
    name, options = split_options(spec)
    builtins = builtin_parsers()
    if name in builtins:
        return _build(builtins[name].load(), name, **options)
    others = [ep for ep in _installed() if ep.name not in builtins] if eps is None else list(eps)
    found = {ep.name: ep for ep in others}
    if name in found:
        return _build(found[name].load(), name, **options)
    if _TARGET.match(name):
        return _build(_import(name), name, **options)
    known = sorted(builtins) + sorted(found) + ["command:CLI", "dir:FOLDER", "vlm:MODEL", "module:Class"]
    raise ValueError(f"unknown parser {name!r}; known: {', '.join(known)}")


def _import(target: str) -> Callable[..., Any]:
    """`module:Class` -> the class (or factory); a one-line ValueError when it cannot be imported."""
    module, _, attr = target.partition(":")
    try:
        found: Any = importlib.import_module(module)
    except ImportError as exc:
        raise ValueError(f"parser {target!r}: cannot import {module} ({exc})") from None
    for part in attr.split("."):
        if not hasattr(found, part):
            raise ValueError(f"parser {target!r}: {module} has no {attr}")
        found = getattr(found, part)
    return found
