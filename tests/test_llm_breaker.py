"""An LLM endpoint that cannot be reached fails fast and loudly (judge and LLM locator alike).

The server is a local port nothing listens on (connection refused), reached through litellm
as in a real run; nothing is mocked.
"""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest

from tablebench.core import llm, llm_breaker
from tests.ci_cases import case_set, write_pages
from tests.test_plugin_ci import args, warm_metrics  # noqa: F401 — warm_metrics is an autouse fixture

pytest_plugins = ["pytester"]


def refused_base() -> str:
    """An OpenAI-style URL on a local port that was free a moment ago: connecting is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_after_a_few_connection_errors_the_endpoint_is_not_asked_again():
    llm.litellm_module()
    base = refused_base()
    ask = {"messages": [{"role": "user", "content": "hi"}], "api_base": base, "backoff": 0.01}
    with pytest.raises(llm.LLMError, match="not reachable: 3 consecutive connection errors") as first:
        llm.complete("openai/x", **ask)
    assert first.value.attempts == llm_breaker.THRESHOLD, "the retries stop once the breaker opens"
    with pytest.raises(llm.LLMError, match=r"Connection refused.*no request is sent") as second:
        llm.complete("openai/y", **ask)  # another model on the same server: the same breaker
    assert second.value.attempts == 0
    assert llm_breaker.open_reason(refused_base()) is None, "another endpoint is not affected"
    llm_breaker.reset()
    assert llm_breaker.open_reason(base) is None


def test_an_unreachable_judge_says_why_in_the_terminal_the_leaderboard_and_each_failure(
        pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("CI", "1")  # pytest's short summary then keeps whole lines, as in a CI job
    llm.litellm_module()  # imported once here: pytester's in-process run drops what it imports
    cases = case_set(tmp_path / "mini", 2)
    out = write_pages(tmp_path / "out", cases)
    run = pytester.runpytest(*args(cases, tmp_path, f"--parser=mine=dir:{out}", "--judge=openai/x",
                                   f"--llm-api-base={refused_base()}", "--min-score=judge=5",
                                   f"--report-dir={tmp_path / 'r'}"))
    run.assert_outcomes(failed=12)
    text = run.stdout.str()
    failures = [ln for ln in run.stdout.lines if ln.startswith("FAILED ")]
    assert len(failures) == 12 and all("judge not computed: " in ln for ln in failures)
    assert all(re.search(r"not reachable: 3 consecutive connection errors .*no request is sent", ln)
               for ln in failures), failures[0]
    assert re.search(r"tablebench judge: 12 of 12 found cases not scored: openai/x: http://127\.0\.0\.1:\d+/v1 "
                     r"not reachable: 3 consecutive connection errors \(\[Errno 111\] Connection refused\)", text)
    md = (tmp_path / "r" / "leaderboard.md").read_text()
    head = next(ln for ln in md.splitlines() if ln.startswith("| # | parser"))
    row = next(ln for ln in md.splitlines() if ln.startswith("| 1 | mine"))
    column = head.split(" | ").index("judge (0-10)")
    assert row.split(" | ")[column] == "– (12 not scored)"
