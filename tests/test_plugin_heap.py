"""A benchmark process keeps the garbage collector off its long-lived heap (`harness.plugin.heap`):
by the time the first case is scored, start-up and collection are in the permanent generation."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.ci_cases import case_set, write_pages
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]

CONFTEST = textwrap.dedent("""\
    import gc


    def pytest_tablebench_result(item, result):
        result.extra["frozen"] = gc.get_freeze_count()
""")


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_the_heap_is_frozen_before_the_cases_are_scored(pytester: pytest.Pytester, tmp_path: Path,
                                                         workers: list[str]) -> None:
    cases = case_set(tmp_path / "mini", 2)
    exact = write_pages(tmp_path / "exact", cases)
    pytester.makeconftest(CONFTEST)
    done = pytester.runpytest_subprocess(*PLUGIN, f"--cases={cases}", f"--parser=mine=dir:{exact}", "--metrics=teds",
                                         "-p", "no:cacheprovider", f"--parse-cache={tmp_path / 'cache'}",
                                         f"--report-dir={tmp_path / 'report'}", *(workers or ["-p", "no:xdist"]))
    assert done.ret == 0, done.stdout.str()
    results = json.loads((tmp_path / "report" / "results.json").read_text())["results"]
    # a bare interpreter with pytest and numpy tracks tens of thousands of objects: all of them frozen
    assert results and all(r["extra"]["frozen"] > 10_000 for r in results), [r["extra"] for r in results]
