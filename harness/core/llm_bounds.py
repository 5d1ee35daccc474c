"""What one model request may cost this process: the size of its answer and its wall-clock time.

Why: a judge server streaming a 200 MB answer took 14 min and 7.5 GB for one table, and one
that accepted the connection and never answered held a page of 6 tables for 30 min. litellm's
`timeout` bounds each socket operation, not a request (a server that trickles bytes never trips
it), and nothing bounded the size.

Every HTTP request litellm makes goes through `BoundedTransport` (`install`: litellm's OpenAI
client session and the transport of its own HTTP handler). Inside `limits(max_bytes, deadline)`
a request's connect, read and write timeouts are cut to what is left before `deadline` when it
is sent; the answer is read chunk by chunk, decompressed here when the server compresses it
against our `Accept-Encoding: identity`, and dropped as soon as it passes `max_bytes` or at the
first chunk that arrives after the deadline, so at most `max_bytes` plus one chunk is ever held.
A server that sends nothing is cut at the deadline; one that trickles bytes, at its first byte
after it (later by at most the time that was left when the request was sent: twice the budget
at worst; measured: 1 byte every 1.9 s against a 3 s budget ended at 4.2 s). `Limits.tripped`
then says which bound ended it: the client wraps the failure in a connection error, and the
caller reports the bound instead (and does not retry it). Outside `limits` requests pass unchanged.
"""

from __future__ import annotations

import contextvars
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx

TOO_LARGE, TIMEOUT = "too_large", "timeout"
_DECODERS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}
_CHUNK = 1 << 16  # bytes decompressed at a time


@dataclass
class Limits:
    """The bounds of the requests made inside one `limits` block, and which one ended a request."""

    max_bytes: int
    deadline: float | None  # time.monotonic() past which no byte is waited for; None: no deadline
    tripped: str | None = None  # TOO_LARGE or TIMEOUT once a bound ended a request

    def left(self) -> float | None:
        """Seconds before the deadline (negative past it); None without one."""
        return None if self.deadline is None else self.deadline - time.monotonic()


_CURRENT: contextvars.ContextVar[Limits | None] = contextvars.ContextVar("tablebench_llm_limits", default=None)


@contextmanager
def limits(max_bytes: int, deadline: float | None) -> Iterator[Limits]:
    """Bound the requests this thread makes in the block (litellm sends in the calling thread)."""
    state = Limits(int(max_bytes), deadline)
    token = _CURRENT.set(state)
    try:
        yield state
    finally:
        _CURRENT.reset(token)


class LimitReached(httpx.TransportError):
    """A request ended by its `Limits` (`Limits.tripped` says which)."""


class BoundedTransport(httpx.BaseTransport):
    """Sends through a plain client of its own (which keeps the proxy settings of the
    environment) and applies the `Limits` of the calling context to each request."""

    def __init__(self, verify: Any = True) -> None:
        self._client = httpx.Client(verify=verify, trust_env=True, follow_redirects=False, timeout=None)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        state = _CURRENT.get()
        if state is None:
            return self._client.send(request, stream=True)
        left = state.left()
        if left is not None:
            if left <= 0:
                state.tripped = TIMEOUT
                raise httpx.ConnectTimeout("no time left for the request", request=request)
            timeouts = dict(request.extensions.get("timeout") or {})
            request.extensions = {**request.extensions,
                                  "timeout": {k: left if timeouts.get(k) is None else min(timeouts[k], left)
                                              for k in ("connect", "read", "write", "pool")}}
        request.headers["Accept-Encoding"] = "identity"
        response = self._client.send(request, stream=True)
        try:
            stream = _Capped(response, state)
        except BaseException:
            response.close()
            raise
        headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() != "content-encoding"]
        return httpx.Response(response.status_code, headers=headers, stream=stream, extensions=response.extensions)

    def close(self) -> None:
        self._client.close()


class _Capped(httpx.SyncByteStream):
    """An answer's body, decoded and counted as it is read; ends the request at a bound."""

    def __init__(self, response: httpx.Response, state: Limits) -> None:
        self.response, self.state = response, state
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ("identity", "", *_DECODERS):
            self._trip(TOO_LARGE, f"an answer in an encoding not asked for ({encoding:.20})")
        self.decoder = zlib.decompressobj(_DECODERS[encoding]) if encoding in _DECODERS else None
        length = response.headers.get("content-length", "")
        if self.decoder is None and length.isdigit() and int(length) > state.max_bytes:
            self._trip(TOO_LARGE, f"an answer of {int(length):,} bytes")
        self.taken = 0

    def _trip(self, bound: str, what: str) -> None:
        self.state.tripped = bound
        self.response.close()
        raise LimitReached(what)

    def __iter__(self) -> Iterator[bytes]:
        for raw in self.response.iter_raw():
            for chunk in self._decoded(raw):
                self.taken += len(chunk)
                if self.taken > self.state.max_bytes:
                    self._trip(TOO_LARGE, f"an answer over {self.state.max_bytes:,} bytes")
                yield chunk
            left = self.state.left()
            if left is not None and left <= 0:
                self._trip(TIMEOUT, "the answer was still arriving at the deadline")

    def _decoded(self, raw: bytes) -> Iterator[bytes]:
        if self.decoder is None:
            yield raw
            return
        data = raw
        while data:  # at most _CHUNK out per step: a small compressed chunk may inflate a thousandfold
            out = self.decoder.decompress(data, _CHUNK)
            data = self.decoder.unconsumed_tail
            if out:
                yield out

    def close(self) -> None:
        self.response.close()


def install(litellm: Any) -> None:
    """Route litellm's synchronous requests through `BoundedTransport`: its OpenAI client session
    (OpenAI-compatible providers) and the transport of its own HTTP handler (the others). A
    session or transport the caller set already is kept (and is not bounded)."""
    try:
        from litellm.llms.custom_httpx.http_handler import get_ssl_configuration

        verify: Any = get_ssl_configuration()
    except Exception:  # noqa: BLE001 - an older litellm: httpx's default verification
        verify = True
    if getattr(litellm, "client_session", None) is None:
        litellm.client_session = httpx.Client(transport=BoundedTransport(verify), follow_redirects=True)
    if getattr(litellm, "sync_transport", None) is None:
        litellm.sync_transport = BoundedTransport(verify)
