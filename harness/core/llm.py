"""One call site for every language model: litellm with a cache, retries, a concurrency cap, cost.

Why one place: the judge, the LLM locator and anything later share the same failure modes
(rate limits, flaky 5xx, answers that are not JSON) and the same bill. `complete()` sends
chat messages to any litellm provider string (`gemini/...`, `openrouter/...`, `openai/...`,
`hosted_vllm/...`, or any model at a custom `api_base`) and returns the text, the parsed
JSON when asked for, tokens and cost.

- Cache: content-addressed (sha256 of model, prompt version, messages and the options that
  change the answer), one JSON file per answer, written atomically, locked per key so two
  processes asking the same question pay once. Only answers that passed `check` are stored.
- Retries: transport failures (429, 5xx, timeouts, dropped connections) are retried with
  exponential backoff and jitter, a bounded number of times; client errors (400, 401, 403,
  404, 422) fail at once. Answers that are not the JSON asked for are re-asked with a short
  correction, `format_retries` times, then an `LLMError`.
- Keys come from the environment only (litellm's provider variables, or `api_key_env`);
  they are never part of a cache key or a cache file.

litellm is imported lazily (about 5 s) with `LITELLM_LOCAL_MODEL_COST_MAP=True`, so importing
this module costs nothing and litellm never fetches a price list.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import random
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.core.files import locked, write_atomic
from harness.core.messages import one_line as _one_line

CACHE_FORMAT = 1
DEFAULT_CONCURRENCY = 4
CONCURRENCY_ENV = "TABLEBENCH_LLM_CONCURRENCY"
_LOCAL_KEY = "unused"  # local servers (api_base) still want some bearer token
_RETRY_STATUS = frozenset({408, 409, 425, 429})
_TRANSIENT_NAMES = ("RateLimitError", "Timeout", "APIConnectionError", "InternalServerError",
                    "ServiceUnavailableError", "BadGatewayError")


class LLMError(RuntimeError):
    """A model call that failed for good; `cost` is what the failed attempts still cost."""

    def __init__(self, message: str, *, cost: float = 0.0, attempts: int = 0) -> None:
        super().__init__(message)
        self.cost = cost
        self.attempts = attempts


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


# -- litellm, imported once and lazily ---------------------------------------------------
_import_lock = threading.Lock()
_litellm: Any = None


def litellm_module() -> Any:
    """litellm, imported on first use without a network fetch of its price map."""
    global _litellm
    if _litellm is None:
        with _import_lock:
            if _litellm is None:
                os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
                try:
                    import litellm
                except ImportError:
                    raise LLMError("litellm is not installed: pip install 'tablebench[llm]'") from None
                litellm.suppress_debug_info = True  # no feedback banner on every retried error
                _litellm = litellm
    return _litellm


# -- the per-process concurrency limit ----------------------------------------------------
def _default_concurrency() -> int:
    raw = os.environ.get(CONCURRENCY_ENV, "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else DEFAULT_CONCURRENCY


_limit = threading.BoundedSemaphore(_default_concurrency())
_limit_size = _default_concurrency()


def set_concurrency(n: int) -> None:
    """At most `n` requests in flight in this process (all models together). Set it before calling."""
    global _limit, _limit_size
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"concurrency must be a positive integer, got {n!r}")
    _limit, _limit_size = threading.BoundedSemaphore(n), n


def concurrency() -> int:
    return _limit_size


# -- tolerant JSON ---------------------------------------------------------------------
_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_PREFIX = re.compile(r"^(?:\s*(?:litellm\.)?\w*(?:Error|Exception)\s*[:-]\s*)+")
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def parse_json(text: str) -> Any:
    """The first JSON object or array in a model's answer.

    Tolerates what models wrap around JSON: code fences, <think> blocks, prose before or
    after, single quotes, Python literals (True/None), trailing commas. Raises ValueError
    with the reason when nothing parses.
    """
    if not isinstance(text, str):
        raise TypeError(f"expected text, got {type(text).__name__}")
    body = _THINK.sub("", text).strip()
    fenced = [m.group(1) for m in _FENCE.finditer(body)]
    for candidate in [*fenced, body]:
        value = _first_json(candidate)
        if value is not None:
            return value
    raise ValueError(f"no JSON object in the answer: {_one_line(text, 120)!r}")


def _first_json(text: str) -> Any:
    """The first balanced {...} or [...] in `text` that parses, else None."""
    starts = [i for i, ch in enumerate(text) if ch in "{["][:32]
    for start in starts:
        chunk = _balanced(text, start)
        if chunk is None:
            continue
        for attempt in (chunk, _TRAILING_COMMA.sub(r"\1", chunk)):
            try:
                return json.loads(attempt)
            except ValueError:
                pass
            try:  # single quotes, True/False/None
                value = ast.literal_eval(attempt)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                continue
            if isinstance(value, (dict, list)):
                return value
    return None


def _balanced(text: str, start: int) -> str | None:
    """The bracketed chunk opening at `start`, honouring quoted strings; None when unclosed."""
    closing = {"{": "}", "[": "]"}
    stack: list[str] = []
    quote: str | None = None
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in closing:
            stack.append(closing[ch])
        elif ch in "}]":
            if not stack or stack.pop() != ch:
                return None
            if not stack:
                return text[start:i + 1]
    return None


# -- response formats ----------------------------------------------------------------------
def response_format(schema: dict | None, json_mode: str) -> dict | None:
    """The OpenAI-style `response_format` for litellm: a JSON schema, JSON mode, or none.

    `json_mode="prompt"` sends nothing and relies on the prompt and the tolerant parser,
    for servers that reject `response_format`.
    """
    if json_mode not in ("schema", "object", "prompt"):
        raise ValueError(f"json_mode must be 'schema', 'object' or 'prompt', got {json_mode!r}")
    if schema is None or json_mode == "prompt":
        return None
    if json_mode == "object":
        return {"type": "json_object"}
    return {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema, "strict": True}}


# -- the cache ------------------------------------------------------------------------------
def cache_key(model: str, prompt_version: str, messages: list[dict], options: dict[str, Any]) -> str:
    """sha256 of everything that changes the answer (callers put the endpoint in `options`); never the key."""
    ident = {"format": CACHE_FORMAT, "model": model, "prompt_version": prompt_version,
             "messages": messages, "options": options}
    return hashlib.sha256(json.dumps(ident, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()


class LLMCache:
    """Answers as `<root>/<key[:2]>/<key>.json`, written atomically, one lock file per key."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        """The stored answer, or None when absent or unreadable (then it is asked again)."""
        try:
            data = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) and "text" in data else None

    def put(self, key: str, record: dict) -> None:
        write_atomic(self.path(key), json.dumps(record, ensure_ascii=False))

    @contextmanager
    def lock(self, key: str) -> Iterator[None]:
        """Exclusive per key across processes and threads: the second asker waits, then hits."""
        with locked(self.path(key).with_suffix(".lock")):
            yield


# -- the call ---------------------------------------------------------------------------------
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
) -> LLMResponse:
    """Ask `model`; with `schema`, the answer must be JSON (parsed into `data`).

    `check(data)` may raise ValueError to reject a parsed answer (e.g. a score out of range);
    the model is then re-asked with the reason, up to `format_retries` times. `retries`
    bounds the re-sends of one request on transport failures; the wait before re-send k is
    `min(max_backoff, backoff * 2**k)` scaled by a random factor in [0.5, 1]. `extra` goes to
    litellm as is (e.g. `{"top_p": 1, "reasoning_effort": "low"}`) and into the cache key.
    `cache_dir=None` disables the cache.
    """
    _validate(model, messages, retries, format_retries, timeout)
    if extra and {"api_key", "api_base", "messages", "model"} & set(extra):
        raise ValueError("extra must not hold api_key/api_base/model/messages: keys come from the environment "
                         "(api_key_env), the endpoint from api_base")
    rf = response_format(schema, json_mode)
    wants_json = schema is not None
    options = {"temperature": temperature, "max_tokens": max_tokens, "response_format": rf,
               "json": wants_json, "extra": extra or {}}
    transport = _Transport(float(timeout), retries, float(backoff), float(max_backoff), api_base or None,
                           api_key_env or None)
    if cache_dir is None:
        return _ask(model, messages, rf, check, options, transport, format_retries)[0]
    cache = LLMCache(cache_dir)
    # The endpoint is part of the key (two local servers may serve different models under one
    # name); it is not a secret. The API key never is.
    key = cache_key(model, prompt_version, messages, {**options, "api_base": api_base or None})
    with cache.lock(key):
        hit = cache.get(key)
        if hit is not None:
            try:
                data = hit.get("data")
                if check is not None and wants_json:
                    data = check(data)
                return LLMResponse(text=hit["text"], data=data, prompt_tokens=hit.get("prompt_tokens", 0),
                                   completion_tokens=hit.get("completion_tokens", 0), cached=True, attempts=0,
                                   note=hit.get("note"))
            except (ValueError, TypeError, KeyError):
                pass  # an entry the current check rejects: ask again and overwrite it
        response, raw = _ask(model, messages, rf, check, options, transport, format_retries)
        cache.put(key, {"model": model, "prompt_version": prompt_version, "text": response.text, "data": raw,
                        "prompt_tokens": response.prompt_tokens, "completion_tokens": response.completion_tokens,
                        "cost": response.cost, "note": response.note})
        return response


@dataclass(frozen=True)
class _Transport:
    timeout: float
    retries: int
    backoff: float
    max_backoff: float
    api_base: str | None
    api_key_env: str | None


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


def _ask(model: str, messages: list[dict], rf: dict | None, check: Callable[[Any], Any] | None,
         options: dict[str, Any], transport: _Transport, format_retries: int) -> tuple[LLMResponse, Any]:
    """(response, parsed JSON before `check`): send, parse, check; re-ask with the reason when unusable."""
    conversation = list(messages)
    cost, attempts, tokens = 0.0, 0, [0, 0]
    notes: set[str] = set()
    for round_ in range(format_retries + 1):
        try:
            raw_response, tries = _send(model, conversation, rf, options, transport)
        except LLMError as exc:
            raise LLMError(str(exc), cost=cost + exc.cost, attempts=attempts + exc.attempts) from None
        attempts += tries
        text, spent, note, usage = _account(model, raw_response)
        cost += spent
        tokens[0] += usage[0]
        tokens[1] += usage[1]
        if note:
            notes.add(note)
        if not options["json"]:
            return LLMResponse(text, None, cost, tokens[0], tokens[1], False, attempts, _join(notes)), None
        try:
            raw = parse_json(text)
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
        return LLMResponse(text, data, cost, tokens[0], tokens[1], False, attempts, _join(notes)), raw
    raise AssertionError("unreachable")


def _join(notes: set[str]) -> str | None:
    return "; ".join(sorted(notes)) or None


def _api_key(model: str, transport: _Transport) -> str | None:
    """From `api_key_env`; else None, so litellm reads the provider's own variable
    (OPENAI_API_KEY, GEMINI_API_KEY, ...); a placeholder only for a custom `api_base` when that
    variable is unset too (local servers want some token)."""
    if transport.api_key_env:
        key = os.environ.get(transport.api_key_env)
        if not key:
            raise LLMError(f"environment variable {transport.api_key_env} (api_key_env) is not set")
        return key
    if not transport.api_base:
        return None
    try:
        found = litellm_module().validate_environment(model=model).get("keys_in_environment", False)
    except Exception:  # noqa: BLE001 - an unknown provider: let litellm decide
        found = False
    return None if found else _LOCAL_KEY


def _is_transient(litellm: Any, exc: BaseException) -> bool:
    transient = tuple(getattr(litellm, n) for n in _TRANSIENT_NAMES if hasattr(litellm, n))
    status = getattr(exc, "status_code", None)
    if isinstance(status, int) and 400 <= status < 500:
        return status in _RETRY_STATUS
    return isinstance(exc, transient) or (isinstance(status, int) and status >= 500)


def _retry_after(exc: BaseException) -> float | None:
    """The server's Retry-After in seconds, when it sent one."""
    try:
        value = exc.response.headers.get("retry-after")  # type: ignore[attr-defined]
        return max(0.0, float(value)) if value is not None else None
    except (AttributeError, TypeError, ValueError):
        return None


def _send(model: str, messages: list[dict], rf: dict | None, options: dict[str, Any],
          transport: _Transport) -> tuple[Any, int]:
    """One completion with bounded re-sends on transient failures; litellm's own retries are off."""
    litellm = litellm_module()
    kwargs: dict[str, Any] = {"model": model, "messages": messages, "temperature": options["temperature"],
                              "timeout": transport.timeout, "num_retries": 0, "max_retries": 0,
                              "drop_params": True, **options["extra"]}
    if options["max_tokens"] is not None:
        kwargs["max_tokens"] = options["max_tokens"]
    if rf is not None:
        kwargs["response_format"] = rf
    if transport.api_base:
        kwargs["api_base"] = transport.api_base
    key = _api_key(model, transport)
    if key is not None:
        kwargs["api_key"] = key
    for attempt in range(transport.retries + 1):
        try:
            with _limit:
                return litellm.completion(**kwargs), attempt + 1
        except Exception as exc:  # noqa: BLE001 - litellm maps every provider error onto OpenAI's classes
            name = type(exc).__name__
            if not _is_transient(litellm, exc):
                raise LLMError(f"{model}: {name}: {_one_line(_message(exc))}", attempts=attempt + 1) from None
            if attempt == transport.retries:
                raise LLMError(f"{model}: {name} after {attempt + 1} attempts: {_one_line(_message(exc))}",
                               attempts=attempt + 1) from None
            wait = min(transport.max_backoff, transport.backoff * 2**attempt) * random.uniform(0.5, 1.0)
            hint = _retry_after(exc)
            time.sleep(min(transport.max_backoff, max(wait, hint)) if hint is not None else wait)
    raise AssertionError("unreachable")


def _message(exc: BaseException) -> str:
    """The provider's message without litellm's stacked class-name prefixes."""
    text = str(getattr(exc, "message", None) or exc)
    return _PREFIX.sub("", text) or text


def _account(model: str, response: Any) -> tuple[str, float, str | None, tuple[int, int]]:
    """(text, cost, note, (prompt_tokens, completion_tokens)) of one litellm response."""
    litellm = litellm_module()
    try:
        text = response.choices[0].message.content or ""
    except (AttributeError, IndexError):
        text = ""
    usage = getattr(response, "usage", None)
    tokens = (int(getattr(usage, "prompt_tokens", 0) or 0), int(getattr(usage, "completion_tokens", 0) or 0))
    try:
        cost = float(litellm.completion_cost(completion_response=response) or 0.0)
        note = None
    except Exception:  # noqa: BLE001 - a model missing from litellm's price map: cost unknown, not an error
        cost, note = 0.0, f"no price for {model} in litellm's map: cost counted as 0"
    return text, cost, note, tokens
