"""The aggregate gate: did a run get worse than its baseline, by how much, with what confidence?

Why not per-table tolerances alone: a stochastic parser (a VLM) fails a few tables by chance
on every run, and a change that costs a little on every table never crosses a per-table
tolerance. The gate looks at the tables the run and the baseline both have, pairs them, and
asks two questions of the per-table differences d = run - baseline, taken the way the metric gets
better (`tablebench.core.metric_specs.direction`: for a lower-is-better metric, an edit distance,
a rise is the regression):

- effect: is the mean difference beyond `min_effect` (given on the 0-1 scale, x10 for
  semantic / judge, like `--baseline-tolerance`)?
- confidence: is it significant? A paired sign-flip permutation test on the mean (the test
  `scipy.stats.permutation_test` runs on paired samples; exact for up to 13 tables, 9,999
  seeded resamples beyond), one-sided in the direction of the change; the p-value must be
  below `alpha`.

Only both together make a regression (or an improvement). The report also gives a seeded
paired bootstrap confidence interval of the mean difference (tables resampled, level
1 - alpha, two-sided). A table that has a value in the baseline and none in the run counts the
metric's worst value (0; its scale when lower is better) in the run, whatever took the value away
(not found, a parse failure, a table too large to score, a
judge or metric error: `counted`, with `lost_scores`): losing tables is a regression too, and a
table nobody could score must not leave the comparison (include-missing, as the leaderboard ranks).

Everything here is pure arithmetic on numbers keyed by case; `tablebench.gating.decide` builds the
pairs (for the pytest plugin and `tablebench report merge` alike). No pytest, no files.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from tablebench.core import kinds as item_kinds
from tablebench.core.messages import one_line
from tablebench.core.metric_specs import applies_to, direction, scores_of
from tablebench.core.options import DEFAULT_ALPHA, DEFAULT_MIN_EFFECT, GROUP, GateSpec

DEFAULT_BOOTSTRAP = 10_000
DEFAULT_PERMUTATIONS = 9_999
# case attributes broken down when a run has several values (`ItemResult.page_break`: broken across
# PDF pages or on one)
BREAKDOWN = ("language", "variant", "page_break")
# a baseline case that was not found / failed: every metric counts 0 there. A marker, not an empty
# dict, because an `ok` entry without scores is "no baseline for these metrics", not 0
NOT_FOUND: Mapping[str, float] = MappingProxyType({})


@dataclass(frozen=True)
class Pair:
    """One case in both runs: its id, the attributes subsets select on, and each side's values.

    A value of None means "not scored on this metric at all" (the run did not ask for the metric,
    or the baseline has no value): the case is left out of that metric's comparison. A lost table,
    or a value the run asked for and did not get (`counted`), is 0, not None.
    """

    key: str
    group: str  # comparisons are made per group (the parser label)
    attrs: Mapping[str, object]
    base: Mapping[str, float | None]
    run: Mapping[str, float | None]
    kind: str = ""  # the item's kind: a metric's breakdown rows are its kind's groups ("": any kind's)


@dataclass
class Comparison:
    """The gate's numbers for one (group, metric, subset)."""

    group: str
    metric: str
    subset: str | None
    n: int
    base_mean: float | None
    run_mean: float | None
    diff: float | None  # run - baseline, mean over paired tables
    ci_low: float | None
    ci_high: float | None
    p_drop: float | None  # one-sided p-value of "the run is worse" (a rise, for a lower-is-better metric)
    p_rise: float | None  # one-sided p-value of "the run is better"
    min_effect: float  # on the metric's own scale
    alpha: float
    verdict: str  # regression | improvement | no change | no data
    gating: bool = True  # False: shown for information (a breakdown per group, language, ...)
    run_sd: float | None = None  # mean per-table standard deviation over --repeat runs
    notes: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.metric + (f":{self.subset}" if self.subset else "")

    @property
    def failed(self) -> bool:
        """A gating comparison fails on a significant drop beyond the minimum effect, or on no data."""
        return self.gating and self.verdict in ("regression", "no data")

    @property
    def shown_verdict(self) -> str:
        """The verdict in words: a failure in capitals, and a significant move smaller than the
        minimum effect said as such (it is no regression, but it is not "no change" either)."""
        if self.failed:
            return self.verdict.upper()
        if self.verdict == "no change" and self.diff:
            p = self.p_drop if direction(self.metric).gain(0.0, self.diff) < 0 else self.p_rise
            if p is not None and p < self.alpha:
                return "significant but below minimum effect"
        return self.verdict

    def to_dict(self) -> dict:
        return asdict(self) | {"failed": self.failed}

    @property
    def p_shown(self) -> float | None:
        """The one-sided p-value of the way the mean moved (of "worse" when it did not move): the
        one every report shows."""
        return self.p_drop if direction(self.metric).gain(0.0, self.diff or 0.0) <= 0 else self.p_rise

    def line(self) -> str:
        """One line for the terminal, the report and the junit message."""
        verdict = self.shown_verdict
        head = f"{verdict}{'' if self.gating else ' (not gated)'}: {self.label} [{self.group}]"
        if self.n == 0 or self.diff is None:
            return f"{head}: no table is scored in both the baseline and this run"
        digits = 3 if self.min_effect < 0.5 else 2
        text = (f"{head}: {self.base_mean:.{digits}f} -> {self.run_mean:.{digits}f}, "
                f"mean diff {self.diff:+.{digits}f}")
        if self.ci_low is not None:
            text += f" (CI {1 - self.alpha:.0%} {self.ci_low:+.{digits}f}..{self.ci_high:+.{digits}f})"
        p = self.p_shown
        shown = " n/a" if p is None else ("" if p < P_FLOOR else "=") + p_text(p)
        text += f", p{shown}, n={self.n} tables; min effect {self.min_effect:g}, alpha {self.alpha:g}"
        if self.run_sd is not None:
            text += f"; per-table sd over repeats {self.run_sd:.{digits}f}"
        return text


P_FLOOR = 0.001  # p-values below it are shown as "<0.001": a permutation test resolves no finer


def p_text(p: float) -> str:
    """A p-value as every report shows it: two significant digits, below `P_FLOOR` as "<0.001"."""
    return f"{p:.2g}" if p >= P_FLOOR else f"<{P_FLOOR:g}"


def paired_statistics(base: Sequence[float], run: Sequence[float], *, min_effect: float = DEFAULT_MIN_EFFECT,
                      alpha: float = DEFAULT_ALPHA, seed: int = 0, n_boot: int = DEFAULT_BOOTSTRAP,
                      n_perm: int = DEFAULT_PERMUTATIONS, sign: int = 1) -> dict:
    """Paired statistics of `run` against `base` (same order, same cases) and the verdict.

    `min_effect` is on the metric's own scale here (callers scale it); `sign` is the metric's
    `Direction.sign` (-1: a rise is worse). `diff` and the interval are run - baseline as they are;
    `p_drop` / `p_rise` and the verdict are of worse / better. Returns the
    Comparison fields n, base_mean, run_mean, diff, ci_low, ci_high, p_drop, p_rise, verdict.
    """
    b = np.asarray(base, dtype=float)
    r = np.asarray(run, dtype=float)
    if b.shape != r.shape:
        raise ValueError(f"paired values differ in length: {b.size} baseline vs {r.size} run")
    n = int(b.size)
    if n == 0:
        return dict(n=0, base_mean=None, run_mean=None, diff=None, ci_low=None, ci_high=None,
                    p_drop=None, p_rise=None, verdict="no data")
    d = r - b
    diff = float(d.mean())
    low, high = bootstrap_ci(d, alpha, seed=seed, n_boot=n_boot)
    p_drop, p_rise = sign_flip_p(sign * d, seed=seed, n_perm=n_perm)
    tol = 1e-12
    if sign * diff < -min_effect - tol and p_drop < alpha:
        verdict = "regression"
    elif sign * diff > min_effect + tol and p_rise < alpha:
        verdict = "improvement"
    else:
        verdict = "no change"
    return dict(n=n, base_mean=float(b.mean()), run_mean=float(r.mean()), diff=diff, ci_low=low, ci_high=high,
                p_drop=p_drop, p_rise=p_rise, verdict=verdict)


def bootstrap_ci(d: np.ndarray, alpha: float, *, seed: int = 0, n_boot: int = DEFAULT_BOOTSTRAP) -> tuple[float, float]:
    """Percentile bootstrap interval (level 1 - alpha) of the mean of `d`, tables resampled, seeded."""
    if d.size == 1 or np.all(d == d[0]):
        return float(d[0]), float(d[0])
    rng = np.random.default_rng(seed)
    means = np.empty(n_boot)
    chunk = max(1, 2_000_000 // d.size)  # bounded memory for large case sets
    for start in range(0, n_boot, chunk):
        stop = min(n_boot, start + chunk)
        means[start:stop] = d[rng.integers(0, d.size, size=(stop - start, d.size))].mean(axis=1)
    low, high = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    return float(low), float(high)


def sign_flip_p(d: np.ndarray, *, seed: int = 0, n_perm: int = DEFAULT_PERMUTATIONS) -> tuple[float, float]:
    """One-sided p-values (drop, rise) of the paired sign-flip permutation test on the mean.

    Under "no change" each difference is as likely positive as negative. All 2^n sign
    patterns are enumerated when that is at most `n_perm` (exact p-values), else `n_perm`
    random patterns are drawn (seeded) and p = (hits + 1) / (n_perm + 1). This is the test
    `scipy.stats.permutation_test(..., permutation_type="samples")` runs on one sample
    (checked against it in tests/test_gate.py); done here with one matrix product, because
    scipy's loop over tables costs ~0.4 s per comparison at 441 tables.
    """
    d = np.asarray(d, dtype=float)
    if not np.any(d):
        return 1.0, 1.0
    n = d.size
    observed = float(d.mean())
    gamma = abs(observed) * 1e-14 + 1e-15  # ties in floating point count as ties (as scipy does)
    if 2**n <= n_perm:
        patterns = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1) * 2.0 - 1.0
        null = patterns @ d / n
        return (float(np.count_nonzero(null <= observed + gamma)) / null.size,
                float(np.count_nonzero(null >= observed - gamma)) / null.size)
    rng = np.random.default_rng(seed)
    low = high = 0
    chunk = max(1, 4_000_000 // n)
    for start in range(0, n_perm, chunk):
        size = min(chunk, n_perm - start)
        null = (rng.integers(0, 2, size=(size, n), dtype=np.int8) * 2 - 1).astype(float) @ d / n
        low += int(np.count_nonzero(null <= observed + gamma))
        high += int(np.count_nonzero(null >= observed - gamma))
    return (low + 1) / (n_perm + 1), (high + 1) / (n_perm + 1)


def evaluate(pairs: Iterable[Pair], gates: Sequence[GateSpec], *, min_effect: float = DEFAULT_MIN_EFFECT,
             alpha: float = DEFAULT_ALPHA, seed: int = 0, scale: Mapping[str, float] | None = None,
             breakdown: bool = True, run_sd: Mapping[tuple[str, str], Mapping[str, float]] | None = None,
             groups: Sequence[str] = (),
             ) -> list[Comparison]:
    """Every gate for every group (parser), plus rows for information per item group (a table's
    complexity, a formula's placement: those of the cases the gate's metric scores, in the kinds'
    order) and per language / variant / page break when the cases have more than one.

    `scale` maps a metric to its full scale (10 for semantic / judge) so `min_effect` means
    the same for every metric. `run_sd` maps (group, key) to per-metric standard deviations
    over repeated runs (reported, not tested: the test pairs the per-table means). `groups`
    names every parser of the run: one without a single paired table gets "no data" (a
    failed gate), never silence.
    """
    pairs = list(pairs)
    groups = list(dict.fromkeys([*groups, *(p.group for p in pairs)]))
    out: list[Comparison] = []
    for gate in gates:
        effect = min_effect * (scale or {}).get(gate.metric, 1.0)
        rows: list[tuple[GateSpec, bool]] = [(gate, True)]
        if breakdown and gate.subset is None:
            levels = _groups_of([p for p in pairs if not p.kind or applies_to(gate.metric, p.kind)])
            rows += [(GateSpec(gate.metric, c), False) for c in levels]
            for key in BREAKDOWN:
                values = sorted({str(p.attrs[key]) for p in pairs if p.attrs.get(key) not in (None, "")})
                if len(values) > 1:  # one value only: the same numbers as the overall row
                    rows += [(GateSpec(gate.metric, f"{key}={v}"), False) for v in values]
        for group in groups or ["(no run results)"]:
            for spec, gating in rows:
                chosen = [p for p in pairs if p.group == group and spec.selects(p.attrs)
                          and p.base.get(spec.metric) is not None and p.run.get(spec.metric) is not None]
                stats = paired_statistics([p.base[spec.metric] for p in chosen], [p.run[spec.metric] for p in chosen],
                                          min_effect=effect, alpha=alpha, seed=seed,
                                          sign=direction(spec.metric).sign)
                sds = [run_sd[(group, p.key)][spec.metric] for p in chosen
                       if run_sd and spec.metric in run_sd.get((group, p.key), {})]
                out.append(Comparison(group=group, metric=spec.metric, subset=spec.subset, min_effect=effect,
                                      alpha=alpha, gating=gating, run_sd=float(np.mean(sds)) if sds else None,
                                      **stats))
    return out


def _groups_of(pairs: Sequence[Pair]) -> list[str]:
    """The items' groups among `pairs`, in the kinds' display order (`ItemKind.groups`), others after, sorted."""
    present = {str(p.attrs[GROUP]) for p in pairs if p.attrs.get(GROUP) not in (None, "")}
    known = list(dict.fromkeys(g for kind in item_kinds.all_kinds() for g in kind.groups))
    return [g for g in known if g in present] + sorted(present - set(known))


def summary_lines(comparisons: Sequence[Comparison]) -> list[str]:
    """The gating lines first, then the breakdown rows, one line each."""
    ordered = sorted(comparisons, key=lambda c: not c.gating)
    return [("  " if not c.gating else "") + c.line() for c in ordered]


def baseline_values(baseline: Any, result: Any) -> Mapping[str, float] | None:
    """A run case's baseline scores: None when the baseline lacks the case, `NOT_FOUND` when it had
    the table as not found (every metric counts 0 there), else its scores (a metric it lacks has no
    baseline, even when it lacks all). `baseline` is a `tablebench.gating.baseline.Baseline`
    (anything with `get(test_id) -> entry | None`)."""
    entry = baseline.get(result.test_id) if baseline is not None else None
    if entry is None:
        return None
    return dict(entry.scores) if entry.outcome == "ok" else NOT_FOUND


def gate_pairs(results: Iterable[Any], baseline: Callable[[Any], Mapping[str, float] | None]) -> list[Pair]:
    """Pairs of (baseline, run) values per case, for every metric either side has.

    A case not in the baseline is left out (it cannot be compared); every value is `counted`: a
    case the baseline (`NOT_FOUND`) or the run has as not found / failed counts 0 (include-missing),
    and so does a value the run asked for and did not get (`lost_scores`: too large to score, a
    judge or metric error, no finite number), or a table the judge could not read would drop out
    of the comparison;
    a metric a side was never asked for is None there (that pair is left out of that metric).
    """
    pairs = []
    for r in results:
        base = baseline(r)
        if base is None:
            continue
        run_ok = r.outcome == "ok"
        names = set(base) | set(r.scores)
        lost = lost_scores(r) if run_ok else {}
        run_values = {m: counted(run_ok, r.scores, m, lost) for m in names}
        base_values = {m: counted(base is not NOT_FOUND, base, m) for m in names}
        # what a subset selects on (`--gate=teds:language=de`): the case's own fields, and a hook's
        # scalar annotations in `extra` (`--gate=teds:reviewed_by=nobody`) where no field has the name
        attrs = {**{k: v for k, v in (r.extra or {}).items() if isinstance(v, (str, int, float))},
                 item_kinds.get(r.kind).group_name: r.group or "unknown", GROUP: r.group or "unknown",
                 "case_set": r.case_set, "page": r.page,
                 **{k: getattr(r, k) for k in BREAKDOWN if isinstance(getattr(r, k, None), str)}}
        pairs.append(Pair(key=r.test_id, group=r.parser, attrs=attrs, base=base_values, run=run_values, kind=r.kind))
    return pairs


def counted(found: bool, scores: Mapping[str, Any], metric: str, lost: Container[str] = ()) -> float | None:
    """A case's value on `metric` as a run is compared with its baseline: the one rule of the
    aggregate gate's pairs (`gate_pairs`), each case's change (`tablebench.gating.regressions`) and
    its per-table verdict (`tablebench.gating.rules`, which fails on the same `lost_scores`).

    The metric's worst value (0; its scale when lower is better: `direction`) when the item was
    not found or failed, and when the run asked for the value and did not get it (`lost`, the
    run's `lost_scores`: too large to score, a judge or metric error, no finite
    number): a table nobody could score is no better known than a lost one, so losing it is a
    regression (include-missing, as the leaderboard ranks), never a table left out of the
    comparison. Else its score; None when it has none that was asked for (a run without
    `--judge`; an `ok` baseline entry without the metric): nothing to compare.
    """
    if not found or metric in lost:
        return direction(metric).worst
    return _finite(scores.get(metric))


def lost_scores(result: Any) -> dict[str, str]:
    """score -> why, for every score a found item (an `ItemResult`) was asked for and has no value
    of: a metric group not computed (`ItemResult.uncomputed_scores`: too large to score), a metric
    that failed (`ItemResult.metric_errors`: the judge's HTTP 400, a metric's error; each score of
    its group), a score that is there but no finite number (NaN; null in a results file).

    Why one place: the gate, each case's change and its verdict must agree on what was lost, and
    a new way to lose a value must reach all three at once. A score that has a value is never
    lost (`--repeat`'s mean keeps one repetition's error beside it)."""
    lost = {**result.uncomputed_scores(), **_errored(result.metric_errors or {}),
            **{score: f"no finite value now ({value!r:.20})" for score, value in result.scores.items()
               if _finite(value) is None}}
    return {score: why for score, why in lost.items() if _finite(result.scores.get(score)) is None}


def _errored(errors: Mapping[str, Any]) -> dict[str, str]:
    """score -> why for each score of each metric in `errors` (`ItemResult.metric_errors`)."""
    return {score: f"{metric} error: {one_line(why, 240)}"
            for metric, why in errors.items() for score in scores_of(str(metric))}


def _finite(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None


