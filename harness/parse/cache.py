"""The parse cache: one result per (parser name, version, config, parser code, PDF content).

Why: parsing dominates a benchmark run. Results are stored through `tablebench.core.cache`
(atomic writes, a lock per key, so a killed run resumes and concurrent pytest-xdist workers
parse a page once) as `<root>/<parser>/<key[:2]>/<key>.json`. An entry that does not read
back as a well-formed result of that very key is treated as absent and overwritten.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tablebench.core.cache import ContentCache
from tablebench.parse.fingerprint import parser_identity
from tablebench.parse.protocol import Parser
from tablebench.parse.result import ParseResult


def parser_config(parser: Parser) -> dict[str, Any]:
    """The parser's JSON-able config ({} when it has none)."""
    return dict(getattr(parser, "config", None) or {})


def _plain(value: Any) -> Any:
    """`value` as it reads back from the cache's JSON (tuples become lists, odd types str)."""
    return json.loads(json.dumps(value, default=str))


def cache_key(parser: Parser, pdf_sha256: str, code: str | None = None) -> str:
    """Hex key of (name, version, config, parser code, PDF content): any change is a miss.

    `code` is the parser's identity stamp (`tablebench.parse.fingerprint.parser_identity`), computed
    here when not given (a runner computes it once): a parser's code edited without a version bump
    re-parses.
    """
    ident = {"name": parser.name, "version": parser.version, "config": parser_config(parser),
             "code": parser_identity(parser).stamp if code is None else code, "pdf": pdf_sha256}
    return hashlib.sha256(json.dumps(ident, sort_keys=True, default=str).encode()).hexdigest()


def _slug(name: str) -> str:
    """A folder name for a parser: readable prefix plus a hash, since specs hold any character."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:40].strip("_.") or "parser"
    return f"{safe}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


class ParseCache:
    """Results as JSON files `<root>/<parser>/<key[:2]>/<key>.json`, one content cache per parser."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    def store(self, parser: Parser) -> ContentCache:
        """The content cache holding `parser`'s results."""
        return ContentCache(self.root / _slug(parser.name))

    def path(self, parser: Parser, key: str) -> Path:
        return self.store(parser).path(key)

    def fetch(self, parser: Parser, key: str, pdf_sha256: str, compute: Callable[[], ParseResult],
              reusable: Callable[[ParseResult], bool]) -> ParseResult:
        """The stored result of `key` when it is well-formed, stands for this very parser and
        PDF (an entry copied or edited under another key is not served) and is `reusable`;
        else `compute()`, stored over whatever was there. Under the key's lock."""
        expect = {"parser": parser.name, "version": parser.version, "config": parser_config(parser),
                  "pdf_sha256": pdf_sha256}

        def read(entry: Any) -> ParseResult:
            hit = ParseResult.from_entry(entry)
            if any(_plain(getattr(hit, k)) != _plain(v) for k, v in expect.items()):
                raise ValueError("a result of another parser or PDF")
            if not reusable(hit):
                raise ValueError("a result this run does not reuse")
            return hit

        result, _ = self.store(parser).fetch(key, read, compute, ParseResult.to_entry)
        return result
