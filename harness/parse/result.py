"""What one parser made of one PDF, and how whatever a parser returned becomes that result.

Why here, apart from the runner: the worker process and the in-process path both turn a
parser's return value into an outcome (`settle`), and the cache reads results back
(`ParseResult.from_entry`); every way of failing becomes one of `OUTCOMES` with a one-line
message, and garbage (binary output, control characters, NaN costs) is contained here, as are
secrets (`redacted`).
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from tablebench.core.messages import holds_secret, one_line, redact, redact_data, tail, traceback_tail
from tablebench.parse.protocol import ParserError, amount

OUTCOMES = ("ok", "error", "timeout", "empty")
TRACEBACK = "traceback"  # the meta key of a parser's traceback when it raised, or a command's stderr (`raised`)
MAX_CHARS = 2_000_000  # a page of text is ~10k chars; more is garbage, kept capped
BINARY_SHARE = 0.10  # more control / undecodable characters than this: binary output
_STRIP = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f\ud800-\udfff]")  # break XML / UTF-8 writes
_BINARY = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f\ud800-\udfff\ufffd]")  # plus undecodable bytes


@dataclass
class ParseResult:
    """What one parser made of one PDF; plain data so it crosses processes and lands in JSON."""

    outcome: str
    text: str
    message: str
    meta: dict[str, Any]
    parser: str
    version: str
    config: dict[str, Any]
    pdf_sha256: str
    cached: bool = field(default=False, compare=False)

    def to_entry(self) -> dict[str, Any]:
        """The fields a cache entry holds (all but `cached`)."""
        data = asdict(self)
        data.pop("cached")
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_entry(), ensure_ascii=False, default=str)

    def holds_secret(self) -> bool:
        """Does any field hold a secret of this environment, in any form `core.messages` finds?"""
        return holds_secret(self.text) or holds_secret(self.message) or redact_data(self.meta)[1]

    @classmethod
    def from_entry(cls, data: Any) -> ParseResult:
        """A stored result; ValueError (one line) when `data` is not a well-formed result."""
        problem = entry_problem(data)
        if problem:
            raise ValueError(f"not a parse result: {problem}")
        return cls(**data, cached=True)

    @classmethod
    def from_json(cls, text: str) -> ParseResult:
        """A stored result; ValueError (one line) when the JSON is not a well-formed result."""
        return cls.from_entry(json.loads(text))


_FIELDS = {"outcome": str, "text": str, "message": str, "meta": dict, "parser": str, "version": str,
           "config": dict, "pdf_sha256": str}


def entry_problem(data: Any) -> str:
    """Why `data` (a decoded cache file) is not a result this module could have written, or "".

    Checks what later steps rely on without asking: field names and types, a known outcome,
    text only for "ok" (and no control characters), finite `seconds` / `cost` (and
    `timeout` for a timeout) >= 0. A hand-edited or foreign file fails here and is recomputed.
    """
    if not isinstance(data, dict):
        return f"a JSON {type(data).__name__}, not an object"
    if set(data) != set(_FIELDS):
        return f"fields {sorted(map(str, data))}, expected {sorted(_FIELDS)}"
    for key, kind in _FIELDS.items():
        if not isinstance(data[key], kind):
            return f"{key} is a {type(data[key]).__name__}, not a {kind.__name__}"
    outcome, text, meta = data["outcome"], data["text"], data["meta"]
    if outcome not in OUTCOMES:
        return f"unknown outcome {outcome!r:.40}"
    if (outcome == "ok") != bool(text.strip()):
        return f"outcome {outcome} with {'no ' if not text.strip() else ''}text"
    if _STRIP.search(text):
        return "control characters in the text"
    needed = ("seconds", "cost", "timeout") if outcome == "timeout" else ("seconds", "cost")
    for key in needed:
        if key not in meta:
            return f"meta lacks {key}"
        try:
            amount(meta[key], f"meta {key}")
        except ValueError as exc:
            return str(exc)
    return ""


MAX_META_CHARS = 100_000  # of a page's meta as JSON: seconds, cost and format take a few dozen
MAX_DROPPED_LISTED = 20  # names of dropped meta keys listed (the count is exact)
_FIRST = ("seconds", "cost", "format", "message")  # kept before anything else claims the room


def clean_meta(meta: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """(meta fit for JSON, problem): `seconds` / `cost` must be finite numbers >= 0 (else the
    problem names them and the page is an error: a NaN cost would poison every total); other
    keys that JSON cannot hold, or that do not fit in `MAX_META_CHARS` with the keys before
    them, are dropped and named under `meta_dropped` (the first `MAX_DROPPED_LISTED`; their
    number under `meta_dropped_count`). Why a bound: a parser's 300 MB meta crossed the
    process boundary whole and landed in the cache (1.19 GB RSS, a 287 MB entry)."""
    for key in ("seconds", "cost"):
        if key in meta:
            try:
                meta[key] = amount(meta[key], f"parser meta {key}")
            except ValueError as exc:
                return {}, str(exc)
    kept: dict[str, Any] = {}
    dropped: list[str] = []
    room = MAX_META_CHARS
    for key in sorted(meta, key=lambda k: k not in _FIRST):  # stable: the parser's order otherwise
        name = str(key)
        try:
            text = json.dumps(meta[key], allow_nan=False, default=str)
        except (TypeError, ValueError, RecursionError):
            dropped.append(name)
            continue
        size = len(text) + len(json.dumps(name)) + 4  # as a member of the object: "name": value,
        if size > room:
            dropped.append(name)
            continue
        room -= size
        kept[name] = json.loads(text)
    if dropped:
        kept["meta_dropped"] = [one_line(name, 80) for name in dropped[:MAX_DROPPED_LISTED]]
        if len(dropped) > MAX_DROPPED_LISTED:
            kept["meta_dropped_count"] = len(dropped)
    return kept, ""


def redacted(outcome: str, text: str, message: str, meta: dict[str, Any]) -> tuple[str, str, str, dict[str, Any]]:
    """What a parser returned with every secret of this environment redacted, in any form, in
    its text, message and meta (names and values, however deep): a parser that prints its
    environment (`env`) or keeps a key in its meta must not put it into the cache or a report.
    Done in the run's process, whose environment is the run's, whatever the parser changed in its
    own. An ok text that held nothing but a secret stays ok: the redaction marks where it was."""
    scrubbed, _ = redact_data(meta)
    return outcome, redact(text), redact(message), scrubbed if isinstance(scrubbed, dict) else {}


def raised(exc: BaseException) -> tuple[str, str, str, dict[str, Any]]:
    """(outcome, text, message, meta) of a parser that raised: an error with a one-line message,
    and in the meta the end of its traceback (the report and `--tb=long` show it), or of the
    `details` of a `ParserError` that has them (a command's stderr)."""
    details = exc.details if isinstance(exc, ParserError) else None
    trace = traceback_tail(exc) if details is None else tail(details)
    return "error", "", one_line(f"{type(exc).__name__}: {exc}"), {TRACEBACK: trace} if trace else {}


def settle(raw: Any, max_chars: int = MAX_CHARS) -> tuple[str, str, str, dict[str, Any]]:
    """(outcome, text, message, meta) from a parser's return value, with garbage contained.

    Text longer than `max_chars` is cut (outcome ok, message says so); text that is mostly
    control or undecodable characters is an error; stray control characters are dropped.
    """
    text, meta = (raw.text, raw.meta) if hasattr(raw, "text") else (raw, {})
    meta, problem = clean_meta(dict(meta) if isinstance(meta, dict) else {})
    if problem:
        return "error", "", problem, {}
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    if not isinstance(text, str):
        return "error", "", f"parser returned {type(text).__name__}, not text", meta
    notes = []
    if len(text) > max_chars:
        notes.append(f"output truncated to {max_chars:,} of {len(text):,} chars")
        meta["chars_total"] = len(text)
        text = text[:max_chars]
    sample = text[:100_000]
    share = len(_BINARY.findall(sample)) / max(1, len(sample))
    if share > BINARY_SHARE:
        return "error", "", f"output looks binary: {share:.0%} control or undecodable characters", meta
    text, removed = _STRIP.subn("", text)
    if removed:
        meta["control_chars_removed"] = removed
    why_empty = meta.pop("message", "") or "parser returned no text"
    if not text.strip():
        return "empty", "", one_line(why_empty), meta
    return "ok", text, "; ".join(notes), meta
