"""One benchmark session in one process: what the plugin's hooks delegate to.

A `BenchSession` is made from the run's `RunOptions` when pytest configures; it owns the
parsers, the case set, the per-case rules, the results as their reports arrive, and the CI
parts (`tablebench.plugin.ci`), each made here from the options and called from here:
page evaluation (--repeat, --parse-concurrency), the shard, and the aggregate gate. At the
end, `tablebench.gating.decide.decide_run` decides the run and `tablebench.report.finish.finish_run`
writes it, as `tablebench report merge` does.
Everything a user's conftest may change goes through the `pytest_tablebench_*` hooks.
"""

from __future__ import annotations

import difflib
import shlex
import sys
from collections.abc import Generator, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tablebench import __version__
from tablebench.cases import CaseSet, Page, load_case_set
from tablebench.cases.manifest import manifest_sha256
from tablebench.cases.shard import fingerprint
from tablebench.core import kinds as item_kinds
from tablebench.core.completeness import Completeness, crashed_count, measure, of_meta
from tablebench.core.files import check_writable, claim_folder, new_folder
from tablebench.core.metric_specs import MetricSpec, all_specs, kind_of_score, scores_of
from tablebench.core.metric_specs import register as register_metric
from tablebench.core.options import RunOptions
from tablebench.core.results import ItemResult, case_id, item_name, run_order
from tablebench.evaluate.judging import cache_note, judge_options
from tablebench.evaluate.page import close_default_pool, load_judge, lost_result, page_error_results
from tablebench.evaluate.selection import metric_names
from tablebench.gating.baseline import Baseline
from tablebench.gating.decide import decide_run, gate_policy
from tablebench.gating.rules import baseline_notes
from tablebench.parse.preflight import setup_problems
from tablebench.parse.fingerprint import DECLARE, parser_identity
from tablebench.parse.registry import importable_from, resolve
from tablebench.plugin.ci import GateStep, PageEvaluation, ShardSelection, served_specs, stop_reason
from tablebench.plugin.crash import handle_crash
from tablebench.plugin.header import case_set_line
from tablebench.plugin.nodes import (
    RESULT_ATTR,
    CaseSetCollector,
    register_page_markers,
    reported_result,
    select_cases,
    take_case_args,
)
from tablebench.plugin.page_stop import PageStop
from tablebench.plugin.progress import ProgressLine
from tablebench.plugin.report_facts import SharedFacts
from tablebench.plugin.workers import stop_workers
from tablebench.report.aggregate import cache_summary, run_counts
from tablebench.report.finish import FinishPolicy, RunEnd, finish_run
from tablebench.report.results_file import load_baseline
from tablebench.report.runs import keep_newest, run_folder
from tablebench.report.stream import STREAM_FILE, FullResults, ResultStream, slim
from tablebench.tex.render import use_render_cache

KEEP_PARSED = 8  # pages whose parsed ground truth a process keeps (parsing it is ~1 ms per table)


def home_dir(config: pytest.Config) -> Path:
    """Where default report and cache folders go: the rootdir, unless pytest took the value of
    a space-separated path option (`--report-dir DIR`) for its rootdir — then the folder
    pytest was started in."""
    root, cwd = config.rootpath, config.invocation_params.dir
    return root if cwd == root or root in cwd.parents else cwd


class BenchSession:
    """Options, case set, rules, CI parts and results of one benchmark session (one per process)."""

    def __init__(self, config: pytest.Config, options: RunOptions) -> None:
        """Everything that can be refused is refused here, as a one-line ValueError."""
        self.config, self.options = config, options
        importable_from(config.rootpath)  # `--parser=pkg.mod:Class` from the project's own folder, not installed
        # an unknown parser is a usage error, now
        resolved = {label: resolve(spec) for label, spec in options.parsers.items()}
        self.parsers = {label: {"spec": options.parsers[label], "version": str(parser.version)}
                        for label, parser in resolved.items()}
        self.uncached = {label: identity.covers for label, parser in resolved.items()
                         if (identity := parser_identity(parser)).stamp is None and getattr(parser, "cacheable", True)}
        self.cases: CaseSet = load_case_set(options.cases, verify=options.verify, kinds=options.kinds)  # checked first
        self.verified = options.verify and self.cases.kind == "tablebench"
        self.case_set = {"name": self.cases.name, "manifest_sha256": manifest_sha256(self.cases.root)}
        register_page_markers(config, self.cases)
        self.case_args = take_case_args(config, self.cases.name)  # `pytest 'SET/PAGE::tN[LABEL]'`: the cases named
        self.extra_metrics = self._extra_metrics()  # registered first, so --metrics may name them
        self.metrics = metric_names(options.metrics, self.cases.kinds or item_kinds.names()[:1])
        if options.judge:
            try:
                load_judge()
            except RuntimeError as exc:
                raise ValueError(str(exc)) from None
        self._check_scored("--min-score", [(name, name) for name in options.min_scores])
        self._check_scored("--baseline-tolerance", [(name, name) for name in options.tolerance.named])
        self.notes: list[str] = []  # shown at the end of the terminal summary
        self.decider = gate_policy(options, self._baseline(options.baseline), groups=options.parsers)
        self.rules = self.decider.rules  # each item's verdict, decided where it is made (`plugin.nodes`)
        self.shard = ShardSelection.of(options.shard, self.cases) if options.shard else None
        self._check_scored("--gate", [(gate.label, gate.metric) for gate in options.gates])
        self.specs = served_specs(options.parsers, options.llm_api_base)  # label -> the spec it runs with
        for label, spec in self.specs.items():
            self.parsers[label]["spec"] = spec
        pdfs = [page.pdf for page in self.cases.pages if page.n_items]
        # a parser that cannot parse any page: refused now (collecting alone parses nothing)
        problems = [] if config.option.collectonly else setup_problems(self.specs, pdfs)
        if problems:
            raise ValueError("\n".join(problems))
        self.pages = PageEvaluation(options.repeat, options.parse_concurrency)
        self.notes += self.pages.notes
        root = home_dir(config)
        self.cache_dir = Path(options.parse_cache or root / ".tablebench-cache")
        use_render_cache(self.cache_dir)  # formula renders beside the parses, not in the working folder
        # the judge stays on with a cache it cannot write, and the header says so (every process probes)
        self.judge_cache_note = cache_note(self.cache_dir) if options.judge and not config.option.collectonly else ""
        self.report_dir = Path(options.report_dir or run_folder(root / "reports", list(self.specs)))
        if options.save_baseline:
            check_writable(options.save_baseline, "--save-baseline")
        check_writable(self.report_dir, "--report-dir", folder=True)
        self._claim: Any = None  # the report folder's run lock (a FileLock): the controller of a run holds it
        if not self.is_worker and not (config.option.collectonly or getattr(config.option, "help", False)):
            if not options.report_dir:  # the default name has second resolution: another run may have it
                self.report_dir = new_folder(self.report_dir)
            self._claim = claim_folder(self.report_dir, "--report-dir")
        self.policy = FinishPolicy(
            report_dir=self.report_dir, save_baseline=options.save_baseline, allow_incomplete=options.allow_incomplete,
            parsers=self.parsers, save_anyway=options.save_baseline_anyway, case_set=self.case_set,
            metrics=self.metrics, crop_folder=options.report_crops == "folder",
            update_meta=lambda meta, results: config.hook.pytest_tablebench_update_meta(
                config=config, meta=meta, results=results))
        self.gate = GateStep(config, self.decider, self.completeness)
        self.started = datetime.now(UTC).isoformat(timespec="seconds")
        self._pages: dict[tuple[str, str], list[ItemResult]] = {}
        self._served: dict[tuple[str, str], set[tuple[str, int]]] = {}  # the items of each page handed out
        self._parsed: dict[str, Page] = {}  # the pages whose ground truth was parsed last, oldest first
        self.results: dict[str, ItemResult] = {}  # case id -> result without its texts (`slim`), from reports
        self.stream = ResultStream(self.report_dir / STREAM_FILE)  # the full results, on disk as they arrive
        self.final: list[ItemResult] | None = None  # the results without their texts at the end, in run order
        self.facts = SharedFacts()
        self.end: RunEnd | None = None  # what finish_run did
        self.unwritable = ""  # why results.jsonl could not be written (a full disk): the run stopped
        self._case_items: dict[str, tuple[Page, str, str, int]] | None = None
        self.expected: list[str] | None = None  # case ids collected for this run (after deselection)
        self.stop_reason = ""  # why the run ended early, set by the end of the session
        self.progress = ProgressLine(config)  # the pages said as they are done
        self.page_stop = PageStop(config, options.max_page_failures)
        self._held: list[Any] = []  # failed reports kept out of pytest's short summary (`hold_case_lines`)

    def _check_scored(self, option: str, named: list[tuple[str, str]]) -> None:
        """Each (label, metric) of `option` names a score of the selected metrics, or a one-line
        error; a name no metric scores says so, with the closest score's name."""
        groups = [*self.metrics, *(["judge"] if self.options.judge else [])]
        for label, name in named:
            if not any(name == g or name.startswith(g + "_") for g in groups):
                unknown = ""
                if kind_of_score(name) is None and name not in groups:
                    scores = list(dict.fromkeys(s for g in [*groups, *(m.name for m in all_specs())]
                                              for s in scores_of(g)))
                    close = difflib.get_close_matches(name, scores, n=1)
                    unknown = f"unknown metric {name!r}" + (f" (did you mean {close[0]}?)" if close else "") + ": "
                raise ValueError(f"{option} {label}: {unknown}not a score of the selected metrics "
                                 f"({', '.join(groups)})")

    def _baseline(self, path: str | None) -> Baseline | None:
        """The --baseline file, checked against this run's cases (no match at all is a usage error)."""
        if not path:
            return None
        baseline = load_baseline(path)
        ids = [case_id(page.set_name, page.page_id, gt.index, label, kind)
               for page in self.cases.pages for kind in self.cases.kinds
               for gt in page.items_of(kind) for label in self.options.parsers]
        self.notes += baseline_notes(baseline, ids, parsers=self.parsers, case_set=self.case_set, metrics=self.metrics)
        return baseline

    def _extra_metrics(self) -> tuple[MetricSpec, ...]:
        """The metric specs `pytest_tablebench_add_metrics` implementations return, registered with
        `tablebench.core.metric_specs` (in every process: workers run this too) so `--metrics` may
        name them and they score like built-ins."""
        answers = self.config.hook.pytest_tablebench_add_metrics(config=self.config)
        bad = next((a for a in answers if not isinstance(a, Iterable) or isinstance(a, (str, bytes))), None)
        if bad is not None:
            raise ValueError(f"pytest_tablebench_add_metrics: return a list of metric specs, got {bad!r}")
        specs = tuple(spec for answer in answers for spec in answer)
        for spec in specs:
            if not isinstance(spec, MetricSpec):
                raise ValueError(f"pytest_tablebench_add_metrics: expected tablebench.core.metric_specs.MetricSpec, "
                                 f"got {spec!r}")
            register_metric(spec)
        return specs

    @property
    def is_worker(self) -> bool:
        return hasattr(self.config, "workerinput")

    # -- collection ---------------------------------------------------------------------------
    def header_lines(self) -> list[str]:
        lines = [case_set_line(self.cases, self.verified),
                 f"tablebench: parsers {', '.join(self.specs)}"]
        lines += [f"tablebench: parser {label}: pages not cached across runs: {why} ({DECLARE})"
                  for label, why in self.uncached.items()]
        lines += [self.judge_cache_note] if self.judge_cache_note else []
        return lines + [n for n in self.notes if " entries match " in n]

    def add_case_set(self, collector: pytest.Collector, report: pytest.CollectReport) -> pytest.CollectReport:
        """The session's collection report, with the case set appended to what it collected."""
        if isinstance(collector, pytest.Session) and report.passed:
            report.result.append(CaseSetCollector.from_parent(
                collector, name=self.cases.name, nodeid=self.cases.name, path=self.cases.root, bench=self))
        return report

    def select(self, items: list[pytest.Item]) -> None:
        """The cases named on the command line, if any; --shard: deselect the items of pages outside this shard."""
        if self.case_args:
            select_cases(items, self.case_args, self.config)
        if self.shard is not None:
            self.shard.deselect(items, self.config)

    def remember_order(self, items: list[pytest.Item]) -> None:
        """The collection order: what the look-ahead follows outside an xdist worker; and the
        items this run was asked for (after -k, -m and --shard), what its completeness counts."""
        self.pages.remember_order(items)
        self.collected([item.nodeid for item in items])

    def collected(self, nodeids: list[str]) -> None:
        """The run's benchmark items, as case ids, from the collection (here, or an xdist worker's);
        none under --collect-only, which is asked to list items, not to finish them (so no INCOMPLETE)."""
        if self.expected is None and self.config.option.collectonly:
            self.expected = []
        if self.expected is None:
            cases = self.case_items()
            self.expected = [case_id(page.set_name, page.page_id, index, label, kind)
                             for page, label, kind, index in (cases[n] for n in nodeids if n in cases)]
            pages = {n: (cases[n][1], cases[n][0].page_id) for n in nodeids if n in cases}
            self.progress.start(pages, alone=len(pages) == len(nodeids))

    def completeness(self, reason: str = "") -> Completeness:
        """What this run was asked for against what it finished (unknown before collection ended)."""
        return measure(self.expected or [], self.results, reason,
                       crashed=crashed_count(r.message for r in self.results.values()))

    # -- running ----------------------------------------------------------------------------
    def before_item(self, item: pytest.Item) -> None:
        """--parse-concurrency: keep the next pages this process will run queued for parsing."""
        if hasattr(item, "gt"):
            self.pages.look_ahead(item, self.specs, self.cache_dir, self.options.parse_timeout,
                                  self.options.parse_refresh)

    def result(self, label: str, page: Page, index: int, kind: str) -> ItemResult:
        """The page's results, evaluated once per process (the parse cache spans processes); a page
        whose evaluation raised gives every table an `error` result with the reason."""
        key = (label, page.page_id)
        if key not in self._pages:
            spec, o = self.specs[label], self.options
            try:
                self._pages[key] = self.pages.evaluate(
                    page, spec, self.metrics, cache_dir=self.cache_dir, timeout=o.parse_timeout, judge=o.judge,
                    judge_options=judge_options(o), judge_page_timeout=o.judge_page_timeout, locator=o.locator,
                    locator_model=o.locator_model, refresh=o.parse_refresh, label=label)
            except Exception as exc:  # noqa: BLE001 — every table of the page shows the same error
                self._pages[key] = page_error_results(page, spec, exc, label=label)
        results = self._pages[key]
        served = self._served.setdefault(key, set())
        served.add((kind, index))
        found = next(r for r in results if r.kind == kind and r.index == index)
        if len(served) >= len(results):  # the page's last item: its results leave with the reports
            del self._pages[key], self._served[key]
            self._page_done(page)
        return found

    def _page_done(self, page: Page) -> None:
        """A page's parsed ground truth stays while it is among the last `KEEP_PARSED` pages done
        here (another parser's items of it come soon after, and need not parse it again), then goes."""
        self._parsed.pop(page.page_id, None)
        self._parsed[page.page_id] = page
        while len(self._parsed) > KEEP_PARSED:
            self._parsed.pop(next(iter(self._parsed))).forget_parsed()

    def record(self, report: pytest.TestReport) -> None:
        """Keep the result a call report carries (from this process or an xdist worker): in the
        controller, its JSON to the stream and the result without its texts in memory (counted
        for the progress line and --max-page-failures); the report (which pytest's terminal
        keeps to the end) drops the JSON once read. A worker keeps nothing: xdist sent the
        report before this trylast hook, so the JSON goes at once."""
        if self.is_worker:
            if hasattr(report, RESULT_ATTR):
                delattr(report, RESULT_ATTR)
            return
        self.facts.share(report)  # what a case's three reports repeat, once (pytest keeps them to the end)
        result = reported_result(report)
        if result is None:
            return
        try:
            self.stream.add(result.test_id, getattr(report, RESULT_ATTR))
        except OSError as exc:  # a full disk: stop here, with what was written whole
            self.unwritable = f"results not written to {self.stream.path}: {exc.strerror or exc}"
            pytest.exit(f"tablebench: {self.unwritable} (the run stops; the {len(self.stream)} results "
                        "before it are kept whole)")
        delattr(report, RESULT_ATTR)
        self.results[result.test_id] = slim(result)
        self.progress.add(report.nodeid, result.outcome)
        self.page_stop.add(self.results[result.test_id])

    def case_items(self) -> dict[str, tuple[Page, str, str, int]]:
        """nodeid -> (page, label, kind, index) of every benchmark item the case set can give (as
        `tablebench.plugin.nodes` names them): what the controller knows of items it never collects."""
        if self._case_items is None:
            self._case_items = {
                f"{self.cases.name}/{page.page_id}::{item_name(kind, gt.index)}[{label}]": (page, label, kind, gt.index)
                for page in self.cases.pages if page.n_items for label in self.specs
                for kind in item_kinds.names() for gt in page.items_of(kind)}
        return self._case_items

    def crashed(self, crashitem: str, report: pytest.TestReport, sched: Any) -> None:
        """A lost xdist worker: its item and the rest of its page become `error` ("worker crashed")."""
        def result_of(nodeid: str, reason: str) -> ItemResult | None:
            item = self.case_items().get(nodeid)
            if item is None:
                return None
            page, label, kind, index = item
            return lost_result(page, self.specs[label], label, kind, index, reason)

        handle_crash(self.config, crashitem, report, sched, result_of)

    def test_loop(self, session: pytest.Session) -> Generator[None, Any, Any]:
        """The body of the `pytest_runtestloop` wrapper: the loop (stopped by --max-page-failures),
        then the aggregate gate."""
        return (yield from self.page_stop.around_loop(
            session, self.gate.around_loop(session, lambda: list(self.results.values()))))

    # -- the end ----------------------------------------------------------------------------
    def release(self) -> None:
        """Let another run have the report folder (pytest's end, whatever ended the session)."""
        if self._claim is not None:
            self._claim.release()
            self._claim = None

    def finish(self, session: pytest.Session, exitstatus: int) -> None:
        """Close the parser pools; in the controller, the run's decisions (`decide_run`), then its
        report files and baseline (`finish_run`).
        A file not written is one line on stderr and a non-zero exit; the rest is still written."""
        close_default_pool()
        self.pages.close()
        if self.is_worker:
            return
        self.progress.close()
        self.stop_reason = (f"stopped: {self.unwritable}" if self.unwritable else
                            self.page_stop.reason or stop_reason(session, exitstatus))
        if not self.results:
            self.stream.close()
            return
        results = self.final = self.sorted_results()  # the texts stay on disk: results.json reads them one by one
        workers_stopped = stop_workers(self.config)  # their exit overlaps the report files
        try:
            meta = self.meta(results)
            decisions = decide_run(results, self.decider, of_meta(meta, len(results)), self.gate.comparisons)
            self.end = finish_run(FullResults(results, self.stream.read), meta, self.policy, decisions)
        finally:
            self.stream.close()
            workers_stopped()
        self.notes += self.end.notes
        if not self.options.report_dir:  # a default folder: reports/latest names it, the oldest go
            try:
                removed = keep_newest(self.report_dir.parent, self.report_dir, self.options.report_keep)
            except OSError as exc:
                self.notes.append(f"tablebench reports: {self.report_dir.parent}: not tidied ({exc.strerror or exc})")
            else:
                if removed:
                    self.notes.append(f"tablebench reports: removed {len(removed)} older run folders (the newest "
                                      f"{self.options.report_keep} stay: --report-keep)")
        for line in self.end.errors:
            print(line, file=sys.stderr)
        if self.end.errors and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def hold_case_lines(self, terminalreporter: Any) -> None:
        """Before pytest's short test summary: the benchmark's failed cases leave it (one line per
        cause follows instead, `write_summary`), unless the command line asked for them with -r."""
        if self.is_worker:
            return
        from tablebench.plugin import summary

        if not summary.wants_case_lines(self.config):
            self._held = summary.hold_case_lines(terminalreporter, self.results)

    def write_summary(self, terminalreporter: Any) -> None:
        """The leaderboard with each parser's verdict counts and the run's notes, the failures by
        cause, then the repeats and the gate's verdict, last."""
        if self.is_worker:
            return
        from tablebench.plugin import summary  # rich and the renderers: the controller's alone, not every worker's

        summary.give_back(terminalreporter, self._held)  # pytest's last line counts every failed test
        self._held = []
        results = self.final if self.final is not None else self.sorted_results()
        comparisons = self.end.comparisons if self.end is not None else self.gate.comparisons
        if results:
            summary.write_run(terminalreporter, results, cases=self.cases, verified=self.verified,
                              notes=self.notes, report_dir=self.report_dir, end=self.end, comparisons=comparisons)
            summary.write_failures(terminalreporter, results, {"case_set_path": str(self.cases.root)})
        summary.write_ci(terminalreporter, results, self.options.repeat, self.gate,
                         self.completeness(self.stop_reason) if self.expected is not None else None)

    def sorted_results(self) -> list[ItemResult]:
        """Results in collection order whatever order xdist finished them in."""
        return run_order(self.results.values(), list(self.specs))

    def meta(self, results: list[ItemResult]) -> dict:
        """The run's facts for every report file (only the ones that are set); `finish_run` adds the gate's."""
        o = self.options
        facts = {"timestamp": self.started, "command": shlex.join(["pytest", *self.config.invocation_params.args]),
                 "version": __version__, "case_set": self.cases.name, "case_set_path": str(self.cases.root),
                 "case_set_manifest_sha256": self.case_set["manifest_sha256"],
                 "case_set_verified": self.verified if self.cases.kind == "tablebench" else None,
                 "parsers": list(self.specs),
                 "parser_specs": {k: v for k, v in self.specs.items() if k != v} or None,
                 "metrics": self.metrics, "extra_metrics": [spec.name for spec in self.extra_metrics],
                 "judge": o.judge,
                 **{k: v for k, v in run_counts(results).items() if k != "parsers"},  # every kind's, and "cases"
                 "parse_cache": cache_summary(results),
                 "locator": o.locator if o.locator != "offline" else None,
                 "parse_timeout": o.parse_timeout, "min_scores": dict(o.min_scores),
                 "baseline": o.baseline,
                 "report_only": True if o.report_only else None,
                 "finished": datetime.now(UTC).isoformat(timespec="seconds"),
                 # what a merge checks, and how this job was run
                 "case_set_fingerprint": fingerprint(p for p in self.cases.pages if p.n_items),
                 "parser_versions": {k: v.get("version") for k, v in self.parsers.items()},
                 "repeat": o.repeat if o.repeat > 1 else None,
                 "completeness": self.completeness(self.stop_reason).to_dict() if self.expected is not None else None,
                 **(self.shard.meta() if self.shard else {})}
        return {k: v for k, v in facts.items() if v not in (None, {}, [])}

