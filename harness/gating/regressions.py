"""Every case against its baseline: what moved, the same for every runner.

Why here: `pytest --baseline` and `tablebench report merge --baseline` must show the same
regression view in every report file. So both reach `case_changes` through
`tablebench.gating.decide.decide_run`, with one `Gate` (`gate_of`): it returns, per case,

- the pass / fail / known verdict the case carries (decided once, where it was made:
  `tablebench.gating.rules.verdict_of`) with its reasons (what pytest reports);
- the case's baseline score on its kind's ranking metric, the score now, the delta and a
  verdict: `regressed` / `improved` (moved the worse / better way, `direction`, beyond the
  metric's tolerance, or lost / found
  since the baseline), `unchanged`, or `new` (not in the baseline).

A case lost now, or whose score the run asked for and did not get (too large to score, a judge or
metric error), counts the metric's worst value against its baseline score (`tablebench.gating.aggregate.counted`: as the
gate counts it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from tablebench.core.metric_specs import direction, ranking_metric
from tablebench.core.options import RunOptions
from tablebench.core.results import ItemResult
from tablebench.gating.aggregate import counted, lost_scores
from tablebench.gating.baseline import Baseline, Entry
from tablebench.gating.rules import Gate, verdict_of
from tablebench.gating.thresholds import allowed_drop

VERDICTS = ("regressed", "improved", "unchanged", "new")


def gate_of(options: RunOptions, baseline: Baseline | None) -> Gate:
    """The per-case rules of a run: its floors, its baseline and tolerance, report-only."""
    return Gate(options.min_scores, baseline, options.tolerance, report_only=options.report_only,
                per_table=options.per_table)


def ranking_metrics(results: Iterable[ItemResult]) -> dict[str, str]:
    """kind -> the score its cases are compared on (the kind's leaderboard ranking metric); a score
    a case asked for and did not get counts as present (every table of a run may have grown too
    large, the judge may have refused every one)."""
    present: dict[str, set[str]] = {}
    for r in results:
        present.setdefault(r.kind, set()).update(r.scores, lost_scores(r))
    return {kind: metric for kind, names in present.items() if (metric := ranking_metric([kind], names))}


def case_changes(results: Sequence[ItemResult], gate: Gate) -> dict[str, dict]:
    """test_id -> {"status", "reasons"} (+ "metric", "baseline", "now", "delta", "verdict" with a baseline).

    The status and reasons are the verdict the result carries (`verdict_of`), decided when it
    was made; `gate` decides only for a result that carries none."""
    metrics = ranking_metrics(results)
    out = {}
    for r in results:
        verdict = verdict_of(r) or gate.check(r)
        change: dict = {"status": verdict.status, "reasons": list(verdict.reasons)}
        if gate.baseline is not None:
            change.update(_change(r, gate.baseline.get(r.test_id), metrics.get(r.kind), gate))
        out[r.test_id] = change
    return out


def _change(r: ItemResult, entry: Entry | None, metric: str | None, gate: Gate) -> dict:
    if entry is None:
        return {"metric": metric, "baseline": None, "now": _score(r.outcome, r.scores, metric), "delta": None,
                "verdict": "new"}
    old = _score(entry.outcome, entry.scores, metric)
    now = _score(r.outcome, r.scores, metric, lost_scores(r) if old is not None else None)
    delta = now - old if old is not None and now is not None else None
    # the metric's tolerance, also when single cases do not fail on it (`Gate.per_table` off)
    tol = (allowed_drop(gate.tolerance, metric, old) if metric and old is not None else None) or 0.0  # type: ignore[arg-type]
    if (entry.outcome == "ok") != (r.outcome == "ok"):
        verdict = "improved" if r.outcome == "ok" else "regressed"
    elif delta is None:
        verdict = "unchanged"
    elif (gain := direction(metric).gain(old, now)) < -tol - 1e-12:  # type: ignore[arg-type]
        verdict = "regressed"
    elif gain > tol + 1e-12:
        verdict = "improved"
    else:
        verdict = "unchanged"
    return {"metric": metric, "baseline": old, "now": now, "delta": delta, "verdict": verdict,
            "baseline_outcome": entry.outcome}


def _score(outcome: str, scores: Mapping[str, float], metric: str | None,
           lost: Mapping[str, str] | None = None) -> float | None:
    """The case's value on `metric` as the gate counts it (`counted`: 0 when not found, or when
    `lost`, the scores it asked for and did not get against a baseline that has one, holds it);
    None when there is no metric or no score."""
    return counted(outcome == "ok", scores, metric, lost or {}) if metric is not None else None


def attach(results: Iterable[ItemResult], changes: Mapping[str, dict]) -> None:
    """Keep each case's change on it (`ItemResult.baseline_change`: results.json and the report's
    cards read it there)."""
    for r in results:
        if r.test_id in changes:
            r.baseline_change = changes[r.test_id]


def failures(results: Iterable[ItemResult]) -> list[tuple[str, str]]:
    """(test_id, reasons) of every case whose verdict is a failure, in the results' order."""
    return [(r.test_id, v.message) for r in results if (v := verdict_of(r)) is not None and not v.passed]
