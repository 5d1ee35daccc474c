"""Killing everything a parser worker started, where no cgroup holds it (`tablebench.parse.pen`).

Why not the process group alone: a command that runs `setsid tool &` puts `tool` in a session
and process group of its own, so killing the worker's group leaves it running for ever. Without
a cgroup, three facts still find such a process:

- it descends from the worker (while the processes between them live), or from the keeper
  (`tablebench.parse.keeper`), which adopts what the parser orphans;
- it carries the worker's token in its environment (children inherit it), also after its parent
  exited (re-parented) and after the worker itself is gone;
- it carries the pen's mark (`tablebench.parse.pen`), which `env -i` does not clear either.

Each round stops every process it finds as soon as it reads it (a stopped process cannot fork),
with its whole process group when the group lies in a session the pen's processes made: one
signal reaches every member at once, so a process that forks and exits every 2 ms, keeping its
group, is stopped under whatever pid it has by then, even when the one that was read has just
exited. Descendants come from the kernel's lists of children (a few reads); the token and the
mark from one pass over /proc. It searches again until a search finds nothing new, then kills
them all. Rounds repeat until `QUIET_ROUNDS` in a row find nothing (bounded by `SWEEP_SECONDS`).
Off Linux (no /proc) only the group is killed.
"""

from __future__ import annotations

import os
import signal
import time
from typing import NamedTuple

TOKEN_ENV = "TABLEBENCH_WORKER_TOKEN"
_PROC = "/proc"
SWEEP_SECONDS = 10.0  # the most one kill_tree goes on finding processes (a fork bomb outruns any sweep)
QUIET_ROUNDS = 3  # rounds in a row that find nothing before a kill_tree ends
CHASES = 5  # quick passes over the pids that appeared during a search


class _Stat(NamedTuple):
    state: bytes
    parent: int
    group: int
    session: int


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None


def _stat(pid: int) -> _Stat | None:
    """A process's state, parent, group and session (also a zombie's); None when it is gone."""
    stat = _read(f"{_PROC}/{pid}/stat") or b""
    try:
        state, parent, group, session = stat[stat.rindex(b")") + 2:].split()[:4]
        return _Stat(state, int(parent), int(group), int(session))
    except ValueError:
        return None


class _Held:
    """What one round stopped: processes, and whole process groups of the pen's own sessions."""

    def __init__(self, me: int) -> None:
        self.me = me
        self.pids: set[int] = set()
        self.groups: set[int] = set()
        self.own = (os.getsid(0), os.getpgrp())  # never signalled as a group: this process's

    def stop(self, pid: int, stat: _Stat) -> None:
        """Stop `pid` (a live one) and its group; of a zombie only its group: its successor's."""
        if stat.state not in (b"Z", b"X") and pid != self.me:
            _signal(pid, signal.SIGSTOP)
            self.pids.add(pid)
        if stat.session != self.own[0] and stat.group not in (self.own[1], 0, 1) and stat.group not in self.groups:
            _group(stat.group, signal.SIGSTOP)  # at once, a member forking meanwhile included
            self.groups.add(stat.group)

    def count(self) -> int:
        return len(self.pids) + len(self.groups)

    def kill(self) -> None:
        for group in self.groups:
            _group(group, signal.SIGKILL)
        for pid in self.pids:
            _signal(pid, signal.SIGKILL)


def _children(pid: int) -> list[int] | None:
    """`pid`'s children from /proc/PID/task/*/children (None: the kernel does not list them)."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"{_PROC}/{pid}/task")
    except OSError:
        return []  # gone
    for tid in tasks:
        listing = _read(f"{_PROC}/{pid}/task/{tid}/children")
        if listing is None:
            if not os.path.exists(f"{_PROC}/{pid}/task/{tid}"):
                continue  # the thread ended meanwhile
            return None
        found += [int(child) for child in listing.split()]
    return found


def _descendants(root: int, held: _Held) -> bool:
    """Stop `root`'s live descendants, each as soon as it is read, walking the kernel's lists of
    children (a few reads however many processes the machine runs). False when it keeps none."""
    todo = [root]
    while todo:
        children = _children(todo.pop())
        if children is None:
            return False
        for child in children:
            stat = _stat(child) if child not in held.pids else None
            if stat is not None and stat.state not in (b"Z", b"X"):
                held.stop(child, stat)
                todo.append(child)
    return True


def _pids() -> list[int]:
    return [int(name) for name in os.listdir(_PROC) if name.isdigit()]


class _Marks:
    """What finds the pen's processes in /proc: the token in an environment, the mark in limits."""

    def __init__(self, token: str, mark: int, held: _Held) -> None:
        self.token = f"\0{TOKEN_ENV}={token}\0".encode() if token else b""
        self.mark = f" {mark} ".encode() if mark else b""
        self.held = held
        self.stats: dict[int, _Stat] = {}  # of every live process read, when `keep_stats`
        self.keep_stats = False

    def check(self, pid: int) -> None:
        """Stop `pid` (and its group) if it carries the token or the mark."""
        if pid in self.held.pids:
            return
        folder = f"{_PROC}/{pid}/"
        environ = _read(folder + "environ")
        if environ is None:
            return  # a zombie, a kernel thread, gone meanwhile, or not ours to read
        if self.keep_stats and (stat := _stat(pid)) is not None:
            self.stats[pid] = stat
        if (self.token and self.token in b"\0" + environ
                or self.mark and self.mark in (_read(folder + "limits") or b"")):
            if (stat := _stat(pid)) is not None:  # may have exited since: a zombie gives its group
                self.held.stop(pid, stat)


def _search(root: int | None, token: str, mark: int, held: _Held) -> int:
    """One search: stop `root` and its live descendants, then every process carrying `token` or
    `mark`, each as soon as it is read, with its group. How many processes and groups it stopped
    that `held` did not hold yet.

    Reading a process's environment is what tells a live one (a zombie's or a kernel thread's
    fails with ESRCH in microseconds, where a zombie's stat takes a quarter of a millisecond on a
    busy machine). One pass over /proc reads each pid of a listing made when it began: a process
    that forks every 2 ms has exited by the time its pid is read, and its successor's pid was not
    listed (once pids wrapped around it lies among the older ones). So the pass is followed by
    `CHASES` quick ones over the pids that appeared meanwhile, newest first: the successor is one."""
    before = held.count()
    tree = root is not None and _descendants(root, held)
    if root is not None and root not in held.pids and (stat := _stat(root)) is not None:
        held.stop(root, stat)
    marks = _Marks(token, mark, held)
    marks.keep_stats = not tree and root is not None  # for the descendants when the kernel lists no children
    seen = set(_pids())
    for pid in sorted(seen):
        marks.check(pid)
    for _ in range(CHASES if token or mark else 0):
        now = set(_pids())
        for pid in sorted(now - seen, reverse=True):
            marks.check(pid)
        seen = now
    if marks.keep_stats and root is not None:
        children: dict[int, list[int]] = {}
        for pid, stat in marks.stats.items():
            children.setdefault(stat.parent, []).append(pid)
        todo = list(children.get(root, []))
        while todo:
            pid = todo.pop()
            if pid not in held.pids:
                held.stop(pid, marks.stats[pid])
                todo += children.get(pid, [])
    return held.count() - before


def kill_tree(root: int | None, token: str = "", mark: int = 0) -> None:
    """SIGKILL process `root`, its process group, its descendants and every process with `token`
    in its environment or `mark` as its limit, except this process. `root` None: the worker is
    reaped already (its pid may be reused), only `token` and `mark` are searched. `root` this
    process: its descendants, not itself or its group. Rounds repeat until `QUIET_ROUNDS` in a
    row find nothing: a search can miss a process that lives 2 ms between forks."""
    me = os.getpid()
    leader = root if root is not None and root != me else None  # whose group goes too
    if leader is not None:
        _group(leader, signal.SIGSTOP)
    deadline = time.monotonic() + SWEEP_SECONDS
    quiet = 0
    while os.path.isdir(_PROC) and quiet < QUIET_ROUNDS and time.monotonic() < deadline:
        held = _Held(me)
        while _search(root, token, mark, held):
            pass
        if leader is not None:
            _group(leader, signal.SIGKILL)
        held.kill()
        quiet = 0 if held.count() else quiet + 1
        time.sleep(0.001)  # the killed exit (SIGKILL is delivered when each is next scheduled)
    if leader is not None:
        _group(leader, signal.SIGKILL)
