"""A parser that raises two calls deep, for the tests of kept tracebacks (`module:Class` spec:
tests.raising_parser:Raises); module level so a worker process can unpickle it."""

from __future__ import annotations

from pathlib import Path


class Raises:
    name = "raises"
    version = "1"
    config: dict = {}

    def parse(self, pdf_path: Path) -> str:
        return _read_grid(Path(pdf_path))


def _read_grid(path: Path) -> str:
    raise RuntimeError(f"cannot read the table grid of {path.name}")
