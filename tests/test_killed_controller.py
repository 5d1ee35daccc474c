"""kill -9 of a benchmark run while its parser worker starts leaves no scratch folder (issue 46, finding 9).

A worker's scratch folder (its TMPDIR) used to be created by the run before the worker process
existed; a run killed while the worker started (importing, in `prepare()`) left it behind: the
worker found the run gone when it first spoke to it and died with a traceback, and nothing
removed the folder. A real pytest run is the controller here, killed three times at different
moments of its worker's start.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.ci_cases import case_set
from tests.test_plugin import PLUGIN

REPO = Path(__file__).resolve().parents[1]
SLOW_START = '''
import time

class SlowStart:
    """A parser whose prepare() takes a while: a run killed meanwhile is gone when it is ready."""
    name, version = "slow-start", "1"

    def prepare(self):
        time.sleep(1.5)

    def parse(self, pdf):
        return "| a |"
'''


def _scratch(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def test_a_run_killed_while_its_worker_starts_leaves_no_scratch_folder(tmp_path: Path) -> None:
    cases = case_set(tmp_path / "cases" / "mini", 1)
    (tmp_path / "slow_start.py").write_text(SLOW_START, encoding="utf-8")
    for attempt, delay in enumerate((0.0, 0.3, 0.9)):  # the worker starting Python, importing, in prepare()
        temp = tmp_path / f"tmp{attempt}"
        temp.mkdir()
        env = {**os.environ, "TMPDIR": str(temp), "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO)])}
        run = subprocess.Popen(
            [sys.executable, "-m", "pytest", *PLUGIN, f"--cases={cases}", "--parser=slow=slow_start:SlowStart",
             "--metrics=teds", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:randomly",
             f"--parse-cache={tmp_path / 'cache'}", f"--report-dir={tmp_path / f'r{attempt}'}", "-q"],
            cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            started = _wait_for(lambda temp=temp, run=run: run.poll() is not None or any(
                n.startswith("tablebench-worker-") for n in _scratch(temp)), 120)  # a hang guard: it starts its worker in seconds
            assert started and run.poll() is None, "the run never started a worker"
            time.sleep(delay)
        finally:
            run.kill()
            run.wait()
        _wait_for(lambda temp=temp: not _scratch(temp), 20)  # the worker notices the run is gone within a second or two
        assert _scratch(temp) == [], f"kill {attempt + 1} ({delay} s after the worker's folder appeared)"


def _wait_for(done, seconds: float) -> bool:
    """Poll `done()` until it holds or `seconds` passed (a hang guard, not a measurement)."""
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True
