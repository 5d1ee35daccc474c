"""Sending one chat request through litellm: keys, a concurrency cap, bounded retries, cost.

Why apart from `tablebench.core.llm.complete`: the transport's failure modes (rate limits, flaky
5xx, timeouts, dropped connections) are the same for every question asked.

- Retries (tenacity): transport failures (408, 409, 425, 429, 5xx, timeouts, dropped
  connections) are re-sent `retries` times at most, waiting `min(max_backoff, backoff * 2**k)`
  scaled by a random factor in [0.5, 1] before re-send k, or the server's Retry-After when
  longer (capped at `max_backoff` too); client errors (400, 401, 403, 404, 422) fail at once.
  litellm's own retries are off.
- A circuit breaker per endpoint (`tablebench.core.llm_breaker`): after a few consecutive
  connection failures, requests to that server fail at once with the reason, so an
  unreachable judge or locator costs seconds per run, not retries per table.
- Bounds (`tablebench.core.llm_bounds`): an answer larger than `max_bytes` is not read past
  it (`LLMAnswerTooLarge`), and a call with a `deadline` sends nothing after it and ends the
  request waiting at it (a server trickling bytes: at its first byte after it), its re-sends
  and backoff included (`LLMTimeout`); neither is retried nor counts against the endpoint's
  breaker.
- Keys come from the environment only (litellm's provider variables, or `api_key_env`, whose
  value is then a secret whatever the variable's name); they are never part of a cache key or
  a cache file, and an answer that echoes one, in any encoding, is redacted as it arrives
  (`account`), before it is parsed; `tablebench.core.llm` redacts the parsed answer again and
  never caches one that held a secret.

litellm is imported lazily (about 5 s) with `LITELLM_LOCAL_MODEL_COST_MAP=True`, so importing
this module costs nothing and litellm never fetches a price list.
"""

from __future__ import annotations

import os
import random
import re
import threading
import time
from dataclasses import dataclass
from typing import Any

from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from tablebench.core import llm_bounds, llm_breaker
from tablebench.core.messages import declare_secret, one_line, redact

DEFAULT_CONCURRENCY = 4
CONCURRENCY_ENV = "TABLEBENCH_LLM_CONCURRENCY"
_LOCAL_KEY = "unused"  # local servers (api_base) still want some bearer token
_RETRY_STATUS = frozenset({408, 409, 425, 429})
_TRANSIENT_NAMES = ("RateLimitError", "Timeout", "APIConnectionError", "InternalServerError",
                    "ServiceUnavailableError", "BadGatewayError")
_PREFIX = re.compile(r"^(?:\s*(?:litellm\.)?\w*(?:Error|Exception)\s*[:-]\s*)+")


class LLMError(RuntimeError):
    """A model call that failed for good; `cost` is what the failed attempts still cost."""

    def __init__(self, message: str, *, cost: float = 0.0, attempts: int = 0) -> None:
        super().__init__(message)
        self.cost = cost
        self.attempts = attempts


class LLMTimeout(LLMError):
    """No usable answer before the call's deadline (its wall-clock budget)."""


class LLMAnswerTooLarge(LLMError):
    """An answer larger than the call's `max_bytes`: the rest was not read."""


@dataclass(frozen=True)
class Transport:
    """How one call reaches its model: timeout, retry budget and backoff, endpoint, key variable,
    and its bounds: the answer's size and the deadline (`time.monotonic()`; None: none) with how
    the deadline is said when it passes."""

    timeout: float
    retries: int
    backoff: float
    max_backoff: float
    api_base: str | None
    api_key_env: str | None
    max_bytes: int
    deadline: float | None = None
    late: str = "no answer before the deadline"


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
                llm_bounds.install(litellm)
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


# -- one request ----------------------------------------------------------------------------
def _api_key(model: str, transport: Transport) -> str | None:
    """From `api_key_env`; else None, so litellm reads the provider's own variable
    (OPENAI_API_KEY, GEMINI_API_KEY, ...); a placeholder only for a custom `api_base` when that
    variable is unset too (local servers want some token)."""
    if transport.api_key_env:
        declare_secret(transport.api_key_env)
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


def retry_after(exc: BaseException | None) -> float | None:
    """The server's Retry-After in seconds, when it sent one."""
    try:
        value = exc.response.headers.get("retry-after")  # type: ignore[union-attr]
        return max(0.0, float(value)) if value is not None else None
    except (AttributeError, TypeError, ValueError):
        return None


class Backoff:
    """tenacity's wait before a re-send: exponential, jittered down to half, Retry-After honoured."""

    def __init__(self, backoff: float, max_backoff: float, deadline: float | None = None) -> None:
        self.max_backoff = max_backoff
        self.exponential = wait_exponential(multiplier=backoff, max=max_backoff)
        self.deadline = deadline

    def __call__(self, state: RetryCallState) -> float:
        wait = self.exponential(state) * random.uniform(0.5, 1.0)
        hint = retry_after(state.outcome.exception() if state.outcome else None)
        wait = min(self.max_backoff, max(wait, hint)) if hint is not None else wait
        if self.deadline is not None:  # never sleep past the deadline: the next send says it passed
            wait = max(0.0, min(wait, self.deadline - time.monotonic()))
        return wait


def send(model: str, messages: list[dict], rf: dict | None, options: dict[str, Any],
         transport: Transport) -> tuple[Any, int]:
    """(litellm response, HTTP requests made): one completion, re-sent on transient failures."""
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
    where = llm_breaker.endpoint(model, transport.api_base)
    reason = llm_breaker.open_reason(where)
    if reason is not None:
        raise LLMError(f"{model}: {reason}", attempts=0)
    broken: list[bool] = []  # set when this call's failures opened the breaker: no more re-sends
    retrying = Retrying(stop=stop_after_attempt(transport.retries + 1),
                        retry=retry_if_exception(lambda exc: not broken and _is_transient(litellm, exc)),
                        wait=Backoff(transport.backoff, transport.max_backoff, transport.deadline), reraise=True)
    try:
        for attempt in retrying:
            with attempt:
                with _limit, llm_bounds.limits(transport.max_bytes, transport.deadline) as bounds:
                    _check_deadline(model, transport)
                    try:
                        response = litellm.completion(**kwargs)
                    except Exception as exc:
                        _check_bounds(model, transport, bounds)
                        if llm_breaker.record_failure(where, exc):
                            broken.append(True)
                        raise
                llm_breaker.record_success(where)
    except LLMError as exc:  # a bound: said as it is; `attempts` was 1 when this attempt sent a request
        exc.attempts = retrying.statistics.get("attempt_number", 1) - 1 + exc.attempts
        raise
    except Exception as exc:  # noqa: BLE001 - litellm maps every provider error onto OpenAI's classes
        tries = retrying.statistics.get("attempt_number", 1)
        name, why = type(exc).__name__, one_line(_message(exc))
        if broken:
            raise LLMError(f"{model}: {llm_breaker.open_reason(where) or why}", attempts=tries) from None
        if _is_transient(litellm, exc):
            raise LLMError(f"{model}: {name} after {tries} attempts: {why}", attempts=tries) from None
        raise LLMError(f"{model}: {name}: {why}", attempts=tries) from None
    return response, attempt.retry_state.attempt_number


def _check_deadline(model: str, transport: Transport) -> None:
    """`LLMTimeout` when the call's deadline has passed: no request is sent after it."""
    if transport.deadline is not None and time.monotonic() >= transport.deadline:
        raise LLMTimeout(f"{transport.late} ({model})")


def _check_bounds(model: str, transport: Transport, bounds: llm_bounds.Limits) -> None:
    """The bound that ended a failed request, as its error (not retried); nothing otherwise."""
    if bounds.tripped == llm_bounds.TOO_LARGE:
        raise LLMAnswerTooLarge(f"answer over {transport.max_bytes / 1e6:g} MB ({model})", attempts=1) from None
    if bounds.tripped == llm_bounds.TIMEOUT or (transport.deadline is not None
                                                and time.monotonic() >= transport.deadline):
        raise LLMTimeout(f"{transport.late} ({model})", attempts=1) from None


def _message(exc: BaseException) -> str:
    """The provider's message without litellm's stacked class-name prefixes."""
    text = str(getattr(exc, "message", None) or exc)
    return _PREFIX.sub("", text) or text


def account(model: str, response: Any) -> tuple[str, float, str | None, tuple[int, int], bool]:
    """(text, cost, note, (prompt_tokens, completion_tokens), held) of one litellm response; the
    text redacted in every form a secret takes (a model may echo the key it was sent, in a 200
    answer as in a 401, raw or escaped), `held` when it held one."""
    litellm = litellm_module()
    try:
        text = response.choices[0].message.content or ""
    except (AttributeError, IndexError):
        text = ""
    held = False
    if isinstance(text, str):
        clean = redact(text)
        text, held = clean, clean != text
    usage = getattr(response, "usage", None)
    tokens = (int(getattr(usage, "prompt_tokens", 0) or 0), int(getattr(usage, "completion_tokens", 0) or 0))
    try:
        cost = float(litellm.completion_cost(completion_response=response) or 0.0)
        note = None
    except Exception:  # noqa: BLE001 - a model missing from litellm's price map: cost counted 0
        cost, note = 0.0, f"no price for {model} in litellm's map: cost counted as 0"
    return text, cost, note, tokens, held
