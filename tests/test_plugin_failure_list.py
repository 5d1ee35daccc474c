"""The failed cases listed once more by id, whole and sorted, whatever order xdist finished them in."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tablebench.plugin.summary import natural_key
from tests.test_plugin import IDS, args, bench, warm_metrics  # noqa: F401 - fixtures

pytest_plugins = ["pytester"]
LABEL = "a-parser-label-long-enough-that-no-summary-line-fits-in-eighty-columns"
HEAD = "tablebench failures (5, by id; paste an id after pytest to run that case)"


def _listed(out: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if HEAD in line) + 1
    return lines[start:start + 5]


@pytest.mark.parametrize("mode", [["-p", "no:xdist"], ["-n", "2"]], ids=["serial", "xdist"])
def test_failed_cases_are_listed_whole_sorted_and_pasteable(pytester: pytest.Pytester, bench: Path, tmp_path: Path,
                                                            mode: list[str]) -> None:
    (tmp_path / "none").mkdir()
    (tmp_path / "none" / "002.md").write_text(" \n", encoding="utf-8")  # an output, empty: a folder with none is refused
    result = pytester.runpytest_subprocess(*args(bench, tmp_path / "cache", f"--parser={LABEL}=dir:{tmp_path / 'none'}",
                                                 f"--report-dir={tmp_path / 'out'}", *mode))
    assert result.ret == 1, result.stderr.str()
    listed = _listed(result.stdout.str())
    ids = [f"{case}[{LABEL}]" for case in IDS]
    assert [shlex.split(line)[0] for line in listed] == ids
    assert all(line.startswith(shlex.quote(i) + "  empty: ") and len(line) > 80 for line, i in zip(listed, ids))
    # a listed id, pasted back, runs exactly that case
    again = pytester.runpytest_subprocess(*args(bench, tmp_path / "cache", f"--parser={LABEL}=dir:{tmp_path / 'none'}",
                                                f"--report-dir={tmp_path / 'again'}", "-p", "no:xdist",
                                                *shlex.split(listed[3])[:1]))
    assert again.ret == 1 and _listed_one(again.stdout.str()) == listed[3]


def _listed_one(out: str) -> str:
    lines = out.splitlines()
    return lines[next(i for i, line in enumerate(lines) if "tablebench failures (1," in line) + 1]


def test_ids_sort_with_numbers_as_numbers() -> None:
    ids = ["s/p10::t0[a]", "s/p2::t10[a]", "s/p2::t9[a]", "s/p2::t9[b]"]
    assert sorted(ids, key=natural_key) == ["s/p2::t9[a]", "s/p2::t9[b]", "s/p2::t10[a]", "s/p10::t0[a]"]


NOTE = '''
def pytest_tablebench_result(item, result):
    if result.outcome == "ok":
        result.message = "found as 2 fragments"  # as the locator notes a table the parser split
'''


def test_a_failure_line_leads_with_the_headline_metric_and_keeps_the_locator_s_note(pytester: pytest.Pytester,
                                                                                   tmp_path: Path) -> None:
    """Floors named teds first: the failed list and pytest's short summary still lead with the
    semantic score (the leaderboard's ranking metric), and keep what the locator noticed."""
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
    start = next(i for i, line in enumerate(lines) if "tablebench failures (" in line) + 1
    listed = [line for line in lines[start:] if line.startswith("'mini/")]
    assert len(listed) == 3, lines[start:]  # the tables `corrupt` spoils on these pages
    for line in listed:
        reasons = line.split("  ", 1)[1]
        assert reasons.startswith("semantic ") and "; teds " in reasons, line
        assert "; locator: found as 2 fragments" in reasons, line
    summary = [line for line in lines if line.startswith("FAILED mini/")]
    assert summary and "Failed: semantic " in summary[0], summary  # pytest cuts the rest at the terminal's width
    assert all("teds" not in line.split("semantic", 1)[0] for line in summary), summary
