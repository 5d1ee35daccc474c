"""The judge is bounded (issue 46, finding 8): an answer's size, a question's and a page's wall-clock time.

A server that streamed a 200 MB answer cost 14 min and 7.5 GB for one table; one that accepted
the connection and never answered held a page of 6 tables for 30 min. Each is now an outcome
within its bound. The judge runs in a process of its own here (a real one, through litellm, to
a real local server), so a judge that does not stop is ended by the test's hang guard and its
memory is measured alone. No test here times anything: a judge its bounds do not end runs into
the hang guard and fails (the silent server's test sets litellm's own wait per attempt far past
the guard, so only the question's budget can end it in time). The timed versions are in
tests/test_adversarial.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ci_cases import case_set, write_pages
from tests.llm_server import LLMServer, Reply
from tests.peak_rss import PEAK_KB
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[1]
HANG_GUARD = 300  # seconds: far past every bound below; only an unbounded judge reaches it
JUDGE_ONE = PEAK_KB + r'''
import json, sys
from tablebench.metrics.judge import judge_table

options = json.loads(sys.argv[2])
verdict = judge_table("\\begin{tabular}{l}a\\\\\\end{tabular}", "| a |", "openai/tiny-judge", api_base=sys.argv[1],
                      **options)
print(json.dumps({"score": verdict.score, "error": verdict.error, "peak_mb": _peak_kb() / 1024}))
'''


def judge_alone(server: LLMServer, **options: object) -> dict:
    """One judge question in a process of its own: its verdict and peak memory."""
    done = subprocess.run([sys.executable, "-c", JUDGE_ONE, server.api_base, json.dumps(options)], cwd=REPO,
                          capture_output=True, text=True, timeout=HANG_GUARD, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("unsized", [False, True], ids=["sized", "unsized"])
def test_a_200_mb_answer_is_cut_at_the_cap_and_read_no_further(unsized: bool) -> None:
    """Sized: refused on its Content-Length; unsized: read until 1 MB, then dropped."""
    with LLMServer([Reply(content='{"score": 5, "errors": []}')]) as server:
        usual = judge_alone(server)  # the same process judging a usual answer: its peak memory
    with LLMServer([Reply(content='{"score": 5, "errors": ["', pad_bytes=200_000_000, unsized=unsized)]) as server:
        out = judge_alone(server, max_answer_mb=1)
        sent, asked = server.sent, len(server.requests)
    assert usual["score"] == 5.0
    assert out["score"] is None and out["error"] == "judge error: answer over 1 MB (openai/tiny-judge)"
    assert asked == 1, "an answer over the cap is not asked again"
    assert sent < 50_000_000, f"the client read {sent / 1e6:.0f} MB of the answer: it did not stop at the cap"
    assert out["peak_mb"] - usual["peak_mb"] < 100, (out["peak_mb"], usual["peak_mb"])


def test_a_server_that_never_answers_is_a_judge_timeout_within_the_question_budget() -> None:
    with LLMServer([Reply(silent=True)]) as server:
        out = judge_alone(server, budget=3, timeout=10 * HANG_GUARD)
    # litellm's own wait per attempt (`timeout`) is far past the hang guard: only the budget ends it within it
    assert out["score"] is None and out["error"] == "judge timeout: no answer within 3 s (openai/tiny-judge)"


def test_a_page_of_tables_against_a_silent_judge_ends_within_the_page_budget(pytester: pytest.Pytester,
                                                                            tmp_path: Path) -> None:
    cases = case_set(tmp_path / "cases" / "mini", 1)  # page 001: several tables
    out = write_pages(tmp_path / "out", cases)
    with LLMServer([Reply(silent=True)]) as server:
        run = pytester.runpytest_subprocess(*PLUGIN, f"--cases={cases}", f"--parser=mine=dir:{out}", "--metrics=teds",
                                            "-p", "no:cacheprovider", "-p", "no:xdist", "--judge=openai/tiny-judge",
                                            f"--llm-api-base={server.api_base}", "--judge-timeout=2",
                                            "--judge-page-timeout=3", f"--parse-cache={tmp_path / 'cache'}",
                                            f"--report-dir={tmp_path / 'r'}", timeout=HANG_GUARD)
        asked = len(server.requests)
    results = json.loads((tmp_path / "r" / "results.json").read_text(encoding="utf-8"))["results"]
    errors = [r["metric_errors"].get("judge", "") for r in results]
    assert len(results) >= 3 and all(e.startswith("judge timeout: ") for e in errors), errors
    assert any("this page's judge budget of 3 s is spent" in e for e in errors), errors
    assert asked < len(results), "the tables asked past the page's budget were not asked"
    assert "not scored: judge timeout: " in run.stdout.str()


@pytest.mark.parametrize(("option", "value", "says"), [
    ("--judge-timeout", "0", "--judge-timeout must be positive"),
    ("--judge-page-timeout", "nan", "--judge-page-timeout: expected a finite number"),
    ("--judge-max-answer", "-1", "--judge-max-answer must be positive"),
])
def test_bad_judge_bounds_are_one_line_usage_errors(pytester: pytest.Pytester, tmp_path: Path, option: str,
                                                    value: str, says: str) -> None:
    cases = case_set(tmp_path / "cases" / "mini", 1)
    run = pytester.runpytest_subprocess(*PLUGIN, f"--cases={cases}", "--parser=mine=dir:.", "--judge=openai/x",
                                        f"{option}={value}", "-p", "no:cacheprovider", timeout=120)
    assert run.ret == pytest.ExitCode.USAGE_ERROR and says in run.stderr.str()


def test_meta_eval_takes_the_judge_bounds_as_the_plugin_does(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """`tablebench meta-eval --judge` asks the judge too: a silent server is a judge timeout there,
    and a bad bound is the plugin's one-line error."""
    from tablebench.cli import main

    from tests.test_metaeval import _study_file

    study = _study_file(tmp_path, n=6)
    with LLMServer([Reply(silent=True)]) as server:
        main(["meta-eval", str(study), "--metrics", "teds", "--bootstrap", "20", "--judge", "openai/tiny-judge",
              "--llm-api-base", server.api_base, "--llm-cache", str(tmp_path / "judge"), "--judge-timeout", "2",
              "--judge-max-answer", "1"])
        asked = len(server.requests)
    err = capsys.readouterr().err
    assert asked and "judge openai/tiny-judge (tuned): 0/" in err, err
    assert "judge failures (6), first: judge timeout: no answer within 2 s (openai/tiny-judge)" in err, err
    assert main(["meta-eval", str(study), "--judge-max-answer", "inf"]) == 1
    assert capsys.readouterr().err == "tablebench: error: --judge-max-answer: expected a finite number, got 'inf'\n"
