"""A judge cache that cannot be written keeps the judge on and says so (issue 46, finding 9).

A read-only cache used to turn the judge off without a word: every table unjudged, exit 0. The
run is root here, which writes through permission bits, so the cache is made unwritable the way
a read-only mount or a full disk makes it: a file stands where its folder should be. Said once,
in the header, also when xdist workers ask the judge (each used to warn as well).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.ci_cases import case_set, write_pages
from tests.llm_server import LLMServer, Reply
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]


@pytest.mark.parametrize(("score", "exit_code", "workers"), [(9, pytest.ExitCode.OK, ["-p", "no:xdist"]),
                                                            (3, pytest.ExitCode.TESTS_FAILED, ["-n", "2"])],
                         ids=["passing-in-process", "failing-under-xdist"])
def test_a_judge_cache_that_cannot_be_written_keeps_the_judge_on_and_says_so(
        pytester: pytest.Pytester, tmp_path: Path, score: int, exit_code: pytest.ExitCode, workers: list[str]) -> None:
    cases = case_set(tmp_path / "cases" / "mini", 1)
    out = write_pages(tmp_path / "out", cases)
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "judge").write_text("a file where the judge's cache folder should be")
    with LLMServer([Reply(content=json.dumps({"errors": [], "score": score}))]) as server:
        run = pytester.runpytest_subprocess(*PLUGIN, f"--cases={cases}", f"--parser=mine=dir:{out}", "--metrics=teds",
                                            "-p", "no:cacheprovider", *workers, "--judge=openai/tiny-judge",
                                            f"--llm-api-base={server.api_base}", "--min-score=judge=8",
                                            f"--parse-cache={cache}", f"--report-dir={tmp_path / 'r'}", timeout=300)
        asked = len(server.requests)
    results = json.loads((tmp_path / "r" / "results.json").read_text(encoding="utf-8"))["results"]
    assert asked == len(results) == 6 and all(r["scores"].get("judge") == score for r in results), \
        [r["metric_errors"] for r in results]
    said = [line for line in run.stdout.lines + run.stderr.lines if f"{cache / 'judge'} cannot be written" in line]
    assert len(said) == 1 and "WARNING: judge cache" in said[0] and "the judge stays on" in said[0], said
    assert run.ret == exit_code, run.stdout.str()
