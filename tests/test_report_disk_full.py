"""A report folder whose disk fills up mid-run: one line, and results.jsonl keeps whole lines.

The full disk is real to the process that writes: the run's controller gets a file-size limit
(RLIMIT_FSIZE, SIGXFSZ ignored), so a write past it is cut short and then fails, as on a full disk.
Before, the run ended in an INTERNALERROR traceback with half a JSON line at the end of results.jsonl.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.ci_cases import case_set, write_pages
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]

DISK_FULL = '''
import resource, signal

def pytest_configure(config):
    if not hasattr(config, "workerinput"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (BYTES, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
'''


def test_a_full_disk_mid_run_is_one_line_and_keeps_whole_results(pytester: pytest.Pytester, tmp_path: Path) -> None:
    cases = case_set(tmp_path / "cases" / "mini", 4)
    out = write_pages(tmp_path / "exact", cases)
    pytester.makepyfile(diskfull=DISK_FULL.replace("BYTES", str(40_000)))
    report = tmp_path / "report"
    run = pytester.runpytest_subprocess(*PLUGIN, "-p", "diskfull", f"--cases={cases}", f"--parser=mine=dir:{out}",
                                        "--metrics=teds", "-p", "no:cacheprovider", f"--parse-cache={tmp_path / 'cache'}",
                                        f"--report-dir={report}", timeout=120)
    text = run.stdout.str() + run.stderr.str()
    assert "INTERNALERROR" not in text, text[-3000:]
    assert f"tablebench: results not written to {report / 'results.jsonl'}: File too large (the run stops; the " in text
    lines = (report / "results.jsonl").read_bytes().splitlines(keepends=True)
    assert lines and all(line.endswith(b"\n") and json.loads(line) for line in lines)
    assert f"the {len(lines)} results before it are kept whole" in text
    assert "INCOMPLETE" in text and "(stopped: results not written to " in text
