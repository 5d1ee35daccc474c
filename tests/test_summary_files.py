"""summary.json and leaderboard.csv beside results.json: each parser's numbers for programs,
checked against the results.json of the same real run (the plugin, a `dir:` parser that
corrupts some tables, a baseline, a floor and a gate: tests/test_regressions.py's set-up), and
written by `tablebench report merge` too. Nothing here is mocked."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from tablebench.cli import main

from tests.test_plugin_ci import warm_metrics  # noqa: F401  (fixture: score once in this process first)
from tests.test_regressions import baseline, cases, main_pytest, outputs  # noqa: F401  (fixtures)

pytest_plugins = ["pytester"]


@pytest.fixture(scope="module")
def run(cases: Path, outputs, baseline: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:  # noqa: F811
    tmp = tmp_path_factory.mktemp("summary")
    code = main_pytest(cases, tmp, f"--parser=mine=dir:{outputs['corrupt']}", "--parser=exact=dir:" + str(outputs["exact"]),
                       f"--baseline={baseline}", "--baseline-tolerance=0.01", "--gate=teds",
                       "--min-score=teds=0.9", f"--report-dir={tmp / 'r'}")
    assert code == pytest.ExitCode.TESTS_FAILED
    return tmp / "r"


def _read(folder: Path) -> tuple[dict, dict, list[dict]]:
    results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    with open(folder / "leaderboard.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return results, summary, rows


def test_summary_json_counts_what_results_json_holds(run: Path) -> None:
    results, summary, _ = _read(run)
    assert summary["format"] == "tablebench-summary/1" and summary["case_set"] == results["meta"]["case_set"]
    board = {row["parser"]: row for row in results["leaderboard"]["rows"]}
    for parser in ("mine", "exact"):
        mine = [r for r in results["results"] if r["parser"] == parser]
        got = summary["parsers"][parser]["table"]
        statuses = [r["verdict"]["status"] for r in mine]
        assert (got["total"], got["found"]) == (len(mine), sum(r["outcome"] == "ok" for r in mine))
        assert (got["passed"], got["failed"], got["xfailed"]) == tuple(statuses.count(s) for s in ("pass", "fail", "known"))
        assert got["regressed"] == sum((r["baseline_change"] or {}).get("verdict") == "regressed" for r in mine)
        assert got["rank"] == board[parser]["rank"] and got["primary"] == results["leaderboard"]["primary"]
        teds = got["metrics"]["teds"]
        assert teds["mean"] == pytest.approx(board[parser]["overall"]["metrics"]["teds"]["include_missing"])
        assert teds["mean_found"] == pytest.approx(board[parser]["overall"]["metrics"]["teds"]["exclude_missing"])
        assert teds["ci95"][0] <= teds["mean"] <= teds["ci95"][1]
    gate = {c["group"]: c["failed"] for c in results["gate"] if c["gating"]}
    assert summary["parsers"]["mine"]["table"]["gate"] == ("failed" if gate["mine"] else "passed")
    assert summary["parsers"]["mine"]["table"]["failed"] > 0 and summary["parsers"]["mine"]["table"]["regressed"] > 0
    assert summary["parsers"]["exact"]["table"]["failed"] == 0
    failed = [r for r in results["results"] if r["verdict"]["status"] == "fail"]
    assert sum(c["cases"] for c in summary["causes"]) == len(failed)
    assert {c["first_case"] for c in summary["causes"]} <= {r["id"] for r in failed}


def test_leaderboard_csv_holds_summary_json_s_numbers(run: Path) -> None:
    _, summary, rows = _read(run)
    assert [(row["kind"], row["rank"], row["parser"]) for row in rows] == sorted(
        (("table", str(v["table"]["rank"]), p) for p, v in summary["parsers"].items()), key=lambda x: x[1])
    for row in rows:
        got = summary["parsers"][row["parser"]]["table"]
        for key in ("total", "found", "passed", "failed", "xfailed", "regressed"):
            assert int(row[key]) == got[key], key
        assert row["gate"] == (got["gate"] or "")
        for metric, stats in got["metrics"].items():
            assert float(row[metric]) == stats["mean"] and float(row[f"{metric}_found"]) == stats["mean_found"]
            assert [float(row[f"{metric}_ci_low"]), float(row[f"{metric}_ci_high"])] == stats["ci95"]


def test_a_merge_writes_both_from_the_merged_run(run: Path, baseline: Path, tmp_path: Path) -> None:  # noqa: F811
    out = tmp_path / "m"
    main(["report", "merge", str(run), "--out", str(out), f"--baseline={baseline}", "--baseline-tolerance=0.01",
          "--gate=teds", "--min-score=teds=0.9"])
    (_, summary, rows), (_, original, original_rows) = _read(out), _read(run)
    assert summary["parsers"] == original["parsers"] and rows == original_rows
    assert summary["causes"] == original["causes"]
