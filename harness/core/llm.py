"""One call site for every language model: litellm with a cache, retries, a concurrency cap, cost.

Why one place: the judge, the LLM locator and anything later share the same failure modes
(rate limits, flaky 5xx, answers that are not JSON) and the same bill. `complete()` sends
chat messages to any litellm provider string (`gemini/...`, `openrouter/...`, `openai/...`,
`hosted_vllm/...`, or any model at a custom `api_base`) and returns the text, the parsed
JSON when asked for, tokens and cost.

- Cache (`tablebench.core.cache`): content-addressed (sha256 of model, prompt version, messages
  and the options that change the answer), one JSON file per answer, written atomically,
  locked per key so two processes asking the same question pay once. Only answers that
  passed `check` are stored; a stored answer the current `check` rejects is asked again. An
  answer that held a secret (in any encoding, before or after parsing) is never stored (a later
  run without the key in its environment could not tell it is one), and a stored one that
  holds a secret of this environment is not served: asked again, and replaced or removed. A
  cache that cannot be written costs the keeping, never the answer (one warning per folder).
- Bounds: `max_answer_mb` caps an answer's size as sent, `budget` the call's wall-clock
  seconds, re-sends, backoff and re-asks included (`tablebench.core.llm_bounds`).
- Transport (`tablebench.core.llm_transport`): keys from the environment only, bounded retries
  with backoff on transport failures, the per-process concurrency cap, cost accounting.
- Answers (`tablebench.core.llm_json`): tolerant JSON parsing; answers that are not the JSON
  asked for are re-asked with a short correction, `format_retries` times, then an `LLMError`.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablebench.core.cache import ContentCache
from tablebench.core.llm_json import parse_json, response_format, validate_answer
from tablebench.core.llm_transport import (
    LLMAnswerTooLarge,
    LLMError,
    LLMTimeout,
    Transport,
    account,
    concurrency,
    litellm_module,
    send,
    set_concurrency,
)
from tablebench.core.messages import holds_secret, redact_data
from tablebench.core.messages import one_line as _one_line
from tablebench.core.options import DEFAULT_MAX_ANSWER_MB

__all__ = ["CACHE_FORMAT", "LLMAnswerTooLarge", "LLMError", "LLMResponse", "LLMTimeout", "cache_key", "complete",
           "concurrency", "litellm_module", "parse_json", "response_format", "set_concurrency", "validate_answer"]

CACHE_FORMAT = 1


@dataclass
class LLMResponse:
    """One answer. `cost` is what this call spent (0.0 when `cached`); `data` is the parsed JSON."""

    text: str
    data: Any = None
    cost: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    attempts: int = 0  # HTTP requests made by this call
    note: str | None = None  # e.g. "no price for model X: cost counted as 0"
    held_secret: bool = False  # the answer held a secret (redacted in `text` and `data`): never cached


def cache_key(model: str, prompt_version: str, messages: list[dict], options: dict[str, Any]) -> str:
    """sha256 of everything that changes the answer (callers put the endpoint in `options`); never the key."""
    ident = {"format": CACHE_FORMAT, "model": model, "prompt_version": prompt_version,
             "messages": messages, "options": options}
    return hashlib.sha256(json.dumps(ident, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()


def _cached_answer(check: Callable[[Any], Any] | None) -> Callable[[Any], tuple[LLMResponse, Any]]:
    """How a stored answer reads back (as `complete` computes one: with no raw data beside it): an
    object with its text, holding no secret of this environment, and data the current `check`
    (when given) accepts; anything else raises, so the question is asked again."""
    def read(entry: Any) -> tuple[LLMResponse, Any]:
        if not isinstance(entry, dict) or not isinstance(entry.get("text"), str):
            raise ValueError("not a stored answer")
        if holds_secret(json.dumps(entry, ensure_ascii=False)):
            raise ValueError("a stored answer holding a secret")  # asked again: replaced, or removed
        data = entry.get("data")
        if check is not None:
            data = check(data)
        return LLMResponse(text=entry["text"], data=data, prompt_tokens=entry.get("prompt_tokens", 0),
                           completion_tokens=entry.get("completion_tokens", 0), cached=True, attempts=0,
                           note=entry.get("note")), None
    return read


def complete(
    model: str,
    messages: list[dict],
    *,
    prompt_version: str = "",
    schema: dict | None = None,
    json_mode: str = "schema",
    check: Callable[[Any], Any] | None = None,
    temperature: float = 0.0,
    max_tokens: int | None = None,
    timeout: float = 120.0,
    retries: int = 4,
    format_retries: int = 2,
    backoff: float = 1.0,
    max_backoff: float = 30.0,
    api_base: str | None = None,
    api_key_env: str | None = None,
    cache_dir: Path | str | None = None,
    extra: dict[str, Any] | None = None,
    budget: float | None = None,
    max_answer_mb: float = DEFAULT_MAX_ANSWER_MB,
) -> LLMResponse:
    """Ask `model`; with `schema`, the answer must be JSON (parsed into `data`).

    `check(data)` may raise ValueError to reject a parsed answer (e.g. a score out of range);
    the model is then re-asked with the reason, up to `format_retries` times. `retries`
    bounds the re-sends of one request on transport failures; the wait before re-send k is
    `min(max_backoff, backoff * 2**k)` scaled by a random factor in [0.5, 1], or the server's
    Retry-After when longer (at most `max_backoff`). `extra` goes to
    litellm as is (e.g. `{"top_p": 1, "reasoning_effort": "low"}`) and into the cache key.
    `cache_dir=None` disables the cache. `budget` (seconds, None: none) bounds the whole call,
    re-sends, backoff and re-asks included: past it no request is sent and the one waiting ends
    (`LLMTimeout`; a server trickling bytes, at its first byte after it: `tablebench.core.llm_bounds`);
    an answer over `max_answer_mb` is not read past it (`LLMAnswerTooLarge`). Neither is retried.
    """
    _validate(model, messages, retries, format_retries, timeout)
    _validate_bounds(budget, max_answer_mb)
    if extra and {"api_key", "api_base", "messages", "model"} & set(extra):
        raise ValueError("extra must not hold api_key/api_base/model/messages: keys come from the environment "
                         "(api_key_env), the endpoint from api_base")
    rf = response_format(schema, json_mode)
    wants_json = schema is not None
    options = {"temperature": temperature, "max_tokens": max_tokens, "response_format": rf,
               "json": wants_json, "extra": extra or {}}
    transport = Transport(float(timeout), retries, float(backoff), float(max_backoff), api_base or None,
                          api_key_env or None, max_bytes=int(max_answer_mb * 1e6),
                          deadline=None if budget is None else time.monotonic() + budget,
                          late=f"no answer within {budget:g} s" if budget is not None else "")
    if cache_dir is None:
        return _ask(model, messages, rf, check, options, transport, format_retries)[0]
    cache = ContentCache(cache_dir)
    # The endpoint is part of the key (two local servers may serve different models under one
    # name); it is not a secret. The API key never is.
    key = cache_key(model, prompt_version, messages, {**options, "api_base": api_base or None})

    def entry(asked: tuple[LLMResponse, Any]) -> dict[str, Any]:
        response, raw = asked
        return {"model": model, "prompt_version": prompt_version, "text": response.text, "data": raw,
                "prompt_tokens": response.prompt_tokens, "completion_tokens": response.completion_tokens,
                "cost": response.cost, "note": response.note}

    (response, _), _ = cache.fetch(key, _cached_answer(check if wants_json else None),
                                   lambda: _ask(model, messages, rf, check, options, transport, format_retries),
                                   entry, keep=lambda asked: not asked[0].held_secret)
    return response


def _validate(model: str, messages: list[dict], retries: int, format_retries: int, timeout: float) -> None:
    if not isinstance(model, str) or not model.strip():
        raise ValueError("model must be a litellm model string, e.g. 'gemini/gemini-2.5-flash'")
    if not isinstance(messages, list) or not messages or not all(isinstance(m, dict) for m in messages):
        raise ValueError("messages must be a non-empty list of {'role', 'content'} dicts")
    for name, value in (("retries", retries), ("format_retries", format_retries)):
        if not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    if not timeout or timeout <= 0:
        raise ValueError(f"timeout must be positive seconds, got {timeout!r}")


def _validate_bounds(budget: float | None, max_answer_mb: float) -> None:
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, (int, float))
                               or not math.isfinite(budget) or budget <= 0):
        raise ValueError(f"budget must be positive seconds or None, got {budget!r}")
    if (isinstance(max_answer_mb, bool) or not isinstance(max_answer_mb, (int, float))
            or not math.isfinite(max_answer_mb) or max_answer_mb <= 0):
        raise ValueError(f"max_answer_mb must be a positive number of MB, got {max_answer_mb!r}")


def _ask(model: str, messages: list[dict], rf: dict | None, check: Callable[[Any], Any] | None,
         options: dict[str, Any], transport: Transport, format_retries: int) -> tuple[LLMResponse, Any]:
    """(response, parsed JSON before `check`): send, parse, check; re-ask with the reason when unusable."""
    conversation = list(messages)
    cost, attempts, tokens = 0.0, 0, [0, 0]
    notes: set[str] = set()
    for round_ in range(format_retries + 1):
        try:
            raw_response, tries = send(model, conversation, rf, options, transport)
        except LLMError as exc:
            raise type(exc)(str(exc), cost=cost + exc.cost, attempts=attempts + exc.attempts) from None  # its kind kept
        attempts += tries
        text, spent, note, usage, held = account(model, raw_response)
        cost += spent
        tokens[0] += usage[0]
        tokens[1] += usage[1]
        if note:
            notes.add(note)
        if not options["json"]:
            return LLMResponse(text, None, cost, tokens[0], tokens[1], False, attempts, _join(notes), held), None
        try:
            raw, decoded_held = redact_data(parse_json(text))  # again after decoding: escapes the text hid
            held = held or decoded_held
            data = check(raw) if check is not None else raw
        except (ValueError, TypeError) as exc:
            reason = _one_line(exc, 200)
            if round_ == format_retries:
                raise LLMError(f"{model}: unusable answer after {round_ + 1} tries: {reason}",
                               cost=cost, attempts=attempts) from None
            conversation = [*messages, {"role": "assistant", "content": text},
                            {"role": "user", "content": f"That answer was not usable ({reason}). Reply again "
                                                        "with only the JSON object the instructions ask for."}]
            continue
        return LLMResponse(text, data, cost, tokens[0], tokens[1], False, attempts, _join(notes), held), raw
    raise AssertionError("unreachable")


def _join(notes: set[str]) -> str | None:
    return "; ".join(sorted(notes)) or None
