"""A results.json read one result at a time: what `tablebench report merge` reads its shards with.

Why: a merge of N shards held every result of every shard, with its texts, at once. A
results.json written by `tablebench.report.write` puts each result between a line `  {` and a
line `  }` (or `  },`), and nothing inside a result is indented less, so the file is read line
by line: the head (meta, leaderboards, gate) as one JSON object, then each result parsed
alone. Only the results without their texts (`tablebench.report.stream.slim`) and where each one
lies in its file are kept; `Shelf.read` reads a result again, whole, when results.json or
report.html of the merged run is written (`tablebench.report.stream.FullResults`). A file in
another layout (written by hand, or compacted) is read whole, as before.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from tablebench.core.results import ItemResult, results_format
from tablebench.report.stream import result_at, slim

_OPEN, _CLOSE = b"  {", (b"  }", b"  },")
_RESULTS = b' "results": ['


class Shelf:
    """Where each kept result lies: test id -> (file, offset, length), read back whole on demand.
    A result of a file read whole (another layout) is kept whole, in memory."""

    def __init__(self) -> None:
        self._at: dict[str, tuple[int, int, int]] = {}
        self._paths: list[Path] = []
        self._kept: dict[str, ItemResult] = {}

    def read(self, test_ids: Iterable[str]) -> Iterator[ItemResult]:
        """The full results of `test_ids`, in that order (each file opened once per call, closed at its end)."""
        files: dict[int, BinaryIO] = {}
        try:
            for test_id in test_ids:
                if test_id in self._kept:
                    yield self._kept[test_id]
                    continue
                index, offset, length = self._at[test_id]
                if index not in files:
                    files[index] = open(self._paths[index], "rb")  # noqa: SIM115 -- closed below
                yield result_at(files[index], offset, length)
        finally:
            for file in files.values():
                file.close()


def read_slim(path: Path, shelf: Shelf) -> tuple[dict, list[ItemResult]]:
    """(meta, results without their texts) of one results.json; each result's place goes on
    `shelf`. The errors are `tablebench.report.write.read_results`' one-line ValueErrors."""
    try:
        with open(path, "rb") as file:
            head = _head(file)
            if head is None:
                return _whole(path, shelf)
            try:
                results_format(head)
            except ValueError as exc:
                raise ValueError(f"{path}: {exc}") from None
            index = len(shelf._paths)
            shelf._paths.append(path)
            results = []
            for offset, text in _results(file, path):
                result = _result(path, text)
                shelf._at[result.test_id] = (index, offset, len(text))
                results.append(slim(result))
    except OSError as exc:
        raise ValueError(f"{path}: cannot read ({exc.strerror or exc})") from None
    _once(path, results)
    meta = head.get("meta")
    return (meta if isinstance(meta, dict) else {}), results


def _head(file: BinaryIO) -> dict | None:
    """The object before the results (with `"results": []`), or None: not the layout we write."""
    lines = []
    for line in file:
        if line.rstrip(b"\r\n") == _RESULTS:
            try:
                head = json.loads(b"".join(lines) + b' "results": []\n}')
            except ValueError:
                return None
            return head if isinstance(head, dict) else None
        lines.append(line)
        if len(lines) == 1 and line.rstrip(b"\r\n") != b"{":
            return None
    return None  # no results list of ours (an empty run writes `"results": []`): read whole


def _results(file: BinaryIO, path: Path) -> Iterator[tuple[int, bytes]]:
    """(offset, text) of each result after the head, in file order."""
    start, lines = None, []
    offset = file.tell()
    for line in file:
        bare = line.rstrip(b"\r\n")
        if start is None:
            if bare == _OPEN:
                start, lines = offset, [line]
            elif bare.strip() not in (b"]", b"}", b""):
                raise ValueError(f"{path}: not a tablebench results.json (unexpected text between results)")
        else:
            lines.append(line)
            if bare in _CLOSE:
                text = b"".join(lines).rstrip(b",\r\n")
                yield start, text
                start = None
        offset += len(line)
    if start is not None:
        raise ValueError(f"{path}: not JSON (the last result is cut short)")


def _result(path: Path, text: bytes) -> ItemResult:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"{path}: not JSON ({exc})") from None
    try:
        return ItemResult.from_dict(data)
    except (AttributeError, TypeError, ValueError) as exc:
        raise ValueError(f"{path}: not a tablebench results.json (a result is malformed: {exc})") from None


def _whole(path: Path, shelf: Shelf) -> tuple[dict, list[ItemResult]]:
    """A results.json in another layout, read whole: its results stay in memory, on the shelf."""
    from tablebench.report.write import read_results

    meta, results = read_results(path)
    for r in results:
        shelf._kept[r.test_id] = r
    return meta, [slim(r) for r in results]


def _once(path: Path, results: list[ItemResult]) -> None:
    seen: set[str] = set()
    twice = [r.test_id for r in results if r.test_id in seen or seen.add(r.test_id)]
    if twice:
        raise ValueError(f"{path}: {len(twice)} results repeat a case already in the file (first: {twice[0]}); "
                         "a file holds each case once (combine runs with `tablebench report merge`)")
