"""Run a parser on a PDF once: in a worker process, under a per-page timeout, cached on disk.

Why a worker process: a parser may segfault, hang or leak; each runs in a spawned process
(its own session, so a timeout kills it and anything it started) that is reused across
pages while it behaves. Every way of failing becomes an outcome — ok / error / timeout /
empty with a one-line message — and the run goes on.

Why the cache: parsing dominates a benchmark run. Results are keyed by parser name,
version, config, the content of the parser's code (`harness.parse.fingerprint`) and the PDF's
sha256, written atomically (temp file + rename) under a per-key lock, so a killed run
resumes and concurrent pytest-xdist workers parse a page once. An entry that does not
read back as a well-formed result of that very key is treated as absent and overwritten.

Why a scratch folder per worker: a killed parser cannot clean up after itself, so each
worker gets its own TMPDIR, removed by this process whenever the worker ends (and by a
detached cleaner when this process itself is killed).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterator, Sequence

from harness.core.files import locked, write_atomic
from harness.core.messages import one_line
from harness.parse.protocol import Parser, amount
from harness.core.files import sha256_file
from harness.parse.fingerprint import code_stamp

__all__ = ["OUTCOMES", "ParseCache", "ParseResult", "ParseRunner", "cache_key", "one_line", "parse_pdf",
           "settle", "sha256_file"]

OUTCOMES = ("ok", "error", "timeout", "empty")
DEFAULT_TIMEOUT = 120.0  # seconds per page
STARTUP_TIMEOUT = 120.0  # seconds for a worker to import its parser (prepare())
MAX_CHARS = 2_000_000  # a page of text is ~10k chars; more is garbage, kept capped
BINARY_SHARE = 0.10  # more control / undecodable characters than this: binary output
_STRIP = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f\ud800-\udfff]")  # break XML / UTF-8 writes
_BINARY = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f\ud800-\udfff\ufffd]")  # plus undecodable bytes


@dataclass
class ParseResult:
    """What one parser made of one PDF; plain data so it crosses processes and lands in JSON."""

    outcome: str
    text: str
    message: str
    meta: dict[str, Any]
    parser: str
    version: str
    config: dict[str, Any]
    pdf_sha256: str
    cached: bool = field(default=False, compare=False)

    def to_json(self) -> str:
        data = asdict(self)
        data.pop("cached")
        return json.dumps(data, ensure_ascii=False, default=str)

    @classmethod
    def from_json(cls, text: str) -> ParseResult:
        """A stored result; ValueError (one line) when the JSON is not a well-formed result."""
        data = json.loads(text)
        problem = entry_problem(data)
        if problem:
            raise ValueError(f"not a parse result: {problem}")
        return cls(**data, cached=True)


# -- keys and the on-disk cache -------------------------------------------------------
_FIELDS = {"outcome": str, "text": str, "message": str, "meta": dict, "parser": str, "version": str,
           "config": dict, "pdf_sha256": str}


def entry_problem(data: Any) -> str:
    """Why `data` (a decoded cache file) is not a result this module could have written, or "".

    Checks what later steps rely on without asking: field names and types, a known outcome,
    text only for "ok" (and no control characters), finite `seconds` / `cost` (and
    `timeout` for a timeout) >= 0. A hand-edited or foreign file fails here and is recomputed.
    """
    if not isinstance(data, dict):
        return f"a JSON {type(data).__name__}, not an object"
    if set(data) != set(_FIELDS):
        return f"fields {sorted(map(str, data))}, expected {sorted(_FIELDS)}"
    for key, kind in _FIELDS.items():
        if not isinstance(data[key], kind):
            return f"{key} is a {type(data[key]).__name__}, not a {kind.__name__}"
    outcome, text, meta = data["outcome"], data["text"], data["meta"]
    if outcome not in OUTCOMES:
        return f"unknown outcome {outcome!r:.40}"
    if (outcome == "ok") != bool(text.strip()):
        return f"outcome {outcome} with {'no ' if not text.strip() else ''}text"
    if _STRIP.search(text):
        return "control characters in the text"
    needed = ("seconds", "cost", "timeout") if outcome == "timeout" else ("seconds", "cost")
    for key in needed:
        if key not in meta:
            return f"meta lacks {key}"
        try:
            amount(meta[key], f"meta {key}")
        except ValueError as exc:
            return str(exc)
    return ""


def parser_config(parser: Parser) -> dict[str, Any]:
    """The parser's JSON-able config ({} when it has none)."""
    return dict(getattr(parser, "config", None) or {})


def _plain(value: Any) -> Any:
    """`value` as it reads back from the cache's JSON (tuples become lists, odd types str)."""
    return json.loads(json.dumps(value, default=str))


def cache_key(parser: Parser, pdf_sha256: str, code: str | None = None) -> str:
    """Hex key of (name, version, config, parser code, PDF content): any change is a miss.

    `code` is `harness.parse.fingerprint.code_stamp(parser)`, computed here when not given (a
    runner computes it once): a parser's source edited without a version bump re-parses.
    """
    ident = {"name": parser.name, "version": parser.version, "config": parser_config(parser),
             "code": code_stamp(parser) if code is None else code, "pdf": pdf_sha256}
    return hashlib.sha256(json.dumps(ident, sort_keys=True, default=str).encode()).hexdigest()


def _slug(name: str) -> str:
    """A folder name for a parser: readable prefix plus a hash, since specs hold any character."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:40].strip("_.") or "parser"
    return f"{safe}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


class ParseCache:
    """Results as JSON files `<root>/<parser>/<key[:2]>/<key>.json`, written atomically."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    def path(self, parser: Parser, key: str) -> Path:
        return self.root / _slug(parser.name) / key[:2] / f"{key}.json"

    def get(self, path: Path, expect: dict[str, Any] | None = None) -> ParseResult | None:
        """The stored result, or None when absent, unreadable or malformed (then it is
        recomputed and overwritten); `expect` maps fields to the values this key stands for,
        so an entry copied or edited under another key is not served either. Never raises."""
        try:
            hit = ParseResult.from_json(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, TypeError, RecursionError):
            return None
        if expect and any(_plain(getattr(hit, k)) != _plain(v) for k, v in expect.items()):
            return None
        return hit

    def put(self, path: Path, result: ParseResult) -> None:
        """Write via a temp file in the same folder + os.replace: readers never see half a file."""
        write_atomic(path, result.to_json())

    @contextmanager
    def lock(self, path: Path) -> Iterator[None]:
        """An exclusive lock per key, so two processes never parse the same page twice."""
        with locked(path.with_suffix(".lock")):
            yield


# -- turning whatever a parser returned into an outcome ------------------------------
def clean_meta(meta: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """(meta fit for JSON, problem): `seconds` / `cost` must be finite numbers >= 0 (else the
    problem names them and the page is an error: a NaN cost would poison every total), other
    keys that JSON cannot hold are dropped and listed under `meta_dropped`."""
    for key in ("seconds", "cost"):
        if key in meta:
            try:
                meta[key] = amount(meta[key], f"parser meta {key}")
            except ValueError as exc:
                return {}, str(exc)
    try:
        return json.loads(json.dumps(meta, allow_nan=False, default=str)), ""
    except (TypeError, ValueError, RecursionError):
        pass
    kept: dict[str, Any] = {}
    for key, value in meta.items():
        try:
            kept[str(key)] = json.loads(json.dumps(value, allow_nan=False, default=str))
        except (TypeError, ValueError, RecursionError):
            kept.setdefault("meta_dropped", []).append(str(key))
    return kept, ""


def settle(raw: Any, max_chars: int = MAX_CHARS) -> tuple[str, str, str, dict[str, Any]]:
    """(outcome, text, message, meta) from a parser's return value, with garbage contained.

    Text longer than `max_chars` is cut (outcome ok, message says so); text that is mostly
    control or undecodable characters is an error; stray control characters are dropped.
    """
    text, meta = (raw.text, raw.meta) if hasattr(raw, "text") else (raw, {})
    meta, problem = clean_meta(dict(meta) if isinstance(meta, dict) else {})
    if problem:
        return "error", "", problem, {}
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    if not isinstance(text, str):
        return "error", "", f"parser returned {type(text).__name__}, not text", meta
    notes = []
    if len(text) > max_chars:
        notes.append(f"output truncated to {max_chars:,} of {len(text):,} chars")
        meta["chars_total"] = len(text)
        text = text[:max_chars]
    sample = text[:100_000]
    share = len(_BINARY.findall(sample)) / max(1, len(sample))
    if share > BINARY_SHARE:
        return "error", "", f"output looks binary: {share:.0%} control or undecodable characters", meta
    text, removed = _STRIP.subn("", text)
    if removed:
        meta["control_chars_removed"] = removed
    why_empty = meta.pop("message", "") or "parser returned no text"
    if not text.strip():
        return "empty", "", one_line(why_empty), meta
    return "ok", text, "; ".join(notes), meta


# -- the worker process -----------------------------------------------------------------
SCRATCH_PREFIX = "tablebench-worker-"
_CLEANER_CODE = ("import shutil, sys, time\nfor _ in range(5):\n    time.sleep(0.5)\n"
                 "    shutil.rmtree(sys.argv[1], ignore_errors=True)")


def _watch_parent(ppid: int, scratch: str) -> None:
    """When the parent is gone (killed run): start a detached cleaner for this worker's
    scratch folder (it outlives the kill that follows), then kill this process group."""
    while True:
        time.sleep(1.0)
        if os.getppid() != ppid:
            if scratch:
                try:
                    subprocess.Popen([sys.executable, "-c", _CLEANER_CODE, scratch], start_new_session=True,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                except OSError:
                    pass
            os.killpg(0, signal.SIGKILL)


def _worker_entry(fd: int, scratch: str = "") -> None:
    """Child process entry: receive the pickled parser, prepare it, then serve pages."""
    from multiprocessing.connection import Connection

    conn = Connection(fd)
    threading.Thread(target=_watch_parent, args=(os.getppid(), scratch), daemon=True).start()
    try:
        parser, max_chars = conn.recv()
        prepare = getattr(parser, "prepare", None)
        if prepare is not None:
            prepare()
    except BaseException as exc:  # noqa: BLE001 — every failure is an outcome
        conn.send(("broken", one_line(f"{type(exc).__name__}: {exc}")))
        return
    conn.send(("ready", ""))
    while True:
        try:
            pdf = conn.recv()
        except EOFError:
            return
        if pdf is None:
            return
        started = time.perf_counter()
        try:
            raw = parser.parse(Path(pdf))
            outcome, text, message, meta = settle(raw, max_chars)
        except BaseException as exc:  # noqa: BLE001 — SystemExit and friends included
            outcome, text, message, meta = "error", "", one_line(f"{type(exc).__name__}: {exc}"), {}
        meta.setdefault("seconds", time.perf_counter() - started)
        meta.setdefault("cost", 0.0)
        try:
            conn.send((outcome, text, message, meta))
        except Exception as exc:  # unpicklable meta
            conn.send(("error", "", one_line(f"parser meta cannot be sent: {exc}"), {}))


_CHILD_CODE = "import sys; from harness.parse.runner import _worker_entry; _worker_entry(int(sys.argv[1]), sys.argv[2])"


def _death_message(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            return f"parser process killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            pass
    return f"parser process died (exit code {exitcode})"


class _WorkerGone(Exception):
    def __init__(self, outcome: str, message: str) -> None:
        super().__init__(message)
        self.outcome = outcome


class _Worker:
    """One child process running one parser, reused page after page.

    A plain `python -c` child (not multiprocessing's spawn, which re-runs the caller's
    `__main__`), in its own session so a kill reaches everything the parser started, and
    talking over a socketpair so the parser's own stdout stays free. Its TMPDIR is a fresh
    folder that `kill` removes, whatever the parser left there.
    """

    def __init__(self, parser: Parser, max_chars: int, startup_timeout: float) -> None:
        from multiprocessing.connection import Connection

        try:
            self.scratch = tempfile.mkdtemp(prefix=SCRATCH_PREFIX)
        except OSError as exc:
            raise _WorkerGone("error", one_line(f"cannot create a temp folder for the parser: {exc}")) from None
        ours, theirs = socket.socketpair()
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p),
                   TMPDIR=self.scratch, TEMP=self.scratch, TMP=self.scratch)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-c", _CHILD_CODE, str(theirs.fileno()), self.scratch],
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, env=env, start_new_session=True,
            )
        except BaseException as exc:
            ours.close()
            shutil.rmtree(self.scratch, ignore_errors=True)
            if isinstance(exc, OSError):
                raise _WorkerGone("error", one_line(f"cannot start a parser process: {exc}")) from None
            raise
        finally:
            theirs.close()
        self.conn = Connection(ours.detach())
        try:
            self.conn.send((parser, max_chars))
        except Exception as exc:  # a parser that cannot be pickled
            self.kill()
            raise _WorkerGone("error", one_line(f"parser cannot be sent to a worker process: {exc}")) from None
        status, message = self._answer(startup_timeout, f"parser did not start within {startup_timeout:g} s")
        if status == "broken":
            self.kill()
            raise _WorkerGone("error", message)

    def _answer(self, timeout: float, timeout_message: str) -> Any:
        if not self.conn.poll(timeout):
            self.kill()
            raise _WorkerGone("timeout", timeout_message)
        try:
            return self.conn.recv()
        except (EOFError, OSError):
            raise _WorkerGone("error", _death_message(self._reap())) from None

    def ask(self, pdf: Path, timeout: float) -> tuple[str, str, str, dict[str, Any]]:
        try:
            self.conn.send(str(pdf))
        except OSError:
            raise _WorkerGone("error", _death_message(self._reap())) from None
        return self._answer(timeout, f"no output within {timeout:g} s (parser killed)")

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def _reap(self) -> int | None:
        try:
            return self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.kill()
            return self.process.returncode

    def kill(self) -> None:
        """SIGKILL the worker's whole process group, reap it, remove its scratch folder.
        Idempotent: every path that gives up on a worker may call it."""
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.process.kill()
        self.process.wait()
        self.conn.close()
        shutil.rmtree(self.scratch, ignore_errors=True)

    def stop(self) -> None:
        """Ask the worker to exit; kill it if it does not within a second."""
        try:
            self.conn.send(None)
            self.process.wait(1)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.kill()


# -- the runner ---------------------------------------------------------------------------
class ParseRunner:
    """Parse PDFs with one parser: isolated, time-limited, cached. Use as a context manager.

    `cache_dir=None` disables the cache. A cached error is never reused (it may have been a
    rate limit or a crash of the moment: the next run tries again); a cached timeout is
    reused, so a hanging parser does not hang again, unless the limit grew. `refresh`
    ignores every cached result (a rebuilt parser, a suspicious cache) and overwrites it.
    """

    def __init__(
        self,
        parser: Parser | str,
        cache_dir: Path | str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        *,
        refresh: bool = False,
        max_chars: int = MAX_CHARS,
        startup_timeout: float = STARTUP_TIMEOUT,
    ) -> None:
        if isinstance(parser, str):
            from harness.parse.registry import resolve

            parser = resolve(parser)
        if timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout}")
        self.parser = parser
        self.cache = ParseCache(cache_dir) if cache_dir is not None else None
        self.timeout = float(timeout)
        self.refresh = refresh
        self.max_chars = max_chars
        self.startup_timeout = startup_timeout
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        self._broken = ""  # prepare() failed: every page gets this error without a respawn
        self._code = code_stamp(parser) if self.cache is not None else ""

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

    def run(self, pdf: Path | str) -> ParseResult:
        """The parser's result for one PDF, from the cache when it is there."""
        pdf = Path(pdf).resolve()
        if not pdf.is_file():
            raise FileNotFoundError(f"{pdf}: no such PDF")
        sha = sha256_file(pdf)
        if self.cache is None or not getattr(self.parser, "cacheable", True):
            return self._compute(pdf, sha)
        path = self.cache.path(self.parser, cache_key(self.parser, sha, self._code))
        expect = {"parser": self.parser.name, "version": self.parser.version,
                  "config": parser_config(self.parser), "pdf_sha256": sha}
        with self.cache.lock(path):
            hit = self.cache.get(path, expect)
            if hit is not None and self._usable(hit):
                return hit
            result = self._compute(pdf, sha)
            self.cache.put(path, result)
            return result

    def run_many(self, pdfs: Sequence[Path | str], jobs: int | None = None) -> list[ParseResult]:
        """Results in input order; up to `jobs` pages at once (default: parser.concurrency or 1)."""
        jobs = max(1, int(jobs or getattr(self.parser, "concurrency", 1)))
        if jobs == 1 or len(pdfs) < 2:
            return [self.run(pdf) for pdf in pdfs]
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            return list(pool.map(self.run, pdfs))

    def _usable(self, hit: ParseResult) -> bool:
        if self.refresh or hit.outcome == "error":
            return False
        return not (hit.outcome == "timeout" and hit.meta.get("timeout", 0.0) < self.timeout)

    def _compute(self, pdf: Path, sha: str) -> ParseResult:
        started = time.perf_counter()
        if getattr(self.parser, "in_process", False):
            outcome, text, message, meta = self._in_process(pdf)
        else:
            outcome, text, message, meta = self._isolated(pdf)
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
            return "error", "", one_line(f"{type(exc).__name__}: {exc}"), {}

    def _isolated(self, pdf: Path) -> tuple[str, str, str, dict[str, Any]]:
        if self._broken:
            return "error", "", self._broken, {}
        with self._lock:
            worker = self._idle.pop() if self._idle else None
        try:
            if worker is None:
                try:
                    worker = _Worker(self.parser, self.max_chars, self.startup_timeout)
                except _WorkerGone as gone:
                    if gone.outcome == "error":
                        self._broken = str(gone)  # prepare() or spawn failed: it would again
                    raise
            answer = worker.ask(pdf, self.timeout)
        except _WorkerGone as gone:
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
