"""Parsers that leave processes behind on purpose, for the tests of containment
(tests/test_parse_contain.py): module level so a worker process can unpickle them. Each escapee
carries a token of the test in its argv, which finds it (`survivors`).

Run as a script (`python escaping_parsers.py hop TOKEN BEATS`) this is the pid-hopper: it forks
every 2 ms and the parent exits, so it has a new pid every time a kill looks for it. Each new
pid adds a byte to the file BEATS: a scan of /proc can miss a process that lives 2 ms, a growing
file cannot (`beating`). Its process group (the session `setsid` gave it) is written beside.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

HOPPER = Path(__file__).resolve()


class KillsKeeper:
    """Double-forks `env -i setsid sleep SECONDS` (re-parented, no token in its environment, a
    session of its own), then SIGKILLs its own parent: the keeper, which had adopted the sleep.
    `seconds` ("299.NNN") is the token: unique per test, it is the sleep's argv."""

    name = "kills-keeper"
    version = "1"

    def __init__(self, seconds: str = "299") -> None:
        self.seconds = seconds
        self.config = {"seconds": seconds}

    def parse(self, pdf_path: Path) -> str:
        subprocess.run(["sh", "-c", f"(env -i setsid sleep {self.seconds} >/dev/null 2>&1 &)"], check=True)
        deadline = time.monotonic() + 10
        while not survivors(f"sleep\0{self.seconds}\0") and time.monotonic() < deadline:
            time.sleep(0.01)  # until it is `sleep`: out of our session, its environment cleared
        os.kill(os.getppid(), signal.SIGKILL)
        return "no table on this page"


def hopper_command(token: str, beats: Path) -> str:
    """A `command:` parser that starts the pid-hopper in a session of its own with a cleared
    environment, and exits at once."""
    return (f"command:sh -c 'setsid env -i {sys.executable} {HOPPER} hop {token} {beats} >/dev/null 2>&1 &"
            " echo started' {pdf}")


def beating(beats: Path, seconds: float = 0.5) -> bool:
    """A hopper is alive: the file grows within `seconds` (it grows every 2 ms while one is)."""
    size = beats.stat().st_size if beats.exists() else 0
    time.sleep(seconds)
    return beats.exists() and beats.stat().st_size > size


def survivors(token: str) -> list[int]:
    """The live processes (not zombies) whose argv holds `token`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if token.encode() not in (entry / "cmdline").read_bytes():  # a zombie's is empty
                continue
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if stat[stat.rindex(")") + 2] not in "ZX":
            found.append(int(entry.name))
    return found


def none_survive(token: str, beats: Path | None = None, seconds: float = 10.0) -> list[int]:
    """[] once no process holds `token` and the hopper writing `beats` (if any) stopped, polled
    for up to `seconds`; else the survivors ([-1]: a hopper seen only by its beats), which are
    then killed with their process groups (a hopper included) so that a failing test leaves
    nothing running."""
    deadline = time.monotonic() + seconds
    while True:
        alive = survivors(token) or ([-1] if beats is not None and beating(beats) else [])
        if not alive or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    if alive:
        _kill(token, beats)
    return alive


def _kill(token: str, beats: Path | None) -> None:
    """Kill by process group: a hopper's next pid escapes a kill by pid, never its group's."""
    groups = {int(beats.with_suffix(".group").read_text())} if beats and beats.with_suffix(".group").exists() else set()
    for pid in survivors(token):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            groups.add(int(stat[stat.rindex(")") + 2:].split()[2]))
        except (OSError, ValueError):
            pass
    for group in groups - {os.getpgrp(), 0, 1}:
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            try:
                os.killpg(group, sig)
            except OSError:
                pass


def _hop(beats: str) -> None:
    Path(beats).with_suffix(".group").write_text(str(os.getpgrp()))  # for `_kill`
    fd = os.open(beats, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    while True:
        os.write(fd, b".")
        time.sleep(0.002)
        if os.fork():
            os._exit(0)


if __name__ == "__main__" and sys.argv[1:2] == ["hop"]:
    _hop(sys.argv[3])
