"""`ParsePool`: pages parsed ahead on N threads, each parse used once, none done twice."""

from __future__ import annotations

import contextlib
import os
import shlex
import sys
import textwrap
from pathlib import Path

from tablebench.cases import load_case_set
from tablebench.core.resources import PER_CPU, WORKER_MEMORY, WorkerCap, available_memory
from tablebench.evaluate.page import evaluate_page
from tablebench.parse.prefetch import ParsePool
from tests.ci_cases import case_set, write_pages

# Logs "start"/"end" per page with a timestamp, sleeping in between: overlaps are measurable.
SLOW_PARSER = textwrap.dedent("""\
    import pathlib, sys, time, fcntl
    pdf, pages, logs = map(pathlib.Path, sys.argv[1:4])
    def log(what):
        with open(logs / "events.log", "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            handle.write(f"{time.monotonic()} {what} {pdf.stem}\\n")
    log("start")
    time.sleep(0.6)
    log("end")
    print((pages / (pdf.stem + ".md")).read_text(encoding="utf-8"))
""")


def max_overlap(events: list[str]) -> int:
    now = best = 0
    for line in sorted(events, key=lambda ln: float(ln.split()[0])):
        now += 1 if line.split()[1] == "start" else -1
        best = max(best, now)
    return best


def test_prefetched_pages_run_n_at_a_time_and_each_is_parsed_once(tmp_path: Path):
    cases = case_set(tmp_path / "cases", 6)
    pages = write_pages(tmp_path / "exact", cases)
    script, logs = tmp_path / "slow_parser.py", tmp_path / "logs"
    script.write_text(SLOW_PARSER)
    logs.mkdir()
    spec = f"command:{shlex.quote(sys.executable)} {script} {{pdf}} {pages} {logs}"
    loaded = [p for p in load_case_set(cases).pages if p.tables]
    pool = ParsePool(3)
    try:
        queued = pool.prefetch([(spec, p.pdf, 0) for p in loaded], tmp_path / "cache", 60.0)
        assert queued == 6 and pool.prefetch([(spec, loaded[0].pdf, 0)], tmp_path / "cache", 60.0) == 0
        results = [evaluate_page(p, spec, ["teds"], cache_dir=tmp_path / "cache", timeout=60.0, pool=pool.view(0))
                   for p in loaded]
        assert pool.prefetch([(spec, p.pdf, 0) for p in loaded], tmp_path / "cache", 60.0) == 0, \
            "a page already handed out is not parsed again"
    finally:
        pool.close()
    events = (logs / "events.log").read_text().splitlines()
    assert sorted(ln.split()[2] for ln in events if " start " in ln) == [f"{i:03d}" for i in range(1, 7)], \
        "each page parsed once"
    assert max_overlap(events) == 3, "three pages in flight at a time"
    assert all(r.outcome == "ok" and r.scores["teds"] == 1.0 for page in results for r in page)


def test_without_look_ahead_pages_are_parsed_one_by_one(tmp_path: Path):
    cases = case_set(tmp_path / "cases", 3)
    pages = write_pages(tmp_path / "exact", cases)
    script, logs = tmp_path / "slow_parser.py", tmp_path / "logs"
    script.write_text(SLOW_PARSER)
    logs.mkdir()
    spec = f"command:{shlex.quote(sys.executable)} {script} {{pdf}} {pages} {logs}"
    pool = ParsePool(1)
    try:
        for page in load_case_set(cases).pages:
            evaluate_page(page, spec, ["teds"], cache_dir=tmp_path / "cache", timeout=60.0, pool=pool.view(0))
    finally:
        pool.close()
    assert max_overlap((logs / "events.log").read_text().splitlines()) == 1


# -- the cap on parser workers ---------------------------------------------------------------------
FAST_PARSER = ("import pathlib, sys\n"
               "print((pathlib.Path(sys.argv[2]) / (pathlib.Path(sys.argv[1]).stem + '.md')).read_text())\n")


def children() -> int:
    """Live child processes of this process (parser workers), read from /proc."""
    me, count = str(os.getpid()), 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            count += fields[1] == me and fields[0] != "Z"
    return count


def test_worker_cap_is_cores_and_memory_and_says_why(tmp_path: Path):
    assert WorkerCap(cpus=2, memory=64 * 2**30).of(48) == 2 * PER_CPU, "cores bound a big machine's 48"
    assert WorkerCap(cpus=64, memory=3 * WORKER_MEMORY).of(48) == 3, "memory bounds a small one"
    assert WorkerCap(cpus=1, memory=0).of(8) == 1 and WorkerCap(cpus=1, memory=None).of(2) == 2
    assert WorkerCap(cpus=8, memory=2 * WORKER_MEMORY).local == 2 and WorkerCap(cpus=2, memory=None).local == 2
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       16000000 kB\nMemAvailable:    2048 kB\n")
    assert available_memory(meminfo) == 2048 * 1024 and available_memory(tmp_path / "absent") is None
    pool = ParsePool(48, cap=WorkerCap(cpus=2, memory=64 * 2**30))
    assert pool.concurrency == 8 and pool.notes == [
        "tablebench: --parse-concurrency=48 capped to 8 (2 usable CPUs x 4, 64.0 GB available at 300 MB per worker)"]
    assert ParsePool(8, cap=WorkerCap(cpus=2, memory=64 * 2**30)).notes == []


def test_repetitions_keep_no_more_live_workers_than_the_cap(tmp_path: Path):
    cases = case_set(tmp_path / "cases", 3)
    pages = write_pages(tmp_path / "exact", cases)
    script = tmp_path / "fast_parser.py"
    script.write_text(FAST_PARSER)
    spec = f"command:{shlex.quote(sys.executable)} {script} {{pdf}} {pages}"
    pool = ParsePool(1, cap=WorkerCap(cpus=1, memory=64 * 2**30))  # keeps one live worker per parser
    before = children()
    try:
        most = 0
        for page in load_case_set(cases).pages:
            for rep in range(4):
                result = pool.view(rep).get(spec, None, 60.0).run(page.pdf)
                assert result.outcome == "ok", result.message
                most = max(most, children() - before)
    finally:
        pool.close()
    assert most == 1, f"{most} parser workers alive at once for --repeat=4 on one core (was 4)"
