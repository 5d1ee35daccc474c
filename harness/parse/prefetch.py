"""Parse pages ahead on N threads (`--parse-concurrency`), and keep one runner per repetition.

Why: a parser served by a remote model server (vLLM, any OpenAI-compatible endpoint) spends
its time waiting on the network. One pytest process scores tables one after the other, so
without look-ahead the server sees one request at a time. `ParsePool.prefetch` queues the
pages this process will need; up to N of them are parsed at once (each in its own parser
worker process, with the runner's timeout, retries inside the parser and the parse cache as
usual), and `evaluate_page` then takes each page's result from its future instead of parsing
it again. Scoring stays in the main thread, in order.

Worker processes are bounded (`tablebench.core.resources.WorkerCap`): at most the cap's `limit`
parses in flight whatever `--parse-concurrency` asks, and of one parser's repetitions at most
`max(threads, cap.local)` workers stay alive between pages (the others stop and restart when
their repetition comes round again); `notes` says so in one line when a cap applies.

A `ParsePool` is also what `tablebench.evaluate.page.evaluate_page(pool=...)` takes (`get(spec,
cache_dir, timeout, refresh).run(pdf)`): one live parser worker per (spec, cache, timeout),
reused page after page; `ParsePool.view(r)` serves repetition r (`tablebench.evaluate.repeat`).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from copy import copy
from pathlib import Path
from typing import Any

from tablebench.core.resources import WorkerCap

RunnerKey = tuple[str, str | None, float, bool, int]



def repeated(parser: Any, repetition: int) -> Any:
    """`parser` for repetition `repetition`: a shallow copy whose cache config says so (0: the parser itself).

    A copy, not a wrapper: the parser keeps its class, so it pickles to a worker process and
    its code fingerprint (the cache key's `code`) stays the parser's own.
    """
    if repetition == 0:
        return parser
    clone = copy(parser)
    try:
        clone.config = {**dict(getattr(parser, "config", None) or {}), "repetition": int(repetition)}
    except (AttributeError, TypeError):
        raise ValueError(f"parser {getattr(parser, 'name', parser)!r} cannot be repeated: its config is read-only") from None
    return clone


class ParsePool:
    """Live `ParseRunner`s keyed by (spec, cache dir, timeout, refresh, repetition), and parses in flight."""

    def __init__(self, concurrency: int = 1, cap: WorkerCap | None = None) -> None:
        if not isinstance(concurrency, int) or concurrency < 1:
            raise ValueError(f"--parse-concurrency must be a positive integer, got {concurrency!r}")
        self.cap = cap or WorkerCap.here()
        self.concurrency = self.cap.of(concurrency)  # parses in flight at once
        self.keep = max(self.concurrency, self.cap.local)  # live workers per parser, over its repetitions
        self.notes = [] if self.concurrency == concurrency else [
            f"tablebench: --parse-concurrency={concurrency} capped to {self.concurrency} ({self.cap.reason()})"]
        self._busy: Counter[RunnerKey] = Counter()  # parses running, by runner key without the repetition
        self._runners: dict[RunnerKey, Any] = {}
        self._handles: dict[RunnerKey, _Runner] = {}
        self._futures: dict[tuple[RunnerKey, str], Future] = {}
        self._taken: set[tuple[RunnerKey, str]] = set()  # parses already handed out: never queued again
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None

    def runner(self, key: RunnerKey) -> Any:
        from tablebench.parse.registry import resolve
        from tablebench.parse.runner import ParseRunner

        with self._lock:
            runner = self._runners.get(key)
            if runner is None:
                spec, cache_dir, timeout, refresh, rep = key
                runner = self._runners[key] = ParseRunner(repeated(resolve(spec), rep), cache_dir, timeout,
                                                          refresh=refresh)
            return runner

    def handle(self, key: RunnerKey) -> _Runner:
        """One handle per runner setting, so equal settings share one parser worker."""
        with self._lock:
            return self._handles.setdefault(key, _Runner(self, key))

    def get(self, spec: str, cache_dir: Path | str | None, timeout: float, refresh: bool = False) -> _Runner:
        """The runner of `spec` for repetition 0 (what `evaluate_page(pool=...)` asks for)."""
        return self.view(0).get(spec, cache_dir, timeout, refresh)

    def view(self, repetition: int = 0) -> _View:
        return _View(self, repetition)

    def prefetch(self, jobs: Iterable[tuple[str, Path | str, int]], cache_dir: Path | str | None, timeout: float,
                 refresh: bool = False) -> int:
        """Queue (spec, pdf, repetition) parses not queued or taken before; returns how many were queued.

        A page whose result was taken is not queued again: the caller keeps what it evaluated,
        and a second parse would be a second request (errors and --parse-refresh skip the cache).
        """
        queued = 0
        for spec, pdf, rep in jobs:
            key = _key(spec, cache_dir, timeout, refresh, rep)
            slot = (key, str(Path(pdf).resolve()))
            with self._lock:
                if slot in self._futures or slot in self._taken:
                    continue
                if self._executor is None:
                    self._executor = ThreadPoolExecutor(self.concurrency, thread_name_prefix="tablebench-parse")
                self._futures[slot] = self._executor.submit(self._parse, key, slot[1])
            queued += 1
        return queued

    def _parse(self, key: RunnerKey, pdf: Path | str) -> Any:
        group = key[:4] + (0,)
        with self._lock:
            self._busy[group] += 1
        try:
            return self.runner(key).run(pdf)
        finally:
            with self._lock:
                self._busy[group] -= 1
            self._trim(key)

    def _trim(self, key: RunnerKey) -> None:
        """Stop idle workers of this parser's other repetitions while more than `keep` are alive."""
        group = key[:4]
        with self._lock:
            busy = self._busy[group + (0,)]
            others = [r for k, r in self._runners.items() if k[:4] == group and k != key]
            mine = self._runners.get(key)
        live = busy + sum(r.idle_workers() for r in [*others, mine] if r is not None)
        for runner in others:
            if live <= self.keep:
                break
            idle = runner.idle_workers()
            if idle:
                runner.stop_idle()
                live -= idle

    def result(self, key: RunnerKey, pdf: Path | str) -> Any:
        """The page's parse: the prefetched one when queued (waiting for it), else parsed now."""
        slot = (key, str(Path(pdf).resolve()))
        with self._lock:
            future = self._futures.pop(slot, None)
            self._taken.add(slot)
        if future is not None and not future.cancelled():
            return future.result()
        return self._parse(key, pdf)

    def close(self) -> None:
        """Drop queued parses, wait for those in flight, stop every parser worker process."""
        with self._lock:
            executor, self._executor = self._executor, None
            self._futures.clear()
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
        with self._lock:
            runners, self._runners = list(self._runners.values()), {}
        for runner in runners:
            runner.close()


def _key(spec: str, cache_dir: Path | str | None, timeout: float, refresh: bool, rep: int) -> RunnerKey:
    return (spec, None if cache_dir is None else str(cache_dir), float(timeout), bool(refresh), int(rep))


class _View:
    """`RunnerPool`'s interface for one repetition: `get(...)` returns something with `run(pdf)`."""

    def __init__(self, pool: ParsePool, repetition: int) -> None:
        self.pool, self.repetition = pool, repetition

    def get(self, spec: str, cache_dir: Path | str | None, timeout: float, refresh: bool = False) -> _Runner:
        return self.pool.handle(_key(spec, cache_dir, timeout, refresh, self.repetition))


class _Runner:
    def __init__(self, pool: ParsePool, key: RunnerKey) -> None:
        self.pool, self.key = pool, key

    def run(self, pdf: Path | str) -> Any:
        return self.pool.result(self.key, pdf)
