"""The failed cases grouped by cause at the end of a run, whatever order xdist finished them in:
one line per cause with its pages and cases, and the id of its first case, whole and shell-quoted."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from tests.test_plugin import IDS, args, bench, warm_metrics  # noqa: F401 - fixtures

pytest_plugins = ["pytester"]
LABEL = "a-parser-label-long-enough-that-no-summary-line-fits-in-eighty-columns"
HEAD = "tablebench failures by cause (5 of 5 cases, 2 causes;"


def _section(out: str, head: str = HEAD) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if head in line) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("=")), len(lines))
    return lines[start:end]


@pytest.mark.parametrize("mode", [["-p", "no:xdist"], ["-n", "2"]], ids=["serial", "xdist"])
def test_failed_cases_are_grouped_by_cause_each_with_a_pasteable_id(pytester: pytest.Pytester, bench: Path,
                                                                     tmp_path: Path, mode: list[str]) -> None:
    (tmp_path / "none").mkdir()
    (tmp_path / "none" / "002.md").write_text(" \n", encoding="utf-8")  # an output, empty: a folder with none is refused
    result = pytester.runpytest_subprocess(*args(bench, tmp_path / "cache", f"--parser={LABEL}=dir:{tmp_path / 'none'}",
                                                 f"--report-dir={tmp_path / 'out'}", *mode))
    assert result.ret == 1, result.stderr.str()
    section = _section(result.stdout.str())
    causes = [line for line in section if line.startswith(f"{LABEL}: ")]
    assert len(causes) == 2, section
    assert causes[0] == f"{LABEL}: empty: no 074{{.md|.html|.txt|.tex}} in {tmp_path / 'none'} on 1/2 pages (3 cases)"
    assert causes[1] == f"{LABEL}: empty: 002.md is empty on 1/2 pages (2 cases)", "numbers all its cases share stay"
    examples = [shlex.split(line.split("e.g. ", 1)[1])[0] for line in section if line.startswith("  e.g. ")]
    assert examples == [f"{IDS[2]}[{LABEL}]", f"{IDS[0]}[{LABEL}]"], "the first case of each, in page order"
    # an id, pasted back, runs exactly that case
    again = pytester.runpytest_subprocess(*args(bench, tmp_path / "cache", f"--parser={LABEL}=dir:{tmp_path / 'none'}",
                                                f"--report-dir={tmp_path / 'again'}", "-p", "no:xdist", examples[0]))
    one = _section(again.stdout.str(), "tablebench failures by cause (1 of 1 cases, 1 cause;")
    assert again.ret == 1 and one[0].endswith("on 1/1 page (1 case)") and one[1] == f"  e.g. {shlex.quote(examples[0])}"


NOTE = '''
def pytest_tablebench_result(item, result):
    if result.outcome == "ok":
        result.message = "found as 2 fragments"  # as the locator notes a table the parser split
'''


def test_a_failure_line_leads_with_the_headline_metric_and_keeps_the_locator_s_note(pytester: pytest.Pytester,
                                                                                   tmp_path: Path) -> None:
    """Floors named teds first: the causes and pytest's short summary still lead with the semantic
    score (the leaderboard's ranking metric); each case's verdict keeps what the locator noticed
    (a note about one table: not part of its cause)."""
    from tests.ci_cases import case_set, write_pages
    from tests.test_regressions import corrupt

    cases = case_set(tmp_path / "mini", 2)
    bad = write_pages(tmp_path / "bad", cases, corrupt)
    pytester.makeconftest(NOTE)
    result = pytester.runpytest_subprocess(*args(cases, tmp_path / "cache", f"--parser=mine=dir:{bad}",
                                                 "--min-score=teds=0.99", "--min-score=semantic=9.9",
                                                 f"--report-dir={tmp_path / 'out'}", "-p", "no:xdist"))
    assert result.ret == 1, result.stdout.str()
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if "tablebench failures by cause (" in line) + 1
    causes = [line for line in lines[start:] if line.startswith("mine: ")]
    assert causes and all(line.startswith("mine: semantic … < min 9.90; teds … < min 0.99") for line in causes), causes
    assert sum(int(line.rsplit("(", 1)[1].split()[0]) for line in causes) == 3  # the tables `corrupt` spoils
    results = json.loads((tmp_path / "out" / "results.json").read_text())["results"]
    reasons = [r["verdict"]["reasons"] for r in results if r["verdict"]["status"] == "fail"]
    assert len(reasons) == 3 and all("locator: found as 2 fragments" in x for x in reasons), reasons
    summary = [line for line in lines if line.startswith("FAILED mini/")]  # -rf given: pytest's own lines too
    assert summary and "Failed: semantic " in summary[0], summary  # pytest cuts the rest at the terminal's width
    assert all("teds" not in line.split("semantic", 1)[0] for line in summary), summary
