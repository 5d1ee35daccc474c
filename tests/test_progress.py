"""A benchmark run says how far it got in pages: one line redrawn in place on a terminal, a line
at each tenth of the pages anywhere else (a CI log, a pipe, no pytest terminal at all).

The model is checked on a clock of its own; the runs are real pytest runs (subprocesses) of the
repo's raising parser (tests/raising_parser.py) on the whole committed synth-v1 (100 pages, 441
tables: every page fails to parse, quickly), with and without xdist, and one run in a
pseudo-terminal.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tablebench.evaluate.progress import PageProgress, duration
from tests import raising_parser
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]
LINE = re.compile(r"^tablebench: pages parsed (\d+)/(\d+) \((\d+) %\)")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_log_gets_a_line_at_each_tenth_of_the_pages_the_last_with_the_time_taken() -> None:
    clock = Clock()
    progress = PageProgress([("p", f"{i:03d}") for i in range(1, 101)], live=False, clock=clock)
    lines = []
    for i in range(1, 101):
        clock.now += 2.0
        line = progress.add(("p", f"{i:03d}"), failed=i % 4 == 0)
        assert progress.add(("p", f"{i:03d}")) is None, "a page counts once, whatever its other items say"
        if line is not None:
            lines.append(line)
    assert lines[0] == "pages parsed 10/100 (10 %), 2 failed to parse, ETA 3 m 00 s"
    assert [LINE.match("tablebench: " + line)[1] for line in lines] == [str(n) for n in range(10, 101, 10)]
    assert lines[-1] == "pages parsed 100/100 (100 %), 25 failed to parse, in 3 m 20 s" and progress.finished
    assert progress.add(("q", "001")) is None, "a page not of the run says nothing"


def test_a_terminal_gets_every_page_and_a_run_of_few_pages_a_line_per_tenth_crossed() -> None:
    clock = Clock()
    live = PageProgress(["a", "b", "c"], live=True, workers=2, clock=clock)
    assert live.add("a") == "pages parsed 1/3 (33 %), 2 workers, ETA < 1 s"
    clock.now = 100.0
    assert live.add("b") == "pages parsed 2/3 (66 %), 2 workers, ETA 50 s"
    assert live.add("c") == "pages parsed 3/3 (100 %), 2 workers, in 1 m 40 s"
    few = PageProgress(["a", "b", "c"], live=False, workers=1)
    assert [few.add(p) is not None for p in "abc"] == [True, True, True]
    many = PageProgress(range(1000), live=False)
    assert sum(many.add(p) is not None for p in range(1000)) == 10
    assert [duration(s) for s in (0.2, 40, 100, 3599.6, 7500)] == ["< 1 s", "40 s", "1 m 40 s", "1 h 00 m", "2 h 05 m"]


def _run(pytester: pytest.Pytester, tmp_path: Path, *more: str) -> pytest.RunResult:
    pytester.makepyfile(raising_parser=Path(raising_parser.__file__).read_text(encoding="utf-8"))
    return pytester.runpytest_subprocess(*PLUGIN, "--parser=raises=raising_parser:Raises",
                                         f"--parse-cache={tmp_path / 'cache'}", f"--report-dir={tmp_path / 'report'}",
                                         "-p", "no:cacheprovider", *more, timeout=600)


def _progress(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("tablebench: pages parsed")]


def test_a_log_says_each_tenth_of_the_pages_and_no_letters_without_xdist(pytester: pytest.Pytester,
                                                                          tmp_path: Path) -> None:
    run = _run(pytester, tmp_path, "-p", "no:xdist", "-q", f"--junitxml={tmp_path / 'junit.xml'}")
    assert run.ret == pytest.ExitCode.TESTS_FAILED, run.stdout.str()[-3000:]
    said = _progress(run.stdout.lines)
    assert [LINE.match(line).groups() for line in said] == [(str(n), "100", str(n)) for n in range(10, 101, 10)]
    assert all(f"{n} failed to parse" in line for n, line in zip(range(10, 101, 10), said, strict=True))
    assert "ETA " in said[0] and said[-1].endswith(" s") and " in " in said[-1]
    assert "\r" not in run.stdout.str() + run.stderr.str(), "a log is never rewritten in place"
    assert not any(re.fullmatch(r"[.FxsE]+( +\[ *\d+%\])?", line) for line in run.stdout.lines), "no line of letters"
    assert run.stdout.lines[-1].startswith("441 failed"), "pytest's count stays (-q)"
    cases = list(ET.parse(tmp_path / "junit.xml").iter("testcase"))
    assert len(cases) == 441 and all(case.find("failure") is not None for case in cases), "junit as before"


def test_an_xdist_controller_says_the_workers_pages_and_without_a_terminal_on_stderr(pytester: pytest.Pytester,
                                                                                   tmp_path: Path) -> None:
    run = _run(pytester, tmp_path, "-n", "2", "-p", "no:terminal")
    assert run.ret == pytest.ExitCode.TESTS_FAILED, run.stderr.str()[-3000:]
    said = _progress(run.stderr.lines)
    assert [LINE.match(line)[1] for line in said] == [str(n) for n in range(10, 101, 10)], run.stderr.str()
    assert all(", 2 workers, " in line for line in said)
    assert "\r" not in run.stdout.str() + run.stderr.str()
    data = json.loads((tmp_path / "report" / "results.json").read_text(encoding="utf-8"))
    assert len(data["results"]) == 441


def test_a_terminal_gets_one_line_rewritten_in_place(pytester: pytest.Pytester, tmp_path: Path) -> None:
    """In a pseudo-terminal: every state of the line is on one line, each after a carriage return."""
    pytester.makepyfile(raising_parser=Path(raising_parser.__file__).read_text(encoding="utf-8"))
    command = [sys.executable, "-m", "pytest", *PLUGIN, "--parser=raises=raising_parser:Raises", "--shard=1/10",
               f"--parse-cache={tmp_path / 'cache'}", f"--report-dir={tmp_path / 'report'}", "-p", "no:cacheprovider",
               "-p", "no:xdist", "--color=no"]
    main, child = pty.openpty()
    env = {**os.environ, "COLUMNS": "120", "PYTHONPATH": str(pytester.path)}
    proc = subprocess.Popen(command, cwd=pytester.path, stdin=subprocess.DEVNULL, stdout=child, stderr=child, env=env)
    os.close(child)
    out, deadline = b"", time.monotonic() + 600
    while time.monotonic() < deadline:
        if not select.select([main], [], [], 1.0)[0]:
            continue
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    else:
        proc.kill()
    os.close(main)
    assert proc.wait(timeout=600) == pytest.ExitCode.TESTS_FAILED
    text = out.decode("utf-8", "replace").replace("\r\n", "\n")  # the terminal's own line ends
    lines = [line for line in text.split("\n") if "pages parsed" in line]
    assert len(lines) == 1, text[-3000:]
    states = [s.strip() for s in lines[0].split("\r") if s.strip()]
    pages = int(LINE.match(states[-1])[2])
    assert [int(LINE.match(s)[1]) for s in states] == list(range(1, pages + 1)), "every page, in place"
    assert " in " in states[-1] and all("ETA " in s for s in states[:-1])
