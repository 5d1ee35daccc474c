"""A parser that cannot work fails the run before the benchmark, one line each, exit code 4; a
baseline from a parser that failed on every page is refused unless asked for. Real plugin runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_plugin import args, bench, warm_metrics  # noqa: F401 - fixtures

pytest_plugins = ["pytester"]


def test_a_missing_program_and_a_keyless_vlm_refuse_the_run_one_line_each(pytester: pytest.Pytester, bench: Path,
                                                                          tmp_path: Path, monkeypatch):
    monkeypatch.delenv("TB_TEST_NO_SUCH_KEY", raising=False)
    result = pytester.runpytest(*args(bench, tmp_path / "cache", "--parser=a=command:no-such-program-xyz {pdf}",
                                      "--parser=b=vlm:openai/gpt-4o-mini?api_key_env=TB_TEST_NO_SUCH_KEY",
                                      "--parser=pypdf", "-p", "no:xdist"))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.strip()]
    assert errors == ["ERROR: --parser a: program 'no-such-program-xyz' is not on PATH (install it, or give its "
                      "full path)",
                      "--parser b: vlm:openai/gpt-4o-mini: environment variable TB_TEST_NO_SUCH_KEY (api_key_env) "
                      "is not set"], result.stderr.str()
    assert not any(line.startswith("collected") for line in result.stdout.lines), "refused before collection"


def test_a_vlm_without_its_providers_key_is_refused(pytester: pytest.Pytester, bench: Path, tmp_path: Path,
                                                    monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = pytester.runpytest(*args(bench, tmp_path / "cache", "--parser=vlm:openai/gpt-4o-mini", "-p", "no:xdist"))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "ERROR: --parser vlm:openai/gpt-4o-mini: vlm:openai/gpt-4o-mini: no API key in the environment " \
           "(set OPENAI_API_KEY" in result.stderr.str()


def test_a_baseline_of_a_parser_that_failed_every_page_is_refused_unless_anyway(pytester: pytest.Pytester,
                                                                                bench: Path, tmp_path: Path):
    dead = "--parser=dead=command:sh -c 'echo no licence >&2; exit 1' sh {pdf}"
    base = tmp_path / "base.json"
    run = pytester.runpytest(*args(bench, tmp_path / "cache", dead, f"--save-baseline={base}", "-p", "no:xdist",
                                   f"--report-dir={tmp_path / 'r1'}"))
    assert run.ret == pytest.ExitCode.TESTS_FAILED and not base.exists()
    refused = [line for line in run.stderr.lines if "refused" in line]
    assert len(refused) == 1 and "parser dead failed on every page" in refused[0] and "--save-baseline-anyway" in \
        refused[0], run.stderr.str()
    again = pytester.runpytest(*args(bench, tmp_path / "cache", dead, f"--save-baseline={base}", "-p", "no:xdist",
                                     "--save-baseline-anyway", f"--report-dir={tmp_path / 'r2'}"))
    assert again.ret == pytest.ExitCode.TESTS_FAILED and "refused" not in again.stderr.str()
    assert {c["outcome"] for c in json.loads(base.read_text())["cases"].values()} == {"parse_error"}


def test_collecting_alone_is_not_refused(pytester: pytest.Pytester, bench: Path, tmp_path: Path):
    result = pytester.runpytest(*args(bench, tmp_path / "cache", "--parser=a=command:no-such-program-xyz {pdf}",
                                      "--collect-only", "-q", "-p", "no:xdist"))
    assert result.ret == 0 and sum("::t" in line for line in result.stdout.lines) == 5, "ids list without parsing"
