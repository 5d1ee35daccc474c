"""A pytest plugin the scale benchmark loads into its runs (`-p tests.benchmarks.rss_probe`):
each process (controller and xdist workers) appends one JSON line to $TABLEBENCH_SCALE_PROBE
at exit with its peak RSS, and the controller its peak RSS before the session's end and the
seconds that end took (report files, baseline; under xdist also the workers' exit). Nothing is written
when the variable is unset.
"""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Generator

import pytest

_FINISH: dict[str, float] = {}


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> Generator[None, None, None]:
    _FINISH["loop_peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    start = time.perf_counter()
    yield
    _FINISH["seconds"] = time.perf_counter() - start


def pytest_unconfigure(config: pytest.Config) -> None:
    path = os.environ.get("TABLEBENCH_SCALE_PROBE")
    if not path:
        return
    worker = getattr(config, "workerinput", {}).get("workerid")
    line = {"role": worker or "controller", "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "finish_s": None if worker else _FINISH.get("seconds"),
            "loop_peak_mb": None if worker else _FINISH.get("loop_peak_mb")}
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")
