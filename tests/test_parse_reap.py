"""A parser's processes and scratch folders end with it: what left its session, and after a crashed run."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tablebench.parse.runner import parse_pdf

REPO = Path(__file__).resolve().parents[1]
needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")


def _pdf(tmp_path: Path) -> Path:
    path = tmp_path / "a.pdf"
    path.write_bytes(b"%PDF-1.4 a")  # the command parsers never read it
    return path


def _gone(pid: int, seconds: float) -> bool:
    deadline = time.time() + seconds
    while time.time() < deadline:
        status = Path(f"/proc/{pid}/status")
        if not status.exists() or "State:\tZ" in status.read_text():
            return True
        time.sleep(0.1)
    return False


def _assert_ended(pid: int, what: str) -> None:
    """`pid` ends within 5 s (`what` says what survived, with `{pid}`); killed afterwards either way."""
    try:
        assert _gone(pid, 5), what.format(pid=pid)
    finally:
        if not _gone(pid, 0.1):
            os.kill(pid, 9)


@needs_proc
def test_a_timeout_kills_a_grandchild_that_left_the_session_with_setsid(tmp_path: Path) -> None:
    pidfile = tmp_path / "daemon.pid"
    spec = f"command:sh -c 'setsid sleep 1000 & echo $! > {pidfile}; sleep 600' {{pdf}}"
    result = parse_pdf(spec, _pdf(tmp_path), timeout=1.5)
    assert result.outcome == "timeout"
    _assert_ended(int(pidfile.read_text()), "setsid grandchild {pid} survived the timeout kill")


@needs_proc
def test_an_orphaned_setsid_grandchild_is_killed_too(tmp_path: Path) -> None:
    """Its parent exits before the timeout (it is re-parented to init): the token in its environment finds it."""
    pidfile = tmp_path / "daemon.pid"
    spec = f"command:sh -c '(setsid sleep 1000 & echo $! > {pidfile}); exec sleep 600' {{pdf}}"
    assert parse_pdf(spec, _pdf(tmp_path), timeout=1.5).outcome == "timeout"
    _assert_ended(int(pidfile.read_text()), "orphaned setsid grandchild {pid} survived the timeout kill")


def test_a_run_that_crashes_with_live_workers_leaves_no_scratch_folder(tmp_path: Path) -> None:
    """The run raises at its end without stopping its parser workers (a crash at session end)."""
    systmp = tmp_path / "systmp"
    systmp.mkdir()
    code = ("import sys; from tablebench.parse.runner import ParseRunner\n"
            "runner = ParseRunner(\"command:sh -c 'echo x' {pdf}\", timeout=30)\n"
            "assert runner.run(sys.argv[1]).outcome == 'ok' and runner.idle_workers() == 1\n"
            "raise RuntimeError('crash at the end of the run')")
    proc = subprocess.run([sys.executable, "-c", code, str(_pdf(tmp_path))], cwd=REPO, capture_output=True,
                          text=True, env=dict(os.environ, TMPDIR=str(systmp)), timeout=120)
    assert "crash at the end of the run" in proc.stderr and proc.returncode == 1
    deadline = time.time() + 5
    while list(systmp.iterdir()) and time.time() < deadline:
        time.sleep(0.1)
    assert [p.name for p in systmp.iterdir()] == []


@needs_proc
@pytest.mark.parametrize("ending", ["timeout", "exit"])
def test_a_double_forked_grandchild_without_our_environment_ends_with_the_run(tmp_path: Path, ending: str) -> None:
    """`(setsid env -i sleep 300 &)`: a new session, no token, its parent gone (re-parented):
    it survived the run, both when the command timed out and when it exited at once."""
    pidfile = tmp_path / "daemon.pid"
    rest = "exec sleep 600" if ending == "timeout" else "echo done"
    spec = f"command:sh -c '(setsid env -i sleep 300 >/dev/null 2>&1 & echo $! > {pidfile}); {rest}' {{pdf}}"
    result = parse_pdf(spec, _pdf(tmp_path), timeout=2.0)
    assert result.outcome == ("timeout" if ending == "timeout" else "ok")
    _assert_ended(int(pidfile.read_text()), "double-forked env -i grandchild {pid} survived the run")
