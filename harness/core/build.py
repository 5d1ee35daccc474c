"""Which build of tablebench is running: its version and a digest of its own code.

A baseline records both (`gating.baseline`), so a run scored by other code says so: between two
releases the version stays the same while reading rules and fitted weights change, and a score
that moved with them is the metric's change, not the parser's. The digest covers every Python
file of the installed package, by its path inside the package and its content (the same code in
two environments has the same digest).
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

import tablebench


@cache
def code_digest() -> str:
    """A hex digest of the package's own Python files (once a process: about 200 small files)."""
    root = Path(tablebench.__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(f"{path.relative_to(root).as_posix()}\0".encode())
        h.update(path.read_bytes())
    return h.hexdigest()
