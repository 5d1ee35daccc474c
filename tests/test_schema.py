"""The untrusted-file vocabulary (`tablebench.core.schema`) and the bounded reading of a run's files
(`tablebench.report.results_file`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tablebench.core.schema import (
    ANY,
    MAX_DEPTH,
    Integer,
    Invalid,
    Items,
    Maybe,
    Number,
    Record,
    Table,
    Text,
    check,
    loads,
    too_deep,
)
from tablebench.report import results_file
from tablebench.report.results_file import Shelf, load_baseline, read_slim
from tablebench.report.write import write_report
from tests.test_report_samples import sample_results


def refusal(shape, value, at: str = "") -> str:
    with pytest.raises(Invalid) as caught:
        check(shape, value, at)
    return str(caught.value)


def test_each_refusal_names_the_field_what_it_holds_and_what_goes_there() -> None:
    row = Record({"page": Text(), "now": Maybe(Number()), "spans": Items(Items(Integer())),
                  "parsers": Table(Record({"spec": Text()}))}, required=("page",))
    assert refusal(row, {"now": 1}) == "page: missing"
    assert refusal(row, {"page": "p", "now": [[1]]}) == "now: a list of 1 item, expected a number from -1e+09 to " \
                                                        "1e+09 or null"
    assert refusal(row, {"page": "p", "spans": [[0, -3]]}, "results[4]") == \
        "results[4].spans[0][1]: -3, expected a whole number from 0 to 9,223,372,036,854,775,807"
    assert refusal(row, {"page": "p", "parsers": {"a b": "dir:x"}}) == 'parsers["a b"]: "dir:x", expected an object'
    too_long = "a string of 100 characters, expected a string of at most 10 characters"
    assert refusal(Text(10), "x" * 100, "f") == f"f: {too_long}"
    assert refusal(Maybe(Text(10)), "x" * 100) == f"{too_long} or null"
    check(row, {"page": "p", "now": None, "extra": {"anything": [1, "two", None]}})


def test_json_parsed_with_bounds_names_where_it_goes_past_them() -> None:
    deep = '{"results": [{"extra": {"a": ' + "[" * 100_000 + "]" * 100_000 + "}}]}"
    with pytest.raises(Invalid, match=r"^results\[0\]\.extra\.a(\[0\])+…?: nested deeper than 64 levels$"):
        loads(deep)
    long = loads('{"n": 1' + "0" * 5000 + "}")  # Python alone: ValueError (4,300 digits), no field named
    assert refusal(Record({"n": Number()}), long) == "n: an integer of 5,001 digits, expected a number from " \
                                                     "-1e+09 to 1e+09"
    assert refusal(ANY, loads('{"x": [NaN]}'), "extra") == "extra.x[0]: NaN, expected a finite number"
    assert refusal(ANY, loads('{"x": 1e999}'), "extra") == "extra.x: Infinity, expected a finite number"
    nested = json.loads("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    assert refusal(ANY, nested, "extra").endswith(": nested deeper than 64 levels")
    check(ANY, json.loads("[" * MAX_DEPTH + "]" * MAX_DEPTH))
    assert too_deep('{"a": [1, {"b": [[2]]}], "c": "[[[["}', limit=3) == "a[1].b"
    assert too_deep('["x\\"[[[[", [[]]]', limit=3) is None


@pytest.mark.parametrize("make", ["fifo", "device", "folder", "too large", "not utf-8"])
def test_a_run_file_that_cannot_be_one_is_refused_at_once(tmp_path: Path, make: str) -> None:
    """By every reader: a results.json read whole (another layout) and a baseline."""
    path = tmp_path / "run.json"
    says = {"fifo": "not a regular file", "device": "not a regular file", "folder": "not a regular file",
            "too large": "33 MB, more than the 32 MB a ", "not utf-8": "not UTF-8 text at byte 2"}[make]
    if make == "fifo":
        os.mkfifo(path)  # no writer: an open that waited for one would hang here
    elif make == "device":
        path.symlink_to("/dev/zero")
    elif make == "folder":
        path.mkdir()
    elif make == "too large":
        with open(path, "wb") as handle:  # sparse: no disk used
            handle.truncate(33 * 1024 * 1024)
    else:
        path.write_bytes(b'["\xff"]')
    for read, where in ((read_slim_alone, f"{path}: "), (load_baseline, f"baseline {path}: ")):
        with pytest.raises(ValueError) as caught:
            read(path)
        assert str(caught.value).startswith(where) and says in str(caught.value), caught.value


def read_slim_alone(path: Path) -> None:
    read_slim(path, Shelf())


def test_a_shard_result_over_its_bound_is_refused_before_it_is_parsed(tmp_path: Path, monkeypatch) -> None:
    results = sample_results(n_pages=2, payloads=True)
    results[1].page_output = "x" * 50_000
    path = write_report(results, tmp_path / "run", {})["json"]
    monkeypatch.setattr(results_file, "MAX_PART", 40_000)
    says = r"results\[1\]\.page_output: more than the 40,000 bytes a result may hold"
    with pytest.raises(ValueError, match=says):
        read_slim(path, Shelf())
