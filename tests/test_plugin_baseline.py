"""The pass/fail rules the plugin applies: --min-score floors and baseline files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tablebench.core.options import number
from tablebench.core.results import ItemResult
from tablebench.gating.baseline import Entry, save_baseline
from tablebench.report.results_file import load_baseline
from tablebench.gating.options import read_options
from tablebench.gating.rules import Verdict
from tablebench.gating.thresholds import baseline_failures, min_score_failures, parse_min_score


def result(table: int, outcome: str = "ok", **scores: float) -> ItemResult:
    return ItemResult(parser="pypdf", case_set="s", page="p001", index=table, group="simple",
                       outcome=outcome, scores=scores)


@pytest.mark.parametrize("text, says", [("teds", "expected METRIC=VALUE"), ("=0.5", "expected METRIC=VALUE"),
                                        ("teds=high", "expected METRIC=VALUE"), ("teds=1.5", "teds is on 0-1"),
                                        ("semantic=11", "semantic is on 0-10")])
def test_bad_min_scores_are_rejected_in_one_line(text, says):
    with pytest.raises(ValueError, match=says):
        parse_min_score(text)


def test_min_score_messages_name_metric_value_and_floor():
    floors = dict(map(parse_min_score, ["teds=0.8", "semantic=7", "grits_con=0.5"]))
    assert floors == {"teds": 0.8, "semantic": 7.0, "grits_con": 0.5}
    assert min_score_failures({"teds": 0.62, "semantic": 7.0, "grits_con": 0.9}, floors) == ["teds 0.62 < min 0.80"]
    assert min_score_failures({"teds": 0.7999}, {"teds": 0.8}) == ["teds 0.7999 < min 0.8000"]
    assert min_score_failures({"teds": 0.9}, {"tlag": 0.5}) == ["tlag not computed (scores: teds)"]


def test_baseline_tolerance_is_scaled_for_ten_point_metrics():
    base = {"grits_con": 0.85, "semantic": 8.0, "teds": 0.9}
    now = {"grits_con": 0.71, "semantic": 7.95, "teds": 0.895}
    assert baseline_failures(now, base, 0.01) == ["grits_con 0.71 < baseline 0.85 - 0.01"]
    assert baseline_failures({"semantic": 7.8}, base, 0.01) == ["semantic 7.80 < baseline 8.00 - 0.1"]
    assert baseline_failures({}, base, 0.0) == []  # a score not computed now is not a regression


def test_baseline_round_trip_and_bad_files(tmp_path: Path):
    path = save_baseline([result(1, teds=0.5), result(0, "missing")], tmp_path / "sub" / "b.json",
                         parsers={"pypdf": {"spec": "pypdf", "version": "5.1"}},
                         case_set={"name": "s", "manifest_sha256": "ab" * 32}, metrics=["teds"])
    base = load_baseline(path)
    assert base.cases == {"s/p001::t0[pypdf]": Entry("missing", {}), "s/p001::t1[pypdf]": Entry("ok", {"teds": 0.5})}
    assert base.parsers == {"pypdf": {"spec": "pypdf", "version": "5.1"}} and base.metrics == ["teds"]
    assert base.case_set["manifest_sha256"] == "ab" * 32 and base.format == "tablebench-baseline/3"
    assert list(json.loads(path.read_text())["cases"]) == ["s/p001::t0[pypdf]", "s/p001::t1[pypdf]"]
    assert [p.name for p in path.parent.iterdir()] == ["b.json"], "no temp file left behind"
    for text, says in (("{", "not JSON"), ('{"format": "x"}', "not a tablebench-baseline/3 file"),
                       ('{"format": "tablebench-baseline/2", "cases": {"a": {"scores": {"teds": "x"}}}}',
                        'cases.a.scores.teds: "x", expected a number from -1 to 1'),
                       ('{"format": "tablebench-baseline/2", "cases": {"a": {"scores": {"teds": NaN}}}}',
                        "cases.a.scores.teds: NaN, expected a number")):
        (tmp_path / "bad.json").write_text(text)
        with pytest.raises(ValueError, match=says):
            load_baseline(tmp_path / "bad.json")
    with pytest.raises(ValueError, match="cannot read"):
        load_baseline(tmp_path / "absent.json")


def test_a_format_1_baseline_is_read_with_its_keys_relabelled(tmp_path: Path):
    """Old files were keyed by the raw spec: `dir:/x/` now has the label `dir:/x`, and still matches."""
    old = {"format": "tablebench-baseline/1", "created": "2026-01-01T00:00:00+00:00",
           "cases": {"s/p001/t0[dir:/x/]": {"outcome": "ok", "scores": {"teds": 0.9}},
                     "s/p001/t1[pypdf]": {"outcome": "missing", "scores": {}}}}
    (tmp_path / "v1.json").write_text(json.dumps(old))
    base = load_baseline(tmp_path / "v1.json")
    assert base.cases == {"s/p001::t0[dir:/x]": Entry("ok", {"teds": 0.9}), "s/p001::t1[pypdf]": Entry("missing", {})}
    assert base.matched(["s/p001::t0[dir:/x]", "s/p001::t9[dir:/x]"]) == 1 and base.labels() == ["dir:/x", "pypdf"]


def test_a_format_2_baseline_is_read_with_its_ids_in_the_current_form(tmp_path: Path):
    """Format 2 keyed cases `set/page/tN[label]`; they match this run's ids `set/page::tN[label]`."""
    old = {"format": "tablebench-baseline/2", "cases": {"s/p001/t0[dir:/x/y]": {"outcome": "ok", "scores": {}},
                                                          "s/p001/f2[pypdf]": {"outcome": "missing", "scores": {}}}}
    (tmp_path / "v2.json").write_text(json.dumps(old))
    assert list(load_baseline(tmp_path / "v2.json").cases) == ["s/p001::t0[dir:/x/y]", "s/p001::f2[pypdf]"]


def test_a_baseline_entry_written_without_an_outcome_is_a_found_table(tmp_path: Path):
    """A hand-written baseline of scores: its entries gate as found tables, so a loss now fails
    (a missing one would make that loss a known failure)."""
    from tablebench.gating.rules import Gate

    (tmp_path / "b.json").write_text('{"format": "tablebench-baseline/3", "cases": '
                                     '{"s/p001::t0[pypdf]": {"scores": {"teds": 0.9}}}}')
    base = load_baseline(tmp_path / "b.json")
    assert base.cases == {"s/p001::t0[pypdf]": Entry("ok", {"teds": 0.9})}
    assert Gate(baseline=base).check(result(0, "missing")).status == "fail"


@pytest.mark.parametrize("text, says", [("nan", "finite"), ("inf", "finite"), ("-inf", "finite"), ("-0.1", ">= 0"),
                                        ("abc", "expected a number"), ("2", "<= 1")])
def test_tolerance_numbers_are_checked_at_the_door(text, says):
    with pytest.raises(ValueError, match=says):
        number("--baseline-tolerance", text, upper=1.0)


@pytest.mark.parametrize("text", ["0", "-3", "nan", "inf"])
def test_timeouts_must_be_finite_and_positive(text):
    with pytest.raises(ValueError, match="--parse-timeout"):
        number("--parse-timeout", text, positive=True)
    assert number("--parse-timeout", "2.5", positive=True) == 2.5


@pytest.mark.parametrize("text", ["teds=nan", "teds=inf", "semantic=-1"])
def test_min_score_rejects_non_finite_and_negative_floors(text):
    with pytest.raises(ValueError, match="--min-score"):
        parse_min_score(text)


def test_gate_verdicts(tmp_path: Path):
    from tablebench.gating.rules import Gate

    path = save_baseline([result(0, teds=0.9), result(1, "missing"), result(2, teds=0.8)], tmp_path / "b.json")
    gate = Gate({"teds": 0.5}, load_baseline(path), 0.01)
    assert gate.check(result(0, teds=0.9)).status == "pass"
    regressed = result(0, teds=0.7)
    regressed.errors = ["value 3 under (a, b) read as 8", "row 2 missing", "x", "y"]
    verdict = gate.check(regressed)
    assert verdict.status == "fail"
    assert verdict.message == ("teds 0.70 < baseline 0.90 - 0.01; semantic errors: value 3 under (a, b) read as 8; "
                               "row 2 missing; x")
    known = result(1, "missing")
    known.message = "not found in parser output: no candidate"
    assert gate.check(known) == Verdict("known", ["known failure (missing in the baseline): "
                                                  "not found in parser output: no candidate"])
    lost = result(2, "error")
    lost.message = "error: scoring failed (ValueError: x)"
    assert gate.check(lost) == Verdict("fail", ["error: scoring failed (ValueError: x)"]), "ok before: a regression"
    assert gate.check(result(3, teds=0.2)).message == "teds 0.20 < min 0.50", "no baseline entry: floors only"
    assert Gate({"teds": 0.5}, report_only=True).check(result(3, "missing")).status == "pass"


def test_a_baseline_that_matches_nothing_is_refused_and_partial_matches_are_told(tmp_path: Path):
    from tablebench.gating.rules import baseline_notes

    path = save_baseline([result(0, teds=0.9), result(1, teds=0.5)], tmp_path / "b.json",
                         parsers={"pypdf": {"spec": "pypdf", "version": "5.1"}},
                         case_set={"name": "s", "manifest_sha256": "aa"}, metrics=["teds", "grits"])
    base = load_baseline(path)
    facts = {"parsers": {"pypdf": {"spec": "pypdf", "version": "5.2"}},
             "case_set": {"name": "s", "manifest_sha256": "aa"}, "metrics": ["teds"]}
    with pytest.raises(ValueError, match=r"none of its 2 entries match this run's 1 cases \(baseline parsers: pypdf; "
                                         r"this run: pypdf\); name a parser"):
        baseline_notes(base, ["s/p001::t0[other]"], **facts)
    notes = baseline_notes(base, ["s/p001::t0[pypdf]", "s/p001::t7[pypdf]"], **facts)
    assert notes[0].endswith("1 of 2 entries match this run's 2 cases")
    assert not any("case-set version" in n for n in notes)
    assert any("parser pypdf was version 5.1, now 5.2" in n for n in notes)
    assert any("metrics grits are in the baseline but not computed now" in n for n in notes)


def test_a_baseline_of_another_case_set_version_is_refused_in_one_line(tmp_path: Path):
    from tablebench.gating.rules import baseline_notes

    path = save_baseline([result(0, teds=0.9)], tmp_path / "b.json", case_set={"name": "s", "manifest_sha256": "a1" * 32})
    facts = {"parsers": {}, "metrics": ["teds"], "case_set": {"name": "s", "manifest_sha256": "b2" * 32}}
    with pytest.raises(ValueError) as refused:
        baseline_notes(load_baseline(path), ["s/p001::t0[pypdf]"], **facts)
    assert "\n" not in str(refused.value)
    assert str(refused.value) == (f"baseline {path}: measured on case set s version a1a1a1a1a1a1, this run's s is "
                                  "version b2b2b2b2b2b2 (its ground truth differs, so the cases do not compare): "
                                  "save a new baseline on this version with --save-baseline")
    old = save_baseline([result(0, teds=0.9)], tmp_path / "old.json")  # a file that records no version
    notes = baseline_notes(load_baseline(old), ["s/p001::t0[pypdf]"], **facts)
    assert any("records no case-set version" in n for n in notes)


def test_a_baseline_scored_by_another_tablebench_version_says_scores_may_move_for_that(tmp_path: Path):
    """A release may score the same output otherwise (a reading rule, refitted weights): a baseline
    saved by another version says so, so a moved score is not read as the parser's change alone."""
    from tablebench import __version__
    from tablebench.gating.rules import baseline_notes

    path = save_baseline([result(0, teds=0.9)], tmp_path / "b.json", case_set={"name": "s", "manifest_sha256": "aa"})
    facts = {"parsers": {}, "metrics": ["teds"], "case_set": {"name": "s", "manifest_sha256": "aa"}}
    assert not any("scored by tablebench" in n for n in baseline_notes(load_baseline(path), ["s/p001::t0[pypdf]"],
                                                                        **facts))
    data = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**data, "tablebench": "0.0.9"}), encoding="utf-8")
    notes = baseline_notes(load_baseline(path), ["s/p001::t0[pypdf]"], **facts)
    assert any(f"scored by tablebench 0.0.9, this run by {__version__}: a score that moved may be the metric's "
               "change" in n for n in notes)


def test_a_baseline_scored_by_other_code_of_the_same_version_says_scores_may_move_for_that(tmp_path: Path):
    """Between releases the version stays while rules and weights change: the code digest the
    baseline records tells that build apart, and the run says so (an older file records none)."""
    from tablebench.gating.rules import baseline_notes

    path = save_baseline([result(0, teds=0.9)], tmp_path / "b.json", case_set={"name": "s", "manifest_sha256": "aa"})
    facts = {"parsers": {}, "metrics": ["teds"], "case_set": {"name": "s", "manifest_sha256": "aa"}}
    data = json.loads(path.read_text(encoding="utf-8"))
    assert len(data["tablebench_code"]) == 64
    assert not any("another build" in n for n in baseline_notes(load_baseline(path), ["s/p001::t0[pypdf]"], **facts))
    path.write_text(json.dumps({**data, "tablebench_code": "0" * 64}), encoding="utf-8")
    notes = baseline_notes(load_baseline(path), ["s/p001::t0[pypdf]"], **facts)
    assert any("scored by another build of tablebench" in n and "(its code differs)" in n for n in notes)
    del data["tablebench_code"]
    path.write_text(json.dumps(data), encoding="utf-8")
    assert not any("another build" in n for n in baseline_notes(load_baseline(path), ["s/p001::t0[pypdf]"], **facts))


def test_tolerances_per_metric_absolute_or_relative_headline_metrics_by_default():
    from tablebench.gating.thresholds import parse_tolerance

    base = {"teds": 0.9, "semantic": 8.0, "grits_con": 0.9, "tlag_precision": 0.9}
    now = {"teds": 0.87, "semantic": 7.6, "grits_con": 0.9, "tlag_precision": 0.1}
    # a bare number keeps its meaning (0-1 scale, x10 for semantic) on the headline metrics only
    assert baseline_failures(now, base, parse_tolerance("0.01")) == ["teds 0.87 < baseline 0.90 - 0.01",
                                                                      "semantic 7.60 < baseline 8.00 - 0.1"]
    # per metric: absolute on the metric's own scale, or relative to the baseline score
    assert baseline_failures(now, base, parse_tolerance("semantic=0.5,teds=4%")) == []
    assert baseline_failures(now, base, parse_tolerance("semantic=0.3,teds=1%")) == [
        "teds 0.87 < baseline 0.90 - 1% (0.009)", "semantic 7.60 < baseline 8.00 - 0.3"]
    assert baseline_failures(now, base, parse_tolerance("5%")) == []  # 5% of 8.0 is 0.4
    # a sub-metric is checked only when named
    assert baseline_failures(now, base, parse_tolerance("1,tlag_precision=0.5")) == [
        "tlag_precision 0.10 < baseline 0.90 - 0.5"]
    options = read_options({"tolerance": "semantic=0.5,teds=2%"})
    assert dict(options.tolerance.named) == {"semantic": (0.5, False), "teds": (0.02, True)}
    assert options.tolerance.default == 0.01  # the headline metrics not named keep the default


@pytest.mark.parametrize("text, says", [
    ("teds=x", "--baseline-tolerance teds=x: expected a number"),
    ("=0.1", "expected METRIC=X, METRIC=X% or a bare X"),
    ("teds=150%", "must be <= 100"),
    ("semantic=11", "must be <= 10"),
    ("0.1,0.2", "give one bare value"),
])
def test_bad_tolerances_are_one_line_errors(text, says):
    with pytest.raises(ValueError, match=re.escape(says)):
        read_options({"tolerance": text})


@pytest.mark.parametrize("outcome", ['"bogus"', '"OK"', "3", "null", '["missing"]'])
def test_a_baseline_entry_with_an_unknown_outcome_is_refused_not_a_known_failure(tmp_path: Path, outcome: str):
    (tmp_path / "b.json").write_text('{"format": "tablebench-baseline/3", "cases": {"s/p001::t0[a]": '
                                     f'{{"outcome": {outcome}, "scores": {{}}}}}}}}')
    with pytest.raises(ValueError, match=r'^baseline .*b\.json: cases\["s/p001::t0\[a\]"\]\.outcome: .*, expected one of ok, '):
        load_baseline(tmp_path / "b.json")
