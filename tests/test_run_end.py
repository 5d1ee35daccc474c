"""The end of a run cannot lose the run: absurd sidecar numbers, files that cannot be written
and a parse cache that cannot be kept each cost one line (and a non-zero exit), never the
results that were computed or the files written before the failure."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from tablebench.core.results import ItemResult
from tests.ci_cases import case_set, write_pages
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]


def results(seconds: float = 0.0) -> list[ItemResult]:
    return [ItemResult(parser="p", case_set="s", page=f"p{i:03d}", index=0, group="simple", outcome="ok",
                       scores={"teds": 1.0}, parse_seconds=seconds * i) for i in range(1, 3)]


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("mini")
    cases = case_set(root / "cases" / "mini", 2)
    return cases, write_pages(root / "exact", cases)


def bench(pytester: pytest.Pytester, cases: Path, outputs: Path, *more: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(*PLUGIN, "-p", "no:xdist", f"--cases={cases}", f"--parser=mine=dir:{outputs}",
                                         "--metrics=teds", "-p", "no:cacheprovider", *more, timeout=120)


# -- item 4: huge finite numbers -------------------------------------------------------------------
def test_huge_finite_seconds_neither_overflow_the_totals_nor_pass_a_sidecar(tmp_path: Path):
    from tablebench.parse.directory import read_sidecar
    from tablebench.parse.protocol import ParserError
    from tablebench.report.aggregate import boards, exact_sum
    from tablebench.report.write import write_report

    assert exact_sum([1e308, 1.7e308]) == float("inf") and exact_sum([0.1] * 10) == 1.0
    boards(results(0.85e308))  # two pages of 0.85e308 and 1.7e308 seconds: fsum raised OverflowError
    write_report(results(0.85e308), tmp_path / "r")
    assert json.loads((tmp_path / "r" / "results.json").read_text())["results"][1]["parse_seconds"] == 1.7e308
    sidecar = tmp_path / "001.meta.json"
    sidecar.write_text('{"seconds": 1e308}')
    with pytest.raises(ParserError, match="at most"):
        read_sidecar(sidecar)


def test_a_run_with_absurd_sidecar_seconds_ends_with_its_results(pytester: pytest.Pytester, mini, tmp_path: Path):
    cases, exact = mini
    outputs = tmp_path / "out"
    outputs.mkdir()
    for i, page in enumerate(sorted(exact.glob("*.md"))):
        (outputs / page.name).write_text(page.read_text())
        (outputs / f"{page.stem}.meta.json").write_text(json.dumps({"seconds": (1e308, 1.7e308)[i % 2]}))
    run = bench(pytester, cases, outputs, f"--report-dir={tmp_path / 'r'}", "--report-only")
    assert (tmp_path / "r" / "results.json").is_file(), run.stdout.str()
    assert "OverflowError" not in run.stdout.str() + run.stderr.str()


# -- item 8: writes that fail ----------------------------------------------------------------------
def test_a_failed_write_keeps_what_was_written_and_the_baseline_comes_last(tmp_path: Path):
    from tablebench.gating.decide import Decisions
    from tablebench.report.finish import FinishPolicy, finish_run

    report = tmp_path / "r"
    (report / "report.html").mkdir(parents=True)  # the last report file cannot replace a folder
    end = finish_run(results(), {}, FinishPolicy(report_dir=report, save_baseline=str(tmp_path / "b.json")), Decisions())
    assert (report / "results.json").is_file() and (report / "leaderboard.md").is_file()
    assert (tmp_path / "b.json").is_file() and set(end.written) == {"json", "summary", "csv", "markdown", "baseline"}
    assert len(end.errors) == 1 and "\n" not in end.error and "results.json" in end.error
    end = finish_run(results(), {}, FinishPolicy(report_dir=tmp_path / "ok",
                                                 save_baseline=str(tmp_path / "b.json" / "x.json")), Decisions())
    assert (tmp_path / "ok" / "results.json").is_file() and end.error.startswith("tablebench baseline not written")


def test_report_only_exits_non_zero_when_the_report_cannot_be_written(pytester: pytest.Pytester, mini,
                                                                      tmp_path: Path):
    cases, exact = mini
    report = tmp_path / "r"
    (report / "report.html").mkdir(parents=True)
    run = bench(pytester, cases, exact, f"--report-dir={report}", "--report-only")
    assert run.ret != 0, run.stdout.str()
    lines = [line for line in run.stderr.lines if "tablebench report not written" in line]
    assert len(lines) == 1 and (report / "results.json").is_file()


def test_an_unwritable_save_baseline_is_refused_before_the_run(pytester: pytest.Pytester, mini, tmp_path: Path):
    cases, exact = mini
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    run = bench(pytester, cases, exact, f"--report-dir={tmp_path / 'r'}", f"--save-baseline={blocker / 'b.json'}")
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    assert "--save-baseline" in run.stderr.str() and "is not a folder" in run.stderr.str()
    assert not (tmp_path / "r").exists()


class InProcess:
    """A cacheable parser answering without a process of its own."""

    name, version, in_process = "inproc", "1", True

    def parse(self, pdf: Path) -> str:
        return "<table><tr><td>a</td></tr></table>"


def test_a_parse_cache_that_cannot_be_written_keeps_the_parse_and_warns_once(tmp_path: Path):
    from tablebench.core.cache import ContentCache
    from tablebench.parse.runner import ParseRunner
    from tests.ci_cases import SYNTH

    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        with ParseRunner(InProcess(), cache_dir=blocker / "cache") as runner:
            first, second = runner.run(SYNTH / "001.pdf"), runner.run(SYNTH / "002.pdf")
        assert ContentCache(blocker / "other").fetch("k1", lambda e: e, lambda: 7) == (7, False)
    assert first.outcome == second.outcome == "ok" and "<td>a</td>" in first.text
    mine = [w for w in said if "cannot be written" in str(w.message)]
    assert len(mine) == 2, [str(w.message) for w in said]  # once per cache folder
