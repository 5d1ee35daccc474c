"""Run a parser on a PDF once: in a worker process, under a per-page timeout, cached on disk.

Every way of failing becomes an outcome — ok / error / timeout / empty with a one-line
message — and the run goes on. Whatever the parser returned is redacted here, in this process
(text, message, meta: `tablebench.parse.result.redacted`), before it is cached or reported. The
pieces: `tablebench.parse.worker` (the isolated process, reused across pages while it behaves),
`tablebench.parse.result` (what a parser's return value becomes), `tablebench.parse.cache`
(results keyed by parser name, version, config, code and the PDF's sha256; a killed run resumes
and concurrent pytest-xdist workers parse a page once).
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Sequence

from tablebench.core.files import sha256_file
from tablebench.core.messages import one_line
from tablebench.core.options import DEFAULT_PARSE_TIMEOUT, MAX_PARSE_TIMEOUT
from tablebench.parse.cache import ParseCache, cache_key, parser_config
from tablebench.parse.fingerprint import parser_identity
from tablebench.parse.protocol import Parser
from tablebench.parse.result import MAX_CHARS, OUTCOMES, ParseResult, raised, redacted, settle
from tablebench.parse.worker import Worker, WorkerGone

__all__ = ["OUTCOMES", "ParseCache", "ParseResult", "ParseRunner", "cache_key", "one_line", "parse_pdf",
           "settle", "sha256_file"]

DEFAULT_TIMEOUT = DEFAULT_PARSE_TIMEOUT  # seconds per page: the run's default (`core.options`), also for library callers
STARTUP_ALLOWANCE = 10.0  # seconds a worker has beyond the page timeout to start Python and import the parser


class ParseRunner:
    """Parse PDFs with one parser: isolated, time-limited, cached. Use as a context manager.

    `cache_dir=None` disables the cache. A cached error is never reused (it may have been a
    rate limit or a crash of the moment: the next run tries again); a cached timeout is
    reused, so a hanging parser does not hang again, unless the limit grew. `refresh`
    ignores every cached result (a rebuilt parser, a suspicious cache) and overwrites it.

    A worker process gets `startup_timeout` (default: the page timeout plus STARTUP_ALLOWANCE) to
    start, import the parser and run its `prepare()`. When that fails or hangs, it would again: every later page of this
    runner gets the same outcome and one-line message at once, without a new process.
    """

    def __init__(
        self,
        parser: Parser | str,
        cache_dir: Path | str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        *,
        refresh: bool = False,
        max_chars: int = MAX_CHARS,
        startup_timeout: float | None = None,
    ) -> None:
        if isinstance(parser, str):
            from tablebench.parse.registry import resolve

            parser = resolve(parser)
        if not 0 < timeout <= MAX_PARSE_TIMEOUT:
            raise ValueError(f"timeout must be positive and <= {MAX_PARSE_TIMEOUT:g}, got {timeout}")
        self.parser = parser
        self.cache = ParseCache(cache_dir) if cache_dir is not None else None
        self.timeout = float(timeout)
        self.refresh = refresh
        self.max_chars = max_chars
        self.startup_timeout = (self.timeout + STARTUP_ALLOWANCE if startup_timeout is None
                                else float(startup_timeout))
        self._idle: list[Worker] = []
        self._lock = threading.Lock()
        self._broken: tuple[str, str] | None = None  # (outcome, message) of a prepare() that failed or hung
        # None: the parser's code cannot be identified, so its pages are not cached across runs
        self._code = parser_identity(parser).stamp if self.cache is not None else None

    def __enter__(self) -> ParseRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop every idle worker process."""
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.stop()

    def idle_workers(self) -> int:
        """Live worker processes waiting for a page."""
        with self._lock:
            return len(self._idle)

    def stop_idle(self) -> None:
        """Stop the waiting workers (a later page starts a new one): a caller bounding live workers."""
        self.close()

    def run(self, pdf: Path | str) -> ParseResult:
        """The parser's result for one PDF, from the cache when it is there."""
        pdf = Path(pdf).resolve()
        if not pdf.is_file():
            raise FileNotFoundError(f"{pdf}: no such PDF")
        sha = sha256_file(pdf)
        if self.cache is None or self._code is None or not getattr(self.parser, "cacheable", True):
            return self._compute(pdf, sha)
        return self.cache.fetch(self.parser, cache_key(self.parser, sha, self._code), sha,
                                lambda: self._compute(pdf, sha), self._usable)

    def run_many(self, pdfs: Sequence[Path | str], jobs: int | None = None) -> list[ParseResult]:
        """Results in input order; up to `jobs` pages at once (default: parser.concurrency or 1)."""
        jobs = max(1, int(jobs or getattr(self.parser, "concurrency", 1)))
        if jobs == 1 or len(pdfs) < 2:
            return [self.run(pdf) for pdf in pdfs]
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            return list(pool.map(self.run, pdfs))

    def _usable(self, hit: ParseResult) -> bool:
        if self.refresh or hit.outcome == "error" or hit.holds_secret():  # one kept before redaction: parse again
            return False
        return not (hit.outcome == "timeout" and hit.meta.get("timeout", 0.0) < self.timeout)

    def _compute(self, pdf: Path, sha: str) -> ParseResult:
        started = time.perf_counter()
        if getattr(self.parser, "in_process", False):
            outcome, text, message, meta = redacted(*self._in_process(pdf))
        else:
            outcome, text, message, meta = redacted(*self._isolated(pdf))
        meta.setdefault("seconds", time.perf_counter() - started)
        meta.setdefault("cost", 0.0)
        if outcome == "timeout":
            meta["timeout"] = self.timeout
        return ParseResult(
            outcome, text, message, meta,
            self.parser.name, self.parser.version, parser_config(self.parser), sha,
        )

    def _in_process(self, pdf: Path) -> tuple[str, str, str, dict[str, Any]]:
        """For parsers that only read files (dir:): no process, no timeout needed."""
        try:
            return settle(self.parser.parse(pdf), self.max_chars)
        except Exception as exc:  # noqa: BLE001
            return raised(exc)

    def _isolated(self, pdf: Path) -> tuple[str, str, str, dict[str, Any]]:
        if self._broken is not None:
            return self._broken[0], "", self._broken[1], {}
        with self._lock:
            worker = self._idle.pop() if self._idle else None
        try:
            if worker is None:
                try:
                    worker = Worker(self.parser, self.max_chars, self.startup_timeout)
                except WorkerGone as gone:
                    self._broken = (gone.outcome, str(gone))  # prepare() or spawn failed or hung: it would again
                    raise
            answer = worker.ask(pdf, self.timeout)
        except WorkerGone as gone:
            if worker is not None:
                worker.kill()
            return gone.outcome, "", str(gone), {}
        except BaseException:  # Ctrl-C (or a bug) mid-page: the worker and its files go too
            if worker is not None:
                worker.kill()
            raise
        if worker.alive:
            with self._lock:
                self._idle.append(worker)
        else:
            worker.kill()
        return answer


def parse_pdf(parser: Parser | str, pdf: Path | str, cache_dir: Path | str | None = None,
              timeout: float = DEFAULT_TIMEOUT) -> ParseResult:
    """One-shot convenience: a runner for a single PDF (prefer ParseRunner for many)."""
    with ParseRunner(parser, cache_dir, timeout) as runner:
        return runner.run(pdf)
