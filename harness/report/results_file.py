"""Reading a run's files named on a command line: a results.json (`tablebench report`, `report
merge`, `compare`) or a baseline (`--baseline` of pytest and of `report merge`). Every reader of
one goes through here.

Why one module: these files come from anywhere (a CI artefact, a colleague's, an editor's), and
what reads them further sums, formats and recurses as if our writer had written them. So each is
read as untrusted input, the same way for every command: only a regular file is opened (a FIFO
or /dev/zero is refused at once), at most a bounded number of bytes is decoded and parsed at a
time (`tablebench.core.schema.loads`: depth and integer bounds), and the whole of what was parsed
is checked against the shape its writer declares (`tablebench.core.results.ROW` for a result,
`tablebench.core.results_schema.HEAD` around the results, `tablebench.gating.baseline.BASELINE`)
before any of it is used. Anything else is one `ValueError` line naming the file and the field.

The byte bounds are set by memory: a string of ASCII text holding one character outside the
Basic Multilingual Plane takes 4 bytes a character once decoded, and the parse copies it again,
so a part of B bytes may take 8 B while read. `MAX_PART` (32 MB) keeps that near 260 MB.

A results.json written by `tablebench.report.write` puts each result between a line `  {` and a
line `  }` (or `  },`), nothing inside a result indented less, so it is read line by line: the
head (meta, leaderboards, gate) as one part, then each result alone, each at most `MAX_PART`
bytes (a 100 MB string is refused once 32 MB of it are read, never decoded). A file in another
layout (written by hand, or compacted) and a baseline are read whole, at most `MAX_PART` bytes.

`read_slim` is what a merge of N shards reads: only the results without their texts
(`tablebench.report.stream.slim`) and where each one lies in its file are kept; `Shelf.read` reads
a result again, whole, when results.json or report.html of the merged run is written
(`tablebench.report.stream.FullResults`).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from tablebench.core.results import ItemResult
from tablebench.core.results_schema import check_head
from tablebench.core.schema import Invalid, check, loads, shown
from tablebench.gating.aggregate import Comparison
from tablebench.gating.baseline import BASELINE, FORMAT, READABLE, Baseline, baseline_of
from tablebench.report.stream import result_at, slim

RESULTS_FILE = "a tablebench results.json"  # what a file named as a run's results should be, in messages
MB = 1024 * 1024
# bytes decoded and parsed at once: one result, the head of a results.json, a file read whole (a
# baseline: ~150 bytes a case, 200,000 cases). A run writes far less: a parser's output is cut at
# 8 MB, a page's ground truth at 16 MiB, a head holds a few KB per parser and metric
MAX_PART = 32 * MB
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
        """The full results of `test_ids`, in that order (each file opened once per call, closed at
        its end); taken as they were checked when first read."""
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


def results_path(path: str | os.PathLike) -> Path:
    """The results.json `path` names: the file itself, or the one in the run's report folder
    `path`; a one-line ValueError when there is none."""
    from tablebench.report.write import FILES  # the writer names it; imported here, as the renderers it imports
    # are the controller's (a worker reading a baseline imports none: tests/test_plugin_imports.py)

    p, name = Path(path), FILES["json"]
    if p.is_dir():
        if not (p / name).exists():
            raise ValueError(f"{path}: a folder without {name} (give a run's report folder or its {name})")
        return p / name
    if not p.exists():  # a FIFO or a device is refused as it is opened (`_open_regular`)
        raise ValueError(f"{path}: no {name} (give a run's report folder or its {name})")
    return p


def read_results(path: str | os.PathLike) -> tuple[dict, list[ItemResult]]:
    """(meta, results) of a results.json (or the report folder holding one), a file of an earlier
    format under the current names (`ItemResult.from_dict`); a one-line ValueError naming the file
    and the field for anything a run does not write, and for a case the file holds twice."""
    file = results_path(path)
    head, results = _read_run(file, lambda r: r)
    return head.get("meta", {}), results


def read_comparisons(path: str | os.PathLike) -> list[Comparison]:
    """The gate's rows a results.json holds (none when no gate ran, or a file from before they were
    kept), checked as `read_results` checks the file."""
    names = set(Comparison.__dataclass_fields__)
    return [Comparison(**{k: v for k, v in row.items() if k in names})
            for row in _read_head(results_path(path)).get("gate", [])]


def read_slim(path: Path, shelf: Shelf) -> tuple[dict, list[ItemResult]]:
    """(meta, results without their texts) of one results.json; each result's place goes on
    `shelf` (a file in another layout: the whole result, in memory). Checked as `read_results` checks."""
    found = _read_ours(path, slim)
    if found is None:
        head, whole = _read_whole(path, lambda r: r)
        _once(path, whole)
        for r in whole:
            shelf._kept[r.test_id] = r
        return head.get("meta", {}), [slim(r) for r in whole]
    head, placed = found
    results = [r for r, _, _ in placed]
    _once(path, results)
    index = len(shelf._paths)
    shelf._paths.append(path)
    for r, offset, length in placed:
        shelf._at[r.test_id] = (index, offset, length)
    return head.get("meta", {}), results


def load_baseline(path: Path | str) -> Baseline:
    """A baseline file of any readable format (`READABLE`: 1, 2 and the current 3), its keys in the
    current form (`baseline_of`); checked against `BASELINE` before any of it is used."""
    path = Path(path)
    where = f"baseline {path}"
    data = _read_bounded(path, where, f"a {FORMAT} file")
    if not isinstance(data, dict):
        raise ValueError(f"{where}: not a {FORMAT} file (write one with --save-baseline)")
    if data.get("format") not in READABLE:
        raise ValueError(f"{where}: format: {shown(data.get('format'))}: not a {FORMAT} file (write one with "
                         "--save-baseline)")
    try:
        check(BASELINE, data)
    except Invalid as exc:
        raise ValueError(f"{where}: {exc}") from None
    return baseline_of(path, data)


# -- a results.json ---------------------------------------------------------------------------------
def _read_run(path: Path, keep: Callable[[ItemResult], ItemResult]) -> tuple[dict, list[ItemResult]]:
    """(head, results) of one results.json, every result passed through `keep` as it is read."""
    found = _read_ours(path, keep)
    if found is None:
        head, rows = _read_whole(path, keep)
    else:
        head, placed = found
        rows = [r for r, _, _ in placed]
    _once(path, rows)
    return head, rows


def _read_head(path: Path) -> dict:
    """The head of one results.json (`format`, `meta`, the leaderboards, `gate`), checked."""
    with _open_regular(path, str(path)) as file:
        head = _head(file, path)
    if head is None:
        head, _ = _read_whole(path, lambda r: r)
    else:
        _check_head(path, head)
    return head


def _read_ours(path: Path, keep: Callable[[ItemResult], ItemResult]) -> tuple[dict, list[tuple]] | None:
    """(head, [(kept result, offset, length)]) of a file in the layout `write_report` writes, each
    result read and checked alone; None for another layout."""
    with _open_regular(path, str(path)) as file:
        try:
            head = _head(file, path)
            if head is None:
                return None
            _check_head(path, head)
            placed = []
            for i, (offset, length, text) in enumerate(_results(file, path)):
                placed.append((keep(_result(path, text, i)), offset, length))
                del text  # gone before the next result is read
        except _OtherLayout:
            return None
        except OSError as exc:
            raise ValueError(f"{path}: cannot read ({exc.strerror or exc})") from None
    return head, placed


def _read_whole(path: Path, keep: Callable[[ItemResult], ItemResult]) -> tuple[dict, list[ItemResult]]:
    """(head, results) of a file in another layout, read whole (at most `MAX_PART` bytes)."""
    data = _read_bounded(path, str(path), RESULTS_FILE)
    _check_head(path, data)
    results = []
    for i, row in enumerate(data.pop("results")):
        try:
            results.append(keep(ItemResult.from_dict(row)))
        except Invalid as exc:
            raise ValueError(f"{path}: {exc.under(f'results[{i}]')}") from None
    return data, results


def _check_head(path: Path, head: object) -> None:
    try:
        check_head(head)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def _lines(file: BinaryIO) -> Iterator[bytes]:
    """The file's lines from where it stands, each read at most `MAX_PART` + 1 bytes at a time (a
    longer line comes in pieces, and the caller's size check refuses it before it is all read)."""
    while line := file.readline(MAX_PART + 1):
        yield line


def _head(file: BinaryIO, path: Path) -> dict | None:
    """The object before the results (with `"results": []`), or None: not the layout we write.
    A head in our layout that holds what no run writes is refused, as the whole file would be."""
    first = file.readline(len(b"{\r\n"))
    if first.rstrip(b"\r\n") != b"{":  # ours opens with a line `{`
        return None
    lines, size = [first], len(first)
    for line in _lines(file):
        if line.rstrip(b"\r\n") == _RESULTS:
            lines.append(b' "results": []\n}')
            try:
                head = loads(_decoded(lines, path))
            except Invalid as exc:
                raise ValueError(f"{path}: {exc}") from None
            except ValueError:
                return None
            return head if isinstance(head, dict) else None
        lines.append(line)
        size += len(line)
        if size > MAX_PART:
            raise _too_large(str(path), None, "the part of a results.json before its results")
    return None  # no results list of ours (an empty run writes `"results": []`): read whole


class _OtherLayout(Exception):
    """The results are not laid out as `write_report` lays them out: the file is read whole."""


def _results(file: BinaryIO, path: Path) -> Iterator[tuple[int, int, str]]:
    """(offset, length in bytes, text) of each result after the head, in file order; a result over
    `MAX_PART` bytes is refused naming the field it was in when it went over (its line starts with
    the name); text between results that is not one raises `_OtherLayout`."""
    start, lines, size, count = None, [], 0, 0
    offset = file.tell()
    for line in _lines(file):
        bare = line.rstrip(b"\r\n")
        if start is None:
            if bare == _OPEN:
                start, lines, size = offset, [line], len(line)
            elif bare.strip() not in (b"]", b"}", b""):
                raise _OtherLayout  # a result that is no object, or laid out otherwise: read whole
        else:
            lines.append(line)
            size += len(line)
            if size > MAX_PART:
                where = f"results[{count}]" + _field_of(lines[-1] if len(lines) > 1 else b"")
                raise _too_large(f"{path}: {where}", None, "a result")
            if bare in _CLOSE:
                lines[-1] = b"  }"
                length = size - len(line) + len(lines[-1])
                yield start, length, _decoded(lines, path)
                start, count = None, count + 1
        offset += len(line)
    if start is not None:
        raise ValueError(f"{path}: not JSON (the last result is cut short)")


def _decoded(lines: list[bytes], path: Path) -> str:
    """The text of `lines`, emptied on the way: the bytes are gone before the parse makes its values."""
    data = b"".join(lines)
    lines.clear()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not {RESULTS_FILE} (not UTF-8 text)") from None


_FIELD = re.compile(rb' {3}"([A-Za-z_][A-Za-z0-9_]*)": ')  # a result's own field starts a line, indented 3


def _field_of(line: bytes) -> str:
    """`.name` when `line` starts a result's own field `name` (how `write_report` lays it out), else ''."""
    m = _FIELD.match(line)
    return f".{m.group(1).decode()}" if m else ""


def _result(path: Path, text: str, i: int) -> ItemResult:
    try:
        return ItemResult.from_dict(loads(text))
    except Invalid as exc:
        raise ValueError(f"{path}: {exc.under(f'results[{i}]')}") from None
    except ValueError as exc:
        raise ValueError(f"{path}: not JSON ({exc})") from None


def _once(path: Path, results: list[ItemResult]) -> None:
    seen: set[str] = set()
    twice = [r.test_id for r in results if r.test_id in seen or seen.add(r.test_id)]
    if twice:
        raise ValueError(f"{path}: {len(twice)} results repeat a case already in the file (first: {twice[0]}); "
                         "a file holds each case once (combine runs with `tablebench report merge`)")


# -- bounded reading --------------------------------------------------------------------------------
def _open_regular(path: Path, where: str) -> BinaryIO:
    """`path` opened for reading as bytes, when it is a regular file: a FIFO, a device
    (/dev/zero) or a folder is a one-line ValueError starting with `where`, and so is a file that
    cannot be read. Opened without blocking (a FIFO with no writer would hang the open) and checked
    on the open descriptor, so what is read is what was checked."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise ValueError(f"{where}: cannot read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ValueError(f"{where}: not a regular file")
    return os.fdopen(fd, "rb")


def _read_bounded(path: Path, where: str, what: str) -> Any:
    """The JSON of a file read whole: absent, unreadable or no regular file, over `MAX_PART` bytes,
    not UTF-8, not JSON, nested or numbered past `tablebench.core.schema`'s bounds -- each is a
    one-line ValueError starting with `where` ("baseline PATH"); `what` names the file it should
    have been ("a tablebench results.json"). What it holds is the caller's to check."""
    with _open_regular(path, where) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > MAX_PART:
            raise _too_large(where, size, what)
        try:
            data = handle.read(MAX_PART + 1)
        except OSError as exc:
            raise ValueError(f"{where}: cannot read ({exc.strerror or exc})") from None
    if len(data) > MAX_PART:  # grown since
        raise _too_large(where, len(data), what)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{where}: not {what} (not UTF-8 text at byte {exc.start:,})") from None
    del data  # the bytes go before the parse makes its values
    try:
        return loads(text)
    except Invalid as exc:
        raise ValueError(f"{where}: {exc}") from None
    except ValueError as exc:
        raise ValueError(f"{where}: not JSON ({exc})") from None


def _too_large(where: str, size: int | None, what: str) -> ValueError:
    """The one-line refusal of a file (or a part of one) over `MAX_PART` (`size` None: not read to its end)."""
    return ValueError(f"{where}: {_size(size) + ', ' if size is not None else ''}more than the {_size(MAX_PART)} "
                      f"{what} may hold")


def _size(n: int) -> str:
    return f"{n:,} bytes" if n < MB else f"{n / MB:,.1f} MB".replace(".0 MB", " MB")
