"""The pytest plugin: benchmark cases as test items, scores as properties, the leaderboard at the end.

Only hooks and options live here; the work is `harness.run.evaluate_page` (parse -> locate ->
score), `harness.baseline` (pass/fail thresholds) and `harness.report` (aggregation, files).

Without `--parser` the plugin collects nothing and the harness's own tests run as usual.
With it, the case set becomes a collector added to the session's collection (the idiomatic
way to test things that are not Python files), one item per (page, parser, table), so
`-k`, `-m complex`, `--lf` and xdist work on benchmark cases like on any test. With
`--parser` and no path arguments only the benchmark is collected.

Across processes only plain data travels: each item records its `TableResult` as a JSON
user property, which reaches the xdist controller in `pytest_runtest_logreport` and the
junit XML; the controller builds the leaderboard and the report from those.
"""

from __future__ import annotations

import io
import json
import re
import shlex
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from harness import baseline as thresholds
from harness.cases import COMPLEXITIES, DEFAULT_SET, CaseSet, GroundTruthTable, Page
from harness.results import TableResult

RESULT_PROPERTY = "tablebench_result"  # the whole TableResult as JSON
DEFAULT_PARSE_TIMEOUT = 300.0
PLUGIN_NAME = "tablebench-session"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tablebench", "tablebench: benchmark PDF table extraction (active with --parser)")
    group.addoption("--parser", action="append", default=[], dest="tb_parsers", metavar="NAME",
                    help="parser spec to benchmark (repeatable or comma-separated): a built-in "
                         "(pymupdf4llm, pdfplumber, camelot, pypdf), an entry-point name, "
                         "vlm:MODEL, or command:CLI / dir:FOLDER (these take the rest of the value "
                         "verbatim). Without it nothing of the benchmark runs.")
    group.addoption("--cases", dest="tb_cases", metavar="SET", default=None,
                    help=f"case set: a name in cases/, a folder, or a pdf-parse-bench folder "
                         f"(default: {DEFAULT_SET}).")
    group.addoption("--metrics", dest="tb_metrics", metavar="LIST", default=None,
                    help="comma-separated metric groups (default: every offline metric).")
    group.addoption("--judge", dest="tb_judge", metavar="MODEL", default=None,
                    help="also score located tables with an LLM judge (litellm model string; off by default).")
    group.addoption("--llm-api-base", "--judge-api-base", dest="tb_judge_api_base", metavar="URL", default=None,
                    help="send judge and LLM-locator requests to this OpenAI-compatible server (e.g. a local one).")
    group.addoption("--locator", dest="tb_locator", choices=("offline", "llm"), default="offline",
                    help="how ground-truth tables are found in the output: offline content matching "
                         "(default) or an LLM that quotes each table's span (re-found literally).")
    group.addoption("--locator-model", dest="tb_locator_model", metavar="MODEL", default=None,
                    help="litellm model for --locator llm (default: the --judge model).")
    group.addoption("--min-score", dest="tb_min_scores", action="append", default=[], metavar="METRIC=VALUE",
                    help="fail a table whose METRIC is below VALUE (repeatable; semantic/judge on 0-10).")
    group.addoption("--baseline", dest="tb_baseline", metavar="FILE", default=None,
                    help="fail a table whose scores regressed against this baseline file.")
    group.addoption("--save-baseline", dest="tb_save_baseline", metavar="FILE", default=None,
                    help="write this run's scores as a baseline file at session end.")
    group.addoption("--baseline-tolerance", dest="tb_tolerance", type=float, default=thresholds.DEFAULT_TOLERANCE,
                    metavar="X", help="allowed drop below the baseline, on the 0-1 scale "
                                      "(x10 for semantic/judge; default %(default)s).")
    group.addoption("--report-dir", dest="tb_report_dir", metavar="DIR", default=None,
                    help="where results.json, leaderboard.md and report.html go "
                         "(default: reports/<timestamp>-<parsers> under rootdir).")
    group.addoption("--parse-timeout", dest="tb_timeout", type=float, default=DEFAULT_PARSE_TIMEOUT,
                    metavar="SECONDS", help="per-page parser timeout (default %(default)s).")
    group.addoption("--parse-refresh", dest="tb_refresh", action="store_true", default=False,
                    help="parse every page again, ignoring (and overwriting) cached parser outputs; "
                         "cached errors are always retried.")
    group.addoption("--parse-cache", dest="tb_cache", metavar="DIR", default=None,
                    help="parser output cache (default: .tablebench-cache/ under rootdir).")


def pytest_configure(config: pytest.Config) -> None:
    for level in COMPLEXITIES:
        config.addinivalue_line("markers", f"{level}: a benchmark table of {level} complexity (tablebench)")
    specs = split_specs(config.getoption("tb_parsers"))
    if not specs:
        return
    try:
        bench = BenchSession(config, specs)
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        config.args = []  # `pytest --parser=X` alone is the benchmark, not the repo's tests too
    config.pluginmanager.register(bench, PLUGIN_NAME)


def split_specs(values: list[str]) -> list[str]:
    """['a,b', 'c'] -> ['a', 'b', 'c'], first occurrence kept; a command: or dir: spec takes
    the rest of its value verbatim (a command line or a path may hold commas)."""
    out: list[str] = []
    for value in values:
        parts = value.split(",")
        for i, part in enumerate(parts):
            if part.strip().startswith(("command:", "dir:")):
                parts = parts[:i] + [",".join(parts[i:])]
                break
        for spec in (p.strip() for p in parts):
            if spec and spec not in out:
                out.append(spec)
    return out


_TABLE_ID = re.compile(r"^(?P<page>[^[]*)/t\d+\[(?P<spec>.*)\]$")


def page_scope(nodeid: str) -> str:
    """'synth-v1/p012/t3[pdfplumber]' -> 'synth-v1/p012[pdfplumber]'; other ids as xdist scopes them."""
    m = _TABLE_ID.match(nodeid)
    return f"{m['page']}[{m['spec']}]" if m else nodeid.rsplit("::", 1)[0]


def home_dir(config: pytest.Config) -> Path:
    """Where default report and cache folders go: the rootdir, unless pytest took the value of
    a space-separated path option (`--report-dir DIR`) for its rootdir — then the folder
    pytest was started in."""
    root, cwd = config.rootpath, config.invocation_params.dir
    return root if cwd == root or root in cwd.parents else cwd


def _slug(specs: list[str]) -> str:
    return re.sub(r"[^A-Za-z0-9._+-]+", "_", "+".join(specs)).strip("_.")[:60] or "parsers"


class BenchSession:
    """Options, case set and results of one benchmark session (one per process)."""

    def __init__(self, config: pytest.Config, specs: list[str]) -> None:
        from harness.cases import load_case_set
        from harness.metrics.registry import parse_metric_list
        from parsers.registry import resolve

        self.config = config
        self.specs = specs
        for spec in specs:
            resolve(spec)  # an unknown parser or a bad option is a usage error, now
        self.cases: CaseSet = load_case_set(config.getoption("tb_cases"))
        self.metrics = parse_metric_list(config.getoption("tb_metrics"))
        self.judge = config.getoption("tb_judge")
        api_base = config.getoption("tb_judge_api_base")
        self.judge_options = {"api_base": api_base} if api_base else {}
        if self.judge:
            from harness.run import load_judge

            try:
                load_judge()
            except RuntimeError as exc:
                raise ValueError(str(exc)) from None
        self.locator = config.getoption("tb_locator")
        self.locator_model = config.getoption("tb_locator_model") or self.judge
        if self.locator == "llm" and not self.locator_model:
            raise ValueError("--locator llm needs --locator-model MODEL (or --judge MODEL)")
        self.floors = dict(thresholds.parse_min_score(s) for s in config.getoption("tb_min_scores"))
        groups = [*self.metrics, *(["judge"] if self.judge else [])]
        for name in self.floors:
            if not any(name == g or name.startswith(g + "_") for g in groups):
                raise ValueError(f"--min-score {name}: not a score of the selected metrics ({', '.join(groups)})")
        self.tolerance = float(config.getoption("tb_tolerance"))
        if self.tolerance < 0:
            raise ValueError(f"--baseline-tolerance must be >= 0, got {self.tolerance}")
        path = config.getoption("tb_baseline")
        self.baseline = thresholds.load_baseline(path) if path else {}
        self.timeout = float(config.getoption("tb_timeout"))
        if self.timeout <= 0:
            raise ValueError(f"--parse-timeout must be positive, got {self.timeout}")
        root = home_dir(config)
        self.cache_dir = Path(config.getoption("tb_cache") or root / ".tablebench-cache")
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        self.report_dir = Path(config.getoption("tb_report_dir") or root / "reports" / f"{stamp}-{_slug(specs)}")
        self.started = datetime.now(UTC).isoformat(timespec="seconds")
        self._pages: dict[tuple[str, str], list[TableResult] | Exception] = {}
        self.results: dict[str, TableResult] = {}  # test id -> result, filled from reports
        self.written: dict[str, Path] = {}
        self.notes: list[str] = []

    @property
    def is_worker(self) -> bool:
        return hasattr(self.config, "workerinput")

    # -- running ----------------------------------------------------------------------------
    def result(self, spec: str, page: Page, index: int) -> TableResult:
        """The page's results, evaluated once per process (the parse cache spans processes)."""
        key = (spec, page.page_id)
        if key not in self._pages:
            from harness.run import evaluate_page

            try:
                self._pages[key] = evaluate_page(page, spec, self.metrics, cache_dir=self.cache_dir,
                                                 timeout=self.timeout, judge=self.judge,
                                                 judge_options=self.judge_options, locator=self.locator,
                                                 locator_model=self.locator_model,
                                                 refresh=self.config.getoption("tb_refresh"))
            except Exception as exc:  # noqa: BLE001 — every table of the page shows the same error
                self._pages[key] = exc
        found = self._pages[key]
        if isinstance(found, Exception):
            raise found
        return found[index]

    def failures(self, result: TableResult) -> list[str]:
        """Why this case fails, one reason per entry; empty when it passes."""
        if result.outcome == "missing":
            return [result.message]
        if result.outcome != "ok":
            return [result.message or result.outcome]
        out = thresholds.min_score_failures(result.scores, self.floors)
        base = self.baseline.get(result.test_id)
        if base:
            out += thresholds.baseline_failures(result.scores, base, self.tolerance)
        return out

    # -- hooks --------------------------------------------------------------------------------
    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(self, collector: pytest.Collector) -> Any:
        report = yield
        if isinstance(collector, pytest.Session) and report.passed:
            report.result.append(CaseSetCollector.from_parent(
                collector, name=self.cases.name, nodeid=self.cases.name, path=self.cases.root, bench=self))
        return report

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        """Under `-n`, send all tables of one (parser, page) to one worker.

        With xdist's default `load` scheduling, two workers would take tables of the same page
        at once and one would wait on the other's parse; grouping by page keeps both busy.
        Any `--dist` other than the default is respected.
        """
        if config.getoption("dist", "load") != "load":
            return None
        from xdist.scheduler import LoadScopeScheduling

        class PageScheduling(LoadScopeScheduling):
            def _split_scope(self, nodeid: str) -> str:
                return page_scope(nodeid)

        return PageScheduling(config, log)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        for name, value in report.user_properties:
            if name == RESULT_PROPERTY:
                result = TableResult.from_dict(json.loads(value))
                self.results[result.test_id] = result

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        from harness.run import DEFAULT_POOL

        DEFAULT_POOL.close()
        if self.is_worker or not self.results:
            return
        results = self.sorted_results()
        save = self.config.getoption("tb_save_baseline")
        if save:
            self.written["baseline"] = thresholds.save_baseline(results, save)
        from harness.report.write import write_report

        try:
            self.written.update(write_report(results, self.report_dir, self.meta(len(results))))
        except OSError as exc:  # the scores are in the terminal and junit XML still
            self.notes.append(f"tablebench report not written to {self.report_dir}: {exc.strerror or exc}")

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.is_worker or not self.results:
            return
        terminalreporter.section("tablebench leaderboard")
        terminalreporter.write(_render(_leaderboard_renderable(self.sorted_results()), terminalreporter.hasmarkup))
        for note in self.notes:
            terminalreporter.write_line(note, yellow=True)
        baseline = self.written.get("baseline")
        if baseline:
            terminalreporter.write_line(f"tablebench baseline saved: {baseline}")
        reports = {k: v for k, v in self.written.items() if k != "baseline"}
        if reports:
            terminalreporter.write_line(f"tablebench report: {self.report_dir}  "
                                        f"({', '.join(p.name for p in reports.values())})")

    # -- helpers -------------------------------------------------------------------------------
    def sorted_results(self) -> list[TableResult]:
        """Results in collection order whatever order xdist finished them in."""
        order = {p: i for i, p in enumerate(self.specs)}
        return sorted(self.results.values(), key=lambda r: (r.case_set, r.page, order.get(r.parser, len(order)),
                                                            r.parser, r.table))

    def meta(self, n: int) -> dict:
        """The run's facts for every report file (only the ones that are set)."""
        from harness import __version__

        facts = {"timestamp": self.started, "command": shlex.join(["pytest", *self.config.invocation_params.args]),
                 "version": __version__, "case_set": self.cases.name, "case_set_path": str(self.cases.root),
                 "parsers": self.specs, "metrics": self.metrics, "judge": self.judge, "tables": n,
                 "locator": self.locator if self.locator != "offline" else None,
                 "parse_timeout": self.timeout, "min_scores": self.floors,
                 "baseline": self.config.getoption("tb_baseline"),
                 "finished": datetime.now(UTC).isoformat(timespec="seconds")}
        return {k: v for k, v in facts.items() if v not in (None, {}, [])}


def _leaderboard_renderable(results: list[TableResult]) -> Any:
    from harness.report.aggregate import leaderboard
    from harness.report.terminal import leaderboard_group

    return leaderboard_group(leaderboard(results), title="")


def _render(renderable: Any, markup: bool) -> str:
    """A rich renderable as text for the terminal reporter (which owns the output stream)."""
    from rich.console import Console

    width = max(80, min(shutil.get_terminal_size((120, 24)).columns, 200))
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=markup, color_system="standard" if markup else None,
                      no_color=not markup, highlight=False)
    console.print(renderable)
    return buffer.getvalue()


# -- collection nodes ----------------------------------------------------------------------------
class CaseSetCollector(pytest.Collector):
    """The case set: yields one collector per page that has tables, in page order."""

    def __init__(self, *, bench: BenchSession, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bench = bench

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        return [PageCollector.from_parent(self, name=page.page_id, nodeid=f"{self.nodeid}/{page.page_id}",
                                          path=page.pdf, page=page)
                for page in self.bench.cases.pages if page.tables]


class PageCollector(pytest.Collector):
    """One page: its items per parser, then per table, so each (parser, page) run is adjacent."""

    def __init__(self, *, page: Page, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.page = page

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        bench: BenchSession = self.parent.bench  # type: ignore[union-attr]
        return [TableItem.from_parent(self, name=f"t{gt.index}[{spec}]", nodeid=f"{self.nodeid}/t{gt.index}[{spec}]",
                                      bench=bench, page=self.page, spec=spec, gt=gt)
                for spec in bench.specs for gt in self.page.tables]


class TableItem(pytest.Item):
    """One (parser, page, ground-truth table) case: passes when found and above every threshold."""

    def __init__(self, *, bench: BenchSession, page: Page, spec: str, gt: GroundTruthTable, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bench, self.page, self.spec, self.gt = bench, page, spec, gt
        if gt.complexity in COMPLEXITIES:
            self.add_marker(gt.complexity)

    def runtest(self) -> None:
        result = self.bench.result(self.spec, self.page, self.gt.index)
        self.user_properties.append(("outcome", result.outcome))
        self.user_properties.extend((name, value) for name, value in result.scores.items())
        self.user_properties.append((RESULT_PROPERTY, json.dumps(result.to_dict(), ensure_ascii=False)))
        failures = self.bench.failures(result)
        if failures:
            pytest.fail("; ".join(failures), pytrace=False)  # the reason is the report, not a traceback

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.page.pdf, None, self.nodeid
