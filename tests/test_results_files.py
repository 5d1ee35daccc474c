"""Malformed results.json and baseline files end in one line naming what is wrong, never a traceback
or a silent miscount (issue 20, item 17)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tablebench.report.results_file import load_baseline, read_results

GOOD = {"parser": "p", "case_set": "s", "page": "p001", "index": 0, "group": "simple", "outcome": "ok",
        "scores": {"teds": 0.5}, "kind": "table"}


def _write(tmp_path: Path, results: list, name: str = "results.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"results": results}), encoding="utf-8")
    return path


@pytest.mark.parametrize(("field", "value"), [("page", [1]), ("index", "x"), ("scores", {"teds": "high"}),
                                              ("outcome", 5), ("index", True), ("extra", [])])
def test_a_field_of_the_wrong_type_is_named(tmp_path: Path, field: str, value: object) -> None:
    with pytest.raises(ValueError, match=rf": results\[0\]\.{field}(\.\w+)?: "):
        read_results(_write(tmp_path, [dict(GOOD, **{field: value})]))


@pytest.mark.parametrize(("field", "value", "says"), [("table", -1, r"table: -1, "),
                                                      ("semantic_errors", [1], r"semantic_errors\[0\]: 1, ")])
def test_a_field_of_a_format_1_file_is_named_as_the_file_names_it(tmp_path: Path, field: str, value: object,
                                                                 says: str) -> None:
    old = {"parser": "p", "case_set": "s", "page": "p001", "table": 0, "complexity": "simple", "outcome": "ok"}
    with pytest.raises(ValueError, match=rf": results\[0\]\.{says}"):
        read_results(_write(tmp_path, [dict(old, **{field: value})]))


def test_a_case_twice_in_one_file_is_refused_not_counted_twice(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="repeat a case"):
        read_results(_write(tmp_path, [GOOD, GOOD]))


def test_json_nested_too_deeply_is_one_line(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(ValueError, match="nested deeper than 64 levels"):
        read_results(deep)
    with pytest.raises(ValueError, match="nested deeper than 64 levels"):
        load_baseline(deep)


def test_the_report_command_says_it_in_one_line(tmp_path: Path) -> None:
    path = _write(tmp_path, [dict(GOOD, page=[1])])
    run = subprocess.run([sys.executable, "-m", "tablebench.cli", "report", str(path)], capture_output=True, text=True)
    assert run.returncode != 0 and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "results[0].page: " in run.stderr
