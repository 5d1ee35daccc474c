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

import errno
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, BinaryIO, overload

from tablebench.core.results import ItemResult

STREAM_FILE = "results.jsonl"
TEXTS = ("gt_latex", "gt_html", "pred_html", "matched_text")  # what `slim` drops
HELD_TEXTS = ("page_output", "parser_traceback")  # texts `slim` keeps as "" where present (None stays None)


# the facts every case of a run repeats: one string each in memory, not one per case
_SHARED = ("parser", "case_set", "group", "spec", "kind", "language", "variant", "outcome")


def slim(result: ItemResult) -> ItemResult:
    """`result` without its texts (ground truth, prediction, matched span; the page's output and a
    parser's traceback kept as "" where the result has them, so a reader knows which results to
    read again): what the controller keeps in memory per case; scores, outcome, message and facts
    stay, the facts every case repeats as one shared string each."""
    held = {name: "" for name in HELD_TEXTS if getattr(result, name) is not None}
    shared = {name: sys.intern(value) for name in _SHARED if isinstance(value := getattr(result, name), str)}
    return replace(result, gt_latex="", gt_html="", pred_html=None, matched_text=None, **held, **shared)


def with_texts(result: ItemResult, full: ItemResult) -> ItemResult:
    """`result` (slim) with the texts of `full`, the same case as read from disk: everything
    else (its verdict and baseline change, which the end of a run adds) stays `result`'s."""
    back = {name: getattr(full, name) for name in HELD_TEXTS if getattr(result, name) is not None}
    return replace(result, **back, **{name: getattr(full, name) for name in TEXTS})


class FullResults(Sequence[ItemResult]):
    """The full results of a run without holding them: its slim results in memory, each one's
    texts read again from disk whenever the sequence is iterated (results.json, report.html and
    the meta hook read them one at a time; aggregates, gates and baselines read `slim`)."""

    def __init__(self, results: Sequence[ItemResult], read: Callable[[Iterable[str]], Iterator[ItemResult]]) -> None:
        self.slim = results  # the results without their texts, in the order the sequence gives them
        self._read = read  # test ids -> their full results, in that order

    def __len__(self) -> int:
        return len(self.slim)

    def __iter__(self) -> Iterator[ItemResult]:
        for result, full in zip(self.slim, self._read(r.test_id for r in self.slim), strict=True):
            yield with_texts(result, full)

    def sorted_by(self, key: Callable[[ItemResult], Any]) -> FullResults:
        """The same results in the order of `key` (which reads no text), still read one at a time."""
        return FullResults(sorted(self.slim, key=key), self._read)

    @overload
    def __getitem__(self, index: int) -> ItemResult: ...
    @overload
    def __getitem__(self, index: slice) -> FullResults: ...

    def __getitem__(self, index: int | slice) -> ItemResult | FullResults:
        if isinstance(index, slice):
            return FullResults(self.slim[index], self._read)
        result = self.slim[index]
        return with_texts(result, next(self._read([result.test_id])))


def in_order(results: Sequence[ItemResult], key: Callable[[ItemResult], Any]) -> Sequence[ItemResult]:
    """`results` sorted by `key`, which reads no text: a `FullResults` stays one (read lazily in that order)."""
    return results.sorted_by(key) if isinstance(results, FullResults) else sorted(results, key=key)


def with_page_output(results: Sequence[ItemResult]) -> Sequence[ItemResult]:
    """The results that carry their page's output (one per page and parser: `slim` keeps the key),
    so a reader of the outputs reads those results again, not all of them."""
    if isinstance(results, FullResults):
        return FullResults([r for r in results.slim if r.page_output is not None], results._read)
    return results


def slim_of(results: Sequence[ItemResult]) -> Sequence[ItemResult]:
    """What the numbers of a run are computed from: a `FullResults`' slim results, any other
    sequence as it is (a merge's or a test's results, already in memory)."""
    return results.slim if isinstance(results, FullResults) else results


def result_at(file: BinaryIO, offset: int, length: int) -> ItemResult:
    """The result whose JSON lies at `offset` in `file` (the stream, or a results.json read as lines,
    checked when it was first read: `tablebench.report.results_file`)."""
    file.seek(offset)
    return ItemResult.from_dict(json.loads(file.read(length)), checked=False)


class ResultStream:
    """Append-only JSON lines of results, with the offset of each case's latest line."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._file: BinaryIO | None = None
        self._at: dict[str, tuple[int, int]] = {}  # test id -> (offset, length) of its latest line

    def __len__(self) -> int:
        return len(self._at)

    def add(self, test_id: str, data: str) -> None:
        """One result's JSON (one line: JSON text never holds a raw newline), on disk when this returns.
        A write that fails (a full disk) is cut off again and raises `OSError`: the file keeps only
        whole lines. Unbuffered, so no failed line waits in a buffer to be written at close."""
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "w+b", buffering=0)  # noqa: SIM115 -- open for the session, closed by close()
        line = data.encode("utf-8")
        offset = self._file.seek(0, 2)
        try:
            rest = memoryview(line + b"\n")
            while rest:
                written = self._file.write(rest)
                if not written:
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                rest = rest[written:]
        except OSError:
            self._file.truncate(offset)
            raise
        self._at[test_id] = (offset, len(line))

    def read(self, test_ids: Iterable[str]) -> Iterator[ItemResult]:
        """The full results of `test_ids` (each must have arrived), in that order."""
        if self._file is None:
            return
        for test_id in test_ids:
            yield result_at(self._file, *self._at[test_id])

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
