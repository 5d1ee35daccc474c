"""The end of a run, one for a pytest session and for `tablebench report merge`: gates, baseline, files.

`finish_run(results, meta, policy)` does, in this order:

1. the aggregate gates (`--gate`) of the results against the baseline (`run_gates`), unless
   the caller ran them already: the plugin runs them when its test loop ends, so that each
   gate is a test of the session, and passes those comparisons in; then each case's verdict
   (the one it carries, decided when it was made; the policy's rules decide for a case that
   carries none, and for every case when `policy.decide`: a merge given its own floors or
   baseline) and its change against the baseline (`harness.gating.regressions`, both kept in
   its `extra`; `RunEnd.case_failures` lists the failed ones for `report merge`);
2. the gate lines, and the baseline they compared with, into the meta; then
   `policy.update_meta` (the plugin's `pytest_tablebench_update_meta` hook);
3. results.json first (the run's memory), then leaderboard.md, report.html, gate.json;
4. last, the baseline file (`--save-baseline`), refused for an incomplete run (see
   `harness.evaluate.completeness`) unless `policy.allow_incomplete`, and when a parser failed
   on every page (such a baseline would make every later failure "known") unless
   `policy.save_anyway`.

`results` may be a `harness.report.stream.FullResults`: then the gates, the per-case changes,
the aggregates and the baseline read its slim results (scores, outcomes, facts), and only
results.json, report.html and the meta hook read the texts, one result at a time from disk.

No write failure loses what was written before it: each is one line in `RunEnd.errors` (and
`notes`), the steps after it still run, and the caller exits non-zero (the plugin sets the
session's exit status, the command line returns 1).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.core.files import write_atomic
from harness.core.metric_specs import scales
from harness.core.options import DEFAULT_ALPHA, DEFAULT_MIN_EFFECT, GateSpec
from harness.core.results import PARSE_FAILURES, ItemResult, run_order
from harness.evaluate.completeness import Completeness, of_meta, refusal
from harness.evaluate.repeat import sd_of
from harness.gating.aggregate import Comparison, baseline_values, evaluate, gate_pairs, summary_lines
from harness.gating.baseline import Baseline, save_baseline
from harness.gating.regressions import EXTRA_KEY, attach, case_changes, failures
from harness.gating.rules import VERDICT_KEY, Gate, keep_verdict, verdict_of
from harness.report.stream import slim_of

GATE_FILE = "gate.json"


@dataclass(frozen=True)
class FinishPolicy:
    """What the end of a run does with its results: where the files go, which gates run
    against which baseline, whether a baseline is saved and with which facts."""

    report_dir: Path
    primary: str | None = None  # the ranking metric (default: semantic if present, else teds)
    gates: tuple[GateSpec, ...] = ()
    min_effect: float = DEFAULT_MIN_EFFECT
    alpha: float = DEFAULT_ALPHA
    baseline: Baseline | None = None  # what the gates compare with
    baseline_file: str | None = None  # the baseline as given, recorded in the meta with the gate lines
    groups: tuple[str, ...] = ()  # every parser label of the run, in order: one without pairs gets "no data"
    save_baseline: str | None = None
    parsers: Mapping[str, Mapping] = field(default_factory=dict)  # label -> {"spec", "version"}, for the baseline file
    case_set: Mapping = field(default_factory=dict)  # {"name", "manifest_sha256"}, for the baseline file
    metrics: Sequence[str] = ()  # for the baseline file
    update_meta: Callable[[dict, Sequence[ItemResult]], None] | None = None  # last word on the meta before writing
    allow_incomplete: bool = False  # save a baseline from a run that did not finish every item
    save_anyway: bool = False  # save a baseline even when a parser failed on every page
    rules: Gate | None = None  # the per-case rules (floors, baseline, tolerance): each case's verdict and change
    crop_folder: bool = False  # every page crop also under the report folder's crops/ (--report-crops=folder)
    decide: bool = False  # `rules` replace the verdicts the results carry (a merge given its own floors or baseline)


@dataclass
class RunEnd:
    """What `finish_run` did: the gate comparisons, the files written, what went wrong."""

    comparisons: list[Comparison]
    meta: dict
    written: dict[str, Path] = field(default_factory=dict)  # "baseline", "json", "markdown", "html", "gate"
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # one line per file not written (or refused)
    case_failures: list[tuple[str, str]] = field(default_factory=list)  # (test_id, reasons) of each failing case

    @property
    def error(self) -> str | None:
        """The first thing that went wrong, or None."""
        return self.errors[0] if self.errors else None

    @property
    def failed(self) -> list[Comparison]:
        return [c for c in self.comparisons if c.failed]

    @property
    def report_files(self) -> dict[str, Path]:
        return {kind: path for kind, path in self.written.items() if kind != "baseline"}


def run_gates(results: Sequence[ItemResult], policy: FinishPolicy) -> list[Comparison]:
    """Every `--gate` of the policy on `results` against its baseline (per parser, with breakdowns).

    The results are put in run order first: the bootstrap and the permutations are seeded, so
    the same cases in another order (xdist's completion order, shards) would give other CIs."""
    results = run_order(results, policy.groups)
    pairs = gate_pairs(results, lambda r: baseline_values(policy.baseline, r))
    run_sd = {(r.parser, r.test_id): sd_of(r) for r in results if sd_of(r)}
    return evaluate(pairs, policy.gates, min_effect=policy.min_effect, alpha=policy.alpha, scale=scales(),
                    run_sd=run_sd, groups=list(policy.groups))


def gate_verdict(comparisons: Sequence[Comparison], completeness: Completeness | None = None) -> str:
    """The gate's last line: how many gated comparisons regressed, or that none did; an
    incomplete run's verdict says it loudly (it compared only what finished)."""
    failed = [c for c in comparisons if c.failed]
    flag = f" — on an {completeness.line()}" if completeness is not None and not completeness.complete else ""
    if failed:
        return f"gate FAILED: {len(failed)} of {sum(c.gating for c in comparisons)} gated comparisons regressed{flag}"
    return f"gate passed: no significant regression beyond the minimum effect{flag}"


def finish_run(results: Sequence[ItemResult], meta: Mapping[str, Any], policy: FinishPolicy,
               comparisons: list[Comparison] | None = None) -> RunEnd:
    """The end of a run (see the module docstring). `comparisons`: the gates already run (None: run them here)."""
    slim = slim_of(results)
    if comparisons is None:
        comparisons = run_gates(slim, policy) if policy.gates else []
    end = RunEnd(comparisons, dict(meta))
    completeness = of_meta(end.meta, len(results))
    rules = policy.rules
    for r in slim:
        r.extra.pop(EXTRA_KEY, None)  # a change from another run (a shard's) is not this run's
        if policy.decide:
            r.extra.pop(VERDICT_KEY, None)
        if rules is not None and verdict_of(r) is None:  # no item decided it (a crashed worker's case, a merge)
            keep_verdict(r, rules.check(r))
    if rules is not None and (rules.baseline is not None or rules.floors):
        attach(slim, case_changes(slim, rules))
    end.case_failures = failures(slim)
    if comparisons:
        end.meta["gate"] = summary_lines(comparisons) + ([] if completeness.complete else
                                                          [gate_verdict(comparisons, completeness)])
    if policy.baseline_file:
        end.meta["baseline"] = policy.baseline_file
    if policy.update_meta is not None:
        policy.update_meta(end.meta, results)
    _write_files(end, results, policy)
    if policy.save_baseline:
        _save_baseline(end, slim, policy, completeness)
    end.notes += end.errors
    return end


def _write_files(end: RunEnd, results: Sequence[ItemResult], policy: FinishPolicy) -> None:
    """The report folder, results.json first; gate.json beside it when a gate ran."""
    from harness.report.write import write_report  # the renderers: only the process that writes imports them

    try:
        end.written.update(write_report(results, policy.report_dir, end.meta, primary=policy.primary,
                                        comparisons=end.comparisons, written=end.written,
                                        crop_folder=policy.crop_folder))
        if end.comparisons:
            text = json.dumps([c.to_dict() for c in end.comparisons], indent=1, default=json_number) + "\n"
            end.written["gate"] = write_atomic(Path(policy.report_dir) / GATE_FILE, text)
    except OSError as exc:
        done = ", ".join(p.name for p in end.report_files.values())
        end.errors.append(f"tablebench report not written to {policy.report_dir}: {exc.strerror or exc}"
                          + (f" (written before it: {done})" if done else ""))


def _save_baseline(end: RunEnd, results: Sequence[ItemResult], policy: FinishPolicy, completeness: Completeness) -> None:
    """--save-baseline, last: refused for an incomplete run unless allowed; a failed write is one line."""
    refused = refusal(completeness, f"--save-baseline {policy.save_baseline}", policy.allow_incomplete)
    if not refused and not policy.save_anyway:
        refused = all_failed_refusal(results, f"--save-baseline {policy.save_baseline}")
    if refused:
        end.errors.append(f"tablebench {refused}")
        return
    try:
        end.written["baseline"] = save_baseline(results, policy.save_baseline, parsers=policy.parsers,
                                                case_set=policy.case_set, metrics=policy.metrics)
    except OSError as exc:
        end.errors.append(f"tablebench baseline not written to {policy.save_baseline}: {exc.strerror or exc}")


def all_failed_refusal(results: Sequence[ItemResult], what: str) -> str:
    """Why a baseline is refused: some parser failed on every page (its baseline would make
    every later run's failures "known"), naming the parsers and the first failure; "" otherwise."""
    by_parser: dict[str, list[ItemResult]] = {}
    for r in results:
        by_parser.setdefault(r.parser, []).append(r)
    dead = {p: rs for p, rs in by_parser.items() if rs and all(r.outcome in PARSE_FAILURES for r in rs)}
    if not dead:
        return ""
    first = next(iter(dead.values()))[0]
    return (f"{what}: refused: parser {', '.join(dead)} failed on every page ({first.message or first.outcome}); "
            "fix it, or give --save-baseline-anyway")


def json_number(value: Any) -> Any:
    """`json.dumps(default=...)` for gate rows: a non-finite number as null, anything else as text."""
    return None if isinstance(value, float) and not math.isfinite(value) else str(value)
