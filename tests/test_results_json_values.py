"""Every value of results.json is JSON, never a Python repr: numbers stay numbers, a dict stays an
object (a best candidate with numpy numbers in it, a hook's set), and a file in which an earlier
version wrote a best candidate as its repr still reads, as the dict it shows."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from tablebench.core.results import ItemResult
from tablebench.report.write import read_results, write_report


def _missing() -> ItemResult:
    r = ItemResult("p", "s", "p001", 0, "simple", "missing", message="not found")
    r.best_candidate = {"span": [np.int64(3), np.int64(9)], "score": np.float32(0.25), "text": "a | b", "cut": 0,
                        "scores": np.array([0.5, 0.25])}
    r.extra = {"tags": {"b", "a"}, "where": Path("/x/y")}
    return r


def test_numpy_numbers_sets_and_paths_are_written_as_json_values(tmp_path: Path) -> None:
    write_report([_missing()], tmp_path / "r", {"case_set": "s"})
    row = json.loads((tmp_path / "r" / "results.json").read_text(encoding="utf-8"))["results"][0]
    assert row["best_candidate"] == {"span": [3, 9], "score": 0.25, "text": "a | b", "cut": 0, "scores": [0.5, 0.25]}
    assert row["extra"] == {"tags": ["a", "b"], "where": "/x/y"}
    _, (again,) = read_results(tmp_path / "r")
    assert again.best_candidate["span"] == [3, 9] and isinstance(again.best_candidate["score"], float)


def test_a_best_candidate_written_as_its_repr_reads_as_the_dict_it_shows(tmp_path: Path) -> None:
    write_report([ItemResult("p", "s", "p001", 0, "simple", "missing")], tmp_path / "r", {})
    path = tmp_path / "r" / "results.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["results"][0]["best_candidate"] = "{'span': [3, 9], 'score': 0.25, 'text': 'a | b', 'cut': 0}"
    data["results"].append({**data["results"][0], "index": 1, "best_candidate": "__import__('os')"})
    path.write_text(json.dumps(data), encoding="utf-8")
    _, (old, junk) = read_results(path)
    assert old.best_candidate == {"span": [3, 9], "score": 0.25, "text": "a | b", "cut": 0}
    assert junk.best_candidate is None, "not a literal: nothing runs, nothing kept"
