"""A results.json read one result at a time (`tablebench.report.results_file`): what a merge of
shards reads, holding no result's texts until the merged run's files are written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablebench.report.results_file import Shelf, read_results, read_slim
from tablebench.report.stream import FullResults, slim
from tablebench.report.write import write_report
from tests.test_report_samples import sample_results


def _written(tmp_path: Path, n_pages: int = 3) -> Path:
    results = sample_results(n_pages=n_pages, payloads=True)
    results[0].gt_html += "\n  }\n  {\nnot the end \u2028 ünï"  # a string never breaks a line in JSON text
    return write_report(results, tmp_path / "run", {"note": "a\n  }"})["json"]


def test_a_results_json_read_a_result_at_a_time_is_the_file_read_whole(tmp_path: Path) -> None:
    path = _written(tmp_path)
    meta, whole = read_results(path)
    shelf = Shelf()
    got_meta, kept = read_slim(path, shelf)
    assert got_meta == meta and kept == [slim(r) for r in whole]
    assert not any(r.gt_html or r.pred_html for r in kept)
    assert list(FullResults(kept, shelf.read)) == whole
    assert list(shelf.read([whole[5].test_id, whole[0].test_id])) == [whole[5], whole[0]]


@pytest.mark.parametrize("layout", ["compact", "empty"])
def test_a_results_json_in_another_layout_is_read_whole(tmp_path: Path, layout: str) -> None:
    path = _written(tmp_path)
    if layout == "compact":  # e.g. written by another tool: one line
        path.write_text(json.dumps(json.loads(path.read_text(encoding="utf-8"))), encoding="utf-8")
    else:
        path = write_report([], tmp_path / "empty", {"note": 1})["json"]
    meta, whole = read_results(path)
    shelf = Shelf()
    got_meta, kept = read_slim(path, shelf)
    assert got_meta == meta and kept == [slim(r) for r in whole]
    assert list(FullResults(kept, shelf.read)) == whole


@pytest.mark.parametrize("damage, says", [
    (lambda text: text[:text.rindex("  },")], "the last result is cut short"),
    (lambda text: text.replace('"outcome": "ok"', '"outcome": ok', 1), "not JSON"),
    (lambda text: text.replace('"outcome": "ok"', '"outcome": 5', 1), r"results\[0\]\.outcome: 5, expected one of ok, "),
])
def test_a_damaged_results_json_is_a_one_line_error(tmp_path: Path, damage, says: str) -> None:
    path = _written(tmp_path)
    path.write_text(damage(path.read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(ValueError, match=says):
        read_slim(path, Shelf())


def test_a_case_twice_in_one_file_is_refused(tmp_path: Path) -> None:
    results = sample_results(n_pages=2)
    path = write_report([*results, results[0]], tmp_path / "run", {})["json"]
    with pytest.raises(ValueError, match="repeat a case already in the file"):
        read_slim(path, Shelf())


def test_a_merge_holds_the_shards_results_without_their_texts(tmp_path: Path) -> None:
    from tablebench.report.merge import merge_runs

    results = sample_results(n_pages=4, payloads=True)
    half = len(results) // 2
    meta = {"case_set": "s", "parsers": sorted({r.parser for r in results})}
    paths = [write_report(part, tmp_path / f"s{i}", meta)["json"] for i, part in enumerate((results[half:],
                                                                                           results[:half]))]
    _, merged = merge_runs(paths, allow_incomplete=True)  # hand-made shards: no completeness record
    assert isinstance(merged, FullResults) and not any(r.gt_html for r in merged.slim)
    assert sorted(merged, key=lambda r: r.test_id) == sorted(results, key=lambda r: r.test_id)
