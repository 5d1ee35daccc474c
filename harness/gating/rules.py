"""One case's verdict: pass, fail (with reasons), or a known failure the baseline already had.

- A table that is not `ok` (missing, parser failure, harness error) fails, unless the baseline
  has it not `ok` too: then it is a *known* failure (the plugin reports it as xfail), so a
  baseline gates regressions only. A table lost with a crashed worker is never a known failure.
- A located table fails below a `--min-score` floor or below its baseline score by more than
  the tolerance, or when a metric its baseline scored has no value now (too large to score, a judge
  or metric error: `tablebench.gating.aggregate.lost_scores`, what the gate counts 0);
  with `--baseline-per-table=off` (`Gate.per_table`) only the floors fail it (the aggregate
  gate decides against the baseline).
- In report-only mode every case passes; outcomes and scores are still recorded.

A failure's reasons name the kind's ranking metric first (`headline_first`: a failure line is
cut at the terminal's width), then what the locator noticed about the item (its message: found
as fragments, as text, ...), and end with the semantic score's main errors, when there are
any (the kind's `notes_title`: "semantic errors" of a table): they say what went wrong in words.

The verdict is decided once, where the result is made (the plugin's item, or the end of a run
for a case no item finished), and kept on the result (`keep_verdict`, `ItemResult.verdict`):
every report (report.html, leaderboard.md, `tablebench report`, a merge of shards) reads it
there with `verdict_of`, so none of them can tell a different story than pytest did.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from tablebench import __version__
from tablebench.core import kinds as item_kinds
from tablebench.core.build import code_digest
from tablebench.core.completeness import is_crashed
from tablebench.core.messages import MAX_ERROR_LINE, one_line
from tablebench.core.metric_specs import applies_to, display_order
from tablebench.core.options import DEFAULT_TOLERANCE, Tolerance
from tablebench.core.results import ItemResult
from tablebench.gating.aggregate import lost_scores
from tablebench.gating.baseline import Baseline
from tablebench.gating.thresholds import baseline_failures, lost_failures, min_score_failures

SHOWN_ERRORS = 3  # semantic errors quoted in a failure message
LOCATOR_NOTE = "locator: "  # the reason that quotes what the locator noticed (a card shows it as its message)
STATUSES = ("pass", "fail", "known")


@dataclass(frozen=True)
class Verdict:
    status: str  # "pass" | "fail" | "known"
    reasons: list[str] = field(default_factory=list)

    @property
    def message(self) -> str:
        return "; ".join(self.reasons)

    @property
    def passed(self) -> bool:
        """False only for a failure: a known failure (xfail) does not fail the run."""
        return self.status != "fail"

    def to_dict(self) -> dict:
        return {"passed": self.passed, "status": self.status, "reasons": list(self.reasons)}


def keep_verdict(result: ItemResult, verdict: Verdict) -> Verdict:
    """Keep `verdict` on `result` (`ItemResult.verdict`, so results.json and every report carry it)."""
    result.verdict = verdict.to_dict()
    return verdict


def verdict_of(result: ItemResult) -> Verdict | None:
    """The verdict kept on `result`, or None (a result from before verdicts were kept, or a
    hand-edited file whose verdict is not one)."""
    data = result.verdict
    if not isinstance(data, dict) or data.get("status") not in STATUSES:
        return None
    reasons = data.get("reasons")
    reasons = [str(x) for x in reasons] if isinstance(reasons, list) else []
    return Verdict(data["status"], reasons)


@dataclass
class Gate:
    """The pass/fail rules of one run."""

    floors: Mapping[str, float] = field(default_factory=dict)
    baseline: Baseline | None = None
    tolerance: Tolerance | float = DEFAULT_TOLERANCE  # a bare number: the headline metrics' tolerance
    report_only: bool = False
    per_table: bool = True  # a case fails below its baseline (`--baseline-per-table=off`: only --gate decides)

    def __post_init__(self) -> None:
        if not isinstance(self.tolerance, Tolerance):
            self.tolerance = Tolerance(float(self.tolerance))

    def check(self, result: ItemResult) -> Verdict:
        if self.report_only:
            return Verdict("pass")
        base = self.baseline.get(result.test_id) if self.baseline else None
        if result.outcome != "ok":
            reason = result.message or result.outcome
            if base is not None and base.outcome != "ok" and not is_crashed(result.message):
                return Verdict("known", [f"known failure ({base.outcome} in the baseline): {reason}"])
            return Verdict("fail", [reason])
        floors = floors_for(self.floors, result.kind)
        base_scores = base.scores if base is not None and self.per_table else {}
        reasons = []
        for metric in headline_first(result.kind, [*floors, *base_scores]):  # what a cut line must keep
            if metric in floors:
                reasons += min_score_failures(result.scores, {metric: floors[metric]}, result.metric_errors)
            if metric in base_scores:
                reasons += baseline_failures(result.scores, {metric: base_scores[metric]}, self.tolerance)
        reasons += lost_failures(lost_scores(result), base_scores, self.tolerance)
        if not reasons:
            return Verdict("pass")
        if result.message:  # what the locator noticed (found as fragments, as text, ...): why it may score low
            reasons.append(f"{LOCATOR_NOTE}{one_line(result.message, 200)}")
        if result.errors:
            shown = "; ".join(one_line(e, 120) for e in result.errors[:SHOWN_ERRORS])
            reasons.append(f"{item_kinds.get(result.kind).notes_title}: {shown}")
        return Verdict("fail", reasons)


def headline_first(kind: str, metrics: Iterable[str]) -> list[str]:
    """`metrics` (each once) in the order a failure names them: the kind's ranking metric, the
    judge, the other leaderboard scores, then sub-metrics as given. Why: pytest cuts a failure
    line at the terminal's width and the failed list at `MAX_REASON`; the score a case is
    ranked by must survive the cut, whatever order the floors and the baseline list metrics in."""
    order = {metric: i for i, metric in enumerate(display_order([kind]))}
    named = list(dict.fromkeys(metrics))
    return sorted(named, key=lambda m: (order.get(m, len(order)), named.index(m)))


def floors_for(floors: Mapping[str, float], kind: str) -> dict[str, float]:
    """The `--min-score` floors that apply to an item of `kind`: formula metrics to formulas,
    table metrics to tables, the judge to both (a table has no formula_score to fall below)."""
    return {name: floor for name, floor in floors.items() if applies_to(name, kind)}


def baseline_notes(baseline: Baseline, case_ids: Iterable[str], *, parsers: Mapping[str, Mapping],
                   case_set: Mapping, metrics: Iterable[str]) -> list[str]:
    """What differs between the baseline and this run, one line each (empty when nothing does;
    what the file holds is quoted flattened and cut: it comes from anywhere).

    Raises a one-line ValueError when the baseline was measured on another version of the case set
    (its manifest hash differs: the ground truth changed, so the same case ids name unlike cases),
    and when not one baseline entry matches the run's cases: gating against either baseline would
    compare nothing real and pass or fail for no reason."""
    ids = set(case_ids)
    where = f"baseline {baseline.path}"
    old_set, new_set = baseline.case_set.get("manifest_sha256"), case_set.get("manifest_sha256")
    if old_set and new_set and old_set != new_set:
        raise ValueError(one_line(f"{where}: measured on case set {baseline.case_set.get('name', '?')} version "
                                  f"{str(old_set)[:12]}, this run's {case_set.get('name', '?')} is version "
                                  f"{str(new_set)[:12]} (its ground truth differs, so the cases do not compare): "
                                  "save a new baseline on this version with --save-baseline", MAX_ERROR_LINE))
    matched = baseline.matched(ids)
    if not matched:
        raise ValueError(one_line(f"{where}: none of its {len(baseline.cases)} entries match this run's {len(ids)} "
                                  f"cases (baseline parsers: {', '.join(baseline.labels()) or 'none'}; this run: "
                                  f"{', '.join(parsers) or 'none'}); name a parser as in the baseline with "
                                  "--parser LABEL=SPEC", MAX_ERROR_LINE))
    notes = [f"{where}: {matched} of {len(baseline.cases)} entries match this run's {len(ids)} cases"]
    if not old_set:
        notes.append(f"{where}: records no case-set version (an older file): the ground truth is not checked")
    for label, facts in parsers.items():
        old = baseline.parsers.get(label, {}).get("version")
        if old is not None and facts.get("version") is not None and str(old) != str(facts["version"]):
            notes.append(f"{where}: parser {label} was version {old}, now {facts['version']}")
    if baseline.tablebench and baseline.tablebench != __version__:  # a release may score the same output otherwise
        notes.append(f"{where}: scored by tablebench {baseline.tablebench}, this run by {__version__}: a score "
                     "that moved may be the metric's change, not the parser's (save a new baseline to compare "
                     "the parser alone)")
    elif baseline.code and baseline.code != code_digest():  # the same version, other code (between releases)
        notes.append(f"{where}: scored by another build of tablebench {__version__} (its code differs): a score "
                     "that moved may be the metric's change, not the parser's (save a new baseline to compare "
                     "the parser alone)")
    unscored = sorted(set(baseline.metrics) - set(metrics))
    if unscored:
        notes.append(f"{where}: metrics {', '.join(unscored)} are in the baseline but not computed now")
    return [one_line(note, MAX_ERROR_LINE) for note in notes]
