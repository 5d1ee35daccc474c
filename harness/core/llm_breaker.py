"""A circuit breaker per LLM endpoint, shared by every call in the process.

Why: a judge or LLM locator whose server cannot be reached used to spend every retry with
backoff on every table (5 tries, about 14 s a table), and the run still passed. After
`THRESHOLD` consecutive connection failures to one endpoint (the server refused or could not
be resolved: a connection error anywhere in the exception's cause chain, whatever class the
client wraps it in), the breaker opens: every later request to that endpoint fails at once
with the reason, until `COOLDOWN` seconds have passed and one request may probe again. Any
answer from the endpoint closes it. Timeouts and server errors do not count: a slow or
overloaded server is reachable.
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass

THRESHOLD = 3  # consecutive connection failures that open the breaker
COOLDOWN = 60.0  # seconds before an open breaker lets one request probe again
_CONNECTION_NAMES = ("ConnectError", "APIConnectionError", "ConnectionError", "NewConnectionError")


@dataclass
class _State:
    failures: int = 0
    reason: str = ""
    opened: float | None = None  # time.monotonic() when it opened


_lock = threading.Lock()
_states: dict[str, _State] = {}


def endpoint(model: str, api_base: str | None) -> str:
    """What a breaker guards: the server URL, else the model's provider (`openai`, `gemini`, ...)."""
    return api_base.rstrip("/") if api_base else model.split("/", 1)[0]


def connection_failure(exc: BaseException) -> str | None:
    """The innermost reason when `exc` (or what caused it) is a failure to connect, else None."""
    seen, found, node = set(), None, exc
    while node is not None and id(node) not in seen:
        seen.add(id(node))
        names = {cls.__name__ for cls in type(node).__mro__}
        timeout = any("Timeout" in name for name in names)  # e.g. openai's APITimeoutError is an APIConnectionError
        if not timeout and (isinstance(node, (ConnectionError, socket.gaierror)) or names & set(_CONNECTION_NAMES)):
            found = str(node) or type(node).__name__
        node = node.__cause__ or node.__context__
    return found


def open_reason(where: str) -> str | None:
    """Why requests to `where` fail at once now; None while the breaker is closed (or may probe)."""
    with _lock:
        state = _states.get(where)
        if state is None or state.opened is None:
            return None
        if time.monotonic() - state.opened >= COOLDOWN:
            state.opened = time.monotonic()  # one probe now; its failure keeps the breaker open
            return None
        return (f"{where} not reachable: {state.failures} consecutive connection errors ({state.reason}); "
                f"no request is sent to it for {COOLDOWN:g} s")


def record_failure(where: str, exc: BaseException) -> bool:
    """Count `exc` if it is a connection failure; True when the breaker is open after it."""
    reason = connection_failure(exc)
    if reason is None:
        return False
    with _lock:
        state = _states.setdefault(where, _State())
        state.failures += 1
        state.reason = reason
        if state.failures >= THRESHOLD:
            state.opened = time.monotonic()
        return state.opened is not None


def record_success(where: str) -> None:
    with _lock:
        _states.pop(where, None)


def reset() -> None:
    """Close every breaker (tests, or a long-lived process after a server came back)."""
    with _lock:
        _states.clear()
