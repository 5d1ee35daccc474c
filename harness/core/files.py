"""Atomic file writes and per-key locks, shared by every cache and report writer.

Readers never see half a file and a killed run leaves the old one. A report folder is held by
one run at a time (`claim_folder`): its results.jsonl grows line by line while the run goes on,
and a second run writing there would truncate it under the first.

Every cache and report writer uses this one helper (temp file in the same folder, fsync,
`os.replace`); files get the usual 0644-under-umask mode, not mkstemp's private 0600.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

_UMASK = os.umask(0)
os.umask(_UMASK)


def write_atomic(path: Path | str, text: str | Iterable[str]) -> Path:
    """Write `text` (UTF-8; or its pieces in turn, never joined in memory) to `path` atomically,
    creating its folder; returns the path.

    A path that is a device, a pipe or a socket (`--save-baseline /dev/null`) is written into, never
    replaced: renaming a file over /dev/null, as root, would turn the machine's /dev/null into it."""
    path = Path(path)
    if path.exists() and not path.is_file() and not path.is_dir():
        with open(path, "w", encoding="utf-8") as handle:
            handle.writelines([text] if isinstance(text, str) else text)
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:16]}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.writelines([text] if isinstance(text, str) else text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def check_writable(path: Path | str, what: str, folder: bool = False) -> None:
    """A one-line ValueError now when `path` (a file, or with `folder` a folder, made on demand)
    cannot be written later: a folder in its place (or a file, for `folder`), or its nearest
    existing ancestor not a writable folder. Why now: a run must not learn it at its end."""
    path = Path(path).absolute()
    if path.exists() and path.is_dir() != folder:
        raise ValueError(f"{what} {path}: {'not a folder' if folder else 'is a folder'}")
    parent = path if folder else path.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise ValueError(f"{what} {path}: cannot be written ({parent} is not a folder)")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"{what} {path}: cannot be written ({parent} is not writable)")


@contextmanager
def locked(path: Path | str) -> Iterator[None]:
    """An exclusive lock on `path` (created if needed) across processes and threads.

    The caches use one lock file per key, so two xdist workers never do the same parse or
    LLM call twice: the second waits, then finds the first one's result. A fresh `FileLock`
    per call holds its own descriptor, so threads of one process exclude each other too
    (a lock is not re-entrant: do not take the same key twice in one thread).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(path):
        yield


RUN_LOCK = ".tablebench-run.lock"  # in a report folder: held by the run writing there
MAX_SUFFIX = 1000  # `new_folder` tries NAME, NAME-2, ... NAME-999


def claim_folder(folder: Path | str, what: str) -> FileLock:
    """Create `folder` and hold its run lock until `release()` (or until this process ends, however
    it ends: the kernel drops the lock of a killed run); a one-line ValueError naming `what` when
    another run holds it. Non-blocking: a run does not wait hours for another one's folder."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    lock = FileLock(folder / RUN_LOCK, timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise ValueError(f"{what} {folder}: another tablebench run is writing to it; "
                         "give this run another folder") from None
    return lock


def new_folder(path: Path | str) -> Path:
    """`path`, else `path-2`, `path-3`, ...: the first that did not exist, created here. `mkdir`
    either creates a folder or fails, so two runs started in the same second get two folders."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    for n in range(1, MAX_SUFFIX):
        candidate = path if n == 1 else path.with_name(f"{path.name}-{n}")
        try:
            candidate.mkdir()
        except FileExistsError:
            continue
        return candidate
    raise ValueError(f"{path}: {MAX_SUFFIX - 1} report folders of that name exist already")


def read_json(path: Path | str) -> Any:
    """An input file's JSON (a page's ground truth, a manifest, a study's pairs); a one-line
    `ValueError` naming the file and the line when it is not JSON.

    Not read as a run's own files are (`tablebench.report.results_file`: untrusted, bounded, checked
    field by field), on purpose: these files are written by hand or by another tool, so the message
    points at the line to mend; a missing or unreadable file raises `OSError`, which
    the callers that can meet one check before (a case set's files, a manifest)."""
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: invalid JSON ({exc.msg} at line {exc.lineno})") from None


@lru_cache(maxsize=4096)
def sha256_stamped(path: str, stamp: tuple[int, ...]) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def sha256_file(path: Path | str) -> str:
    """The file's sha256, memoised on (path, stat) so a session hashes each file once."""
    return sha256_stamped(str(path), stat_key(Path(path).stat()))


def stat_key(stat: os.stat_result) -> tuple[int, ...]:
    """What changes when a file is rewritten: ctime too, which `touch -d` cannot set back."""
    return stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns
