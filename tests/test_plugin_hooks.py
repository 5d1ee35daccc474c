"""The `pytest_tablebench_*` hooks: a conftest implementing each changes what lands in results.json."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.ci_cases import case_set, write_pages
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]

CONFTEST = textwrap.dedent("""\
    from tablebench.core.metric_specs import MetricSpec, Scored


    def rows_kept(gt, pred):
        return Scored({"rows_kept": min(len(pred.rows), len(gt.rows)) / len(gt.rows)})


    def pytest_tablebench_add_metrics(config):
        return [MetricSpec("rows_kept", "table", ("rows_kept",), "rows_kept", rows_kept, default=False)]


    def pytest_tablebench_result(item, result):
        result.extra["reviewed_by"] = item.config.getoption("tb_judge") or "nobody"
        result.extra["node"] = item.nodeid


    def pytest_tablebench_update_meta(config, meta, results):
        meta["team"] = "tables"
        meta["annotated"] = sum(1 for r in results if "reviewed_by" in r.extra)
""")


@pytest.fixture(scope="module", autouse=True)
def warm_metrics() -> None:
    """Score once in this process first: pytester drops modules a run imported, numba cannot reload."""
    from tablebench.core.table import Table
    from tablebench.metrics import score

    table = Table.from_rows([["a", "b"], ["1", "2"]], header_rows=1)
    score(table, table, ["teds"])


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two synth-v1 pages and a `dir:` parser holding their exact tables."""
    root = tmp_path_factory.mktemp("hooks")
    cases = case_set(root / "mini", 2)
    return cases, write_pages(root / "exact", cases)


def run(pytester: pytest.Pytester, bench: tuple[Path, Path], tmp_path: Path, *more: str) -> pytest.RunResult:
    cases, exact = bench
    return pytester.runpytest(*PLUGIN, f"--cases={cases}", f"--parser=mine=dir:{exact}", "--metrics=teds",
                              "-p", "no:cacheprovider", "-p", "no:xdist", f"--parse-cache={tmp_path / 'cache'}",
                              f"--report-dir={tmp_path / 'report'}", *more)


def test_a_conftest_annotates_results_registers_metrics_and_updates_the_meta(pytester: pytest.Pytester, bench,
                                                                             tmp_path: Path, request):
    from tablebench.core.metric_specs import all_specs, unregister

    request.addfinalizer(lambda: "rows_kept" in {s.name for s in all_specs()} and unregister("rows_kept"))
    plain = run(pytester, bench, tmp_path / "plain")
    assert plain.ret == 0, plain.stdout.str()
    before = json.loads((tmp_path / "plain" / "report" / "results.json").read_text())
    assert "team" not in before["meta"] and "extra_metrics" not in before["meta"]
    assert not any("reviewed_by" in r["extra"] for r in before["results"])

    pytester.makeconftest(CONFTEST)
    hooked = run(pytester, bench, tmp_path / "hooked", "--metrics=teds,rows_kept")
    assert hooked.ret == 0, hooked.stdout.str()
    data = json.loads((tmp_path / "hooked" / "report" / "results.json").read_text())
    results, meta = data["results"], data["meta"]
    assert results and all(r["extra"]["reviewed_by"] == "nobody" for r in results), "pytest_tablebench_result"
    assert results[0]["extra"]["node"] == "mini/p001::t0[mine]"
    assert meta["extra_metrics"] == ["rows_kept"] and meta["metrics"] == ["teds", "rows_kept"], \
        "pytest_tablebench_add_metrics"
    assert all(r["scores"]["rows_kept"] == 1.0 for r in results), "a registered metric is scored"
    assert meta["team"] == "tables" and meta["annotated"] == len(results), "pytest_tablebench_update_meta"
    assert [r["scores"]["teds"] for r in results] == [r["scores"]["teds"] for r in before["results"]]
    assert "<dt>team</dt>" in (tmp_path / "hooked" / "report" / "report.html").read_text(), "every report file sees the meta"


def test_a_metric_spec_without_a_name_is_a_usage_error(pytester: pytest.Pytester, bench, tmp_path: Path):
    pytester.makeconftest("def pytest_tablebench_add_metrics(config):\n    return [42]\n")
    result = run(pytester, bench, tmp_path)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "expected tablebench.core.metric_specs.MetricSpec, got 42" in result.stderr.str()


def test_the_hooks_load_without_a_benchmark(pytester: pytest.Pytester):
    """The specs are registered in every session, so a conftest implementing them never breaks one."""
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_own="def test_own():\n    assert True\n")
    pytester.runpytest(*PLUGIN, "-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_the_documented_conftest_runs_as_written(pytester: pytest.Pytester, bench, tmp_path: Path, request):
    import re

    from tablebench.core.metric_specs import all_specs, unregister

    design = (Path(__file__).resolve().parents[1] / "docs" / "design.md").read_text(encoding="utf-8")
    section = design.split("### Hooks", 1)[1].split("\n### ", 1)[0]
    (block,) = re.findall(r"```python\n(.*?)```", section, re.S)
    request.addfinalizer(lambda: "rows_kept" in {s.name for s in all_specs()} and unregister("rows_kept"))
    pytester.makeconftest(block)
    result = run(pytester, bench, tmp_path, "--metrics=teds,rows_kept")
    assert result.ret == 0, result.stdout.str()
    data = json.loads((tmp_path / "report" / "results.json").read_text())
    assert data["meta"]["team"] == "tables" and data["meta"]["extra_metrics"] == ["rows_kept"]
    assert all(r["scores"]["rows_kept"] == 1.0 and r["extra"]["reviewed_by"] == "nobody" for r in data["results"])
