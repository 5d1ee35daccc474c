"""The tiny protocol every parser speaks, and the result it returns.

A parser is anything with `name`, `version` and `parse(pdf_path) -> ParseOutput`. Optional
attributes tune how `tablebench.parse.runner` runs it: `config` (a JSON-able dict that, with name,
version and the content of the parser's code -- `tablebench.parse.fingerprint` -- keys the cache),
`prepare()` (import heavy modules once per worker, before the first page, with a limit of its own:
the page timeout plus 10 s; a prepare() that failed or hung fails every later page at once),
`cacheable` / `in_process` (False / True for parsers that only read files) and
`concurrency` (how many pages may run at once). README "Write your own parser" walks
through a complete example package (examples/parser-package).
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol, runtime_checkable


@dataclass(slots=True)
class ParseOutput:
    """A parser's text for one PDF and its metadata.

    `meta` holds at least `seconds` and `cost` (USD; 0.0 for local parsers), finite and >= 0
    (anything else makes the page an error); other values must be JSON-able. Other useful
    keys: `format` ("markdown", "html", "text", "latex"), `message` (why the text is empty;
    used only when it is).
    """

    text: str
    meta: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Parser(Protocol):
    """What `tablebench.parse.runner` needs from a parser."""

    name: str
    version: str

    def parse(self, pdf_path: Path) -> ParseOutput: ...


class ParserError(RuntimeError):
    """A parser failed on a page for a reason it can state in one line.

    `details`, when given, is what says more and is kept in place of the Python traceback (a
    `command:`'s stderr: the traceback of this raise would show the harness, not the command);
    "" keeps nothing more than the line."""

    def __init__(self, message: str, details: str | None = None) -> None:
        super().__init__(message)
        self.details = details


def require(module: str, extra: str = "parsers") -> ModuleType:
    """Import an optional dependency, or fail with one line naming the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ParserError(
            f"{module} is not installed: pip install 'tablebench[{extra}]' ({exc})"
        ) from None


def package_version(dist: str) -> str:
    """The installed version of a distribution, or "missing" (so a cache key never lies)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "missing"


def output(text: str, started: float, **meta: Any) -> ParseOutput:
    """A ParseOutput whose meta carries `seconds` since `started` (perf_counter) and `cost`."""
    import time

    meta.setdefault("cost", 0.0)
    meta["seconds"] = time.perf_counter() - started
    return ParseOutput(text, meta)


MAX_AMOUNT = 1e9  # seconds (31 years) or USD for one page: the most a measurement can say


def amount(value: Any, what: str) -> float:
    """`value` as a finite float >= 0 (seconds, USD), or a one-line ValueError naming `what`.

    Why strict: one `inf` or `NaN` in a page's meta poisons every sum and mean of the run
    (and JSON writers), and a negative cost or time is a bug upstream, not a measurement.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not hasattr(value, "__float__"):
        raise ValueError(f"{what} must be a number, got {value!r:.40}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number, got {value!r:.40}") from None
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"{what} must be a finite number >= 0, got {value!r:.40}")
    if number > MAX_AMOUNT:  # finite, but sums of two such values overflow (and no page takes 31 years)
        raise ValueError(f"{what} must be at most {MAX_AMOUNT:g}, got {value!r:.40}")
    return number


def check_choice(option: str, value: str, choices: tuple[str, ...]) -> str:
    """Validate a string option from a spec, with a one-line error naming the choices."""
    if value not in choices:
        raise ValueError(f"{option}={value!r} is not one of {', '.join(choices)}")
    return value
