"""A table scored in the baseline and not in the run counts as lost, for every gated metric.

Why: a judge that cannot score a table (HTTP 400, context length) left it out of the judge gate, so
a parser that blew tables up compared on the tables it did not break and passed ("no change").
Whatever took the value away (a judge error, a metric error, a table too large to score, a parse
failure), the table counts 0 against its baseline, in the aggregate gate and per table, as
`tablebench.gating.aggregate.counted` decides. The end-to-end test runs the real plugin against a
real OpenAI-compatible server on 127.0.0.1 (tests/llm_server.py), through litellm.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from tablebench.cli import main
from tablebench.core.metric_specs import JUDGE
from tablebench.core.results import ItemResult
from tablebench.gating.aggregate import baseline_values, counted, evaluate, gate_pairs, lost_scores
from tablebench.gating.baseline import Entry
from tablebench.gating.regressions import case_changes
from tablebench.gating.rules import Gate
from tests.ci_cases import case_set, write_pages
from tests.llm_server import LLMServer, Reply
from tests.test_plugin_ci import args

pytest_plugins = ["pytester"]
MARK = "BLOWN"  # in the last cell of each table the parser blew up; the judge server refuses those tables
CONTEXT_LENGTH = "This model's maximum context length is 8192 tokens. However, your messages resulted in 91234 tokens."
_CELL = re.compile(r"(<t[dh][^>]*>)([^<]+)(</t[dh]>)")


def blow_up(page: str, index: int, html: str) -> str:
    """Every odd table (6 of the 12 of two pages) with a wall of text in its last cell: still found, too
    long for the judge."""
    if index % 2 == 0:
        return html
    last = list(_CELL.finditer(html))[-1]
    return html[:last.end(2)] + f" {MARK}" * 30 + html[last.end(2):]


def judge_server(body: dict) -> Reply:
    """A judge: 9 for every table it can read, HTTP 400 (context length) for a blown-up one."""
    if MARK in json.dumps(body):
        return Reply(400, CONTEXT_LENGTH)
    return Reply(content=json.dumps({"errors": [], "score": 9}))


def test_judge_errors_on_the_regressed_tables_fail_the_judge_gate(pytester: pytest.Pytester, tmp_path: Path, capsys):
    """Issue 46, finding 2: the baseline's 12 tables judged 9; the run blows up 6 of them and the judge
    answers HTTP 400 for those. Before the fix the gate compared the other six ("n=6 tables",
    9.000 -> 9.000, "no change") and the run passed; now all 12 compare, the six count 0, exit 1."""
    cases = case_set(tmp_path / "cases", 2)
    exact, blown = write_pages(tmp_path / "exact", cases), write_pages(tmp_path / "blown", cases, blow_up)
    base = tmp_path / "base.json"
    with LLMServer(judge_server) as server:
        judged = ["--judge=openai/tiny-judge", f"--llm-api-base={server.api_base}"]
        # each run in a process of its own: see tests/test_plugin_judge.py (litellm's imports)
        saved = pytester.runpytest_subprocess(*args(cases, tmp_path, f"--parser=mine=dir:{exact}", *judged,
                                                    f"--save-baseline={base}", f"--report-dir={tmp_path / 'r0'}"))
        assert saved.ret == 0, saved.stdout.str()
        entries = json.loads(base.read_text())["cases"]
        assert len(entries) == 12 and {e["scores"][JUDGE] for e in entries.values()} == {9.0}
        run = pytester.runpytest_subprocess(*args(cases, tmp_path, f"--parser=mine=dir:{blown}", *judged,
                                                  f"--baseline={base}", "--gate=judge", "--baseline-per-table=off",
                                                  f"--report-dir={tmp_path / 'r1'}"))
    results = json.loads((tmp_path / "r1" / "results.json").read_text())["results"]
    refused = [r for r in results if JUDGE in r["metric_errors"]]
    assert len(refused) == 6 and all(r["outcome"] == "ok" and JUDGE not in r["scores"] for r in refused)
    assert all("context length" in r["metric_errors"][JUDGE] for r in refused), refused[0]["metric_errors"]
    gate = json.loads((tmp_path / "r1" / "gate.json").read_text())[0]
    assert (gate["metric"], gate["n"], gate["base_mean"], gate["run_mean"]) == (JUDGE, 12, 9.0, 4.5), \
        "every table of the baseline compared; the six the judge could not score count 0"
    assert gate["verdict"] == "regression" and gate["failed"]
    assert run.ret == pytest.ExitCode.TESTS_FAILED, run.stdout.str()
    assert "gate FAILED" in run.stdout.str()
    # per table (a merge given the baseline decides each case again, per table on): each refused table fails on it
    capsys.readouterr()
    assert main(["report", "merge", str(tmp_path / "r1"), "--out", str(tmp_path / "m"), f"--baseline={base}",
                 "--list-failed"]) == 1
    failed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("FAILED")]
    lost = [line for line in failed if "judge scored in the baseline, judge error: " in line]
    assert len(lost) == 6 and all("context length" in line for line in lost), failed


# --- `counted`: the value a run's case is compared with its baseline on, and `lost_scores`: why it has none


def result(outcome: str = "ok", scores: dict | None = None, **fields) -> ItemResult:
    return ItemResult(parser="p", case_set="s", page="p001", index=0, group="simple", outcome=outcome,
                      scores=dict(scores or {}), **fields)


def run_value(r: ItemResult, metric: str) -> float | None:
    """The run's value of `r` on `metric` as every gate counts it."""
    return counted(r.outcome == "ok", r.scores, metric, lost_scores(r))


@pytest.mark.parametrize(("case", "expected"), [
    (result(scores={"teds": 0.8, JUDGE: 7.0}), 7.0),  # scored
    (result(scores={"teds": 0.8}, metric_errors={JUDGE: "openai/j: BadRequestError: context length"}), 0.0),
    (result(scores={"teds": 0.8}, metric_errors={JUDGE: "judge gave no score"}), 0.0),
    (result(scores={"teds": 0.8, JUDGE: math.nan}), 0.0),  # a value that is no number is no value
    (result(scores={"teds": 0.8, JUDGE: math.inf}), 0.0),
    (result(scores={"teds": 0.8, JUDGE: None}), 0.0),  # a NaN as a results file writes it
    (result("missing"), 0.0),  # not found: nothing of it was scored
    (result("parser_error"), 0.0),
    (result("error", message="error: scoring failed (ValueError)"), 0.0),
    (result(scores={"teds": 0.8}), None),  # never asked of this table (a run without --judge): no comparison
])
def test_counted_counts_every_kind_of_missing_judge_value_as_lost(case, expected):
    assert run_value(case, JUDGE) == expected


def test_counted_counts_a_metric_not_computed_or_errored_as_lost_for_each_of_its_scores():
    too_large = result(scores={"semantic": 6.0}, not_computed={"grits": "not computed: table too large (9 cells > 1)"})
    assert [run_value(too_large, m) for m in ("grits_con", "grits_precision_top", "semantic")] == [0.0, 0.0, 6.0]
    errored = result(scores={"teds": 0.9}, metric_errors={"tlag": "ValueError: bad"})
    assert [run_value(errored, m) for m in ("tlag", "tlag_recall", "teds")] == [0.0, 0.0, 0.9]
    assert lost_scores(errored)["tlag_precision"] == "tlag error: ValueError: bad"
    assert lost_scores(too_large)["grits_con"] == "not computed: table too large (9 cells > 1)"


def test_a_score_with_a_value_is_never_lost():
    """`--repeat` keeps the mean over repetitions, and one repetition's judge error beside it."""
    mean = result(scores={JUDGE: 4.5}, metric_errors={JUDGE: "openai/j: Timeout"})
    assert lost_scores(mean) == {} and run_value(mean, JUDGE) == 4.5


def test_the_baseline_side_is_counted_as_it_was_saved():
    assert counted(True, {"teds": 0.9}, "teds") == 0.9
    assert counted(True, {}, "teds") is None, "an ok entry without the metric: no baseline for it"
    assert counted(False, {}, "teds") == 0.0, "not found in the baseline: counts 0"
    assert counted(True, {"teds": math.nan}, "teds") is None, "a reference run's NaN (`compare`) is no value there"


def _judge_errors(n: int) -> list[ItemResult]:
    """`n` tables, the first half scored 9, the rest refused by the judge."""
    return [ItemResult(parser="p", case_set="s", page="p001", index=i, group="simple", outcome="ok",
                       scores={"teds": 1.0, **({JUDGE: 9.0} if i < n // 2 else {})},
                       metric_errors={} if i < n // 2 else {JUDGE: "openai/j: BadRequestError: context length"})
            for i in range(n)]


class _Base:
    """A baseline where every case scored teds 1 and judge 9."""

    def get(self, key: str) -> Entry:
        return Entry("ok", {"teds": 1.0, JUDGE: 9.0})


def test_the_aggregate_gate_pairs_a_table_the_judge_could_not_score_at_zero():
    from tablebench.core.options import GateSpec

    pairs = gate_pairs(_judge_errors(12), lambda r: baseline_values(_Base(), r))
    assert [p.run[JUDGE] for p in pairs] == [9.0] * 6 + [0.0] * 6
    row = evaluate(pairs, [GateSpec(JUDGE)], breakdown=False, scale={JUDGE: 10.0})[0]
    assert (row.n, row.run_mean, row.verdict, row.failed) == (12, 4.5, "regression", True)


def test_a_table_the_judge_could_not_score_fails_per_table_and_is_regressed():
    results = _judge_errors(2)
    gate = Gate(baseline=_Base())  # type: ignore[arg-type]
    verdicts = [gate.check(r) for r in results]
    assert [v.status for v in verdicts] == ["pass", "fail"]
    assert verdicts[1].reasons[0] == \
        "judge scored in the baseline, judge error: openai/j: BadRequestError: context length"
    nan = ItemResult(**{**results[0].__dict__, "scores": {"teds": 1.0, JUDGE: math.nan}})
    assert gate.check(nan).reasons == ["judge scored in the baseline, no finite value now (nan)"]
    changes = case_changes(results, Gate(baseline=_Base(), per_table=False))  # type: ignore[arg-type]
    assert [(c["metric"], c["now"], c["verdict"]) for c in changes.values()] == \
        [("teds", 1.0, "unchanged"), ("teds", 1.0, "unchanged")], "the ranking metric is teds here"
    judged_only = [ItemResult(**{**r.__dict__, "scores": {k: v for k, v in r.scores.items() if k == JUDGE}})
                   for r in results]
    changes = case_changes(judged_only, Gate(baseline=_Base()))  # type: ignore[arg-type]
    assert [(c["metric"], c["now"], c["verdict"]) for c in changes.values()] == \
        [(JUDGE, 9.0, "unchanged"), (JUDGE, 0.0, "regressed")]
