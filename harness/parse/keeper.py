"""The keeper: a process above the parser worker that adopts whatever the parser orphaned.

Why: a command that double-forks (`(setsid env -i tool &)`) leaves `tool` in no process group,
session or environment of ours, re-parented to init once its parent exits. On Linux a child
subreaper receives such orphans instead of init. The worker itself cannot be one (it runs the
parser's code, whose own children it must not reap from under `subprocess`), so the worker
process forks first: the parent becomes the keeper (a subreaper that only reaps, so no orphan
stays a zombie), the child goes on as the worker. The worker's pen (`tablebench.parse.pen`) holds
them all, the keeper included; a parser that SIGKILLs the keeper leaves its orphans to init, but
in the pen, which the run ends. When the worker exits, or the run that started it is gone, the
keeper steps out of the pen, ends it (every process in it and below the keeper killed, round
after round until none is left) and exits as the worker did (same code or signal); when the run
is gone it also removes the worker's scratch folder, which nobody else is left to remove.
Off Linux there is no keeper and the worker runs as before.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import sys
import time

from tablebench.parse.pen import Pen
from tablebench.parse.reap import TOKEN_ENV

PR_SET_CHILD_SUBREAPER = 36
POLL_SECONDS = 0.2


def become_worker(close_in_keeper: int, pen: Pen, scratch: str) -> bool:
    """Fork a keeper above this process and return in the child, the worker: True. The keeper
    never returns; it closes `close_in_keeper` (the worker's connection: only the worker may hold
    it, so the run sees the worker's death). Off Linux, or when prctl fails: False at once."""
    if not sys.platform.startswith("linux") or not _subreaper():
        return False
    controller = os.getppid()
    worker = os.fork()
    if worker == 0:
        return True
    os.close(close_in_keeper)
    _keep(worker, controller, pen, scratch)
    return False  # not reached: the keeper exits


def _subreaper() -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _keep(worker: int, controller: int, pen: Pen, scratch: str) -> None:
    """Reap orphans as they exit until the worker exits or the run is gone, then end the pen."""
    status = None
    while status is None:
        try:
            pid, code = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:  # cannot happen while the worker lives; end as if it died
            pid, code = worker, 0
        if pid == worker:
            status = code
        elif pid == 0:
            if os.getppid() != controller:  # the run was killed: nobody else is left to clean up
                break
            time.sleep(POLL_SECONDS)
    pen.end(os.getpid(), os.environ.get(TOKEN_ENV, ""))
    _reap_all()
    if os.getppid() != controller and scratch:  # the run is gone (also when the worker saw it first)
        shutil.rmtree(scratch, ignore_errors=True)
    if status is None:
        os._exit(1)
    if os.WIFSIGNALED(status):
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def _reap_all(seconds: float = 5.0) -> None:
    """Reap the killed children (SIGKILL: they exit at once; the bound is for the impossible)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                time.sleep(0.01)
        except ChildProcessError:
            return
