"""The aggregate gate's statistics: effect and significance together, seeded, per parser and subset."""

from __future__ import annotations

import numpy as np
import pytest

from tablebench.core.options import GateSpec, Tolerance, fraction, parse_gate
from tablebench.core.results import ItemResult
from tablebench.gating.aggregate import (
    Pair,
    baseline_values,
    bootstrap_ci,
    evaluate,
    gate_pairs,
    paired_statistics,
    sign_flip_p,
    summary_lines,
)
from tablebench.gating.baseline import Entry


def test_a_small_drop_on_every_table_is_a_regression_and_the_same_rise_an_improvement():
    rng = np.random.default_rng(0)
    base = rng.uniform(0.6, 1.0, 40)
    drop = paired_statistics(base, base - 0.008, min_effect=0.005)
    assert drop["verdict"] == "regression" and drop["diff"] == pytest.approx(-0.008)
    assert drop["p_drop"] < 0.001 and drop["p_rise"] == 1.0
    assert drop["ci_low"] == pytest.approx(-0.008) and drop["ci_high"] == pytest.approx(-0.008)
    rise = paired_statistics(base, base + 0.008, min_effect=0.005)
    assert rise["verdict"] == "improvement" and rise["p_rise"] < 0.001


def test_a_significant_drop_below_the_minimum_effect_passes_and_so_does_a_big_insignificant_one():
    base = np.full(40, 0.9)
    assert paired_statistics(base, base - 0.004, min_effect=0.005)["verdict"] == "no change"
    few = paired_statistics([0.9, 0.9, 0.9], [0.5, 0.9, 0.9], min_effect=0.01)  # -0.13 mean, one table: not significant
    assert few["diff"] < -0.1 and few["p_drop"] > 0.05 and few["verdict"] == "no change"


def test_exact_sign_flip_p_values_for_few_tables():
    # all five differences negative: 1 of 2^5 sign patterns is as extreme
    p_drop, p_rise = sign_flip_p(np.array([-0.1, -0.2, -0.1, -0.3, -0.1]))
    assert p_drop == pytest.approx(1 / 32) and p_rise == pytest.approx(1.0)
    assert sign_flip_p(np.zeros(7)) == (1.0, 1.0)


@pytest.mark.parametrize("n", [5, 9, 13, 60, 441])
def test_sign_flip_p_values_agree_with_scipy_permutation_test(n):
    from scipy.stats import permutation_test

    d = np.random.default_rng(n).normal(-0.004, 0.03, n)
    ours = sign_flip_p(d, seed=1)
    for alternative, p in zip(("less", "greater"), ours):
        ref = permutation_test((d,), lambda x, axis=-1: np.mean(x, axis=axis), permutation_type="samples",
                               vectorized=True, n_resamples=9_999, alternative=alternative,
                               rng=np.random.default_rng(2)).pvalue
        if 2**n <= 9_999:
            assert p == pytest.approx(ref, abs=1e-12), "exact enumeration: identical"
        else:
            assert p == pytest.approx(ref, abs=0.012), "sampled: within Monte Carlo error"


def test_no_paired_table_is_no_data_and_fails():
    stats = paired_statistics([], [])
    assert stats["verdict"] == "no data" and stats["n"] == 0
    (row,) = evaluate([], [GateSpec("teds")])
    assert row.failed and "no table is scored in both" in row.line()


def test_bootstrap_is_seeded_and_covers_the_mean():
    d = np.random.default_rng(3).normal(-0.01, 0.05, 200)
    assert bootstrap_ci(d, 0.05, seed=1) == bootstrap_ci(d, 0.05, seed=1)
    low, high = bootstrap_ci(d, 0.05, seed=1)
    assert low < d.mean() < high and high - low < 0.03


@pytest.mark.parametrize("alpha", [0.05, 0.10])
def test_the_bootstrap_interval_of_a_normal_samples_mean_is_the_textbook_one(alpha):
    """400 normal differences: the percentile bootstrap of the mean gives mean -/+ z(1 - alpha/2)
    s / sqrt(n), two-sided, to within a tenth of a standard error (10,000 seeded resamples)."""
    from scipy.stats import norm

    d = np.random.default_rng(4).normal(-0.01, 0.05, 400)
    half = norm.ppf(1 - alpha / 2) * d.std() / np.sqrt(d.size)
    low, high = bootstrap_ci(d, alpha, seed=1)
    assert low == pytest.approx(d.mean() - half, abs=0.1 * d.std() / np.sqrt(d.size))
    assert high == pytest.approx(d.mean() + half, abs=0.1 * d.std() / np.sqrt(d.size))


def test_false_alarms_stay_near_alpha_under_pure_noise():
    """Calibration: runs that differ from the baseline by noise alone fail at most ~alpha of the time."""
    rng = np.random.default_rng(7)
    base = rng.uniform(0.2, 0.8, 60)  # away from 0 and 1: clipping would bias the noise
    fails = sum(paired_statistics(base, base + rng.normal(0, 0.05, 60), min_effect=0.0, alpha=0.05,
                        seed=i, n_boot=200, n_perm=999)["verdict"] == "regression" for i in range(200))
    assert fails <= 20, f"{fails}/200 false regressions at alpha 0.05"


def test_min_effect_is_scaled_for_ten_point_metrics():
    pairs = [Pair(f"k{i}", "p", {"group": "simple"}, {"semantic": 8.0, "teds": 0.8},
                  {"semantic": 7.95, "teds": 0.795}) for i in range(30)]
    rows = evaluate(pairs, [GateSpec("semantic"), GateSpec("teds")], min_effect=0.01, scale={"semantic": 10.0})
    gating = {r.metric: r for r in rows if r.gating}
    assert gating["semantic"].min_effect == pytest.approx(0.1) and gating["semantic"].verdict == "no change"
    assert gating["teds"].verdict == "no change"  # -0.005 < 0.01
    rows = evaluate(pairs, [GateSpec("semantic")], min_effect=0.001, scale={"semantic": 10.0})
    assert [r.verdict for r in rows if r.gating] == ["regression"]


def test_gates_run_per_parser_with_a_per_group_breakdown_and_subsets():
    pairs = []
    for i in range(24):
        level = ("simple", "complex")[i % 2]
        pairs.append(Pair(f"a{i}", "a", {"group": level, "language": "de"}, {"teds": 0.9},
                          {"teds": 0.8 if level == "complex" else 0.9}))
        pairs.append(Pair(f"b{i}", "b", {"group": level}, {"teds": 0.9}, {"teds": 0.9}))
    rows = evaluate(pairs, [GateSpec("teds")], min_effect=0.01)
    assert [(r.group, r.subset, r.gating, r.verdict) for r in rows] == [
        ("a", None, True, "regression"), ("a", "simple", False, "no change"), ("a", "complex", False, "regression"),
        ("b", None, True, "no change"), ("b", "simple", False, "no change"), ("b", "complex", False, "no change")]
    assert [r.failed for r in rows] == [True, False, False, False, False, False], "breakdown rows never fail"
    simple = evaluate(pairs, [parse_gate("teds:simple")])
    assert [(r.group, r.n, r.verdict) for r in simple] == [("a", 12, "no change"), ("b", 12, "no change")]
    german = evaluate(pairs, [parse_gate("teds:language=de")])
    assert [(r.group, r.n) for r in german] == [("a", 24), ("b", 0)]
    mixed = pairs + [Pair("c0", "a", {"group": "simple", "language": "fr"}, {"teds": 0.9}, {"teds": 0.9})]
    labels = [r.label for r in evaluate(mixed, [GateSpec("teds")]) if r.group == "a"]
    assert labels == ["teds", "teds:simple", "teds:complex", "teds:language=de", "teds:language=fr"]
    lines = summary_lines(rows)
    assert lines[0].startswith("REGRESSION: teds [a]: 0.900 -> 0.850, mean diff -0.050")
    assert any(ln.startswith("  regression (not gated): teds:complex [a]") for ln in lines[2:])
    unpaired = evaluate(pairs, [GateSpec("teds")], groups=["a", "b", "c"], breakdown=False)
    assert [(r.group, r.verdict, r.failed) for r in unpaired][-1] == ("c", "no data", True), "no silent pass"


def test_pairs_count_lost_tables_as_zero_and_skip_cases_the_baseline_lacks():
    def result(i: int, outcome: str = "ok", **scores: float) -> ItemResult:
        return ItemResult(parser="p", case_set="s", page="p001", index=i, group="simple", outcome=outcome,
                           scores=scores)

    baseline = {"s/p001::t0[p]": Entry("ok", {"teds": 0.9}), "s/p001::t1[p]": Entry("missing", {}),
                "s/p001::t2[p]": Entry("ok", {"teds": 0.7})}

    class Base:
        def get(self, key: str) -> Entry | None:
            return baseline.get(key)

    results = [result(0, "missing"), result(1, teds=0.8), result(2, teds=0.75), result(3, teds=1.0)]
    pairs = gate_pairs(results, lambda r: baseline_values(Base(), r))
    assert [(p.key, p.base["teds"], p.run["teds"]) for p in pairs] == [
        ("s/p001::t0[p]", 0.9, 0.0), ("s/p001::t1[p]", 0.0, 0.8), ("s/p001::t2[p]", 0.7, 0.75)]


def test_an_ok_baseline_entry_without_scores_is_no_baseline_not_zero():
    """Entries `ok` with no scores (a baseline saved before the metric existed, or edited): no pair
    on that metric, so the gate says "no data", never an improvement from 0."""
    baseline = {f"s/p001::t{i}[p]": Entry("ok", {}) for i in range(30)}

    class Base:
        def get(self, key: str) -> Entry | None:
            return baseline.get(key)

    results = [ItemResult(parser="p", case_set="s", page="p001", index=i, group="simple", outcome="ok",
                          scores={"teds": 0.9}) for i in range(30)]
    pairs = gate_pairs(results, lambda r: baseline_values(Base(), r))
    assert {p.base["teds"] for p in pairs} == {None}
    rows = evaluate(pairs, [GateSpec("teds")], breakdown=False)
    assert [(r.verdict, r.n) for r in rows] == [("no data", 0)]


@pytest.mark.parametrize("text", ["", ":complex", "teds:", "teds:=x", "teds:lang="])
def test_bad_gate_specs_are_one_line_errors(text):
    with pytest.raises(ValueError, match="expected METRIC"):
        parse_gate(text)


@pytest.mark.parametrize("text", ["nan", "inf", "-0.1", "x", "2"])
def test_non_finite_negative_or_too_large_numbers_are_refused(text):
    with pytest.raises(ValueError, match="--gate-alpha must be a finite number > 0 and <= 0.5"):
        fraction("--gate-alpha", text, upper=0.5, positive=True)
    assert fraction("--gate-min-effect", "0", upper=1.0) == 0.0


def test_a_significant_drop_below_the_minimum_effect_is_said_so_not_no_change():
    from tablebench.gating.aggregate import Comparison

    base = np.full(40, 0.9)
    small = Comparison(group="p", metric="teds", subset=None, min_effect=0.005, alpha=0.05,
                       **paired_statistics(base, base - 0.004, min_effect=0.005))
    assert small.verdict == "no change" and not small.failed  # the gate passes...
    assert small.line().startswith("significant but below minimum effect: teds [p]: 0.900 -> 0.896")  # ...and says why
    noise = Comparison(group="p", metric="teds", subset=None, min_effect=0.01, alpha=0.05,
                       **paired_statistics([0.9, 0.9, 0.9], [0.5, 0.9, 0.9], min_effect=0.01))
    assert noise.line().startswith("no change: teds [p]")


def test_a_score_not_computed_now_counts_zero_only_against_a_baseline_that_scored_it():
    why = "not computed: table too large (300000 characters > 200000)"
    baseline = {"s/p001::t0[p]": Entry("ok", {"teds": 0.9, "grits_con": 0.8}), "s/p001::t1[p]": Entry("ok", {})}

    class Base:
        def get(self, key: str) -> Entry | None:
            return baseline.get(key)

    results = [ItemResult(parser="p", case_set="s", page="p001", index=i, group="simple", outcome="ok",
                          not_computed={"teds": why, "grits": why}) for i in (0, 1)]
    assert results[0].uncomputed_scores()["grits_precision_top"] == why
    pairs = gate_pairs(results, lambda r: baseline_values(Base(), r))
    assert [(p.base.get("teds"), p.run.get("teds"), p.run.get("grits_con")) for p in pairs] == \
        [(0.9, 0.0, 0.0), (None, None, None)]
    assert [(r.verdict, r.n, r.run_mean) for r in evaluate(pairs, [GateSpec("teds")], breakdown=False)] == \
        [("no change", 1, 0.0)]  # one table: paired, counted 0, too few to be significant

    from tablebench.gating.rules import Gate

    verdicts = [Gate(baseline=Base()).check(r) for r in results]  # type: ignore[arg-type]
    assert (verdicts[0].status, verdicts[1].status) == ("fail", "pass")
    assert verdicts[0].reasons == [f"teds, grits_con scored in the baseline, {why}"]
    per_table_off = Gate(baseline=Base(), tolerance=Tolerance(0.01), per_table=False)  # type: ignore[arg-type]
    assert per_table_off.check(results[0]).status == "pass", "--baseline-per-table=off: only --gate decides"


def test_a_table_lost_with_a_crashed_worker_is_never_a_known_failure():
    from tablebench.gating.rules import Gate

    class Base:
        def get(self, key: str) -> Entry | None:
            return Entry("error", {})  # an old baseline saved with the crashed page's errors

    def result(message: str) -> ItemResult:
        return ItemResult(parser="p", case_set="s", page="p001", index=0, group="simple", outcome="error",
                          message=message)

    gate = Gate(baseline=Base())  # type: ignore[arg-type]
    assert gate.check(result("error: worker crashed (xdist worker gw1 lost)")).status == "fail"
    assert gate.check(result("error: ground truth unreadable (NoTableError)")).status == "known"


def test_a_run_of_documents_is_gated_per_page_break_and_selects_its_broken_tables():
    """`--gate=semantic:page_break=broken` gates the tables broken across pages alone; without a
    subset, broken and single-page are rows of their own (not gating), as languages are."""
    def result(i: int, pages: list[int], semantic: float) -> ItemResult:
        return ItemResult(parser="p", case_set="docs", page=f"p{i:03d}", index=0, group="simple", outcome="ok",
                          scores={"semantic": semantic}, pages=pages, pdf_pages=3)

    results = [result(i, [1, 2] if i % 2 else [2, 2], 5.0 if i % 2 else 9.0) for i in range(20)]
    pairs = gate_pairs(results, lambda r: {"semantic": 9.0})
    rows = evaluate(pairs, [GateSpec("semantic")], min_effect=0.01, scale={"semantic": 10.0})
    assert [(r.label, r.gating, r.n) for r in rows] == [
        ("semantic", True, 20), ("semantic:simple", False, 20), ("semantic:page_break=broken", False, 10),
        ("semantic:page_break=single-page", False, 10)]
    broken = evaluate(pairs, [parse_gate("semantic:page_break=broken")], min_effect=0.01, scale={"semantic": 10.0})
    assert [(r.n, r.verdict) for r in broken] == [(10, "regression")]
    one_page = gate_pairs([result(0, [1, 1], 9.0), result(1, [1, 1], 9.0)], lambda r: {"semantic": 9.0})
    assert [r.label for r in evaluate(one_page, [GateSpec("semantic")])] == ["semantic", "semantic:simple"]


def test_a_subset_selects_on_the_case_s_fields_and_on_a_hook_s_annotations_but_no_annotation_hides_a_field():
    """`--gate=teds:reviewed_by=nobody` selects what a hook marked; a hook's `language` in `extra`
    does not rename the case's language; the project's own facts (fields) are no subset keys."""
    def result(i: int, language: str, extra: dict) -> ItemResult:
        return ItemResult(parser="p", case_set="s", page="p001", index=i, group="simple", outcome="ok",
                          scores={"teds": 0.5}, language=language, parse_cached=True, extra=extra)

    results = [result(0, "de", {"reviewed_by": "nobody", "language": "fr"}), result(1, "en", {"reviewed_by": "ann"})]
    pairs = gate_pairs(results, lambda r: {"teds": 0.9})
    assert [p.attrs["language"] for p in pairs] == ["de", "en"]
    assert [p.attrs["reviewed_by"] for p in pairs] == ["nobody", "ann"] and "parse_cached" not in pairs[0].attrs
    assert [p.key for p in pairs if GateSpec("teds", "reviewed_by=nobody").selects(p.attrs)] == ["s/p001::t0[p]"]
    assert [p.key for p in pairs if GateSpec("teds", "language=fr").selects(p.attrs)] == []
