"""What a results.json holds around its results: the run's facts (`meta`), the leaderboards and
the gate's rows, checked before a reader uses any of them (`check_head`); each result is
checked by `ItemResult.from_dict` against `tablebench.core.results.ROW`.

Why here, beside `ROW`: the facts are written by the pytest plugin (`tablebench.plugin.session`,
its `meta`) and by `report merge`, the gate's rows by `tablebench.gating.aggregate.Comparison.to_dict`,
in three layers; the shapes of what they write sit in one place, below all of them, and the one
reader of results files (`tablebench.report.results_file`) checks against them.
tests/test_results_hostile.py checks that a real run's file holds nothing these shapes do not
name, and that `GATE_ROW` names every field of `Comparison`, so the two cannot drift.
"""

from __future__ import annotations

from typing import Any

from tablebench.core.results import RESULTS_FORMAT, results_format
from tablebench.core.schema import (
    ANY,
    Flag,
    Integer,
    Invalid,
    Items,
    Maybe,
    Number,
    OneOf,
    Record,
    Table,
    Text,
    check,
    shown,
)

FORMAT = Text(len(RESULTS_FORMAT) + 40)
# the run's facts (`meta`), as the plugin's session and `report merge` write them
COMPLETENESS = Record({"expected": Integer(), "finished": Integer(), "complete": Flag(), "missing_count": Integer(),
                       "missing": Items(Text()), "reason": Text(), "crashed": Integer()})
META = Record({
    "timestamp": Text(), "command": Text(), "version": Text(), "case_set": Text(), "case_set_path": Text(),
    "case_set_manifest_sha256": Text(), "case_set_verified": Flag(), "parsers": Items(Text()),
    "parser_specs": Table(Text()), "metrics": Items(Text()), "extra_metrics": Items(Text()), "judge": Text(),
    "tables": Integer(), "formulas": Integer(), "text pages": Integer(),  # each built-in kind's count, by its title
    "cases": Integer(), "parse_cache": Text(), "locator": Text(),
    "parse_timeout": Number(0), "min_scores": Table(Number()), "baseline": Text(), "report_only": Flag(),
    "finished": Text(), "case_set_fingerprint": Text(), "parser_versions": Table(Maybe(Text())),
    "repeat": Integer(1), "completeness": COMPLETENESS, "shard": Text(), "shard_pages": Integer(),
    "gate": Items(Text()), "merged_from": Items(Text()),
})
# one of the gate's rows (`Comparison.to_dict`): every field the dataclass needs, `failed` derived
GATE_VERDICTS = ("regression", "improvement", "no change", "no data")
GATE_ROW = Record({
    "group": Text(), "metric": Text(), "subset": Maybe(Text()), "n": Integer(), "base_mean": Maybe(Number()),
    "run_mean": Maybe(Number()), "diff": Maybe(Number()), "ci_low": Maybe(Number()), "ci_high": Maybe(Number()),
    "p_drop": Maybe(Number(0, 1)), "p_rise": Maybe(Number(0, 1)), "min_effect": Number(0), "alpha": Number(0, 1),
    "verdict": OneOf(GATE_VERDICTS), "gating": Flag(), "run_sd": Maybe(Number()), "notes": Items(Text()),
    "failed": Flag(),
}, required=("group", "metric", "subset", "n", "base_mean", "run_mean", "diff", "ci_low", "ci_high", "p_drop",
             "p_rise", "min_effect", "alpha", "verdict"))
# the document without its results (leaderboards are re-computed by every reader: any bounded JSON)
HEAD = Record({"format": FORMAT, "meta": META, "gate": Items(GATE_ROW), "leaderboard": ANY})


def check_head(data: Any) -> dict:
    """`data` (a parsed results.json) when its head fits `HEAD` and it holds a list of results;
    `Invalid` naming the field otherwise, or a one-line ValueError for a format this version
    cannot read. The results themselves are left to `ItemResult.from_dict`, one at a time."""
    if not isinstance(data, dict):
        raise Invalid("", "not a tablebench results.json (expected an object with a 'results' list)")
    if "results" not in data:
        raise Invalid("results", "missing: not a tablebench results.json")
    if not isinstance(data["results"], list):
        raise Invalid("results", f"{shown(data['results'])}, expected a list: not a tablebench results.json")
    check(HEAD, {k: v for k, v in data.items() if k != "results"})
    try:
        results_format(data)
    except ValueError as exc:
        raise Invalid("format", str(exc)) from None
    return data
