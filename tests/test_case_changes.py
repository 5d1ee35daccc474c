"""Each case against its baseline (`case_changes`): regressed, improved, unchanged or new, and by how much.

The verdict a report shows beside a case's delta: a move counts only beyond the metric's
tolerance (x10 on a 10-point metric), a table lost or found since the baseline counts 0 on its
side, and the tolerance still applies when per-table failures are switched off.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tablebench.core.options import Tolerance
from tablebench.core.results import ItemResult
from tablebench.gating.baseline import Baseline, Entry
from tablebench.gating.regressions import case_changes
from tablebench.gating.rules import Gate


def _result(table: int, outcome: str = "ok", **scores: float) -> ItemResult:
    return ItemResult(parser="p", case_set="s", page="p001", index=table, group="simple", outcome=outcome,
                      scores=scores)


def _baseline(entries: dict[int, Entry]) -> Baseline:
    return Baseline(Path("base.json"), "tablebench-baseline/3",
                    {f"s/p001::t{table}[p]": entry for table, entry in entries.items()})


BASE = _baseline({0: Entry("ok", {"teds": 0.90}), 1: Entry("ok", {"teds": 0.90}), 2: Entry("ok", {"teds": 0.80}),
                  3: Entry("missing", {}), 4: Entry("ok", {"teds": 0.90})})
NOW = [_result(0, teds=0.895), _result(1, teds=0.85), _result(2, teds=0.86), _result(3, teds=0.5),
       _result(4, "missing"), _result(5, teds=0.7)]


def _verdicts(changes: dict[str, dict]) -> list[tuple]:
    return [(c["verdict"], c["baseline"], c["now"], None if c["delta"] is None else round(c["delta"], 6))
            for c in changes.values()]


def test_a_move_counts_only_beyond_the_tolerance_and_a_lost_or_found_table_counts_zero():
    assert _verdicts(case_changes(NOW, Gate(baseline=BASE, tolerance=0.01))) == [
        ("unchanged", 0.90, 0.895, -0.005),  # within 0.01
        ("regressed", 0.90, 0.85, -0.05),
        ("improved", 0.80, 0.86, 0.06),
        ("improved", 0.0, 0.5, 0.5),  # not found in the baseline, found now
        ("regressed", 0.90, 0.0, -0.9),  # found in the baseline, lost now
        ("new", None, 0.7, None),
    ]


def test_the_change_keeps_its_tolerance_when_per_table_failures_are_off():
    """`--baseline-per-table=off`: no case fails on its own, but a drop within the tolerance is
    still no regression in the report's view."""
    changes = case_changes(NOW, Gate(baseline=BASE, tolerance=Tolerance(0.01), per_table=False))
    assert [c["verdict"] for c in changes.values()][:3] == ["unchanged", "regressed", "improved"]
    assert [c["status"] for c in changes.values()][:3] == ["pass", "pass", "pass"]


def test_a_ten_point_metric_moves_against_ten_times_the_tolerance():
    base = _baseline({0: Entry("ok", {"semantic": 8.0}), 1: Entry("ok", {"semantic": 8.0})})
    now = [_result(0, semantic=7.95), _result(1, semantic=7.8)]
    changes = case_changes(now, Gate(baseline=base, tolerance=0.01))
    assert [(c["metric"], c["verdict"]) for c in changes.values()] == [("semantic", "unchanged"),
                                                                        ("semantic", "regressed")]
    assert [c["delta"] for c in changes.values()] == pytest.approx([-0.05, -0.2])
