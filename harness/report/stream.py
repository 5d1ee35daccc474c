"""A run's results on disk as they arrive: one JSON line per result (`results.jsonl` in the report folder).

A run's controller holds no result's texts (ground truth, prediction, matched span) while it
runs: each result's JSON goes to the stream when its report arrives, and the controller keeps
only what its gates and summary read (`slim`). At the end the full results are read back
from the stream, in the order the caller asks for, so results.json and the report are made
from exactly the results that arrived. A result that arrives again for the same case
(`--repeat` folds in the worker; a crash report after a partial page) replaces the earlier
one, as a dict would. The file stays in the report folder: what a run finished, line by line,
even when the run itself did not finish.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import BinaryIO

from harness.core.results import ItemResult

STREAM_FILE = "results.jsonl"


def slim(result: ItemResult) -> ItemResult:
    """`result` without its texts (ground truth, prediction, matched span): what the controller
    keeps in memory per case; scores, outcome, message and facts stay."""
    return replace(result, gt_latex="", gt_html="", pred_html=None, matched_text=None)


class ResultStream:
    """Append-only JSON lines of results, with the offset of each case's latest line."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._file: BinaryIO | None = None
        self._at: dict[str, tuple[int, int]] = {}  # test id -> (offset, length) of its latest line

    def __len__(self) -> int:
        return len(self._at)

    def add(self, test_id: str, data: str) -> None:
        """One result's JSON (one line: JSON text never holds a raw newline), flushed to disk."""
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "w+b")  # noqa: SIM115 -- open for the session, closed by close()
        line = data.encode("utf-8")
        offset = self._file.seek(0, 2)
        self._file.write(line + b"\n")
        self._file.flush()
        self._at[test_id] = (offset, len(line))

    def read(self, test_ids: Iterable[str]) -> Iterator[ItemResult]:
        """The full results of `test_ids` (each must have arrived), in that order."""
        if self._file is None:
            return
        for test_id in test_ids:
            offset, length = self._at[test_id]
            self._file.seek(offset)
            yield ItemResult.from_dict(json.loads(self._file.read(length)))

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
