"""Every value of results.json is JSON, never a Python repr: numbers stay numbers, a dict stays an
object (a best candidate with numpy numbers in it, a hook's set), and a file in which an earlier
version wrote a best candidate as its repr still reads, as the dict it shows."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tablebench.core.results import ItemResult
from tablebench.report.results_file import read_results
from tablebench.report.write import write_report


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


@pytest.mark.parametrize(("written", "says"), [
    ("{[1]: 2}", None),  # not a value Python can build (TypeError): nothing kept
    ("{1: 2}", r'best_candidate\["1"\]: a key of type int, expected a string'),
    ("{'span': {3, 9}}", r"best_candidate\.span: a set, expected a list"),
    ("[" + "1, " * 50_000 + "]", r"best_candidate: a string of 150,002 characters, expected an object or null"),
])
def test_a_hostile_repr_is_nothing_or_one_line_naming_it(tmp_path: Path, written: str, says: str | None) -> None:
    """What `ast.literal_eval` makes is checked as the rest of the file is; a string longer than any
    repr an earlier writer wrote is not parsed (literals cost memory: 1 MB of them took 0.5 GB)."""
    write_report([ItemResult("p", "s", "p001", 0, "simple", "missing")], tmp_path / "r", {})
    path = tmp_path / "r" / "results.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["results"][0]["best_candidate"] = written
    path.write_text(json.dumps(data), encoding="utf-8")
    if says is None:
        assert read_results(path)[1][0].best_candidate is None
    else:
        with pytest.raises(ValueError, match=rf"results\[0\]\.{says}$"):
            read_results(path)
