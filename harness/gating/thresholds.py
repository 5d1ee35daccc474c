"""Score thresholds (`--min-score`) and regression tolerances (`--baseline-tolerance`).

A `--min-score` is a floor, or a ceiling for a lower-is-better metric (an edit distance), and a
tolerance is how far a score may move the worse way: `tablebench.core.metric_specs.direction`.

A bare tolerance is given on the 0-1 scale and scaled for metrics on 0-10 (semantic, judge),
so one number means the same for every headline metric; `METRIC=X` is on the metric's own
scale, `X%` relative to the baseline score (`tablebench.core.options.Tolerance`). Messages name
the metric, the value and the threshold. The number checks every option gets are
`tablebench.core.options.number`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType

from tablebench.core.metric_specs import direction, headline_scores, kind_of_score, scale_of
from tablebench.core.options import Tolerance, number


def full_scale(metric: str) -> float:
    """10 for scores on the human-rating scale (semantic, judge), else 1."""
    return scale_of(metric)


def parse_min_score(text: str) -> tuple[str, float]:
    """'teds=0.8' -> ('teds', 0.8); a one-line ValueError for anything else. A floor is checked
    against its score's scale when the score is known here; a name no metric scores yet (a typo,
    or a metric a conftest registers later) is left to the run's check of the names, which says
    which metric was meant (`semantc` is no score "on 0-1")."""
    name, eq, value = text.partition("=")
    name = name.strip()
    try:
        floor = float(value)
    except ValueError:
        floor = math.nan
    if not eq or not name or not math.isfinite(floor):
        raise ValueError(f"--min-score {text!r}: expected METRIC=VALUE with a finite VALUE, e.g. teds=0.8 "
                         "(a floor; a ceiling for a lower-is-better metric)")
    top = full_scale(name) if kind_of_score(name) is not None else math.inf  # unknown: named by the run's check
    if not 0.0 <= floor <= top:
        raise ValueError(f"--min-score {text!r}: {name} is on 0-{full_scale(name):g}" if top < math.inf
                         else f"--min-score {text!r}: a threshold is at least 0")
    return name, floor


def _fmt(value: float, other: float) -> str:
    """Two decimals, more when two decimals would hide the difference to `other`."""
    for digits in (2, 4, 6):
        if f"{value:.{digits}f}" != f"{other:.{digits}f}":
            return f"{value:.{digits}f}"
    return f"{value:.2f}"


def min_score_failures(scores: Mapping[str, float], floors: Mapping[str, float],
                       errors: Mapping[str, object] | None = None) -> list[str]:
    """'teds 0.62 < min 0.80' for each floor a score falls below ('char_edit 0.31 > max 0.10' for each
    ceiling of a lower-is-better metric it rises above); an absent score is named too, with
    why it is absent when `errors` (a result's `metric_errors`) holds it (an unreachable judge)."""
    out = []
    for name, floor in floors.items():
        value = scores.get(name)
        if value is None or not math.isfinite(value):
            why = (errors or {}).get(name)
            out.append(f"{name} not computed" + (f": {why}" if why else "")
                       + f" (scores: {', '.join(sorted(scores)) or 'none'})")
        elif (way := direction(name)).worse(value, floor):
            out.append(f"{name} {_fmt(value, floor)} {'<' if way.higher_is_better else '>'} {way.bound_word} "
                       f"{_fmt(floor, value)}")
    return out


def parse_tolerance(text: object) -> Tolerance:
    """'0.02' / '5%' / 'semantic=0.5,teds=2%' (a bare value and named ones may be mixed) -> Tolerance;
    a one-line ValueError for anything else. A bare number keeps its old checks and messages."""
    option = "--baseline-tolerance"
    if isinstance(text, Tolerance):
        return text
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return Tolerance(number(option, text, upper=1.0))
    default, relative, named = None, False, {}
    for part in (p.strip() for p in str(text).split(",")):
        name, eq, value = (s.strip() for s in part.rpartition("=")) if "=" in part else ("", "", part)
        if eq and not name:
            raise ValueError(f"{option} {part!r}: expected METRIC=X, METRIC=X% or a bare X")
        rel = value.endswith("%")
        if rel:
            amount = number(f"{option} {part}", value[:-1], upper=100.0) / 100.0
        elif name:
            amount = number(f"{option} {part}", value, upper=full_scale(name))
        else:
            amount = number(option, value, upper=1.0)
        if not name:
            if default is not None:
                raise ValueError(f"{option} {text!r}: give one bare value (the headline metrics' default)")
            default, relative = amount, rel
        else:
            named[name] = (amount, rel)
    return Tolerance(*([default, relative] if default is not None else []), named=MappingProxyType(named))


def allowed_drop(tolerance: Tolerance, metric: str, old: float) -> float | None:
    """How far `metric` may move from its baseline score `old` the worse way (down; up when lower is
    better); None: not checked (a sub-metric nobody named)."""
    if metric in tolerance.named:
        value, relative = tolerance.named[metric]
    elif metric in headline_scores():
        value, relative = tolerance.default, tolerance.default_relative
        if not relative:
            return value * full_scale(metric)
    else:
        return None
    return value * abs(old) if relative else value


def baseline_failures(scores: Mapping[str, float], base: Mapping[str, float],
                      tolerance: Tolerance | float) -> list[str]:
    """'grits_con 0.71 < baseline 0.85 - 0.01' for each checked score worse than its baseline by more than
    its tolerance ('char_edit 0.31 > baseline 0.20 + 0.01' when lower is better). A score with no
    finite value now is not compared here: `lost_failures` names it."""
    if not isinstance(tolerance, Tolerance):
        tolerance = Tolerance(tolerance)
    out = []
    for name, old in base.items():
        value = scores.get(name)
        finite = isinstance(value, (int, float)) and math.isfinite(value)
        tol = allowed_drop(tolerance, name, old) if finite and old is not None else None
        if tol is None:
            continue
        way = direction(name)
        if way.gain(old, value) < -tol - 1e-12:
            side = "< baseline {} - " if way.higher_is_better else "> baseline {} + "
            out.append(f"{name} {_fmt(value, old)} {side.format(_fmt(old, value))}{_tol_text(tolerance, name, tol)}")
    return out


def lost_failures(lost: Mapping[str, str], base: Mapping[str, float], tolerance: Tolerance | float) -> list[str]:
    """'teds, semantic scored in the baseline, not computed: table too large (...)' (or 'judge scored
    in the baseline, judge error: ...') for the checked scores the baseline has and this run asked
    for and did not get (`lost`: score -> why, `tablebench.gating.aggregate.lost_scores`): such a
    table is no better known than a lost one, so it fails, as the gate counts it 0."""
    if not isinstance(tolerance, Tolerance):
        tolerance = Tolerance(tolerance)
    by_reason: dict[str, list[str]] = {}
    for name, old in base.items():
        if name in lost and old is not None and allowed_drop(tolerance, name, old) is not None:
            by_reason.setdefault(lost[name], []).append(name)
    return [f"{', '.join(names)} scored in the baseline, {why}" for why, names in by_reason.items()]


def _tol_text(tolerance: Tolerance, metric: str, tol: float) -> str:
    """'0.01', or '2% (0.017)' for a relative tolerance."""
    share, relative = tolerance.named.get(metric, (tolerance.default, tolerance.default_relative))
    return f"{share * 100:g}% ({tol:.3g})" if relative else f"{tol:g}"
