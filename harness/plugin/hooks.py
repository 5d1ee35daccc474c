"""The pytest plugin: benchmark cases as test items, scores as properties, the leaderboard at the end.

Only hooks and options live here; the work is `harness.evaluate.page.evaluate_page` (parse -> locate ->
score), `harness.gating` (pass/fail rules, baselines) and `harness.report` (aggregation, files).

Without `--parser` the plugin collects nothing and the harness's own tests run as usual.
With it, the case set becomes a collector added to the session's collection (the idiomatic
way to test things that are not Python files), one item per (page, parser, table), so
`-k`, `-m complex`, `--lf` and xdist work on benchmark cases like on any test. Item ids are
`SET/PAGE::tN[LABEL]` for tables and `SET/PAGE::fN[LABEL]` for formulas (marked `inline` /
`display`; junit: classname `SET.PAGE`, name `tN[LABEL]`): one item type with a kind. Every item
is also marked by its page's variant (`digital`, `scan`, `photo`) and language (`lang_en`,
`lang_ru`, ...; `lang_unknown` where the ground truth names none). With `--parser` and
no path arguments only the benchmark is collected.

Across processes only plain data travels: each item's report carries its `TableResult` as a
JSON attribute (`tablebench_result`, serialised by xdist with the report), from which the
controller builds the leaderboard and the report; junit gets the outcome and the scores
as small properties.
"""

from __future__ import annotations

import io
import json
import re
import shlex
import shutil
from collections.abc import Generator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from harness.cases import (
    DEFAULT_SET,
    VARIANTS,
    CaseSet,
    Page,
    language_marker,
    variant_marker,
)
from harness.core import kinds as item_kinds
from harness.gating import thresholds
from harness.core.results import TableResult, case_id, item_name, run_order

RESULT_ATTR = "tablebench_result"  # the whole TableResult as JSON, on the call-phase TestReport
DEFAULT_PARSE_TIMEOUT = 300.0
PLUGIN_NAME = "tablebench-session"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tablebench", "tablebench: benchmark PDF table extraction (active with --parser)")
    group.addoption("--parser", action="append", default=[], dest="tb_parsers", metavar="NAME",
                    help="parser spec to benchmark (repeatable or comma-separated): a built-in "
                         "(pymupdf4llm, pdfplumber, camelot, pypdf), an entry-point name, "
                         "vlm:MODEL, or command:CLI / dir:FOLDER (these take the rest of the value "
                         "verbatim). LABEL=SPEC names it: the label is its name in test ids, "
                         "reports and baselines. Without it nothing of the benchmark runs.")
    group.addoption("--cases", dest="tb_cases", metavar="SET", default=None,
                    help=f"case set: a name in cases/, a folder, or a pdf-parse-bench folder "
                         f"(default: {DEFAULT_SET}).")
    group.addoption("--no-verify", dest="tb_no_verify", action="store_true", default=False,
                    help="benchmark a case set without checking its files against manifest.json (warns).")
    group.addoption("--metrics", dest="tb_metrics", metavar="LIST", default=None,
                    help="comma-separated metric groups: table ones (default: every offline metric) and "
                         "formula ones (default formula_score,token_edit; cdm_like renders with pdflatex). "
                         "A kind none of whose metrics is named keeps its defaults.")
    group.addoption("--judge", dest="tb_judge", metavar="MODEL", default=None,
                    help="also score located tables and formulas with an LLM judge (litellm model string; off by default).")
    group.addoption("--llm-api-base", "--judge-api-base", dest="tb_judge_api_base", metavar="URL", default=None,
                    help="send judge and LLM-locator requests to this OpenAI-compatible server (e.g. a local one).")
    group.addoption("--locator", dest="tb_locator", choices=("offline", "llm"), default="offline",
                    help="how ground-truth tables and formulas are found in the output: offline content matching "
                         "(default) or an LLM that quotes each table's span (re-found literally).")
    group.addoption("--locator-model", dest="tb_locator_model", metavar="MODEL", default=None,
                    help="litellm model for --locator llm (default: the --judge model).")
    group.addoption("--min-score", dest="tb_min_scores", action="append", default=[], metavar="METRIC=VALUE",
                    help="fail a table whose METRIC is below VALUE (repeatable; semantic/judge on 0-10).")
    group.addoption("--baseline", dest="tb_baseline", metavar="FILE", default=None,
                    help="fail a table whose scores regressed against this baseline file; a table "
                         "not found there either is a known failure (xfail).")
    group.addoption("--save-baseline", dest="tb_save_baseline", metavar="FILE", default=None,
                    help="write this run's scores as a baseline file at session end.")
    group.addoption("--baseline-tolerance", dest="tb_tolerance", default=thresholds.DEFAULT_TOLERANCE,
                    metavar="X", help="allowed drop below the baseline, on the 0-1 scale "
                                      "(x10 for semantic/judge; default %(default)s).")
    group.addoption("--report-only", dest="tb_report_only", action="store_true", default=False,
                    help="record outcomes and scores without failing any case (exit 0 when nothing crashed).")
    group.addoption("--report-dir", dest="tb_report_dir", metavar="DIR", default=None,
                    help="where results.json, leaderboard.md and report.html go "
                         "(default: reports/<timestamp>-<parsers> under rootdir).")
    group.addoption("--parse-timeout", dest="tb_timeout", default=DEFAULT_PARSE_TIMEOUT,
                    metavar="SECONDS", help="per-page parser timeout (default %(default)s).")
    group.addoption("--parse-refresh", dest="tb_refresh", action="store_true", default=False,
                    help="parse every page again, ignoring (and overwriting) cached parser outputs; "
                         "cached errors are always retried.")
    group.addoption("--parse-cache", dest="tb_cache", metavar="DIR", default=None,
                    help="parser output cache (default: .tablebench-cache/ under rootdir).")
    from harness.plugin.ci import add_options  # --gate, --repeat, --shard, --parse-concurrency (harness.plugin.ci)

    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    for variant in VARIANTS:
        config.addinivalue_line("markers", f"{variant_marker(variant)}: a benchmark item on a {variant} page (tablebench)")
    specs = split_specs(config.getoption("tb_parsers"))
    if not specs:
        return
    for kind in item_kinds.all_kinds():  # only for a benchmark run: the kinds import their stages
        for group in kind.groups:
            config.addinivalue_line("markers", f"{group}: a benchmark {kind.name} of {kind.group_title} {group} (tablebench)")
    try:
        bench = BenchSession(config, specs)
        from harness.plugin.ci import CIPlugin

        bench.ci = CIPlugin(config, bench)
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        config.args = []  # `pytest --parser=X` alone is the benchmark, not the repo's tests too
        if getattr(config.option, "tbstyle", None) == "auto":
            config.option.tbstyle = "no"  # one short-summary line per failing table, not a block each
    config.pluginmanager.register(bench, PLUGIN_NAME)
    config.pluginmanager.register(bench.ci, PLUGIN_NAME + "-ci")


def register_page_markers(config: pytest.Config, cases: CaseSet) -> None:
    """Register the language marker (`lang_ru`, ...) of every language in the case set, and any
    variant beyond the built-in ones, so `--strict-markers` accepts what the items carry."""
    languages = sorted({p.language for p in cases.pages})
    for code in languages:
        config.addinivalue_line("markers", f"{language_marker(code)}: a benchmark item on a page in language {code} (tablebench)")
    for variant in sorted({p.variant for p in cases.pages} - set(VARIANTS)):
        config.addinivalue_line("markers", f"{variant_marker(variant)}: a benchmark item on a {variant} page (tablebench)")


def split_specs(values: list[str]) -> list[str]:
    """['a,b', 'c'] -> ['a', 'b', 'c'], first occurrence kept; a command: or dir: spec (named or
    not) takes the rest of its value verbatim (a command line or a path may hold commas)."""
    from harness.core.labels import split_label

    out: list[str] = []
    for value in values:
        parts = value.split(",")
        for i, part in enumerate(parts):
            if split_label(part)[1].startswith(("command:", "dir:")):
                parts = parts[:i] + [",".join(parts[i:])]
                break
        for spec in (p.strip() for p in parts):
            if spec and spec not in out:
                out.append(spec)
    return out


_TABLE_ID = re.compile(r"^(?P<page>[^[]*)::[a-z]+\d+\[(?P<label>.*)\]$", re.S)  # an item of any kind


def page_scope(nodeid: str) -> str:
    """'synth-v1/p012::t3[pdfplumber]' -> 'synth-v1/p012[pdfplumber]'; other ids as xdist scopes them."""
    m = _TABLE_ID.match(nodeid)
    return f"{m['page']}[{m['label']}]" if m else nodeid.rsplit("::", 1)[0]


def home_dir(config: pytest.Config) -> Path:
    """Where default report and cache folders go: the rootdir, unless pytest took the value of
    a space-separated path option (`--report-dir DIR`) for its rootdir — then the folder
    pytest was started in."""
    root, cwd = config.rootpath, config.invocation_params.dir
    return root if cwd == root or root in cwd.parents else cwd


def _slug(labels: list[str]) -> str:
    return re.sub(r"[^A-Za-z0-9._+-]+", "_", "+".join(labels)).strip("_.")[:60] or "parsers"


class BenchSession:
    """Options, case set and results of one benchmark session (one per process)."""

    def __init__(self, config: pytest.Config, specs: list[str]) -> None:
        from harness.cases import load_case_set
        from harness.cases.manifest import check_case_set, manifest_sha256
        from harness.gating.rules import Gate
        from harness.core.labels import label_specs
        from harness.evaluate.selection import metric_names
        from harness.parse.registry import resolve

        self.config = config
        self.labels = label_specs(specs)  # label -> spec, in --parser order
        # an unknown parser or a bad option is a usage error, now
        self.parsers = {label: {"spec": spec, "version": str(resolve(spec).version)}
                        for label, spec in self.labels.items()}
        self.timeout = thresholds.number("--parse-timeout", config.getoption("tb_timeout"), positive=True)
        tolerance = thresholds.number("--baseline-tolerance", config.getoption("tb_tolerance"), upper=1.0)
        self.cases: CaseSet = load_case_set(config.getoption("tb_cases"))
        self.verified = not config.getoption("tb_no_verify") and self.cases.kind == "tablebench"
        if self.verified:
            check_case_set(self.cases.root)
        self.case_set = {"name": self.cases.name, "manifest_sha256": manifest_sha256(self.cases.root)}
        register_page_markers(config, self.cases)
        self.metrics = metric_names(config.getoption("tb_metrics"), self.cases.kinds or item_kinds.names()[:1])
        self.judge = config.getoption("tb_judge")
        api_base = config.getoption("tb_judge_api_base")
        self.judge_options = {"api_base": api_base} if api_base else {}
        if self.judge:
            from harness.evaluate.page import load_judge

            try:
                load_judge()
            except RuntimeError as exc:
                raise ValueError(str(exc)) from None
        self.locator = config.getoption("tb_locator")
        self.locator_model = config.getoption("tb_locator_model") or self.judge
        if self.locator == "llm" and not self.locator_model:
            raise ValueError("--locator llm needs --locator-model MODEL (or --judge MODEL)")
        floors = dict(thresholds.parse_min_score(s) for s in config.getoption("tb_min_scores"))
        groups = [*self.metrics, *(["judge"] if self.judge else [])]
        for name in floors:
            if not any(name == g or name.startswith(g + "_") for g in groups):
                raise ValueError(f"--min-score {name}: not a score of the selected metrics ({', '.join(groups)})")
        self.notes: list[str] = []  # shown at the end of the terminal summary
        self.gate = Gate(floors, self._baseline(config.getoption("tb_baseline")), tolerance,
                         report_only=config.getoption("tb_report_only"))
        root = home_dir(config)
        self.cache_dir = Path(config.getoption("tb_cache") or root / ".tablebench-cache")
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        self.report_dir = Path(config.getoption("tb_report_dir") or root / "reports" / f"{stamp}-{_slug(list(self.labels))}")
        self.started = datetime.now(UTC).isoformat(timespec="seconds")
        self._pages: dict[tuple[str, str], list[TableResult]] = {}
        self.results: dict[str, TableResult] = {}  # case id -> result, filled from reports
        self.written: dict[str, Path] = {}

    def _baseline(self, path: str | None) -> Any:
        """The --baseline file, checked against this run's cases (no match at all is a usage error)."""
        if not path:
            return None
        from harness.gating.baseline import load_baseline
        from harness.gating.rules import baseline_notes

        baseline = load_baseline(path)
        ids = [case_id(page.set_name, page.page_id, gt.index, label, kind)
               for page in self.cases.pages for kind in self.cases.kinds
               for gt in page.items_of(kind) for label in self.labels]
        self.notes += baseline_notes(baseline, ids, parsers=self.parsers, case_set=self.case_set, metrics=self.metrics)
        return baseline

    @property
    def is_worker(self) -> bool:
        return hasattr(self.config, "workerinput")

    # -- running ----------------------------------------------------------------------------
    def result(self, label: str, page: Page, index: int, kind: str = "table") -> TableResult:
        """The page's results, evaluated once per process (the parse cache spans processes); a page
        whose evaluation raised gives every table an `error` result with the reason."""
        key = (label, page.page_id)
        if key not in self._pages:
            from harness.evaluate.page import evaluate_page, page_error_results

            spec = self.labels[label]
            ci = getattr(self, "ci", None)  # --repeat / --parse-concurrency (harness.plugin.ci)
            evaluate = ci.evaluate if ci is not None else evaluate_page
            try:
                self._pages[key] = evaluate(page, spec, self.metrics, cache_dir=self.cache_dir,
                                                 timeout=self.timeout, judge=self.judge,
                                                 judge_options=self.judge_options, locator=self.locator,
                                                 locator_model=self.locator_model,
                                                 refresh=self.config.getoption("tb_refresh"), label=label)
            except Exception as exc:  # noqa: BLE001 — every table of the page shows the same error
                self._pages[key] = page_error_results(page, spec, exc, label=label)
        return next(r for r in self._pages[key] if r.kind == kind and r.table == index)

    # -- hooks --------------------------------------------------------------------------------
    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        pages = sum(1 for p in self.cases.pages if p.n_items)
        check = ("files match manifest.json (sha256)" if self.verified else
                 "NOT VERIFIED against manifest.json (--no-verify)" if self.cases.kind == "tablebench" else
                 "no manifest to verify (pdf-parse-bench folder)")
        counts = ", ".join(f"{self.cases.count(k)} {item_kinds.get(k).title}" for k in self.cases.kinds)
        lines = [f"tablebench: case set {self.cases.name}: {pages} pages, {counts or '0 tables'}; {check}",
                 f"tablebench: parsers {', '.join(self.labels)}"]
        return lines + [n for n in self.notes if " entries match " in n]

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

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> Generator[None, Any, Any]:
        """Attach the case's result to its call report: it travels with the report (xdist
        serialises report attributes), not as a junit property."""
        report = yield
        data = getattr(item, "result_json", None)
        if call.when == "call" and data is not None:
            setattr(report, RESULT_ATTR, data)
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        data = getattr(report, RESULT_ATTR, None)
        if report.when == "call" and data:
            result = TableResult.from_dict(json.loads(data))
            self.results[result.test_id] = result

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        from harness.evaluate.page import DEFAULT_POOL

        DEFAULT_POOL.close()
        if self.is_worker or not self.results:
            return
        results = self.sorted_results()
        save = self.config.getoption("tb_save_baseline")
        if save:
            from harness.gating.baseline import save_baseline

            self.written["baseline"] = save_baseline(results, save, parsers=self.parsers, case_set=self.case_set,
                                                     metrics=self.metrics)
        from harness.report.write import write_report

        try:
            self.written.update(write_report(results, self.report_dir, self.meta(results)))
        except OSError as exc:  # the scores are in the terminal and junit XML still
            self.notes.append(f"tablebench report not written to {self.report_dir}: {exc.strerror or exc}")

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> Generator[None, None, None]:
        """The leaderboard last: after pytest's failure lines and short summary."""
        yield
        if self.is_worker or not self.results:
            return
        from harness.report.aggregate import cache_summary

        terminalreporter.section("tablebench leaderboard")
        terminalreporter.write(_render(_leaderboard_renderable(self.sorted_results()), terminalreporter.hasmarkup))
        terminalreporter.write_line(f"tablebench parse cache: {cache_summary(self.sorted_results())}")
        if not self.verified and self.cases.kind == "tablebench":
            terminalreporter.write_line(f"tablebench WARNING: case set {self.cases.name} was not verified against "
                                        "its manifest (--no-verify)", yellow=True, bold=True)
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
        return run_order(self.results.values(), list(self.labels))

    def meta(self, results: list[TableResult]) -> dict:
        """The run's facts for every report file (only the ones that are set)."""
        from harness import __version__
        from harness.report.aggregate import cache_summary, run_counts

        facts = {"timestamp": self.started, "command": shlex.join(["pytest", *self.config.invocation_params.args]),
                 "version": __version__, "case_set": self.cases.name, "case_set_path": str(self.cases.root),
                 "case_set_manifest_sha256": self.case_set["manifest_sha256"],
                 "case_set_verified": self.verified if self.cases.kind == "tablebench" else None,
                 "parsers": list(self.labels),
                 "parser_specs": {k: v for k, v in self.labels.items() if k != v} or None,
                 "metrics": self.metrics, "judge": self.judge,
                 **{k: v for k, v in run_counts(results).items() if k in ("tables", "formulas", "cases")},
                 "parse_cache": cache_summary(results),
                 "locator": self.locator if self.locator != "offline" else None,
                 "parse_timeout": self.timeout, "min_scores": dict(self.gate.floors),
                 "baseline": self.config.getoption("tb_baseline"),
                 "report_only": True if self.gate.report_only else None,
                 "finished": datetime.now(UTC).isoformat(timespec="seconds")}
        if getattr(self, "ci", None) is not None:
            facts.update(self.ci.meta())  # shard, repeat, gate lines, what a merge checks
        return {k: v for k, v in facts.items() if v not in (None, {}, [])}


def _leaderboard_renderable(results: list[TableResult]) -> Any:
    from harness.report.aggregate import boards
    from harness.report.terminal import tracks_group

    return tracks_group(boards(results))


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
                for page in self.bench.cases.pages if page.n_items]


class PageCollector(pytest.Collector):
    """One page: its items per parser, then per table, so each (parser, page) run is adjacent."""

    def __init__(self, *, page: Page, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.page = page

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        bench: BenchSession = self.parent.bench  # type: ignore[union-attr]
        items = [(kind, gt) for kind in item_kinds.names() for gt in self.page.items_of(kind)]
        return [TableItem.from_parent(self, name=f"{item_name(kind, gt.index)}[{label}]",
                                      nodeid=f"{self.nodeid}::{item_name(kind, gt.index)}[{label}]",
                                      bench=bench, page=self.page, label=label, gt=gt, kind=kind)
                for label in bench.labels for kind, gt in items]


class TableItem(pytest.Item):
    """One (parser, page, ground-truth item) case of any kind (`kind`: a table, a formula, ...):
    passes when found and above every threshold. Marked by the item's group (a table's
    complexity, a formula's inline / display) and by its page's variant and language."""

    def __init__(self, *, bench: BenchSession, page: Page, label: str, gt: Any, kind: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bench, self.page, self.label, self.gt, self.kind = bench, page, label, gt, kind
        self.result_json: str | None = None
        if gt.group in item_kinds.get(kind).groups:
            self.add_marker(gt.group)
        self.add_marker(variant_marker(page.variant))
        self.add_marker(language_marker(page.language))

    def runtest(self) -> None:
        result = self.bench.result(self.label, self.page, self.gt.index, self.kind)
        self.result_json = json.dumps(result.to_dict(), ensure_ascii=False)
        self.user_properties.append(("outcome", result.outcome))  # small: junit carries these
        self.user_properties.extend((name, value) for name, value in result.scores.items())
        verdict = self.bench.gate.check(result)
        if verdict.status == "known":
            pytest.xfail(verdict.message)
        if verdict.status == "fail":
            pytest.fail(verdict.message, pytrace=False)  # the reason is the report, not a traceback

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.page.pdf, None, self.nodeid
