"""Leaderboard arithmetic against numbers computed by hand from a tiny run."""

from __future__ import annotations

import json

import pytest

from tablebench.core.results import ItemResult
from tablebench.report.aggregate import leaderboard, metric_stats


def _r(parser: str, page: str, table: int, complexity: str, outcome: str, seconds: float,
       cost: float = 0.0, **scores: float) -> ItemResult:
    return ItemResult(parser=parser, case_set="s", page=page, index=table, group=complexity,
                       outcome=outcome, scores=scores, parse_seconds=seconds, cost=cost)


# parser A: 4 tables on 3 pages; p1 took 2 s (its two tables both say so), p2 4 s, p3 3 s.
A = [
    _r("A", "p1", 0, "simple", "ok", 2.0, 0.01, teds=1.0, semantic=10.0),
    _r("A", "p1", 1, "moderate", "ok", 2.0, 0.01, teds=0.5, semantic=6.0),
    _r("A", "p2", 0, "complex", "missing", 4.0, 0.02),
    _r("A", "p3", 0, "simple", "parse_error", 3.0),
]
# parser B: 3 located, one timeout; seconds 1 + 1 + 10 over 3 pages.
B = [
    _r("B", "p1", 0, "simple", "ok", 1.0, teds=0.9, semantic=8.0),
    _r("B", "p1", 1, "moderate", "ok", 1.0, teds=0.7, semantic=8.0),
    _r("B", "p2", 0, "complex", "ok", 1.0, teds=0.2, semantic=4.0),
    _r("B", "p3", 0, "simple", "timeout", 10.0),
]


def test_parser_numbers_match_hand_computation() -> None:
    board = leaderboard(A + B)
    a = next(row for row in board.rows if row.parser == "A")
    assert (a.total, a.found, a.coverage) == (4, 2, 0.5)
    teds = a.overall.metrics["teds"]
    assert teds.include_missing == pytest.approx(1.5 / 4)
    assert teds.exclude_missing == pytest.approx(0.75)
    assert teds.median == pytest.approx(0.75)
    assert teds.perfect_rate == pytest.approx(0.25)
    assert teds.n_values == 2
    sem = a.overall.metrics["semantic"]
    assert (sem.include_missing, sem.exclude_missing, sem.perfect_rate) == (4.0, 8.0, 0.25)  # 10 is perfect
    assert a.pages == 3
    assert a.seconds_per_page == pytest.approx(3.0)  # (2 + 4 + 3) / 3, not (2 + 2 + 4 + 3) / 4
    assert a.cost == pytest.approx(0.03) and a.cost_per_page == pytest.approx(0.01)
    assert a.outcomes == {"ok": 2, "missing": 1, "parse_error": 1, "timeout": 0, "empty": 0, "error": 0}

    b = next(row for row in board.rows if row.parser == "B")
    assert b.overall.metrics["teds"].include_missing == pytest.approx(1.8 / 4)
    assert b.overall.metrics["teds"].exclude_missing == pytest.approx(0.6)
    assert b.overall.metrics["teds"].median == pytest.approx(0.7)
    assert b.overall.metrics["teds"].perfect_rate == 0.0
    assert b.seconds_per_page == pytest.approx(4.0)
    assert b.cost == 0.0


def test_per_complexity_groups() -> None:
    a = next(row for row in leaderboard(A + B).rows if row.parser == "A")
    simple, moderate, complex_ = (a.by_group[c] for c in ("simple", "moderate", "complex"))
    assert (simple.total, simple.found) == (2, 1)
    assert simple.metrics["teds"].include_missing == pytest.approx(0.5)
    assert simple.metrics["teds"].exclude_missing == pytest.approx(1.0)
    assert moderate.metrics["teds"].include_missing == pytest.approx(0.5)
    assert (complex_.total, complex_.found) == (1, 0)
    assert complex_.metrics["teds"].include_missing == 0.0
    assert complex_.metrics["teds"].exclude_missing is None and complex_.metrics["teds"].median is None


def test_ranking_uses_semantic_then_teds_and_breaks_ties_by_name() -> None:
    board = leaderboard(A + B)
    assert board.primary == "semantic"  # present -> default primary
    assert [r.parser for r in board.rows] == ["B", "A"]  # 5.0 vs 4.0 include-missing
    assert [r.rank for r in board.rows] == [1, 2]
    assert board.metrics[:2] == ["semantic", "teds"] and board.scale == {"semantic": 10.0}

    no_semantic = [_r(p, "p1", 0, "simple", "ok", 1.0, teds=0.5) for p in ("zeta", "alpha", "mid")]
    no_semantic.append(_r("best", "p1", 0, "simple", "ok", 1.0, teds=0.9))
    board = leaderboard(no_semantic)
    assert board.primary == "teds"
    assert [r.parser for r in board.rows] == ["best", "alpha", "mid", "zeta"]


def test_include_missing_tie_is_broken_by_exclude_missing() -> None:
    # both sum to 1.0 over 2 tables; C found one table with 1.0, D found two with 0.5
    c = [_r("C", "p1", 0, "simple", "ok", 1, teds=1.0), _r("C", "p1", 1, "simple", "missing", 1)]
    d = [_r("D", "p1", 0, "simple", "ok", 1, teds=0.5), _r("D", "p1", 1, "simple", "ok", 1, teds=0.5)]
    assert [r.parser for r in leaderboard(d + c).rows] == ["C", "D"]


def test_nan_and_absent_scores_count_as_missing_values() -> None:
    rs = [_r("E", "p1", 0, "simple", "ok", 1, teds=float("nan"), tlag=0.4),
          _r("E", "p1", 1, "simple", "ok", 1, teds=0.8, tlag=0.6)]
    stats = leaderboard(rs, primary="tlag").rows[0].overall.metrics
    assert stats["teds"].include_missing == pytest.approx(0.4) and stats["teds"].exclude_missing == 0.8
    assert stats["tlag"].n_values == 2


def test_metric_stats_edges() -> None:
    assert metric_stats([]).include_missing is None
    s = metric_stats([None, None])
    assert (s.include_missing, s.exclude_missing, s.perfect_rate, s.n_values) == (0.0, None, 0.0, 0)
    assert metric_stats([0.2, 0.9, 0.4, None]).median == pytest.approx(0.4)


def test_unknown_primary_is_a_clear_error_and_dict_is_strict_json() -> None:
    with pytest.raises(ValueError, match="primary metric 'grits_con' is in no result"):
        leaderboard(A, primary="grits_con")
    data = leaderboard(A + B).to_dict()
    text = json.dumps(data, allow_nan=False)
    assert json.loads(text)["rows"][0]["coverage"] == 0.75
    assert leaderboard([]).rows == [] and leaderboard([]).primary is None


def test_dicts_and_unlabelled_complexity_are_accepted() -> None:
    rows = [r.to_dict() for r in A]
    rows[0]["group"] = ""
    board = leaderboard(rows)
    assert board.groups == ["simple", "moderate", "complex", "unknown"]
    a = board.rows[0]
    assert (a.by_group["unknown"].total, a.by_group["simple"].total) == (1, 1)
    assert a.overall.metrics["teds"].include_missing == pytest.approx(1.5 / 4)


def test_judge_is_a_headline_metric_on_the_ten_point_scale() -> None:
    rs = [_r("J", "p1", 0, "simple", "ok", 1, teds=1.0, judge=10.0),
          _r("J", "p1", 1, "simple", "ok", 1, teds=1.0, judge=7.0)]
    rs[0].judge_cost = 0.002
    board = leaderboard(rs)
    assert board.primary == "teds" and board.headline == ["judge", "teds"]
    assert board.rows[0].judge_cost == pytest.approx(0.002) and board.rows[0].cost == 0.0
    assert board.scale == {"judge": 10.0}
    assert board.rows[0].overall.metrics["judge"].perfect_rate == 0.5


def test_an_error_case_counts_as_not_found_and_zero_in_the_ranking_mean() -> None:
    """A table the harness could not score stays in every denominator (include-missing = 0)."""
    rs = A + [_r("A", "p4", 0, "complex", "error", 1.0)]
    a = leaderboard(rs).rows[0]
    assert (a.total, a.found, a.outcomes["error"]) == (5, 2, 1)
    assert a.overall.metrics["teds"].include_missing == pytest.approx(1.5 / 5)
    assert a.overall.metrics["teds"].exclude_missing == pytest.approx(0.75)
    assert a.by_group["complex"].total == 2


def test_run_counts_say_tables_and_cases_and_the_cache_share() -> None:
    from tablebench.report.aggregate import cache_summary, run_counts

    assert run_counts(A + B) == {"tables": 4, "parsers": 2, "cases": 8}
    cached = [_r("A", "p1", 0, "simple", "ok", 1.0), _r("A", "p1", 1, "simple", "ok", 1.0),
              _r("A", "p2", 0, "simple", "ok", 1.0), _r("B", "p1", 0, "simple", "ok", 1.0)]
    for r in cached[:3]:
        r.parse_cached = True
    assert cache_summary(cached) == "2 of 3 pages from the cache"
