"""No stored message holds a secret (issue 20, item 13): a provider that echoes the API key in its
401 answer, through the real plugin, litellm and a loopback OpenAI-compatible server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablebench.core.messages import REDACTED, one_line, redact
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


def stored_files(root: Path) -> list[Path]:
    """Every file a run wrote under `root` that a person or a tool could read later."""
    return [p for p in root.rglob("*") if p.is_file() and not p.is_symlink()
            and p.suffix in (".json", ".jsonl", ".html", ".md", ".xml", ".txt", ".pkl", ".db", "")]


def leaks(root: Path, secret: str) -> list[str]:
    return [str(p.relative_to(root)) for p in stored_files(root)
            if secret.encode() in p.read_bytes()]


def test_a_dir_output_that_links_to_the_environment_reads_nothing(pytester: pytest.Pytester, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVICE_PASSWORD", KEY)
    cases = case_set(tmp_path / "cases" / "mini", 2)
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    (outputs / "001.txt").symlink_to("/proc/self/environ")
    (outputs / "002.md").symlink_to("/etc/passwd")
    run = pytester.runpytest_subprocess(*PLUGIN, f"--cases={cases}", f"--parser=mine=dir:{outputs}",
                                        "--metrics=teds", "-p", "no:cacheprovider", "-p", "no:xdist",
                                        f"--parse-cache={tmp_path / 'cache'}", f"--junitxml={tmp_path / 'junit.xml'}",
                                        f"--report-dir={tmp_path / 'r'}", timeout=300)
    assert run.ret == 1
    results = (tmp_path / "r" / "results.json").read_text(encoding="utf-8")
    assert "001.txt: a symlink out of the folder" in results and "002.md: a symlink out of the folder" in results
    assert not leaks(tmp_path, KEY) and "root:x:0:0" not in results + run.stdout.str()
    assert KEY not in run.stdout.str() + run.stderr.str()


def test_a_key_in_a_variable_of_any_name_named_by_api_key_env_reaches_no_file(
        pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACME_CREDS", KEY)  # named like nothing secret: only api_key_env says it is
    cases = case_set(tmp_path / "cases" / "mini", 2)
    echo = Reply(401, f"Incorrect API key provided: {KEY}. You can find your API key at the dashboard.")
    with LLMServer([echo]) as server:
        spec = f"vlm:openai/tiny-vlm?dpi=30&retries=0&timeout=60&api_base={server.api_base}&api_key_env=ACME_CREDS"
        run = pytester.runpytest_subprocess(*PLUGIN, f"--cases={cases}", f"--parser=vlm={spec}", "--metrics=teds",
                                            "-p", "no:cacheprovider", "-n", "2",
                                            f"--parse-cache={tmp_path / 'cache'}",
                                            f"--junitxml={tmp_path / 'junit.xml'}",
                                            f"--report-dir={tmp_path / 'r'}", timeout=300)
        assert server.requests, "the parser reached the server"
    assert any(p.name == "results.jsonl" for p in stored_files(tmp_path)), "the run wrote its files"
    assert any(p.parent != tmp_path / "r" for p in stored_files(tmp_path / "cache")), "and its parse cache"
    assert not leaks(tmp_path, KEY)
    assert KEY not in run.stdout.str() + run.stderr.str()
    assert "Incorrect API key provided: [redacted]" in (tmp_path / "r" / "results.json").read_text(encoding="utf-8")


def test_a_key_echoed_in_a_successful_judge_answer_reaches_no_file(
        pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.ci_cases import write_pages

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    cases = case_set(tmp_path / "cases" / "mini", 2)
    out = write_pages(tmp_path / "out", cases)
    echo = Reply(content=json.dumps({"errors": [f"the request carried the key {KEY} in its header"], "score": 6}))
    with LLMServer([echo]) as server:
        run = pytester.runpytest_subprocess(*PLUGIN, f"--cases={cases}", f"--parser=mine=dir:{out}", "--metrics=teds",
                                            "-p", "no:cacheprovider", "-p", "no:xdist",
                                            "--judge=openai/tiny-judge", f"--llm-api-base={server.api_base}",
                                            f"--parse-cache={tmp_path / 'cache'}",
                                            f"--junitxml={tmp_path / 'junit.xml'}",
                                            f"--report-dir={tmp_path / 'r'}", timeout=300)
        assert server.requests, "the judge was asked"
    assert run.ret == 0, run.stdout.str()
    assert list((tmp_path / "cache").rglob("*.json")), "the judge's answers were cached"
    assert not leaks(tmp_path, KEY)
    assert KEY not in run.stdout.str() + run.stderr.str()
    assert "the request carried the key [redacted] in its header" in \
        (tmp_path / "r" / "results.json").read_text(encoding="utf-8")


def test_a_judge_told_to_read_a_variable_of_any_name_caches_no_echo_of_it(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from tablebench.metrics.judge import judge_table

    monkeypatch.setenv("ACME_JUDGE_CREDS", KEY)
    echo = Reply(content=json.dumps({"errors": [f"key {KEY} seen"], "score": 4}))
    with LLMServer([echo]) as server:
        verdict = judge_table("\\begin{tabular}{l}a\\\\\\end{tabular}", "| a |", "openai/tiny-judge",
                              api_base=server.api_base, api_key_env="ACME_JUDGE_CREDS", cache_dir=tmp_path / "judge")
        assert server.requests[0][1].get("Authorization", "").endswith(KEY), "the variable was read"
    assert verdict.errors == ["key [redacted] seen"] and not leaks(tmp_path, KEY)
