"""A run's decisions, made in one place for a pytest session and for `tablebench report merge`.

Why one place: both must fail the same cases for the same reasons and gate the same way, and
the report must only render what was decided (`tablebench.report.finish` writes it). So the
callers hand their results and one `GatePolicy` here and get `Decisions` back:

1. the aggregate gates (`--gate`) against the baseline (`run_gates`); a pytest session runs
   them when its test loop ends (each gate is a test of the session) and passes them in;
2. each case's verdict: the one it carries, decided once where it was made (the plugin's
   item, `tablebench.gating.rules.keep_verdict`); the policy's rules decide for a case that
   carries none (a crashed worker's), and for every case when `policy.decide` (a merge given
   its own floors or baseline: the shards' verdicts were decided against other rules);
3. each case's change against the baseline (`tablebench.gating.regressions`), kept on the result;
4. the failed cases, and the gate's lines for the run's meta.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from tablebench.core.completeness import Completeness
from tablebench.core.metric_specs import scales
from tablebench.core.options import DEFAULT_ALPHA, DEFAULT_MIN_EFFECT, GateSpec, RunOptions
from tablebench.core.results import ItemResult, run_order, sd_of
from tablebench.gating.aggregate import Comparison, baseline_values, evaluate, gate_pairs, summary_lines
from tablebench.gating.baseline import Baseline
from tablebench.gating.regressions import attach, case_changes, failures, gate_of
from tablebench.gating.rules import Gate, keep_verdict, verdict_of


@dataclass(frozen=True)
class GatePolicy:
    """What decides a run: the per-case rules and the aggregate gates against one baseline."""

    rules: Gate | None = None  # the per-case rules (floors, baseline, tolerance): verdicts and changes
    gates: tuple[GateSpec, ...] = ()
    min_effect: float = DEFAULT_MIN_EFFECT
    alpha: float = DEFAULT_ALPHA
    groups: tuple[str, ...] = ()  # every parser label of the run, in order: one without pairs gets "no data"
    decide: bool = False  # `rules` replace the verdicts the results carry (a merge given its own floors or baseline)
    allow_incomplete: bool = False  # gate a run that did not finish every item

    @property
    def baseline(self) -> Baseline | None:
        """The baseline the rules and the gates compare with (the rules hold it)."""
        return self.rules.baseline if self.rules is not None else None


def gate_policy(options: RunOptions, baseline: Baseline | None, groups: Iterable[str], *,
                decide: bool = False) -> GatePolicy:
    """A run's `GatePolicy` from its options: the one builder, for the pytest session and for
    `tablebench report merge` alike, so a merged run is decided by the rules a session would use.
    `groups`: the run's parser labels, in order; `decide`: see `GatePolicy.decide`."""
    return GatePolicy(gate_of(options, baseline), options.gates, min_effect=options.gate_min_effect,
                      alpha=options.gate_alpha, groups=tuple(groups), decide=decide,
                      allow_incomplete=options.allow_incomplete)


@dataclass
class Decisions:
    """What `decide_run` decided: the gate comparisons, the failed cases, the gate's lines."""

    comparisons: list[Comparison] = field(default_factory=list)
    case_failures: list[tuple[str, str]] = field(default_factory=list)  # (test_id, reasons) of each failing case
    gate_lines: list[str] = field(default_factory=list)  # for the run's meta ("gate"); empty without a gate

    @property
    def failed(self) -> list[Comparison]:
        return [c for c in self.comparisons if c.failed]


def run_gates(results: Sequence[ItemResult], policy: GatePolicy) -> list[Comparison]:
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


def decide_run(results: Sequence[ItemResult], policy: GatePolicy, completeness: Completeness,
               comparisons: list[Comparison] | None = None) -> Decisions:
    """The run's decisions (see the module docstring); verdicts and changes are kept on `results`
    (`ItemResult.verdict`, `.baseline_change`: results.json and every report read them there).
    `results` need no texts; `comparisons`: the gates already run (None: run them here)."""
    if comparisons is None:
        comparisons = run_gates(results, policy) if policy.gates else []
    rules = policy.rules
    for r in results:
        r.baseline_change = None  # a change from another run (a shard's) is not this run's
        if policy.decide:
            r.verdict = None
        if rules is not None and verdict_of(r) is None:  # no item decided it (a crashed worker's case, a merge)
            keep_verdict(r, rules.check(r))
    if rules is not None and (rules.baseline is not None or rules.floors):
        attach(results, case_changes(results, rules))
    lines = summary_lines(comparisons) if comparisons else []
    if comparisons and not completeness.complete:
        lines.append(gate_verdict(comparisons, completeness))
    return Decisions(comparisons, failures(results), lines)
