"""`tablebench parsers`: every parser a spec can name here, where it comes from, and its options.

Why: a spec names a parser by an entry point of the `tablebench.parsers` group (the built-in
adapters are this package's own), and takes `?option=value`s its class declares; without this
list a user reads pyproject files and source to learn either. Each entry point is loaded to
read its options (its import may fail: a missing dependency is then its row's note).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points

from tablebench.parse.registry import ENTRY_POINT_GROUP, options_of


@dataclass(frozen=True)
class ParserRow:
    name: str  # what a spec names
    source: str  # the distribution (and version) that declares it, and its target
    options: dict[str, str]  # option -> default
    note: str = ""  # why its options could not be read


def installed_parsers(eps: Iterable[EntryPoint] | None = None) -> list[ParserRow]:
    """Every installed parser of the entry-point group, by name, then the generic specs."""
    rows = []
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP) if eps is None else eps, key=lambda e: e.name):
        dist = f"{ep.dist.name} {ep.dist.version}" if ep.dist is not None else "unknown distribution"
        try:
            options, note = options_of(ep.load()), ""
        except Exception as exc:  # noqa: BLE001 - a parser whose dependency is missing is still listed
            options, note = {}, f"cannot be loaded: {type(exc).__name__}: {exc}"
        rows.append(ParserRow(ep.name, f"{dist} ({ep.value})", options, note))
    from tablebench.parse.vlm import VlmParser

    rows += [ParserRow("command:CLI", "tablebench (a command line with {pdf}, optionally {out})", {}),
             ParserRow("dir:FOLDER", "tablebench (outputs made elsewhere: PAGE.md|.html|.txt|.tex)", {}),
             ParserRow("vlm:MODEL", "tablebench (a litellm model: page image in, Markdown out)", options_of(VlmParser, 1)),
             ParserRow("module:Class", "any importable class with name, version and parse(pdf_path)", {})]
    return rows


def parsers_text(rows: Iterable[ParserRow]) -> str:
    """One block per parser: its name, where it comes from, its options with their defaults."""
    out = [f"parsers (entry-point group {ENTRY_POINT_GROUP}; options as NAME?option=value&...):"]
    for row in rows:
        out.append(f"{row.name}  {row.source}")
        if row.options:
            out.append("  options: " + ", ".join(f"{k}={v}" if v else k for k, v in row.options.items()))
        if row.note:
            out.append(f"  {row.note}")
    return "\n".join(out) + "\n"
