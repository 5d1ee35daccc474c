"""Write a run's report folder: results.json, leaderboard.md, report.html (each written atomically).

This is the entry point the pytest plugin and the CLI call at the end of a run;
`read_results` loads a results.json back, so a report can be re-rendered without re-running.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from harness.files import write_atomic
from harness.report.aggregate import Leaderboard, as_results, leaderboard
from harness.report.html import render_html
from harness.report.markdown import render_markdown
from harness.results import TableResult

FILES = {"json": "results.json", "markdown": "leaderboard.md", "html": "report.html"}
SCHEMA = 1  # bump when the layout of results.json changes


def write_report(results: Iterable[TableResult | dict], out_dir: str | os.PathLike, meta: Mapping[str, object] | None = None,
                 primary: str | None = None) -> dict[str, Path]:
    """Aggregate `results` (TableResults or their dicts) and write the three files into `out_dir`.

    `meta` holds the run's facts (timestamp, parsers, case_set, metrics, command, version);
    it is copied into every file as given, so keep its values JSON-serialisable.
    `primary` picks the ranking metric (default: semantic if present, else teds).
    Returns {"json": path, "markdown": path, "html": path}.
    """
    results = as_results(results)
    meta = dict(meta or {})
    board = leaderboard(results, primary=primary)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)  # created if needed
    texts = {
        "json": results_json(board, results, meta),
        "markdown": render_markdown(board, meta),
        "html": render_html(board, results, meta),
    }
    paths = {}
    for kind, text in texts.items():
        paths[kind] = out / FILES[kind]
        _write_atomic(paths[kind], text)
    return paths


def results_json(board: Leaderboard, results: list[TableResult], meta: Mapping[str, object]) -> str:
    """meta + leaderboard + every TableResult, as strict JSON (NaN scores become null)."""
    data = {"schema": SCHEMA, "meta": dict(meta), "leaderboard": board.to_dict(),
            "results": [_finite(r.to_dict()) for r in results]}
    return json.dumps(data, ensure_ascii=False, allow_nan=False, indent=1, default=str) + "\n"


def read_results(path: str | os.PathLike) -> tuple[dict, list[TableResult]]:
    """(meta, results) from a results.json written by `write_report`."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return data.get("meta", {}), [TableResult.from_dict(r) for r in data["results"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a tablebench results.json ({exc})") from None


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
