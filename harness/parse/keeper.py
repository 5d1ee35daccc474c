"""The keeper: a process above the parser worker that adopts whatever the parser orphaned.

Why: a command that double-forks (`(setsid env -i tool &)`) leaves `tool` in no process group,
session or environment of ours, re-parented to init once its parent exits: neither the group
kill nor the descendant search nor the worker's token (`tablebench.parse.reap`) finds it. On Linux
a child subreaper receives such orphans instead of init. The worker itself cannot be one (it
runs the parser's code, whose own children it must not reap from under `subprocess`), so the
worker process forks first: the parent becomes the keeper (a subreaper that only reaps: every
orphan stays a descendant of the process the runner kills, and none stays a zombie), the child
goes on as the worker. When the worker exits, or the run that started it is gone, the keeper
kills every other process it holds and exits as the worker did (same code or signal).
Off Linux there is no keeper and the worker runs as before.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time
from pathlib import Path

from tablebench.parse.reap import kill_tree

PR_SET_CHILD_SUBREAPER = 36
POLL_SECONDS = 0.2


def become_worker(close_in_keeper: int) -> None:
    """Fork a keeper above this process and return in the child, the worker. The keeper never
    returns; it closes `close_in_keeper` (the worker's connection: only the worker may hold it,
    so the run sees the worker's death). Off Linux, or when prctl fails: return at once."""
    if not sys.platform.startswith("linux") or not _subreaper():
        return
    controller = os.getppid()
    worker = os.fork()
    if worker == 0:
        return
    os.close(close_in_keeper)
    _keep(worker, controller)


def _subreaper() -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _keep(worker: int, controller: int) -> None:
    """Reap orphans as they exit until the worker exits or the run is gone, then end."""
    status = None
    while status is None:
        try:
            pid, code = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:  # cannot happen while the worker lives; end as if it died
            pid, code = worker, 0
        if pid == worker:
            status = code
        elif pid == 0:
            if os.getppid() != controller:  # the run was killed: the worker sees this process go, and cleans up
                _kill_children(but=worker)
                os._exit(1)
            time.sleep(POLL_SECONDS)
    _kill_children(but=None)
    _reap_all()
    if os.WIFSIGNALED(status):
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def _kill_children(but: int | None) -> None:
    """Kill every child of this process (adopted orphans) but `but`, and all below them."""
    me = str(os.getpid())
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == but:
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if stat[stat.rindex(")") + 2:].split()[1] == me:
            kill_tree(int(entry.name))


def _reap_all(seconds: float = 5.0) -> None:
    """Reap the killed children (SIGKILL: they exit at once; the bound is for the impossible)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                time.sleep(0.01)
        except ChildProcessError:
            return
