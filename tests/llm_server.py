"""A real OpenAI-compatible chat server on 127.0.0.1 for tests, answering from a script.

Why a server and not a mock: the LLM code must be exercised through litellm's real HTTP
path (request shape, error mapping, timeouts). Each request pops the next `Reply` of
`script` (the last one repeats); every request body is recorded, so tests can count calls.

    with LLMServer([Reply(429, "slow down"), Reply(content='{"score": 7}')]) as server:
        complete("openai/judge", msgs, api_base=server.api_base, ...)
        assert len(server.requests) == 2

Two replies a hostile server gives: `Reply(pad_bytes=N)` streams an answer whose content is
padded with N bytes, written in chunks as the client reads them (never held in memory; `sent`
counts the bytes the client took; `unsized=True`: without a Content-Length, so only reading
tells the size), and `Reply(silent=True)` accepts the request and never answers (until the
server stops).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


@dataclass
class Reply:
    """One scripted answer: an HTTP status, the assistant text (or error message), a delay."""

    status: int = 200
    content: str = ""
    delay: float = 0.0
    prompt_tokens: int = 100
    completion_tokens: int = 20
    pad_bytes: int = 0  # the content padded with this many bytes, streamed
    unsized: bool = False  # a streamed answer without Content-Length: it ends when the server closes
    silent: bool = False  # accept, read the request, never answer


Responder = Callable[[dict], Reply]


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:  # http.server's name
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        owner = self.server.owner
        reply, generation = owner.next_reply(self.path, dict(self.headers), body)
        owner.hold()
        try:
            self._answer(reply, body)
        finally:
            owner.done(generation)

    def _answer(self, reply: Reply, body: dict) -> None:
        if reply.silent:
            self.server.owner.closing.wait(600)
            return
        if reply.delay:
            time.sleep(reply.delay)
        if reply.status == 200 and reply.pad_bytes:
            self._stream(reply, body)
            return
        if reply.status == 200:
            payload: dict[str, Any] = {
                "id": "cmpl-test", "object": "chat.completion", "created": 0, "model": body.get("model", ""),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": reply.content}}],
                "usage": {"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                          "total_tokens": reply.prompt_tokens + reply.completion_tokens}}
        else:
            payload = {"error": {"message": reply.content or "error", "type": "test_error", "code": reply.status}}
        data = json.dumps(payload).encode()
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
            pass

    def _stream(self, reply: Reply, body: dict) -> None:
        """A 200 answer whose content ends in `pad_bytes` spaces, written 1 MB at a time."""
        head = ('{"id": "cmpl-test", "object": "chat.completion", "created": 0, "model": '
                + json.dumps(body.get("model", "")) + ', "choices": [{"index": 0, "finish_reason": "stop", '
                '"message": {"role": "assistant", "content": ' + json.dumps(reply.content)[:-1]).encode()
        tail = b'"}}], "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}'
        chunk = b" " * (1 << 20)
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            if not reply.unsized:  # else HTTP/1.0's end of body: the connection closes
                self.send_header("Content-Length", str(len(head) + reply.pad_bytes + len(tail)))
            self.end_headers()
            self.wfile.write(head)
            left = reply.pad_bytes
            while left > 0:
                piece = chunk[:left]
                self.wfile.write(piece)
                self.server.owner.sent += len(piece)
                left -= len(piece)
            self.wfile.write(tail)
        except (BrokenPipeError, ConnectionResetError):  # the client stopped reading: what a cap does
            pass

    def log_message(self, *args: object) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: LLMServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up mid-answer is what the timeout test wants


class LLMServer:
    """Start with `with LLMServer(script) as s:`; `s.api_base` is the /v1 URL for litellm.

    `script` is a list of `Reply`s or a function `body -> Reply` (for answers that depend on
    the request). `requests` holds (path, headers, body) of every request received.
    """

    def __init__(self, script: list[Reply] | Responder | None = None, *, hold_until: int = 0,
                 hold_timeout: float = 0.0) -> None:
        """`hold_until=N`: each request waits (up to `hold_timeout` s) until N requests are in
        flight before it is answered, so a client that sends N at once is seen doing so."""
        self.script: list[Reply] | Responder = script if script is not None else [Reply(content="ok")]
        self.hold_until, self.hold_timeout = hold_until, hold_timeout
        self._arrived = threading.Condition()
        self.requests: list[tuple[str, dict, dict]] = []
        self.in_flight = self.max_in_flight = 0  # of requests since the last reset
        self.sent = 0  # padding bytes of streamed answers the clients took
        self.closing = threading.Event()  # set when the server stops: silent replies end
        self._generation = 0
        self._lock = threading.Lock()
        self._http = _Server(("127.0.0.1", 0), _Handler)
        self._http.owner = self
        self._thread = threading.Thread(target=self._http.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self._http.server_port}/v1"

    def reset(self, script: list[Reply] | Responder) -> None:
        """A new script and an empty request log (reuse one server across tests)."""
        with self._lock:
            self.script, self.requests = script, []
            self.in_flight = self.max_in_flight = 0  # requests of an earlier script no longer count
            self._generation += 1

    def next_reply(self, path: str, headers: dict, body: dict) -> tuple[Reply, int]:
        with self._lock:
            self.requests.append((path, headers, body))
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            if callable(self.script):
                return self.script(body), self._generation
            return (self.script.pop(0) if len(self.script) > 1 else self.script[0]), self._generation

    def hold(self) -> None:
        """Wait until `hold_until` requests are in flight (or `hold_timeout` passed)."""
        with self._arrived:
            self._arrived.notify_all()
            if self.hold_until:
                self._arrived.wait_for(lambda: self.in_flight >= self.hold_until, self.hold_timeout)
                self._arrived.notify_all()

    def done(self, generation: int) -> None:
        with self._lock:
            if generation == self._generation:
                self.in_flight -= 1

    def bodies(self) -> list[dict]:
        with self._lock:
            return [body for _, _, body in self.requests]

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.closing.set()
        self._http.shutdown()
        self._http.server_close()
