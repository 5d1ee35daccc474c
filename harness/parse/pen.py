"""The pen: what holds every process a parser worker starts, so that all of them end with it.

Why: a parser may start processes that leave whatever a kill follows: their session (`setsid`),
their environment (`env -i`, no token), their parent (a double fork re-parents them to the
keeper, `tablebench.parse.keeper`, and to init once the parser SIGKILLs the keeper), and one that
forks and exits every 2 ms (a new pid each time) outran the keeper's single pass over its
children. The run opens a pen per worker process; that process enters it before it runs any of
the parser's code, and whoever ends the worker ends the pen: every process in it is killed.

- A cgroup (v2) where this process may make one (root, or a delegated subtree): a child of this
  process's own cgroup. A process leaves a cgroup only by writing to cgroup files, so no fork,
  session or environment takes it out, and `cgroup.kill` ends all of them at once, a forking
  one included (a 2 ms pid-hopper: gone in about 1 ms).
- Else (no writable cgroup v2, or `TABLEBENCH_CONTAIN=sweep`) a mark that every process passes
  on to its children whatever they do with sessions, environments or parents: the soft limit of
  its realtime CPU time (RLIMIT_RTTIME) set to 2**62 plus a random number. It limits nothing:
  the kernel reads it only for a process under a realtime scheduler, and it is 146,000 years.
  `tablebench.parse.reap` kills every process carrying it, round after round until none is left.

A parser running as root can still leave either on purpose (write to another cgroup, change its
limit): the pen contains what a parser does by accident. Off Linux there is no pen (the worker's
process group and token, `tablebench.parse.reap`). `TABLEBENCH_CONTAIN=sweep` is for a machine
whose cgroups misbehave, and for the tests of the mark.
"""

from __future__ import annotations

import os
import secrets
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tablebench.parse.reap import kill_tree

PEN_ENV = "TABLEBENCH_PEN"  # how the worker process learns its pen: "MARK:CGROUP-FOLDER"
CONTAIN_ENV = "TABLEBENCH_CONTAIN"
_PREFIX = "tablebench-"
_MARK_BASE = 1 << 62
_EMPTY_SECONDS = 5.0  # how long a killed cgroup may take to empty (SIGKILL: milliseconds)


@dataclass
class Pen:
    """One worker's pen: `mark` (0: none) and `cgroup` (None: none). `held`: the worker's first
    process is known to be in the cgroup, so the cgroup alone holds everything it starts."""

    mark: int = 0
    cgroup: Path | None = None
    held: bool = False

    @classmethod
    def open(cls) -> Pen:
        """A new pen for a worker about to start (in the run's process)."""
        if not sys.platform.startswith("linux"):
            return cls()
        cgroup = None if os.environ.get(CONTAIN_ENV) == "sweep" else _new_cgroup()
        return cls(_new_mark(), cgroup)

    def spec(self) -> str:
        return f"{self.mark}:{self.cgroup or ''}"

    @classmethod
    def from_env(cls) -> Pen:
        """The pen the run opened for this worker process (none when it was started otherwise)."""
        mark, _, cgroup = os.environ.get(PEN_ENV, "").partition(":")
        return cls(int(mark) if mark.isdigit() else 0, Path(cgroup) if cgroup else None)

    def enter(self) -> None:
        """Put this process in the pen (its first act, before any of the parser's code)."""
        if self.mark:
            _set_mark(self.mark)
        if self.cgroup is not None:
            try:
                (self.cgroup / "cgroup.procs").write_text(str(os.getpid()))
                self.held = True
            except OSError:  # not ours to join after all: the mark holds
                self.held = False

    def settle(self, pid: int) -> None:
        """In the run, once the worker answered: does the cgroup hold its first process `pid`?
        If not, the cgroup is dropped and the mark is what holds."""
        if self.cgroup is None:
            return
        self.held = str(pid) in _read(self.cgroup / "cgroup.procs").split()
        if not self.held:
            _remove(self.cgroup)

    def end(self, root: int | None = None, token: str = "") -> None:
        """Kill every process in the pen but this one, then remove the cgroup. `root`: a process
        the run started whose tree and group go too; `token`: the worker token. Idempotent."""
        inside = self._leave()
        if self.cgroup is not None and inside is not False:
            _kill_cgroup(self.cgroup)
        if not (self.held and inside is not False):
            kill_tree(root, token, self.mark)
        if self.cgroup is not None:
            _remove(self.cgroup)

    def _leave(self) -> bool | None:
        """Take this process out of the pen (it kills the rest). None: it was not in the cgroup;
        False: it could not leave it (so the cgroup must not be killed: the sweep does it)."""
        if self.mark and _current_mark() == self.mark:
            _set_mark(None)
        if self.cgroup is None or str(os.getpid()) not in _read(self.cgroup / "cgroup.procs").split():
            return None
        self.held = True  # this process was in it: so is all that shares its ancestry
        try:
            (self.cgroup.parent / "cgroup.procs").write_text(str(os.getpid()))
            return True
        except OSError:
            return False


def _new_mark() -> int:
    try:
        import resource

        if resource.getrlimit(resource.RLIMIT_RTTIME)[1] != resource.RLIM_INFINITY:
            return 0  # a finite hard limit: a mark above it cannot be set
    except (ImportError, AttributeError, OSError, ValueError):
        return 0
    return _MARK_BASE + secrets.randbits(40)


def _set_mark(mark: int | None) -> None:
    """Set this process's mark (None: back to no limit)."""
    import resource

    try:
        hard = resource.getrlimit(resource.RLIMIT_RTTIME)[1]
        resource.setrlimit(resource.RLIMIT_RTTIME, (hard if mark is None else mark, hard))
    except (OSError, ValueError):
        pass


def _current_mark() -> int:
    import resource

    return resource.getrlimit(resource.RLIMIT_RTTIME)[0]


def own_cgroup() -> Path | None:
    """The folder of this process's cgroup v2, or None (no v2 hierarchy mounted here)."""
    try:
        line = next(ln for ln in Path("/proc/self/cgroup").read_text().splitlines() if ln.startswith("0::"))
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
    except (OSError, StopIteration):
        return None
    path = line[3:]
    for mount in mounts:
        before, sep, after = mount.partition(" - ")
        fields = before.split()
        if not sep or not after.startswith("cgroup2 ") or len(fields) < 5:
            continue
        root, point = _unescape(fields[3]), _unescape(fields[4])
        if path == root or path.startswith(root.rstrip("/") + "/"):
            folder = Path(point) / path[len(root):].lstrip("/")
            if (folder / "cgroup.procs").is_file():
                return folder
    return None


def _unescape(field: str) -> str:
    """mountinfo writes a space, tab, newline or backslash in a path as a 3-digit octal escape."""
    for code in ("040", "011", "012", "134"):
        field = field.replace("\\" + code, chr(int(code, 8)))
    return field


def _new_cgroup() -> Path | None:
    """A new child of this process's cgroup, able to kill all it holds at once; None when this
    process may not make one (not root, no delegation, read-only, a kernel before 5.14)."""
    parent = own_cgroup()
    if parent is None:
        return None
    _remove_stale(parent)
    folder = parent / f"{_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
    try:
        folder.mkdir()
    except OSError:
        return None
    if not (folder / "cgroup.kill").is_file():
        _remove(folder)
        return None
    return folder


_swept: set[Path] = set()


def _remove_stale(parent: Path) -> None:
    """Remove the empty pens of runs that are gone (a run killed before it removed them), once per
    parent folder and process. A pen that still holds a process stays: rmdir refuses it."""
    if parent in _swept:
        return
    _swept.add(parent)
    try:
        folders = [p for p in parent.iterdir() if p.name.startswith(_PREFIX) and p.is_dir()]
    except OSError:
        return
    for folder in folders:
        owner = folder.name[len(_PREFIX):].partition("-")[0]
        if owner.isdigit() and not Path(f"/proc/{owner}").exists():
            _remove(folder)


def _kill_cgroup(folder: Path) -> None:
    """SIGKILL every process in the cgroup at once and wait (boundedly) until it is empty."""
    try:
        (folder / "cgroup.kill").write_text("1")
    except OSError:  # gone already (ended by another process)
        return
    deadline = time.monotonic() + _EMPTY_SECONDS
    pause = 0.0005
    while "populated 1" in _read(folder / "cgroup.events") and time.monotonic() < deadline:
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def _remove(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:  # gone already, or still holding a process: the next run's sweep retries
        pass


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""
