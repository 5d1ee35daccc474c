"""write_report: the three files, strict JSON with every result, and reading it back."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tablebench.report.aggregate import leaderboard
from tablebench.report.results_file import read_results
from tablebench.report.write import FILES, write_report
from tests.test_report_samples import sample_results

META = {"timestamp": "2026-11-22T05:00:00Z", "parsers": ["pymupdf4llm", "pdfplumber", "vlm:gpt-x"],
        "case_set": "synth-demo", "metrics": ["teds", "grits", "tlag", "semantic"],
        "command": "pytest --tablebench", "version": "0.1.0"}


def _strict(text: str) -> dict:
    def no_constant(name: str) -> None:
        raise AssertionError(f"non-JSON number {name}")
    return json.loads(text, parse_constant=no_constant)


def test_writes_three_files_with_everything(tmp_path: Path) -> None:
    results = sample_results(n_pages=5)
    results[0].scores["tlag"] = math.nan  # a failed score must not produce invalid JSON
    paths = write_report(results, tmp_path / "run", META)
    assert {k: p.name for k, p in paths.items()} == FILES and all(p.is_file() for p in paths.values())
    data = _strict(paths["json"].read_text(encoding="utf-8"))
    assert data["meta"] == META
    assert [row["parser"] for row in data["leaderboard"]["rows"]] == [r.parser for r in leaderboard(results).rows]
    assert data["leaderboard"]["primary"] == "semantic" and len(data["leaderboard"]["rows"]) == 3
    assert len(data["results"]) == len(results)
    first = data["results"][0]
    assert first["scores"]["tlag"] is None
    ok = next(r for r in data["results"] if r["outcome"] == "ok")
    assert ok["matched_text"] and len(ok["matched_span"]) == 2 and ok["pred_html"].startswith("<table>")
    assert "| # | parser |" in paths["markdown"].read_text(encoding="utf-8")
    assert paths["html"].read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert [p.name for p in (tmp_path / "run").iterdir() if p.name.startswith(".")] == []  # no temp files left


def test_read_results_round_trips(tmp_path: Path) -> None:
    results = sample_results(n_pages=4)
    paths = write_report(results, tmp_path, META, primary="teds")
    meta, back = read_results(paths["json"])
    assert meta == META and back == results
    assert _strict(paths["json"].read_text(encoding="utf-8"))["leaderboard"]["primary"] == "teds"


def test_rewriting_a_folder_replaces_the_files(tmp_path: Path) -> None:
    write_report(sample_results(n_pages=4), tmp_path, META)
    paths = write_report(sample_results(n_pages=2), tmp_path, {})
    assert len(_strict(paths["json"].read_text(encoding="utf-8"))["results"]) == 2 * 3 * 3


def test_bad_inputs_give_one_line_errors(tmp_path: Path) -> None:
    bad = tmp_path / "results.json"
    bad.write_text('{"meta": {}}', encoding="utf-8")
    with pytest.raises(ValueError, match=r"not a tablebench results\.json") as info:
        read_results(bad)
    assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match="primary metric 'judge' is in no result"):
        write_report(sample_results(n_pages=2), tmp_path / "x", META, primary="judge")


def test_cli_report_shows_the_leaderboard_and_re_renders_the_files(tmp_path: Path, capsys) -> None:
    from tablebench.cli import main

    results = sample_results(n_pages=3)
    first = write_report(results, tmp_path / "run", META)
    assert main(["report", str(first["json"]), "--out", str(tmp_path / "again")]) == 0
    out = capsys.readouterr().out
    assert "semantic" in out and "found" in out and "again" in out
    meta, back = read_results(tmp_path / "again" / "results.json")
    assert meta == read_results(first["json"])[0]
    assert [r.to_dict() for r in back] == [r.to_dict() for r in read_results(first["json"])[1]]
    assert (tmp_path / "again" / "report.html").is_file()
    assert main(["report", str(tmp_path / "missing.json")]) == 1


@pytest.mark.parametrize("text, says", [
    ("[]", "expected an object with a 'results' list"),
    ('{"results": 3}', "results: 3, expected a list"),
    ('{"results": [1]}', "results[0]: 1, expected an object"),
    ('{"results": [{"parser": "a"}]}', "results[0].case_set: missing"),
    ("{", "not JSON"),
])
def test_cli_report_on_wrong_json_is_one_line(tmp_path: Path, capsys, text: str, says: str) -> None:
    from tablebench.cli import main

    (tmp_path / "results.json").write_text(text, encoding="utf-8")
    assert main(["report", str(tmp_path / "results.json")]) == 1
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and "Traceback" not in err


def test_cli_report_takes_the_run_folder(tmp_path: Path, capsys) -> None:
    from tablebench.cli import main

    write_report(sample_results(n_pages=2), tmp_path / "run", META)
    assert main(["report", str(tmp_path / "run")]) == 0
    assert "pymupdf4llm" in capsys.readouterr().out
    (tmp_path / "empty").mkdir()
    assert main(["report", str(tmp_path / "empty")]) == 1
    assert "a folder without results.json" in capsys.readouterr().err


def test_non_finite_numbers_anywhere_become_null(tmp_path: Path) -> None:
    """A parser sidecar's 1e309 seconds once crashed the report at session end (leaderboard numbers too)."""
    results = sample_results(n_pages=2)
    for r in results:
        r.parse_seconds = float("inf")
    paths = write_report(results, tmp_path, META)
    data = _strict(paths["json"].read_text(encoding="utf-8"))
    assert all(row["seconds_per_page"] is None for row in data["leaderboard"]["rows"])


def test_every_results_json_row_carries_its_case_id_and_a_file_without_ids_still_reads(tmp_path: Path,
                                                                                        capsys) -> None:
    """Each row's `id` is the id of pytest, the failed list and report.html (`ItemResult.test_id`);
    a results.json written before rows carried one reads, re-renders and merges as before."""
    from tablebench.cli import main
    from tablebench.report.results_file import Shelf, read_slim

    results = sample_results(n_pages=3)
    path = write_report(results, tmp_path / "run", META)["json"]
    rows = _strict(path.read_text(encoding="utf-8"))["results"]
    assert [row["id"] for row in rows] == [r.test_id for r in results]
    assert next(iter(rows[0])) == "id", "the id leads its row: what a reader of the file looks for first"
    old = tmp_path / "old" / "results.json"  # the same run as written before rows had an id
    old.parent.mkdir()
    data = _strict(path.read_text(encoding="utf-8"))
    for row in data["results"]:
        del row["id"]
    old.write_text(json.dumps(data, indent=1), encoding="utf-8")
    assert [r.test_id for r in read_results(old)[1]] == [r.test_id for r in results]
    assert [r.test_id for r in read_slim(old, Shelf())[1]] == [r.test_id for r in results]
    assert main(["report", str(old), "--out", str(tmp_path / "again")]) == 0
    again = _strict((tmp_path / "again" / "results.json").read_text(encoding="utf-8"))["results"]
    assert [row["id"] for row in again] == [r.test_id for r in results]
    capsys.readouterr()


def test_summary_json_and_leaderboard_csv_hold_no_infinite_number(tmp_path: Path) -> None:
    """The same sidecar's 1e309 seconds: null in summary.json, an empty cell in leaderboard.csv."""
    results = sample_results(n_pages=2)
    for r in results:
        r.parse_seconds = float("inf")
    paths = write_report(results, tmp_path, META)
    summary = _strict(paths["summary"].read_text(encoding="utf-8"))
    assert all(kinds["table"]["seconds_per_page"] is None for kinds in summary["parsers"].values())
    rows = paths["csv"].read_text(encoding="utf-8").splitlines()
    column = rows[0].split(",").index("seconds_per_page")
    assert all(row.split(",")[column] == "" for row in rows[1:])
