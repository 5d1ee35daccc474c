"""An option as one row, and the one place rows become command-line options.

Why: an option used to be declared in every runner that took it (the pytest plugin's
`addoption`, the `tablebench` subcommands' `add_argument`, then read and checked apart), so its
default or help could differ between `pytest --help` and `tablebench report merge --help`
without anything saying so. A row says everything about an option once: its names, the
`RunOptions` field it sets, its default, help and check, and which runners take it ("pytest",
or a `tablebench` subcommand such as "report merge"). `add_options` adds one runner's rows to its
parser (pytest's option group or an argparse parser: both take argparse's arguments), and
`values_of` reads them back by field for `tablebench.gating.options.read_options`, the one check.
No other module adds an option (tests/test_option_table.py reads the source).

The run's options are the table `tablebench.gating.options.OPTIONS` (where their checks are); a
subcommand's own options (`generate --pages`) are rows beside the subcommand.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
import dataclasses
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from tablebench.core.options import Renamed

PYTEST = "pytest"  # the runner name of the pytest plugin; the others are `tablebench` subcommands


def _empty() -> Mapping[str, Any]:
    return MappingProxyType({})


@dataclass(frozen=True)
class Option:
    """One option of one or more runners."""

    names: str | tuple[str, ...]  # "--gate-alpha"; a positional's name ("runs"); ("-v", "--verbose")
    help: str | Callable[[], str] | None  # as --help shows it (argparse fills %(default)s); a callable: at add time
    runners: tuple[str, ...]  # PYTEST and/or `tablebench` subcommands ("report merge", "meta-eval")
    field: str | None = None  # the `RunOptions` field it sets; None: the subcommand reads it itself
    dest: str | None = None  # pytest's dest (tb_*: a conftest may read it with config.getoption)
    default: Any = None  # as typed on a command line: the check reads it as it reads a given value
    metavar: str | None = None
    action: str | None = None  # "append", "store_true", "version", ...
    choices: tuple[str, ...] | None = None
    negated: bool = False  # a --no-X flag: its field holds the opposite of the flag
    old: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=_empty)  # old name -> runners that take it
    check: Callable[[Any], Any] | None = None  # the value as typed -> the field's value, or a one-line ValueError
    argparse: Mapping[str, Any] = dataclasses.field(default_factory=_empty)  # type, nargs, required, version

    @property
    def flags(self) -> tuple[str, ...]:
        return (self.names,) if isinstance(self.names, str) else self.names

    @property
    def positional(self) -> bool:
        return not self.flags[0].startswith("-")

    def help_text(self) -> str | None:
        return self.help() if callable(self.help) else self.help

    def dest_for(self, runner: str) -> str:
        """Where the parsed value lands: pytest's tb_* dest, else the field (argparse's own name without one)."""
        if runner == PYTEST and self.dest:
            return self.dest
        return self.field or self.flags[-1].lstrip("-").replace("-", "_")


def rows_for(runner: str, *tables: Iterable[Option]) -> list[Option]:
    """The rows of `tables` that `runner` takes, in the tables' order."""
    return [row for table in tables for row in table if runner in row.runners]


def add_options(target: Any, runner: str, *tables: Iterable[Option]) -> None:
    """Add `runner`'s rows of `tables` to `target`: a pytest option group (`addoption`) or an
    argparse parser (`add_argument`); an old name sets what the new one sets (`Renamed`)."""
    add = getattr(target, "addoption", None) or target.add_argument
    for row in rows_for(runner, *tables):
        kwargs: dict[str, Any] = {"help": row.help_text(), **row.argparse}
        if not row.positional:
            kwargs["dest"] = row.dest_for(runner)
        if row.action != "version":
            kwargs["default"] = row.default
        kwargs.update((k, v) for k, v in (("metavar", row.metavar), ("action", row.action),
                                          ("choices", row.choices)) if v is not None)
        own = row.flags[-1].lstrip("-").replace("-", "_")
        takes_value = row.action in (None, "append") and not row.choices
        if row.metavar is None and takes_value and kwargs.get("dest", own) != own:
            kwargs["metavar"] = own.upper()  # `--out OUT`, whatever field it sets
        if kwargs["help"] is None:
            del kwargs["help"]
        add(*row.flags, **kwargs)
        for old, runners in row.old.items():
            if runner in runners:
                add(old, dest=row.dest_for(runner), action=Renamed, new=row.flags[0])


def values_of(namespace: object, runner: str, *tables: Iterable[Option]) -> dict[str, Any]:
    """{RunOptions field: the value as typed} of `runner`'s rows that set a field, read from a
    parsed namespace (pytest's `config.option` or argparse's), for `read_options`."""
    values = {}
    for row in rows_for(runner, *tables):
        if row.field is not None:
            value = getattr(namespace, row.dest_for(runner))
            values[row.field] = (not value) if row.negated else value
    return values
