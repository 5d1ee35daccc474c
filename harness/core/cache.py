"""One content-addressed JSON cache for every result worth keeping between runs.

Why one: parse results, LLM answers, formula renders and pool vetting outcomes all need the
same three things: a key over everything that changes the result, writes a killed run cannot
tear (`write_atomic`), and a lock per key, so two pytest-xdist workers compute a result once
(the second waits, then reads the first one's). And one rule for a bad entry: an entry that
does not read back as well-formed (not a file, not JSON, or refused by the caller's `read`) is
treated as absent, computed again and overwritten. What "well-formed" means is the caller's:
each use passes its own `read`, which turns the decoded JSON into the value or raises.
"""

from __future__ import annotations

import json
import os
import tempfile
import warnings
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, TypeVar

from tablebench.core.files import locked, write_atomic

T = TypeVar("T")
# what a `read` may raise for an entry it refuses; an entry raising anything else is a bug
MALFORMED = (OSError, ValueError, TypeError, KeyError, IndexError, RecursionError)


_SAID: set[str] = set()  # caches already warned about, once per process


def _unwritable(root: Path, exc: OSError) -> None:
    """Warn once per cache folder that it cannot be written (results are computed, not kept)."""
    if str(root) in _SAID:
        return
    _SAID.add(str(root))
    warnings.warn(f"tablebench: cache {root} cannot be written ({exc.strerror or exc}): "
                  "results are computed but not kept", RuntimeWarning, stacklevel=3)


class ContentCache:
    """JSON entries as `<root>/<key[:2]>/<prefix><key>.json` (`fan_out=False`: `<root>/<prefix><key>.json`).

    Each key has a lock file beside its entry (`.lock` for `.json`). Entries are written with
    `ensure_ascii=False`, and values JSON cannot hold as their `str` (as the keys are hashed).
    """

    def __init__(self, root: Path | str, *, fan_out: bool = True, prefix: str = "") -> None:
        self.root = Path(root)
        self.fan_out = fan_out
        self.prefix = prefix

    def unwritable(self) -> str:
        """Why an entry cannot be written here now (one line), or "" when one can: a probe file
        is created and removed. For a run to say so up front, not at its first entry; the caller
        says it, so this process does not warn about the folder again (`_unwritable`)."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            fd, probe = tempfile.mkstemp(dir=self.root, prefix=".probe-")
            os.close(fd)
            os.unlink(probe)
        except OSError as exc:
            _SAID.add(str(self.root))
            return str(exc.strerror or exc)
        return ""

    def path(self, key: str) -> Path:
        """Where the entry of `key` lives."""
        if not key or not all(c.isalnum() or c in "-_" for c in key):
            raise ValueError(f"cache key must be letters, digits, '-' or '_', got {key!r:.80}")
        folder = self.root / key[:2] if self.fan_out else self.root
        return folder / f"{self.prefix}{key}.json"

    @contextmanager
    def lock(self, key: str) -> Iterator[None]:
        """Exclusive per key across processes and threads: the second computer waits, then hits."""
        with locked(self.path(key).with_suffix(".lock")):
            yield

    def get(self, key: str, read: Callable[[Any], T]) -> T | None:
        """`read(entry)`, or None when the entry is absent or not well-formed (`read` raised one of
        `MALFORMED`): the caller then computes it again and `put`s it over the bad one.
        `read` must not return None."""
        try:
            return read(json.loads(self.path(key).read_text(encoding="utf-8")))
        except MALFORMED:
            return None

    def drop(self, key: str) -> None:
        """Remove the entry of `key` if there is one (an entry that must not be served again);
        a cache that cannot be written keeps it, unread by callers that refuse it anyway."""
        try:
            self.path(key).unlink(missing_ok=True)
        except OSError:
            pass

    def put(self, key: str, entry: Any) -> Path:
        """Store `entry` (JSON-able) atomically: readers see the old entry or the new one, never half."""
        return write_atomic(self.path(key), json.dumps(entry, ensure_ascii=False, default=str))

    def fetch(self, key: str, read: Callable[[Any], T], compute: Callable[[], T],
              encode: Callable[[T], Any] = lambda value: value,
              keep: Callable[[T], bool] = lambda value: True) -> tuple[T, bool]:
        """(value, cached): the stored value when well-formed, else `compute()`, stored as
        `encode(value)` when `keep(value)` (else returned unkept, and the entry there dropped);
        all under the key's lock, so concurrent callers compute it once. A cache
        that cannot be written (full disk, a file where a folder should be) never costs the value:
        it is returned unkept, and the first such failure per cache is a warning."""
        with ExitStack() as stack:
            try:
                stack.enter_context(self.lock(key))
            except OSError as exc:  # a cache that cannot be written still serves what it holds
                _unwritable(self.root, exc)
            hit = self.get(key, read)
            if hit is not None:
                return hit, True
            value = compute()
            if not keep(value):
                self.drop(key)
                return value, False
            try:
                self.put(key, encode(value))
            except OSError as exc:  # the value is good; only keeping it failed
                _unwritable(self.root, exc)
            return value, False
