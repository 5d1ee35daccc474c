"""The isolated process a parser runs in: spawned once, reused page after page while it behaves.

Why a worker process: a parser may segfault, hang or leak; each runs in a spawned process
(its own session, so a timeout kills it and anything it started). Every way of failing
becomes an outcome the runner records — `WorkerGone` carries "error" or "timeout" and a
one-line message.

Why a scratch folder per worker: a killed parser cannot clean up after itself, so each
worker gets its own TMPDIR, removed by this process whenever the worker ends, at this process's
exit, by the keeper when this process dies without stopping it, and by a detached process the
worker starts when it is left alone otherwise (the parser killed the keeper, or there is none).
The worker process creates it, first thing: the folder exists only while a process that removes
it does (one this process made before the worker existed outlived a run killed in between), and
a worker that finds the run gone when it reports its start removes it before it ends.

Everything the parser starts is held in the worker's pen (`tablebench.parse.pen`: a cgroup, else
a mark its processes carry), which ends with the worker: what left its session, its environment
and its parent too, and what the parser orphaned (`tablebench.parse.keeper`: on Linux the spawned
process is a keeper above the worker, which adopts it).
"""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from tablebench.core.messages import one_line
from tablebench.parse.keeper import become_worker
from tablebench.parse.pen import PEN_ENV, Pen
from tablebench.parse.protocol import Parser
from tablebench.parse.reap import TOKEN_ENV
from tablebench.parse.relay import relay
from tablebench.parse.result import raised, settle

SCRATCH_PREFIX = "tablebench-worker-"
_ENDER_CODE = ("import sys; from tablebench.parse.worker import end_abandoned; "
               "end_abandoned(sys.argv[1], sys.argv[2])")


def end_abandoned(token: str, scratch: str) -> None:
    """Entry of a detached process started by a worker whose run or keeper is gone: end the
    worker's pen (this process steps out of it first, so it is not killed), then remove the
    worker's scratch folder (again for a while: a process being killed may still write)."""
    Pen.from_env().end(None, token)
    for _ in range(5):
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
        if not scratch or not os.path.exists(scratch):
            return
        time.sleep(0.5)


def _abandon(scratch: str, pen: Pen) -> None:
    """The run or the keeper is gone, and nobody else will end this worker: a detached process
    ends the pen and removes the scratch folder, and this process group is killed at once.
    Why another process: ending the pen from here would take this process out of it first,
    while the parser's code may still be running in it and forking outside the pen."""
    token = os.environ.get(TOKEN_ENV, "")
    try:
        subprocess.Popen([sys.executable, "-c", _ENDER_CODE, token, scratch], start_new_session=True,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         env={k: v for k, v in os.environ.items() if k != TOKEN_ENV})  # its token: its argv
    except OSError:
        pen.end(None, token)
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
    os.killpg(0, signal.SIGKILL)


def _watch_parent(ppid: int, scratch: str, pen: Pen) -> None:
    """When the parent is gone (the run killed, or the keeper by the parser): abandon."""
    while True:
        time.sleep(1.0)
        if os.getppid() != ppid:
            _abandon(scratch, pen)


def worker_entry(fd: int, scratch: str = "", unmade: str = "") -> None:
    """Child process entry: receive the pickled parser, prepare it, then serve pages. `unmade`:
    why the scratch folder could not be created (`_CHILD_CODE` creates it before any import)."""
    from multiprocessing.connection import Connection

    pen = Pen.from_env()
    pen.enter()  # before anything can fork: all this process and the parser start is in the pen
    kept = become_worker(close_in_keeper=fd, pen=pen, scratch=scratch)  # a keeper above adopts what the parser orphans
    conn = Connection(fd)
    if unmade:
        _tell(conn, ("broken", one_line(f"cannot create a temp folder for the parser: {unmade}")), "")
        return
    threading.Thread(target=_watch_parent, args=(os.getppid(), scratch, pen), daemon=True).start()
    step = "the parser could not be loaded in its process"  # unpickling imports the parser's module
    try:
        parser, max_chars = conn.recv()
        prepare = getattr(parser, "prepare", None)
        if prepare is not None:
            step = "prepare() raised"  # what failed is named, as every page's failure repeats it
            prepare()
    except BaseException as exc:  # noqa: BLE001 — every failure is an outcome
        _tell(conn, ("broken", one_line(f"{step} {type(exc).__name__}: {exc}")), scratch)
        return
    if not _tell(conn, ("ready", ""), scratch):
        return
    while True:
        try:
            pdf = conn.recv()
        except (EOFError, OSError):  # the run dropped the connection without stopping us: it crashed
            if kept:
                os._exit(1)  # the keeper ends the pen and removes the scratch folder
            _abandon(scratch, pen)
        if pdf is None:
            return
        started = time.perf_counter()
        try:
            raw = parser.parse(Path(pdf))
            outcome, text, message, meta = settle(raw, max_chars)
        except BaseException as exc:  # noqa: BLE001 — SystemExit and friends included
            outcome, text, message, meta = raised(exc)
        meta.setdefault("seconds", time.perf_counter() - started)
        meta.setdefault("cost", 0.0)
        try:
            conn.send((outcome, text, message, meta))
        except Exception as exc:  # unpicklable meta
            conn.send(("error", "", one_line(f"parser meta cannot be sent: {exc}"), {}))


def _tell(conn: Any, message: tuple[str, str], scratch: str) -> bool:
    """Send the run how the start went; False when the run is gone (killed while this worker
    started, perhaps before the keeper could watch it): this process removes the scratch folder."""
    try:
        conn.send(message)
        return True
    except OSError:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
        return False


# the scratch folder is made before any import: an import may use TMPDIR already (filelock probes it)
_CHILD_CODE = ("import os, sys\ntry:\n    os.mkdir(sys.argv[2], 0o700)\n    unmade = ''\n"
               "except OSError as exc:\n    unmade = str(exc)\n"
               "from tablebench.parse.worker import worker_entry\nworker_entry(int(sys.argv[1]), sys.argv[2], unmade)")


def _death_message(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            return f"parser process killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            pass
    return f"parser process died (exit code {exitcode})"


class WorkerGone(Exception):
    """The worker cannot answer: `outcome` is "error" or "timeout", the message one line."""

    def __init__(self, outcome: str, message: str) -> None:
        super().__init__(message)
        self.outcome = outcome


_LIVE: set[Worker] = set()  # workers not killed yet: killed at this process's exit (a crash skips stop())


def _kill_live() -> None:
    for worker in list(_LIVE):
        worker.kill()


_hooked = False  # `_kill_live` registered at exit: with the first worker, not at import


def _track(worker: Worker) -> None:
    """Kill `worker` at this process's exit if nothing stopped it before."""
    global _hooked
    if not _hooked:
        atexit.register(_kill_live)
        _hooked = True
    _LIVE.add(worker)


class Worker:
    """One child process running one parser, reused page after page.

    A plain `python -c` child (not multiprocessing's spawn, which re-runs the caller's
    `__main__`), in its own session so a kill reaches everything the parser started, and
    talking over a socketpair so the parser's own stdout stays free (what it prints reaches the
    run's stdout and stderr redacted: `tablebench.parse.relay`). Its TMPDIR is a fresh
    folder that `kill` removes, whatever the parser left there.
    """

    def __init__(self, parser: Parser, max_chars: int, startup_timeout: float) -> None:
        from multiprocessing.connection import Connection

        try:  # named here, created by the worker process first thing (`_CHILD_CODE`)
            self.scratch = os.path.join(tempfile.gettempdir(), SCRATCH_PREFIX + secrets.token_hex(8))
        except OSError as exc:
            raise WorkerGone("error", one_line(f"cannot create a temp folder for the parser: {exc}")) from None
        ours, theirs = socket.socketpair()
        self.token = secrets.token_hex(8)
        self.pen = Pen.open()
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p),
                   TMPDIR=self.scratch, TEMP=self.scratch, TMP=self.scratch,
                   **{TOKEN_ENV: self.token, PEN_ENV: self.pen.spec()})
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-c", _CHILD_CODE, str(theirs.fileno()), self.scratch],
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, env=env, start_new_session=True,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE,  # relayed, redacted (`tablebench.parse.relay`)
            )
        except BaseException as exc:
            ours.close()
            self.pen.end()
            shutil.rmtree(self.scratch, ignore_errors=True)
            if isinstance(exc, OSError):
                raise WorkerGone("error", one_line(f"cannot start a parser process: {exc}")) from None
            raise
        finally:
            theirs.close()
        relay(self.process.stdout, 1)
        relay(self.process.stderr, 2)
        _track(self)
        self.conn = Connection(ours.detach())
        try:
            self.conn.send((parser, max_chars))
        except Exception as exc:  # a parser that cannot be pickled
            self.kill()
            raise WorkerGone("error", one_line(f"parser cannot be sent to a worker process: {exc}")) from None
        status, message = self._answer(startup_timeout, f"parser did not start: its process and prepare() took "
                                                        f"longer than {startup_timeout:g} s (parser killed)")
        if status == "broken":
            self.kill()
            raise WorkerGone("error", message)
        self.pen.settle(self.process.pid)

    def _answer(self, timeout: float, timeout_message: str) -> Any:
        if not self.conn.poll(timeout):
            self.kill()
            raise WorkerGone("timeout", timeout_message)
        try:
            return self.conn.recv()
        except (EOFError, OSError):
            raise WorkerGone("error", _death_message(self._reap())) from None

    def ask(self, pdf: Path, timeout: float) -> tuple[str, str, str, dict[str, Any]]:
        try:
            self.conn.send(str(pdf))
        except OSError:
            raise WorkerGone("error", _death_message(self._reap())) from None
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
        """SIGKILL the worker, its process group and everything it started (also in other
        sessions), reap it, remove its scratch folder. Idempotent: every path that gives up on a
        worker may call it."""
        if self.process.poll() is None:
            self.pen.end(self.process.pid, self.token)
            self.process.kill()
        elif self in _LIVE:
            self.pen.end(None, self.token)  # what it left running when it died
        self.process.wait()
        self.conn.close()
        shutil.rmtree(self.scratch, ignore_errors=True)
        _LIVE.discard(self)

    def stop(self) -> None:
        """Ask the worker to exit; kill it if it does not within a second."""
        try:
            self.conn.send(None)
            self.process.wait(1)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.kill()
