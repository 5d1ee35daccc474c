"""Atomic file writes: readers never see half a file, a killed run leaves the old one.

Every cache and report writer uses this one helper (temp file in the same folder, fsync,
`os.replace`); files get the usual 0644-under-umask mode, not mkstemp's private 0600.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

_UMASK = os.umask(0)
os.umask(_UMASK)


def write_atomic(path: Path | str, text: str) -> Path:
    """Write `text` (UTF-8) to `path` atomically, creating its folder; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:16]}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
