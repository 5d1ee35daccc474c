"""When a located table fails: below a `--min-score` floor, or regressed against a saved baseline.

A baseline is a JSON file of every case's outcome and scores, keyed by the case's test id
(`set/page/tN[parser]`), so a later run compares table by table. Tolerances are given on the
0-1 scale and scaled for metrics on 0-10 (semantic, judge), so one `--baseline-tolerance`
means the same for every metric. Messages name the metric, the value and the threshold.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path

from harness.files import write_atomic
from harness.results import TableResult

FORMAT = "tablebench-baseline/1"
DEFAULT_TOLERANCE = 0.01


def parse_min_score(text: str) -> tuple[str, float]:
    """'teds=0.8' -> ('teds', 0.8); a one-line ValueError for anything else."""
    name, eq, value = text.partition("=")
    name = name.strip()
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not eq or not name or math.isnan(number):
        raise ValueError(f"--min-score {text!r}: expected METRIC=VALUE, e.g. teds=0.8")
    if not 0.0 <= number <= full_scale(name):
        raise ValueError(f"--min-score {text!r}: {name} is on 0-{full_scale(name):g}")
    return name, number


def full_scale(metric: str) -> float:
    """10 for semantic / judge, else 1 (imported late: the metrics package loads numba, and
    this module is imported by the plugin on every pytest start)."""
    from harness.report.aggregate import full_scale as scale

    return scale(metric)


def _fmt(value: float, other: float) -> str:
    """Two decimals, more when two decimals would hide the difference to `other`."""
    for digits in (2, 4, 6):
        if f"{value:.{digits}f}" != f"{other:.{digits}f}":
            return f"{value:.{digits}f}"
    return f"{value:.2f}"


def min_score_failures(scores: Mapping[str, float], floors: Mapping[str, float]) -> list[str]:
    """'teds 0.62 < min 0.80' for each floor a score falls below; an absent score is named too."""
    out = []
    for name, floor in floors.items():
        value = scores.get(name)
        if value is None:
            out.append(f"{name} not computed (scores: {', '.join(sorted(scores)) or 'none'})")
        elif value < floor:
            out.append(f"{name} {_fmt(value, floor)} < min {_fmt(floor, value)}")
    return out


def baseline_failures(scores: Mapping[str, float], base: Mapping[str, float], tolerance: float) -> list[str]:
    """'grits_con 0.71 < baseline 0.85 - 0.01' for each score below its baseline by more than the tolerance."""
    out = []
    for name, old in base.items():
        value = scores.get(name)
        if value is None or old is None:
            continue
        tol = tolerance * full_scale(name)
        if value < old - tol - 1e-12:
            out.append(f"{name} {_fmt(value, old)} < baseline {_fmt(old, value)} - {tol:g}")
    return out


def save_baseline(results: Iterable[TableResult], path: Path | str) -> Path:
    """Write every case's outcome and scores, atomically (a killed run leaves the old file)."""
    path = Path(path)
    cases = {r.test_id: {"outcome": r.outcome, "scores": dict(sorted(r.scores.items()))}
             for r in sorted(results, key=lambda r: r.test_id)}
    data = {"format": FORMAT, "created": datetime.now(UTC).isoformat(timespec="seconds"), "cases": cases}
    return write_atomic(path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")


def load_baseline(path: Path | str) -> dict[str, dict[str, float]]:
    """{test id: {metric: value}} from a baseline file; a one-line ValueError when it is not one."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"baseline {path}: cannot read ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise ValueError(f"baseline {path}: not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("cases"), dict):
        raise ValueError(f"baseline {path}: not a {FORMAT} file (write one with --save-baseline)")
    try:
        return {key: {m: float(v) for m, v in case.get("scores", {}).items()} for key, case in data["cases"].items()}
    except (AttributeError, TypeError, ValueError) as exc:
        raise ValueError(f"baseline {path}: malformed scores ({exc})") from None
