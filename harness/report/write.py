"""Write a run's report folder: results.json, summary.json, leaderboard.csv, leaderboard.md, report.html
(each written atomically).

This is the entry point the pytest plugin and the CLI call at the end of a run;
`tablebench.report.results_file.read_results` loads a results.json back, so a report can be
re-rendered without re-running.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from tablebench.core.files import write_atomic
from tablebench.core.results import RESULTS_FORMAT, ItemResult
from tablebench.gating.aggregate import Comparison
from tablebench.report.aggregate import Leaderboard, as_results, boards
from tablebench.report.crops import CROPS_FOLDER, pictures
from tablebench.report.html import render_html
from tablebench.report.markdown import render_markdown
from tablebench.report.regressions import RegressionView
from tablebench.report.stream import FullResults, slim_of
from tablebench.report.summary_files import leaderboard_csv, summary_data, summary_json

FILES = {"json": "results.json", "summary": "summary.json", "csv": "leaderboard.csv", "markdown": "leaderboard.md",
         "html": "report.html"}


def write_report(results: Iterable[ItemResult | dict], out_dir: str | os.PathLike, meta: Mapping[str, object] | None = None,
                 primary: str | None = None, comparisons: Sequence[Comparison] = (),
                 written: dict[str, Path] | None = None, crop_folder: bool = False) -> dict[str, Path]:
    """Aggregate `results` (TableResults or their dicts) and write the report's files (`FILES`) into `out_dir`.

    `meta` holds the run's facts (timestamp, parsers, case_set, metrics, command, version);
    it is copied into every file as given, so keep its values JSON-serialisable.
    `primary` picks the ranking metric (default: semantic if present, else teds). `comparisons`,
    the gate's rows, go into results.json (`gate`) and, with each case's change against the
    baseline, into the "Regressions" section of every file.
    report.html carries page crops of the cards opened first (`tablebench.report.crops`), and a
    thumbnail of the page on those of text items; with `crop_folder`, every table's crop (and
    those thumbnails) is also written under `out_dir/crops/`.
    summary.json and leaderboard.csv hold each parser's numbers for programs
    (`tablebench.report.summary_files`).
    Returns {"json": path, "summary": path, "csv": path, "markdown": path, "html": path}. Each
    file is rendered and written in turn, results.json first: a failure (raised) leaves the files
    before it, each recorded in `written` as it lands when given.
    """
    results = results if isinstance(results, FullResults) else as_results(results)
    slim = slim_of(results)  # the numbers; results.json and report.html read the texts too, one result at a time
    meta = dict(meta or {})
    view = RegressionView.of(slim, comparisons, meta.get("baseline"))
    tracks = list(boards(slim, primary=primary).values())  # one per item kind, tables first
    board, more = tracks[0], tracks[1:]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)  # created if needed
    crops, thumbs = pictures(slim, meta, tracks, out / CROPS_FOLDER if crop_folder else None)  # by each kind's picture
    summary: dict = {}

    def summarised() -> dict:
        if not summary:
            summary.update(summary_data(tracks, slim, comparisons, meta))
        return summary

    texts = {
        "json": lambda: results_json_pieces(board, results, meta, more, comparisons),
        "summary": lambda: summary_json(summarised()),
        "csv": lambda: leaderboard_csv(summarised()),
        "markdown": lambda: render_markdown(board, meta, more, regressions=view, results=slim),
        # report.html reads the texts twice (page outputs, then the cards in page order), one result at a time
        "html": lambda: render_html(board, results, meta, more=more, regressions=view, crops=crops,
                                    thumbnails=thumbs),
    }
    paths = written if written is not None else {}
    for kind, text in texts.items():
        _write_atomic(out / FILES[kind], text())
        paths[kind] = out / FILES[kind]
    return paths


def results_json(board: Leaderboard, results: list[ItemResult], meta: Mapping[str, object],
                 more: Sequence[Leaderboard] = (), comparisons: Sequence[Comparison] = ()) -> str:
    """meta + leaderboard (+ `KIND_leaderboard` of every other kind, e.g. formula_leaderboard) + the
    gate's rows (when a gate ran) + every result, as strict JSON (NaN scores become null)."""
    return "".join(results_json_pieces(board, results, meta, more, comparisons))


def results_json_pieces(board: Leaderboard, results: Sequence[ItemResult], meta: Mapping[str, object],
                        more: Sequence[Leaderboard] = (), comparisons: Sequence[Comparison] = ()) -> Iterator[str]:
    """`results_json`'s text in pieces, one per result (what `write_report` writes): the same
    bytes as one `json.dumps` of the whole, without the whole file's text, or a copy of every
    result as a dict, in memory at once; `results` is iterated once (a `FullResults` reads each
    result's texts from disk as its piece is written).

    Each result is its `ItemResult.to_row`: led by the case's `id`, the one pytest, the failed
    list and report.html show.

    Each result starts on a line of its own, `  {`, and ends on one, `  }` (`  },` before the
    next): no line inside it is indented less, so `tablebench.report.results_file` can find one
    result at a time in the file without parsing all of it."""
    data = {"format": RESULTS_FORMAT, "meta": dict(meta), "leaderboard": board.to_dict()}
    for track in more:
        data[f"{track.kind}_leaderboard"] = track.to_dict()
    if comparisons:
        data["gate"] = [c.to_dict() for c in comparisons]
    head = _dumps(_finite({**data, "results": []}))
    if not results:
        yield head + "\n"
        return
    yield head[:-len("[]\n}")] + "["  # the head ends with `"results": []` and the closing brace
    for i, r in enumerate(results):
        yield ("," if i else "") + "\n  " + _dumps(_finite(r.to_row())).replace("\n", "\n  ")
    yield "\n ]\n}\n"


def _dumps(value: object) -> str:
    """Strict JSON as results.json writes it (JSON text never holds a raw newline inside a string)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, indent=1, default=json_value)


def json_value(value: object) -> object:
    """`json.dumps(default=...)` of results.json: a value JSON has no type for as the JSON value it
    stands for (a numpy number or array as the number or list, a path as its text, a set as a
    sorted list), never as its Python repr (a score "0.5" in quotes, a dict as the text "{'span':
    ...}", which no reader of JSON can use); anything else (a hook's own object in `extra` or the
    meta, a datetime) as its text, so one odd value never costs the run its results.json."""
    if type(value).__module__ == "numpy" and callable(getattr(value, "tolist", None)):
        return _finite(value.tolist())  # a numpy scalar or array: Python numbers (NaN as null)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    return str(value)


def _finite(value: object) -> object:
    """Replace NaN / infinity (anywhere in nested data) by None: JSON has no such numbers."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _write_atomic(path: Path, text: str) -> None:
    write_atomic(path, text)
