"""Score floors (`--min-score`) and regression tolerances.

Tolerances are given on the 0-1 scale and scaled for metrics on 0-10 (semantic, judge), so
one `--baseline-tolerance` means the same for every metric. Messages name the metric, the
value and the threshold. The number checks every option gets are `harness.core.options.number`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from harness.core.metric_specs import scale_of


def full_scale(metric: str) -> float:
    """10 for scores on the human-rating scale (semantic, judge), else 1."""
    return scale_of(metric)


def parse_min_score(text: str) -> tuple[str, float]:
    """'teds=0.8' -> ('teds', 0.8); a one-line ValueError for anything else."""
    name, eq, value = text.partition("=")
    name = name.strip()
    try:
        floor = float(value)
    except ValueError:
        floor = math.nan
    if not eq or not name or not math.isfinite(floor):
        raise ValueError(f"--min-score {text!r}: expected METRIC=VALUE with a finite VALUE, e.g. teds=0.8")
    if not 0.0 <= floor <= full_scale(name):
        raise ValueError(f"--min-score {text!r}: {name} is on 0-{full_scale(name):g}")
    return name, floor


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
        if value is None or not math.isfinite(value):
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
        if not math.isfinite(value) or value < old - tol - 1e-12:
            out.append(f"{name} {_fmt(value, old)} < baseline {_fmt(old, value)} - {tol:g}")
    return out
