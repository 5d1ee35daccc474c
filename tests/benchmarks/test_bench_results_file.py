"""Each command given a results.json or a baseline of 100 MB (one string in one field): refused in <= 10 s.

Why: a results file comes from anywhere (issue 46, finding 5); a results.json is read a result at
a time and a result over 32 MB is refused once that much is read, a baseline over 32 MB before it
is read. What each command says, and its memory under a limit, are checked in
tests/test_adversarial.py (`-m adversarial`); the hostile values, untimed, in
tests/test_results_hostile.py. Here, only time.

Run: python -m pytest -p no:xdist --benchmark-only --benchmark-enable tests/benchmarks/test_bench_results_file.py
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from tablebench.cli import main
from tests.results_seed import COMMANDS, Seed, command_argv, hostile_file, make_seed, with_value

MB = 1024 * 1024
LIMIT_SECONDS = 10.0  # issue 46's bound for a 100 MB file


@pytest.fixture(scope="module")
def seed(tmp_path_factory: pytest.TempPathFactory) -> Seed:
    return make_seed(tmp_path_factory.mktemp("seed"))


@pytest.mark.parametrize("command", COMMANDS)
def test_bench_a_results_file_of_100_mb(benchmark, seed: Seed, tmp_path: Path, command: str) -> None:
    source = seed.baseline if command == "baseline" else seed.second / "results.json"
    path = ("created",) if command == "baseline" else ("results", 1, "page_output")
    doc = json.loads(source.read_text(encoding="utf-8"))
    file = hostile_file(tmp_path, command, with_value(doc, [path], json.dumps("x" * (100 * MB))))

    def refused() -> str:
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            assert main(command_argv(command, file, seed, tmp_path / "out")) == 1
        return err.getvalue()

    said = benchmark.pedantic(refused, rounds=3, iterations=1)
    assert said.count("\n") == 1 and "more than the 32 MB" in said, said
    assert benchmark.stats.stats.max <= LIMIT_SECONDS
