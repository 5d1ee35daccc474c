"""Content fingerprints of what a parser runs, so a changed parser never gets stale cached pages.

A declared `version` is only as good as the author's discipline: a parser's code (or the
script a `command:` line runs) changes without a bump all the time during development. The
parse cache therefore also keys on the bytes of the parser's module (and of the modules of
its own package that it imports) and of every file a command line names. Hashes are memoised
on (path, inode, size, mtime, ctime), so a session reads each file once.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Iterable

from harness.core.files import sha256_stamped, stat_key

HASH_LIMIT = 256 * 2**20  # bigger files (model weights named on a command line): size + mtime
CODE_FILES = 200  # a parser importing more modules of its package than this, or more
CODE_BYTES = 4_000_000  # bytes than this, is keyed by its own module file only



def file_stamp(path: Path) -> str:
    """The content hash of a file, or its size and mtime when it is too big to hash each run."""
    stat = path.stat()
    if stat.st_size > HASH_LIMIT:
        return f"size{stat.st_size}-mtime{stat.st_mtime_ns}"
    return sha256_stamped(str(path), stat_key(stat))


def digest(paths: Iterable[Path]) -> str:
    """One hex digest over the (path, content) of each readable file; unreadable ones count
    by name only (the parser will fail on them anyway, and that error is never cached)."""
    h = hashlib.sha256()
    for path in sorted({Path(p) for p in paths}):
        try:
            stamp = file_stamp(path)
        except OSError:
            stamp = "unreadable"
        h.update(f"{path}\0{stamp}\n".encode("utf-8", errors="surrogateescape"))
    return h.hexdigest()


def code_files(obj: object) -> list[Path]:
    """The source files behind `obj`'s class: its module plus every module of the same
    top-level package it imports, transitively (helpers the parser calls), with the packages'
    `__init__` files. Only the module itself when that set is big; [] for classes without one."""
    name = type(obj).__module__
    top = name.partition(".")[0]
    own = _module_file(name)
    if own is None:
        return []
    seen: dict[str, Path | None] = {}
    todo = [name]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen[current] = _module_file(current)
        parent = current.rpartition(".")[0]
        deps = [parent] if parent else []
        module = sys.modules.get(current, ModuleType("_"))
        for value in list(vars(module).values()):
            if isinstance(value, ModuleType) and hasattr(module, "__path__"):
                continue  # a package's submodule attributes depend on what was imported so far
            dep = value.__name__ if isinstance(value, ModuleType) else getattr(value, "__module__", None)
            if isinstance(dep, str) and (dep == top or dep.startswith(top + ".")):
                deps.append(dep)
        todo += [d for d in deps if d not in seen]
    files = sorted({f for f in seen.values() if f is not None})
    try:
        small = len(files) <= CODE_FILES and sum(f.stat().st_size for f in files) <= CODE_BYTES
    except OSError:  # a file vanished while we looked: the module alone still keys the code
        small = False
    return files if small else [own]


def _module_file(name: str) -> Path | None:
    file = getattr(sys.modules.get(name), "__file__", None)
    return Path(file).resolve() if file and Path(file).is_file() else None


def code_stamp(obj: object) -> str:
    """A digest of `code_files(obj)`: changes whenever the parser's source changes."""
    files = code_files(obj)
    return digest(files) if files else ""
