"""tablebench.core.llm through litellm against a real local OpenAI-compatible server (no mocks)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablebench.core import llm
from tablebench.core.llm import LLMError, complete, parse_json
from tests.llm_server import LLMServer, Reply

SCHEMA = {"type": "object", "properties": {"score": {"type": "number"}}, "required": ["score"],
          "additionalProperties": False}
MESSAGES = [{"role": "system", "content": "Answer in JSON."}, {"role": "user", "content": "Rate this."}]
FAST = {"backoff": 0.001, "max_backoff": 0.01}  # keep retry waits tiny in tests


@pytest.fixture(scope="module")
def server() -> Iterator[LLMServer]:
    with LLMServer() as srv:
        llm.litellm_module()  # the ~2-5 s import, once per module
        yield srv


def ask(server: LLMServer, script: list[Reply], **options) -> llm.LLMResponse:
    server.reset(script)
    return complete("openai/tiny-judge", MESSAGES, schema=SCHEMA, api_base=server.api_base,
                    **{**FAST, **options})


# -- the tolerant parser ----------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ('{"score": 7}', {"score": 7}),
    ('```json\n{"score": 7, "errors": ["a"]}\n```', {"score": 7, "errors": ["a"]}),
    ('Here you go: {"score": 3} -- hope that helps {not json}', {"score": 3}),
    ("{'score': 4, 'errors': ['it''s']}", {"score": 4, "errors": ["its"]}),
    ('{"errors": ["x",], "score": 2,}', {"errors": ["x"], "score": 2}),
    ("<think>maybe {score: 1}?</think>\n{\"score\": 9}", {"score": 9}),
    ('{"errors": ["brace } inside a string"], "score": 5}', {"errors": ["brace } inside a string"], "score": 5}),
    ("[1, 2]", [1, 2]),
])
def test_parse_json_tolerates_what_models_wrap_around_json(text: str, expected: object) -> None:
    assert parse_json(text) == expected


@pytest.mark.parametrize("text", ["", "score: seven", '{"score": 7', "{unquoted: key}"])
def test_parse_json_rejects_text_without_json(text: str) -> None:
    with pytest.raises(ValueError, match="no JSON object"):
        parse_json(text)


# -- through the server ------------------------------------------------------------------------
def test_success_sends_the_schema_and_counts_tokens(server: LLMServer) -> None:
    out = ask(server, [Reply(content='{"score": 7}', prompt_tokens=321, completion_tokens=12)])
    assert (out.data, out.cached, out.attempts) == ({"score": 7}, False, 1)
    assert (out.prompt_tokens, out.completion_tokens) == (321, 12)
    assert out.cost == 0.0 and "no price for openai/tiny-judge" in out.note
    path, _, body = server.requests[0]
    assert path == "/v1/chat/completions" and body["model"] == "tiny-judge" and body["temperature"] == 0
    assert body["messages"] == MESSAGES
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == SCHEMA


def test_json_mode_object_and_prompt(server: LLMServer) -> None:
    ask(server, [Reply(content='{"score": 1}')], json_mode="object")
    assert server.bodies()[0]["response_format"] == {"type": "json_object"}
    ask(server, [Reply(content='{"score": 1}')], json_mode="prompt")
    assert "response_format" not in server.bodies()[0]
    with pytest.raises(ValueError, match="json_mode must be"):
        ask(server, [Reply(content="{}")], json_mode="yaml")


def test_cost_comes_from_litellm_price_map(server: LLMServer) -> None:
    server.reset([Reply(content='{"score": 1}', prompt_tokens=1000, completion_tokens=100)])
    out = complete("openai/gpt-4o-mini", MESSAGES, schema=SCHEMA, api_base=server.api_base)
    price = llm.litellm_module().model_cost["gpt-4o-mini"]
    expected = 1000 * price["input_cost_per_token"] + 100 * price["output_cost_per_token"]
    assert out.note is None and out.cost == pytest.approx(expected) and out.cost > 0


def test_cache_hit_makes_no_request_and_never_stores_the_key(server: LLMServer, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-test-5f0d3c1e-do-not-store"
    monkeypatch.setenv("TABLEBENCH_TEST_LLM_KEY", secret)
    first = ask(server, [Reply(content='{"score": 6}')], cache_dir=tmp_path, api_key_env="TABLEBENCH_TEST_LLM_KEY")
    assert server.requests[0][1]["Authorization"] == f"Bearer {secret}"  # the key was used ...
    second = ask(server, [Reply(content='{"score": 0}')], cache_dir=tmp_path, api_key_env="TABLEBENCH_TEST_LLM_KEY")
    assert server.requests == []  # ... the rerun asked nothing
    assert (first.data, first.cached) == ({"score": 6}, False)
    assert (second.data, second.cached, second.cost, second.attempts) == ({"score": 6}, True, 0.0, 0)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.suffix == ".json" for p in files)
    for path in files:  # ... and is in no file
        assert secret.encode() not in path.read_bytes()


def test_cache_key_changes_with_prompt_version_and_model(server: LLMServer, tmp_path: Path) -> None:
    ask(server, [Reply(content='{"score": 1}')], cache_dir=tmp_path, prompt_version="v1")
    ask(server, [Reply(content='{"score": 2}')], cache_dir=tmp_path, prompt_version="v2")
    assert len(server.requests) == 1
    out = ask(server, [Reply(content='{"score": 3}')], cache_dir=tmp_path, prompt_version="v1", temperature=0.5)
    assert out.data == {"score": 3} and len(server.requests) == 1


def test_provider_key_variable_is_used_with_a_custom_api_base(server: LLMServer,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-provider-variable")
    ask(server, [Reply(content='{"score": 1}')])
    assert server.requests[0][1]["Authorization"] == "Bearer sk-from-provider-variable"
    monkeypatch.delenv("OPENAI_API_KEY")
    ask(server, [Reply(content='{"score": 1}')])
    assert server.requests[0][1]["Authorization"] == "Bearer unused"  # a local server wants some token


def test_missing_key_variable_is_a_clear_error(server: LLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TABLEBENCH_NO_SUCH_KEY", raising=False)
    with pytest.raises(LLMError, match="TABLEBENCH_NO_SUCH_KEY .* is not set"):
        ask(server, [Reply(content="{}")], api_key_env="TABLEBENCH_NO_SUCH_KEY")
    assert server.requests == []


def test_rate_limit_then_success(server: LLMServer) -> None:
    out = ask(server, [Reply(429, "slow down"), Reply(503, "busy"), Reply(content='{"score": 8}')], retries=3)
    assert (out.data, out.attempts, len(server.requests)) == ({"score": 8}, 3, 3)


def test_server_error_forever_is_bounded(server: LLMServer, tmp_path: Path) -> None:
    with pytest.raises(LLMError, match=r"InternalServerError after 3 attempts: .*boom") as info:
        ask(server, [Reply(500, "boom")], retries=2, cache_dir=tmp_path)
    assert len(server.requests) == 3 and info.value.attempts == 3
    assert not list(tmp_path.rglob("*.json"))  # failures are not cached


@pytest.mark.parametrize("status", [400, 401])
def test_client_errors_are_not_retried(server: LLMServer, status: int) -> None:
    with pytest.raises(LLMError, match="refused by test"):
        ask(server, [Reply(status, "refused by test"), Reply(content='{"score": 1}')], retries=3)
    assert len(server.requests) == 1


def test_timeout_is_retried_then_reported(server: LLMServer) -> None:
    # a reply slower than the timeout is never waited for: both attempts time out (no reply is used)
    with pytest.raises(LLMError, match=r"Timeout after 2 attempts"):
        ask(server, [Reply(content='{"score": 1}', delay=1.5)], retries=1, timeout=0.3)
    assert len(server.requests) == 2


def test_invalid_json_is_re_asked_with_the_reason_then_an_error(server: LLMServer) -> None:
    with pytest.raises(LLMError, match=r"unusable answer after 2 tries: no JSON object"):
        ask(server, [Reply(content="seven out of ten")], format_retries=1)
    assert len(server.requests) == 2
    retry = server.bodies()[1]["messages"]
    assert retry[:2] == MESSAGES and retry[2] == {"role": "assistant", "content": "seven out of ten"}
    assert "not usable" in retry[3]["content"]
    out = ask(server, [Reply(content="sorry"), Reply(content='{"score": 5}')], format_retries=1)
    assert (out.data, out.attempts) == ({"score": 5}, 2)


def test_check_rejects_an_answer_and_only_accepted_answers_are_cached(server: LLMServer, tmp_path: Path) -> None:
    def in_range(data: dict) -> float:
        if not 0 <= data["score"] <= 10:
            raise ValueError(f"score {data['score']} is outside 0-10")
        return float(data["score"])

    out = ask(server, [Reply(content='{"score": 11}'), Reply(content='{"score": 9}')], check=in_range,
              cache_dir=tmp_path)
    assert out.data == 9.0 and "outside 0-10" in server.bodies()[1]["messages"][-1]["content"]
    again = ask(server, [Reply(content='{"score": 1}')], check=in_range, cache_dir=tmp_path)
    assert (again.data, again.cached, server.requests) == (9.0, True, [])


def test_concurrency_limit_is_shared_by_threads(server: LLMServer) -> None:
    before = llm.concurrency()
    llm.set_concurrency(2)
    try:
        server.reset([Reply(content='{"score": 1}', delay=0.3)])
        threads = [threading.Thread(target=complete, args=("openai/tiny-judge", MESSAGES),
                                    kwargs={"schema": SCHEMA, "api_base": server.api_base}) for _ in range(5)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(server.requests) == 5 and server.max_in_flight == 2
    finally:
        llm.set_concurrency(before)


@pytest.mark.parametrize("model, messages, options, message", [
    ("", MESSAGES, {}, "model must be"),
    ("openai/x", [], {}, "messages must be"),
    ("openai/x", MESSAGES, {"retries": -1}, "retries must be"),
    ("openai/x", MESSAGES, {"timeout": 0}, "timeout must be"),
])
def test_bad_input_is_a_one_line_error(model: str, messages: list, options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        complete(model, messages, **options)
    with pytest.raises(ValueError, match="concurrency must be"):
        llm.set_concurrency(0)
    with pytest.raises(ValueError, match="keys come from the environment"):
        complete("openai/x", MESSAGES, extra={"api_key": "sk-inline"})


def test_connection_refused_is_retried_a_bounded_number_of_times() -> None:
    import socket

    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(LLMError, match=r"after 2 attempts: Connection error"):
        complete("openai/tiny-judge", MESSAGES, schema=SCHEMA, api_base=f"http://127.0.0.1:{port}/v1",
                 retries=1, timeout=5, **FAST)


def test_same_question_asked_at_once_is_paid_once(server: LLMServer, tmp_path: Path) -> None:
    server.reset([Reply(content='{"score": 4}', delay=0.2)])
    answers: list[llm.LLMResponse] = []
    threads = [threading.Thread(target=lambda: answers.append(complete(
        "openai/tiny-judge", MESSAGES, schema=SCHEMA, api_base=server.api_base, cache_dir=tmp_path)))
        for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(server.requests) == 1 and sorted(a.cached for a in answers) == [False, True, True]


def test_the_cache_keeps_answers_of_different_endpoints_apart(server: LLMServer, tmp_path: Path) -> None:
    """Two local servers may serve different models under one name: the endpoint is in the key."""
    first = ask(server, [Reply(content='{"score": 7}')], cache_dir=tmp_path)
    with LLMServer([Reply(content='{"score": 2}')]) as other:
        second = complete("openai/tiny-judge", MESSAGES, schema=SCHEMA, api_base=other.api_base,
                          cache_dir=tmp_path, **FAST)
        assert len(other.requests) == 1
    assert (first.data, second.data, second.cached) == ({"score": 7}, {"score": 2}, False)
    again = ask(server, [Reply(content='{"score": 9}')], cache_dir=tmp_path)
    assert (again.data, again.cached) == ({"score": 7}, True)


def test_backoff_doubles_jitters_down_to_half_and_honours_retry_after() -> None:
    from types import SimpleNamespace

    from tenacity import RetryCallState, Retrying

    from tablebench.core.llm_transport import Backoff

    class Throttled(Exception):
        def __init__(self, after: str) -> None:
            super().__init__("slow down")
            self.response = SimpleNamespace(headers={"retry-after": after})

    def after(attempt: int, exc: BaseException) -> float:
        state = RetryCallState(Retrying(), None, (), {})
        state.attempt_number = attempt
        state.set_exception((type(exc), exc, None))
        return Backoff(1.0, 30.0)(state)

    assert 0.5 <= after(1, RuntimeError()) <= 1.0
    assert 4.0 <= after(4, RuntimeError()) <= 8.0
    assert 15.0 <= after(9, RuntimeError()) <= 30.0  # capped at max_backoff before the jitter
    assert after(1, Throttled("7")) == 7.0  # the server's wait when longer ...
    assert after(1, Throttled("120")) == 30.0  # ... but never beyond max_backoff
    assert 0.5 <= after(1, Throttled("soon")) <= 1.0  # an unreadable header is ignored


def test_validate_answer_checks_the_declared_schema_in_one_line() -> None:
    assert llm.validate_answer({"score": 7}, SCHEMA) == {"score": 7}
    with pytest.raises(ValueError, match=r"^at score: '8/10' is not of type 'number'$"):
        llm.validate_answer({"score": "8/10"}, SCHEMA)
    with pytest.raises(ValueError, match=r"^'score' is a required property$"):
        llm.validate_answer({}, SCHEMA)
    with pytest.raises(ValueError, match="Additional properties are not allowed"):
        llm.validate_answer({"score": 1, "why": "x"}, SCHEMA)
    with pytest.raises(ValueError, match="^not a valid JSON schema"):
        llm.validate_answer({}, {"type": "nonsense"})


def test_an_answer_off_the_schema_is_re_asked_with_the_reason(server: LLMServer) -> None:
    out = ask(server, [Reply(content='{"score": "high"}'), Reply(content='{"score": 6}')],
              check=lambda data: llm.validate_answer(data, SCHEMA))
    assert out.data == {"score": 6} and "'high' is not of type 'number'" in server.bodies()[1]["messages"][-1]["content"]
