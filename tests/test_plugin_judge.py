"""`--judge` through the real plugin against a local OpenAI-compatible server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.llm_server import LLMServer, Reply
from tests.test_plugin import args, junit, warm_metrics  # noqa: F401 — warm_metrics is an autouse fixture
from tests.test_run import copy_pages, write_outputs

pytest_plugins = ["pytester"]


def test_judge_scores_reach_properties_and_min_score(pytester: pytest.Pytester, tmp_path: Path):
    from tablebench.cases import load_case_set

    # each run in a process of its own: litellm imports parts of openai and httpx on its first request,
    # which an in-process run would drop again at its end, leaving this process's litellm (the judge
    # tests after this one) checking answers against classes no longer the ones it builds
    bench = copy_pages(tmp_path / "bench", ("074",))
    out = write_outputs(tmp_path / "out", load_case_set(bench), skip={("p074", 2)})
    xml = tmp_path / "junit.xml"
    with LLMServer([Reply(content=json.dumps({"errors": ["one value moved"], "score": 6}))]) as server:
        result = pytester.runpytest_subprocess(*args(bench, tmp_path / "cache", f"--parser=dir:{out}", "--metrics=teds",
                                          "--judge=openai/tiny-judge", f"--llm-api-base={server.api_base}",
                                          "--min-score=judge=5", f"--junitxml={xml}",
                                          f"--report-dir={tmp_path / 'report'}"))
        assert len(server.requests) == 2, "two located tables judged, the missing one not"
        rerun = pytester.runpytest_subprocess(*args(bench, tmp_path / "cache", f"--parser=dir:{out}", "--metrics=teds",
                                         "--judge=openai/tiny-judge", f"--llm-api-base={server.api_base}",
                                         "--min-score=judge=5", f"--junitxml={tmp_path / 'rerun.xml'}"))
        assert len(server.requests) == 2, "a judged rerun is served from the cache"
    rerun.assert_outcomes(passed=2, failed=1)
    assert {k: c["props"].get("judge") for k, c in junit(tmp_path / "rerun.xml").items()} == \
        {k: c["props"].get("judge") for k, c in junit(xml).items()}
    result.assert_outcomes(passed=2, failed=1)
    cases = junit(xml, tmp_path / "report")
    judged = {test_id.split("::")[1][:2]: (c["props"].get("judge"), c["result"]["outcome"])
              for test_id, c in cases.items()}
    assert judged == {"t0": ("6.0", "ok"), "t1": ("6.0", "ok"), "t2": ("0.0", "missing")}
    assert "judge" in result.stdout.str()


def test_min_score_on_the_judge_needs_the_judge(pytester: pytest.Pytester, tmp_path: Path):
    bench = copy_pages(tmp_path / "bench", ("074",))
    # in a subprocess: an in-process run after one that imported litellm does not see the plugin's options
    result = pytester.runpytest_subprocess(*args(bench, tmp_path / "cache", "--parser=pypdf", "--min-score=judge=5"))
    assert result.ret == pytest.ExitCode.USAGE_ERROR and "not a score of the selected metrics" in result.stderr.str()
