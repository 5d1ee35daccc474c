"""The pass/fail rules the plugin applies: --min-score floors and baseline files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.baseline import (
    baseline_failures,
    load_baseline,
    min_score_failures,
    parse_min_score,
    save_baseline,
)
from harness.results import TableResult


def result(table: int, outcome: str = "ok", **scores: float) -> TableResult:
    return TableResult(parser="pypdf", case_set="s", page="p001", table=table, complexity="simple",
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
    path = save_baseline([result(1, teds=0.5), result(0, "missing")], tmp_path / "sub" / "b.json")
    assert load_baseline(path) == {"s/p001/t0[pypdf]": {}, "s/p001/t1[pypdf]": {"teds": 0.5}}
    assert list(json.loads(path.read_text())["cases"]) == ["s/p001/t0[pypdf]", "s/p001/t1[pypdf]"]
    assert [p.name for p in path.parent.iterdir()] == ["b.json"], "no temp file left behind"
    for text, says in (("{", "not JSON"), ('{"format": "x"}', "not a tablebench-baseline/1 file"),
                       ('{"format": "tablebench-baseline/1", "cases": {"a": {"scores": {"teds": "x"}}}}',
                        "malformed scores")):
        (tmp_path / "bad.json").write_text(text)
        with pytest.raises(ValueError, match=says):
            load_baseline(tmp_path / "bad.json")
    with pytest.raises(ValueError, match="cannot read"):
        load_baseline(tmp_path / "absent.json")
