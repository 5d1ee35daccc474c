"""Killing everything a parser worker started, also what left its session (`setsid`, daemons).

Why not the process group alone: a command that runs `setsid tool &` puts `tool` in a session
and process group of its own, so killing the worker's group leaves it running for ever. Without
cgroups, two facts still find such a process:

- it descends from the worker (while the processes between them live);
- it carries the worker's token in its environment (children inherit it), which finds it also
  after its parent exited (re-parented to init) and after the worker itself is gone.

A process that also lost the token (`env -i`) after its parent exited is found through the
keeper (`tablebench.parse.keeper`), the child subreaper above the worker that adopts it. Every process found is stopped first (a stopped process cannot fork),
the search repeats until it finds nothing new, then all are killed. Off Linux (no /proc) only
the group is killed.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

TOKEN_ENV = "TABLEBENCH_WORKER_TOKEN"
_PROC = Path("/proc")
_ROUNDS = 20  # searches for new processes before the kill (each round stops what it found)


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process visible in /proc."""
    out = {}
    for entry in _PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            out[int(entry.name)] = int(stat[stat.rindex(")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile, or not ours to read
    return out


def _carries(pid: int, marker: bytes) -> bool:
    try:
        return marker in b"\0" + (_PROC / str(pid) / "environ").read_bytes()
    except OSError:
        return False


def _found(root: int | None, token: str, seen: set[int]) -> set[int]:
    """`root`, its descendants and every process carrying `token`, except this process."""
    parents = _parents()
    children: dict[int, list[int]] = {}
    for pid, ppid in parents.items():
        children.setdefault(ppid, []).append(pid)
    tree: set[int] = set()
    todo = [root] if root in parents else []
    while todo:
        pid = todo.pop()
        if pid not in tree:
            tree.add(pid)
            todo += children.get(pid, [])
    marker = b"\0" + f"{TOKEN_ENV}={token}".encode() + b"\0"
    marked = {pid for pid in parents if pid not in seen and pid not in tree and token and _carries(pid, marker)}
    return (tree | marked) - {os.getpid()}


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def kill_tree(root: int | None, token: str = "") -> None:
    """SIGKILL process `root`, its process group, its descendants and every process with `token`.
    `root` None: the worker is reaped already (its pid may be reused), only `token` is searched."""
    if root is not None:
        _group(root, signal.SIGSTOP)
    seen: set[int] = set()
    if _PROC.is_dir():
        for _ in range(_ROUNDS):
            new = _found(root, token, seen) - seen
            if not new:
                break
            for pid in new:
                _signal(pid, signal.SIGSTOP)
            seen |= new
    if root is not None:
        _group(root, signal.SIGKILL)
    for pid in seen:
        _signal(pid, signal.SIGKILL)


def _group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass
