"""results.json formats (issue 33): a file written before results said their format (format 1,
fields named for tables, the project's facts in `extra`) and one of format 2 (fields named for
items, facts still in `extra`) read through `tablebench report` and `tablebench report merge`
as the same run as one written now (format 3: each fact a field, `extra` the users'); a format
from a later version is refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablebench.cli import main
from tablebench.core.results import RESULTS_FORMAT, ItemResult
from tablebench.core.completeness import measure
from tablebench.report.write import write_report

META = {"case_set": "s", "case_set_fingerprint": "abc", "parsers": ["p"], "parser_versions": {"p": "1"},
        "metrics": ["teds", "semantic", "formula_score"], "version": "0.1.0",
        "timestamp": "2026-01-01T00:00:00+00:00"}
PASS = {"passed": True, "status": "pass", "reasons": []}
FAIL = {"passed": False, "status": "fail", "reasons": ["semantic 2.00 < min 3"]}


def _v1_rows(pages: tuple[str, ...]) -> list[dict]:
    """Results of pages as the writer of format 1 wrote them: `table`, `complexity`,
    `semantic_errors`, and the facts of scoring and gating in `extra`."""
    rows = []
    if "p001" in pages:
        rows += [
            {"id": "s/p001::t0[p]", "parser": "p", "case_set": "s", "page": "p001", "table": 0, "complexity": "simple",
             "outcome": "ok", "message": "", "scores": {"teds": 0.9, "semantic": 8.5}, "gt_latex": "a", "gt_html": "",
             "pred_html": "<table></table>", "matched_text": "| a |", "matched_span": [0, 5], "matched_spans": [[0, 5]],
             "locate_score": 0.9, "parse_seconds": 1.5, "cost": 0.0,
             "extra": {"parse_cached": False, "verdict": PASS, "page_output": "| a |\n| b |",
                       "cell_diff": {"counts": {"equal": 1, "changed": 0, "missing": 0, "extra": 0}},
                       "reviewed_by": "nobody"},
             "spec": "p", "semantic_errors": [], "kind": "table", "language": "en", "variant": "digital"},
            {"id": "s/p001::t1[p]", "parser": "p", "case_set": "s", "page": "p001", "table": 1, "complexity": "complex",
             "outcome": "ok", "message": "", "scores": {"teds": 0.4, "semantic": 2.0}, "gt_latex": "b", "gt_html": "",
             "pred_html": "<table></table>", "matched_text": "| b |", "matched_span": [6, 11],
             "matched_spans": [[6, 11]], "locate_score": 0.5, "parse_seconds": 1.5, "cost": 0.0,
             "extra": {"parse_cached": False, "verdict": FAIL}, "spec": "p",
             "semantic_errors": ["value 2 read as 7"], "kind": "table", "language": "en", "variant": "digital"},
            {"id": "s/p001::f0[p]", "parser": "p", "case_set": "s", "page": "p001", "table": 0, "complexity": "inline",
             "outcome": "ok", "message": "found as text", "scores": {"formula_score": 6.0}, "gt_latex": "$x^2$",
             "gt_html": "", "pred_html": None, "matched_text": "x2", "matched_span": [12, 14],
             "matched_spans": [[12, 14]], "locate_score": 1.0, "parse_seconds": 1.5, "cost": 0.0,
             "extra": {"parse_cached": False, "verdict": PASS, "scored_latex": "x 2"}, "spec": "p",
             "semantic_errors": [], "kind": "formula", "language": "en", "variant": "digital"},
        ]
    if "p002" in pages:
        rows += [
            {"id": "s/p002::t0[p]", "parser": "p", "case_set": "s", "page": "p002", "table": 0, "complexity": "moderate",
             "outcome": "missing", "message": "not found in parser output: best candidate scored 0.16 < 0.30",
             "scores": {}, "gt_latex": "c", "gt_html": "", "pred_html": None, "matched_text": None,
             "matched_span": None, "matched_spans": [], "locate_score": 0.16, "parse_seconds": 2.0, "cost": 0.0,
             "extra": {"parse_cached": True, "page_output": "text",
                       "verdict": {**FAIL, "reasons": ["not found in parser output: best candidate scored 0.16 < 0.30"]},
                       "best_candidate": {"span": [0, 4], "score": 0.16, "text": "text", "cut": 0}},
             "spec": "p", "semantic_errors": [], "kind": "table", "language": "de", "variant": "digital"},
        ]
    return rows


def _old_file(folder: Path, pages: tuple[str, ...], version: int = 1, **meta: object) -> Path:
    """A run folder whose results.json is format 1's (or 2's: the fields renamed, the facts still
    in `extra`), in its layout (`json.dumps(indent=1)`: each result between `  {` and `  }`, as
    `tablebench report merge` reads one result at a time)."""
    rows = _v1_rows(pages) if version == 1 else [_renamed(row) for row in _v1_rows(pages)]
    done = measure([r["id"] for r in rows], [r["id"] for r in rows]).to_dict()
    head = {"schema": 1} if version == 1 else {"format": f"tablebench-results/{version}"}
    data = {**head, "meta": {**META, "completeness": done, **meta}, "leaderboard": {}, "results": rows}
    folder.mkdir(parents=True)
    (folder / "results.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return folder


def _now_run(folder: Path, pages: tuple[str, ...], **meta: object) -> Path:
    """The same results written by this version's writer (read from format 1 by hand: the
    fields under their current names, each fact of `extra` in its field)."""
    results = [ItemResult(**_current(row)) for row in _v1_rows(pages)]
    done = measure([r.test_id for r in results], [r.test_id for r in results]).to_dict()
    write_report(results, folder, {**META, "completeness": done, **meta})
    return folder


def _renamed(row: dict) -> dict:
    renamed = {"table": "index", "complexity": "group", "semantic_errors": "errors"}
    return {renamed.get(k, k): v for k, v in row.items()}


def _current(row: dict) -> dict:
    out = {k: v for k, v in _renamed(row).items() if k not in ("id", "extra")}
    extra = dict(row["extra"])
    out["evidence"] = {k: extra.pop(k) for k in ("cell_diff", "scored_latex") if k in extra}
    for name in ("parse_cached", "verdict", "page_output", "best_candidate"):
        if name in extra:
            out[name] = extra.pop(name)
    out["extra"] = extra  # what a hook wrote
    return out


def _report(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["report", *args]) == 0
    return capsys.readouterr().out


def _files(folder: Path) -> tuple[dict, list[dict]]:
    data = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    leaderboards = {k: v for k, v in data.items() if k.endswith("leaderboard")}
    return leaderboards, data["results"]


@pytest.mark.parametrize("version", [1, 2])
def test_an_older_run_reports_as_the_same_run_written_now(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          version: int):
    old = _old_file(tmp_path / "old", ("p001", "p002"), version)
    new = _now_run(tmp_path / "new", ("p001", "p002"))
    assert json.loads((new / "results.json").read_text())["format"] == RESULTS_FORMAT
    shown = _report(capsys, str(old), "--out", str(tmp_path / "old_again"), "--list-failed")
    assert "semantic" in shown and "FAILED s/p001::t1[p] - semantic 2.00 < min 3" in shown
    assert shown.replace("old_again", "X") == _report(capsys, str(new), "--out", str(tmp_path / "new_again"),
                                                      "--list-failed") \
        .replace("new_again", "X")
    again_old, again_new = _files(tmp_path / "old_again"), _files(tmp_path / "new_again")
    assert again_old == again_new
    assert again_old[1][1]["errors"] == ["value 2 read as 7"] and again_old[1][1]["index"] == 1
    first = again_old[1][0]
    assert first["extra"] == {"reviewed_by": "nobody"} and first["verdict"] == PASS and first["page_output"]
    assert first["evidence"]["cell_diff"]["counts"]["equal"] == 1 and again_old[1][3]["best_candidate"]["score"] == 0.16
    assert again_old[0] == _files(new)[0], "the leaderboard of the format-1 file is the one written now"


def test_a_merge_of_an_older_shard_and_one_written_now_is_the_merge_of_shards_written_now(tmp_path: Path):
    _old_file(tmp_path / "old1", ("p001",), shard="1/2")
    _now_run(tmp_path / "new1", ("p001",), shard="1/2")
    _now_run(tmp_path / "new2", ("p002",), shard="2/2")
    status = [main(["report", "merge", str(tmp_path / first), str(tmp_path / "new2"), "--out", str(tmp_path / out)])
              for first, out in (("old1", "m_old"), ("new1", "m_new"))]
    assert status == [1, 1], "two cases failed in the shards: the merge fails on both"
    merged_old, merged_new = _files(tmp_path / "m_old"), _files(tmp_path / "m_new")
    assert merged_old == merged_new
    assert [(r["page"], r["kind"], r["index"], r["group"]) for r in merged_old[1]] == [
        ("p001", "table", 0, "simple"), ("p001", "table", 1, "complex"), ("p001", "formula", 0, "inline"),
        ("p002", "table", 0, "moderate")]
    markdown = [(tmp_path / out / "leaderboard.md").read_text() for out in ("m_old", "m_new")]
    assert markdown[0].replace("old1", "new1") == markdown[1]  # the meta names the shards it merged


@pytest.mark.parametrize("command", [["report"], ["report", "merge", "--out", "OUT"]])
def test_a_later_format_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               command: list[str]):
    run = _now_run(tmp_path / "later", ("p001",))
    path = run / "results.json"
    path.write_text(path.read_text().replace(f'"format": "{RESULTS_FORMAT}"', '"format": "tablebench-results/9"'))
    args = [str(tmp_path / "out") if a == "OUT" else a for a in command]
    assert main([*args[:2], str(run), *args[2:]] if len(args) > 1 else [*args, str(run)]) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'tablebench-results/9'" in err and "upgrade tablebench" in err, err
    assert not (tmp_path / "out").exists()
