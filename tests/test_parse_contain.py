"""No process a parser starts outlives the run (issue 46, finding 4), with either pen
(`tablebench.parse.pen`): the cgroup, and the mark that `TABLEBENCH_CONTAIN=sweep` falls back to.

The escapes (tests/escaping_parsers.py): (a) a parser that double-forks `env -i setsid sleep`
and then SIGKILLs the keeper that adopted it (the sleep went to init: it survived every run);
(b) a `command:` that starts a pid-hopper (fork, the parent exits, every 2 ms) in a session of
its own with a cleared environment (the keeper's one pass over its children missed it, or the
kill stopped the keeper and the hopper's zombies piled up under it for minutes). Each escapee
holds a token of its test in its argv; the test polls /proc for it for 10 s.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tablebench.parse.pen import CONTAIN_ENV, Pen, own_cgroup
from tablebench.parse.runner import ParseRunner
from tests.ci_cases import case_set
from tests.escaping_parsers import KillsKeeper, beating, hopper_command, none_survive
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]
REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the pens are Linux's")


def _cgroup_pens() -> bool:
    pen = Pen.open() if os.environ.get(CONTAIN_ENV) != "sweep" else Pen()
    if pen.cgroup is None:
        return False
    pen.cgroup.rmdir()
    return True


PENS = [pytest.param("cgroup", marks=pytest.mark.skipif(not _cgroup_pens(), reason="no cgroup v2 this process may write")),
        "sweep"]


@pytest.fixture(params=PENS)
def pen(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The pen the runs of the test use (the environment reaches the benchmark's subprocesses)."""
    if request.param == "sweep":
        monkeypatch.setenv(CONTAIN_ENV, "sweep")
    else:
        monkeypatch.delenv(CONTAIN_ENV, raising=False)
    return request.param


def _pdf(tmp_path: Path) -> Path:
    path = tmp_path / "a.pdf"
    path.write_bytes(b"%PDF-1.4 a")  # the escaping parsers never read it
    return path


def _poll(check, seconds: float = 10.0) -> bool:
    """`check()` came true within `seconds` (a hang guard, not a timed assert)."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_no_process_a_parser_started_outlives_a_benchmark_run(pen: str, pytester: pytest.Pytester,
                                                              monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Both escapes, on every page of two committed pages, through pytest --parser."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    seconds, token = f"299.{secrets.randbelow(10**9)}", f"hop{secrets.token_hex(6)}"
    beats = tmp_path / f"{token}.beats"
    cases = case_set(tmp_path / "cases", 2)
    run = pytester.runpytest_subprocess(
        *PLUGIN, f"--cases={cases}", f"--parse-cache={tmp_path / 'cache'}", "--metrics=teds", "-p", "no:cacheprovider",
        f"--parser=keeper=tests.escaping_parsers:KillsKeeper?seconds={seconds}",
        f"--parser=hop={hopper_command(token, beats)}", timeout=600)
    assert run.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), run.stdout.str()[-2000:]
    assert beats.exists(), "the hopper never ran"
    assert none_survive(seconds) == [], f"the double-forked sleep outlived the run ({pen})"
    assert none_survive(token, beats) == [], f"the pid-hopper outlived the run ({pen})"


def test_a_pid_hopper_in_a_session_of_its_own_ends_with_its_worker_every_time(pen: str, tmp_path: Path) -> None:
    pdf = _pdf(tmp_path)
    for attempt in range(5):
        token = f"hop{secrets.token_hex(6)}"
        beats = tmp_path / f"{token}.beats"
        with ParseRunner(hopper_command(token, beats), timeout=60) as runner:
            assert runner.run(pdf).outcome == "ok"
            assert _poll(lambda: beating(beats, 0.1)), "the hopper never ran"
        assert none_survive(token, beats) == [], f"attempt {attempt + 1} of 5: the hopper outlived its worker ({pen})"


def test_what_a_parser_orphaned_ends_also_when_it_killed_the_keeper(pen: str, tmp_path: Path) -> None:
    pdf = _pdf(tmp_path)
    for attempt in range(3):
        seconds = f"299.{secrets.randbelow(10**9)}"
        with ParseRunner(KillsKeeper(seconds), timeout=60) as runner:
            assert runner.run(pdf).outcome in ("ok", "error")
        assert none_survive(seconds) == [], f"attempt {attempt + 1} of 3: the sleep outlived the run ({pen})"


def test_a_killed_run_leaves_no_process_and_no_scratch_folder(pen: str, tmp_path: Path) -> None:
    """The run is SIGKILLed while its worker waits, its hopper running: the keeper ends the pen."""
    systmp = tmp_path / "systmp"
    systmp.mkdir()
    token = f"hop{secrets.token_hex(6)}"
    beats = tmp_path / f"{token}.beats"
    code = ("import sys; from tablebench.parse.runner import ParseRunner\n"
            "runner = ParseRunner(sys.argv[2], timeout=60)\n"
            "assert runner.run(sys.argv[1]).outcome == 'ok'\n"
            "print('parsed', flush=True); sys.stdin.read()")
    run = subprocess.Popen([sys.executable, "-c", code, str(_pdf(tmp_path)), hopper_command(token, beats)], cwd=REPO,
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                           env=dict(os.environ, TMPDIR=str(systmp)))
    try:
        assert run.stdout is not None and run.stdout.readline() == "parsed\n"
        assert _poll(lambda: beating(beats, 0.1)), "the hopper never ran"
    finally:
        run.send_signal(signal.SIGKILL)
        run.wait()
    assert none_survive(token, beats) == [], f"the hopper outlived the killed run ({pen})"
    assert _poll(lambda: not list(systmp.iterdir())), [p.name for p in systmp.iterdir()]


def test_a_cgroup_pen_holds_the_worker_and_is_removed_after_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CONTAIN_ENV, raising=False)
    if not _cgroup_pens():
        pytest.skip("no cgroup v2 this process may write")
    with ParseRunner("command:cat /proc/self/cgroup {pdf}", timeout=60) as runner:
        text = runner.run(_pdf(tmp_path)).text
    assert [line for line in text.splitlines() if line.startswith("0::/") and f"/tablebench-{os.getpid()}-" in line]
    parent = own_cgroup()
    assert parent is not None and not [p.name for p in parent.iterdir() if p.name.startswith(f"tablebench-{os.getpid()}-")]
