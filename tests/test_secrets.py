"""No stored message holds a secret (issue 20, item 13): a provider that echoes the API key in its
401 answer, through the real plugin, litellm and a loopback OpenAI-compatible server."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.core.messages import REDACTED, one_line, redact
from tests.ci_cases import case_set
from tests.llm_server import LLMServer, Reply
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]

KEY = "test-provider-key-4f9a2c7e1b"


def test_secrets_of_the_environment_and_key_shapes_are_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOMEPROVIDER_API_KEY", KEY)
    monkeypatch.setenv("FEATURE_KEY_ENABLED", "1")  # too short to be a secret: "1" stays everywhere
    text = f"401 Incorrect API key provided: {KEY}; Authorization: Bearer abcdefghijklmnop1234; sk-{'x' * 24} 1"
    assert redact(text) == f"401 Incorrect API key provided: {REDACTED}; Authorization: {REDACTED}; {REDACTED} 1"
    assert KEY not in one_line(RuntimeError(f"failed\n{KEY}"))


def test_an_echoed_key_reaches_no_file(pytester: pytest.Pytester, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    cases = case_set(tmp_path / "cases" / "mini", 2)
    echo = Reply(401, f"Incorrect API key provided: {KEY}. You can find your API key at the dashboard.")
    with LLMServer([echo]) as server:
        spec = "vlm:openai/tiny-vlm?dpi=30&retries=0&timeout=60"
        run = pytester.runpytest_subprocess(*PLUGIN, f"--cases={cases}", f"--parser=vlm={spec}", "--metrics=teds",
                                            "-p", "no:cacheprovider", "-p", "no:xdist",
                                            f"--parse-cache={tmp_path / 'cache'}", f"--llm-api-base={server.api_base}",
                                            f"--junitxml={tmp_path / 'junit.xml'}",
                                            f"--report-dir={tmp_path / 'r'}", timeout=300)
        assert server.requests, "the parser reached the server"
    stored = [p for p in tmp_path.rglob("*") if p.is_file() and p.suffix in (".json", ".html", ".md", ".xml", ".txt")]
    assert any(p.name == "results.json" for p in stored) and any(p.name == "junit.xml" for p in stored)
    leaked = [str(p.relative_to(tmp_path)) for p in stored if KEY in p.read_text(encoding="utf-8", errors="replace")]
    assert not leaked, leaked
    assert KEY not in run.stdout.str() + run.stderr.str()
    assert "Incorrect API key provided" in (tmp_path / "r" / "results.json").read_text(encoding="utf-8")
