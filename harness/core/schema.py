"""What a file read from anywhere may hold, checked before any of it is used: a bounded JSON
parse (`loads`) and declared shapes (`check`), every refusal one line naming the field.

Why: a results.json or a baseline given to `tablebench report`, `report merge`, `compare` or
`--baseline` may come from a CI artefact, a colleague or an editor. The code that reads it
further sums, formats, sorts and recurses as if the writer had written it: a score of 1e308
summed to infinity, a list where a number goes, a label mapped to a string instead of an
object, `extra` nested 100,000 deep, each raised a traceback far from the file. So the
readers parse with bounds and check the whole document against the shape its writer produces
(declared next to each writer: `tablebench.core.results.ROW`, `tablebench.core.results_schema`,
`tablebench.gating.baseline`) before anything else reads it; anything else is `Invalid`,
a ValueError that says which field holds what, and what was expected there.

Bounds, each far above what a run writes and far below what costs memory or a stack:
strings of at most `MAX_TEXT` characters, values nested at most `MAX_DEPTH` deep, numbers
finite (NaN and Infinity are refused: the writer writes null for them) and, where a field has a
range (a score's scale, seconds, counts), within it, integers of at most `MAX_DIGITS` digits
(checked while parsing, before Python's own 4,300-digit limit turns one into an error that names
no field). Users' data (a hook's `extra`) has the bounds and no range.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tablebench.core.visible import visible

MAX_TEXT = 16 * 1024 * 1024  # characters of one string (a parser's output is cut at 8 MB, a case file at 16 MiB)
MAX_DEPTH = 64  # containers nested in one value (a run writes fewer than 10; users' `extra` gets the rest)
MAX_DIGITS = 20  # of an integer (a run's counts, indices and offsets fit in 64 bits)
MAX_NUMBER = 1e9  # magnitude of a number that has no range of its own (seconds, USD: `MAX_PAGE_NUMBER`)
_SHOWN_FIELD = 100  # characters of a field's path in a message


class Invalid(ValueError):
    """A value that is not what its field holds: `field` (a path like `results[3].scores.teds`,
    '' for the whole document) and `problem` (what it holds, and what was expected)."""

    def __init__(self, field_path: str, problem: str) -> None:
        super().__init__(field_path, problem)
        self.field, self.problem = field_path, problem

    def __str__(self) -> str:
        where = self.field if len(self.field) <= _SHOWN_FIELD else self.field[:_SHOWN_FIELD - 1] + "…"
        return f"{where}: {self.problem}" if where else self.problem

    def under(self, prefix: str) -> Invalid:
        """The same refusal, its field inside `prefix` (a result's field inside `results[3]`)."""
        if not self.field or not prefix:
            return Invalid(self.field or prefix, self.problem)
        return Invalid(prefix + ("" if self.field.startswith("[") else ".") + self.field, self.problem)


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def join(prefix: str, key: str | int) -> str:
    """The path of `key` inside `prefix`: `a.b`, `a[3]`, or `a["x y"]` for a key that is no plain name
    (quoted, cut at 60 characters: a key may be anything)."""
    if isinstance(key, int):
        return f"{prefix}[{key}]"
    if _NAME.match(key):
        return f"{prefix}.{key}" if prefix else key
    return f"{prefix}[{json.dumps(key[:60] + ('…' if len(key) > 60 else ''), ensure_ascii=True)}]"


# -- parsing ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _LongInteger:
    """An integer of more than `MAX_DIGITS` digits, kept as its length: `check` refuses it by field."""

    digits: int


def _integer(text: str) -> int | _LongInteger:
    digits = len(text.lstrip("-"))
    return int(text) if digits <= MAX_DIGITS else _LongInteger(digits)


def loads(text: str | bytes) -> Any:
    """JSON text as Python values, without a traceback whatever it holds: nesting too deep for
    the parser is `Invalid` naming where it went too deep; an integer longer than `MAX_DIGITS`
    digits becomes a marker `check` refuses by field (Python would refuse it unnamed);
    NaN and Infinity parse as floats, which `check` refuses by field; control characters in its
    strings are written out (`tablebench.core.visible`). Not JSON: ValueError."""
    try:
        return visible(json.loads(text, parse_int=_integer))
    except RecursionError:
        pass
    where = too_deep(text.decode("utf-8", "replace") if isinstance(text, bytes) else text)
    if where is None:  # the caller's own stack was deep: the text may be shallow
        raise Invalid("", "nested too deeply to read")
    raise Invalid(where, f"nested deeper than {MAX_DEPTH} levels")


_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{},]')  # a string (linear: no nested repetition) or a sign


def too_deep(text: str, limit: int = MAX_DEPTH) -> str | None:
    """The path of the first container in JSON `text` nested deeper than `limit` levels, or None:
    one pass over the text, no recursion (where `json` runs out of stack, this keeps counting)."""
    frames: list[list[Any]] = []  # per open container: its sign, and the step to its current child
    wants_key = False
    for m in _TOKEN.finditer(text):
        token = m.group()
        if token[0] == '"':
            if wants_key:
                frames[-1][1] = _key_of(token)
                wants_key = False
        elif token in "[{":
            if len(frames) >= limit:
                path = ""
                for _, step in frames:
                    path = join(path, step if step is not None else "")
                return path
            frames.append([token, 0 if token == "[" else None])
            wants_key = token == "{"
        elif token in "]}":
            if frames:
                frames.pop()
            wants_key = False
        elif frames:  # a comma: the next item of a list, the next key of an object
            if frames[-1][0] == "[":
                frames[-1][1] += 1
            else:
                wants_key = True
    return None


def _key_of(token: str) -> str:
    try:
        return json.loads(token)
    except ValueError:
        return token[1:-1]


# -- shapes -----------------------------------------------------------------------------------------
class Shape:
    """What one field may hold. `check` raises `Invalid` for the first value that is not, its field
    relative to the value checked (a container puts each refusal of its items inside its own step)."""

    expected = "a value"

    def check(self, value: Any) -> None:  # pragma: no cover - every shape overrides it
        raise NotImplementedError


def check(shape: Shape, value: Any, at: str = "") -> None:
    """`value` against `shape`; `Invalid` naming the first field (inside `at`) that does not fit."""
    try:
        shape.check(value)
    except Invalid as exc:
        raise exc.under(at) from None


def refuse(value: Any, expected: str) -> Invalid:
    return Invalid("", f"{shown(value)}, expected {expected}")


def _inside(step: str | int, shape: Shape, value: Any) -> None:
    """`value` against `shape`, a refusal placed inside `step` (a key or an index); the step's text
    is made only for a refusal: checking a file costs no paths."""
    try:
        shape.check(value)
    except Invalid as exc:
        raise exc.under(join("", step)) from None


def shown(value: Any) -> str:
    """A value as a message shows it: short, one line, never the hostile text itself when long."""
    if isinstance(value, _LongInteger):
        return f"an integer of {value.digits:,} digits"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
    if isinstance(value, (int, float)):
        return f"{value:g}" if isinstance(value, float) else str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=True) if len(value) <= 40 else f"a string of {len(value):,} characters"
    if isinstance(value, list):
        return f"a list of {len(value):,} item{'s' if len(value) > 1 else ''}" if value else "an empty list"
    if isinstance(value, dict):
        return "an object" if value else "an empty object"
    return f"a {type(value).__name__}"  # a Python literal read back: a set, a tuple


@dataclass(frozen=True)
class Text(Shape):
    limit: int = MAX_TEXT

    @property
    def expected(self) -> str:
        return "a string" if self.limit == MAX_TEXT else f"a string of at most {self.limit:,} characters"

    def check(self, value: Any) -> None:
        if type(value) is not str:
            raise refuse(value, self.expected)
        if len(value) > self.limit:
            raise refuse(value, f"a string of at most {self.limit:,} characters")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@dataclass(frozen=True)
class Number(Shape):
    """A finite number (an integer too) from `low` to `high`."""

    low: float = -MAX_NUMBER
    high: float = MAX_NUMBER
    what: str = ""  # the range in words, when its bounds are not round (a score's scale, a float's rounding allowed)

    @property
    def expected(self) -> str:
        return self.what or f"a number from {self.low:g} to {self.high:g}"

    def check(self, value: Any) -> None:
        if not _is_number(value) or not math.isfinite(value) or not self.low <= value <= self.high:
            raise refuse(value, self.expected)


@dataclass(frozen=True)
class Integer(Shape):
    low: int = 0
    high: int = 2**63 - 1

    @property
    def expected(self) -> str:
        return f"a whole number from {self.low:,} to {self.high:,}"

    def check(self, value: Any) -> None:
        if type(value) is not int or not self.low <= value <= self.high:
            raise refuse(value, self.expected)


@dataclass(frozen=True)
class Flag(Shape):
    expected = "true or false"

    def check(self, value: Any) -> None:
        if type(value) is not bool:
            raise refuse(value, self.expected)


@dataclass(frozen=True)
class OneOf(Shape):
    """One of the strings `values`."""

    values: tuple[str, ...]

    @property
    def expected(self) -> str:
        return "one of " + ", ".join(self.values)

    def check(self, value: Any) -> None:
        if type(value) is not str or value not in self.values:
            raise refuse(value, self.expected)


@dataclass(frozen=True)
class Known(Shape):
    """One of the names `names()` gives when the value is checked (a registry that plugins extend)."""

    names: Callable[[], Sequence[str]]

    @property
    def expected(self) -> str:
        return "one of " + ", ".join(self.names())

    def check(self, value: Any) -> None:
        if type(value) is not str or value not in self.names():
            raise refuse(value, self.expected)


@dataclass(frozen=True)
class Maybe(Shape):
    """null, or `inner`."""

    inner: Shape

    @property
    def expected(self) -> str:
        return f"{self.inner.expected} or null"

    def check(self, value: Any) -> None:
        if value is not None:
            try:
                self.inner.check(value)
            except Invalid as exc:
                if not exc.field:  # the value itself, not one inside it: say null would do too
                    raise Invalid("", f"{exc.problem} or null") from None
                raise


@dataclass(frozen=True)
class Items(Shape):
    """A list of `inner`."""

    inner: Shape

    expected = "a list"

    def check(self, value: Any) -> None:
        if type(value) is not list:
            raise refuse(value, self.expected)
        for i, item in enumerate(value):
            _inside(i, self.inner, item)


def _keys(value: dict) -> None:
    for key in value:
        check_key(key, "")


def check_key(key: Any, where: str) -> None:
    """A key of an object: a string (a Python literal read back may hold others) of at most `MAX_TEXT` characters."""
    if type(key) is not str:
        raise Invalid(join(where, str(key)), f"a key of type {type(key).__name__}, expected a string")
    if len(key) > MAX_TEXT:
        raise Invalid(join(where, key), f"a key of {len(key):,} characters, expected at most {MAX_TEXT:,}")


@dataclass(frozen=True)
class Table(Shape):
    """An object whose every value is `inner` (keys are strings of at most `MAX_TEXT` characters)."""

    inner: Shape

    expected = "an object"

    def check(self, value: Any) -> None:
        if type(value) is not dict:
            raise refuse(value, self.expected)
        _keys(value)
        for key, item in value.items():
            _inside(key, self.inner, item)


@dataclass(frozen=True)
class Record(Shape):
    """An object with named fields, each of its own shape (`required` ones present); any other
    key holds `rest` (bounded JSON by default: users' additions, or fields of a later version)."""

    fields: Mapping[str, Shape]
    required: tuple[str, ...] = ()
    rest: Shape | None = None

    expected = "an object"

    def check(self, value: Any) -> None:
        if type(value) is not dict:
            raise refuse(value, self.expected)
        for name in self.required:
            if name not in value:
                raise Invalid(join("", name), "missing")
        _keys(value)
        rest = self.rest or ANY
        for key, item in value.items():
            _inside(key, self.fields.get(key, rest), item)


@dataclass(frozen=True)
class Json(Shape):
    """Any JSON value within the bounds: strings (and keys) of at most `MAX_TEXT` characters,
    floats finite, integers of at most `MAX_DIGITS` digits, containers nested at most `depth` deep.
    Walked without recursion, twice only when it does not fit (the second walk names the field)."""

    depth: int = MAX_DEPTH

    expected = "JSON data"

    def check(self, value: Any) -> None:
        if not self._fits(value):
            raise self._refusal(value)

    def _fits(self, value: Any) -> bool:
        stack = [(value, 0)]
        while stack:
            item, level = stack.pop()
            kind = type(item)
            if kind is str:
                if len(item) > MAX_TEXT:
                    return False
            elif kind is float:
                if not math.isfinite(item):
                    return False
            elif kind is dict or kind is list:
                if level >= self.depth:
                    return False
                if kind is dict:
                    if any(type(key) is not str or len(key) > MAX_TEXT for key in item):
                        return False
                    item = item.values()
                stack.extend((v, level + 1) for v in item)
            elif not (kind is int or kind is bool or item is None):
                return False
        return True

    def _refusal(self, value: Any) -> Invalid:
        stack: list[tuple[Any, str, int]] = [(value, "", 0)]
        while stack:
            item, where, level = stack.pop()
            if isinstance(item, str) and len(item) > MAX_TEXT:
                return Invalid(where, f"{shown(item)}, expected a string of at most {MAX_TEXT:,} characters")
            if isinstance(item, float) and not math.isfinite(item):
                return Invalid(where, f"{shown(item)}, expected a finite number")
            if isinstance(item, _LongInteger):
                return Invalid(where, f"{shown(item)}, expected a number of at most {MAX_DIGITS} digits")
            if isinstance(item, (list, dict)):
                if level >= self.depth:
                    return Invalid(where, f"nested deeper than {self.depth} levels")
                pairs = enumerate(item) if isinstance(item, list) else item.items()
                for key, v in pairs:
                    if isinstance(item, dict):
                        try:
                            check_key(key, where)
                        except Invalid as exc:
                            return exc
                    stack.append((v, join(where, key), level + 1))
            elif not (isinstance(item, (str, int, float, bool)) or item is None):
                return Invalid(where, f"{shown(item)}, expected JSON data")
        return Invalid("", "not JSON data")  # pragma: no cover - `_fits` and this walk agree


ANY = Json()
