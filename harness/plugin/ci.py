"""The plugin's CI options: aggregate gate, repeats, shards, parse look-ahead.

`harness.plugin.hooks` registers `CIPlugin` next to its `BenchSession` when `--parser` is given;
the work is in `harness.gating.aggregate` (statistics), `harness.cases.shard` (which pages), `harness.evaluate.repeat`
(K parses per page) and `harness.parse.prefetch` (N parses in flight).

How a gate reaches every output: after the last table is reported (in the controller under
xdist, where every worker's results arrive), each `--gate` is evaluated and logged as a test
of its own, `tablebench::gate[METRIC]`, through the ordinary report hooks. So it counts in the
session's outcome (a failing gate fails the run, exit code 1), shows in the short summary and
in junit XML as a testcase like any other, and its lines go into the report's meta and a
`gate.json` beside results.json.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from harness.gating.aggregate import Comparison, GateSpec
    from harness.core.results import TableResult

GATE_NODE = "tablebench::gate"


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("tablebench")
    group.addoption("--gate", dest="tb_gates", action="append", default=[], metavar="METRIC[:SUBSET]",
                    help="fail the run when METRIC dropped against --baseline on the tables both have, by more "
                         "than --gate-min-effect and significantly (paired permutation test, --gate-alpha); "
                         "SUBSET is a complexity or KEY=VALUE. Repeatable; improvements are reported too.")
    group.addoption("--gate-min-effect", dest="tb_gate_min_effect", default="0.01", metavar="X",
                    help="smallest mean drop that fails a gate, on the 0-1 scale (x10 for semantic/judge; "
                         "default %(default)s).")
    group.addoption("--gate-alpha", dest="tb_gate_alpha", default="0.05", metavar="P",
                    help="significance level of the gate's one-sided test (default %(default)s).")
    group.addoption("--baseline-per-table", dest="tb_baseline_per_table", choices=("on", "off"), default="on",
                    help="fail single tables that regressed against --baseline (default on; off: only the "
                         "aggregate --gate decides, for noisy parsers).")
    group.addoption("--repeat", dest="tb_repeat", default="1", metavar="K",
                    help="parse every page K times (stochastic parsers): scores are per-table means, the "
                         "report shows per-table spread, the gate compares the means (default 1).")
    group.addoption("--shard", dest="tb_shard", default=None, metavar="I/N",
                    help="run shard I of N: a deterministic share of the pages balanced by table count "
                         "(merge the shards with `tablebench report merge`).")
    group.addoption("--parse-concurrency", dest="tb_parse_concurrency", default="1", metavar="N",
                    help="parse up to N upcoming pages at once in each process (for parsers behind a model "
                         "server, e.g. vlm: with --llm-api-base; default 1).")


def _positive_int(option: str, text: str) -> int:
    try:
        value = int(str(text).strip())
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"{option} must be a positive integer, got {text!r}")
    return value


class CIPlugin:
    """Options and hooks of the CI features for one session (one per process)."""

    def __init__(self, config: pytest.Config, bench: Any) -> None:
        from harness.gating.aggregate import parse_fraction, parse_gate
        from harness.parse.prefetch import ParsePool
        from harness.cases.shard import parse_shard

        self.config, self.bench = config, bench
        self.gates: list[GateSpec] = [parse_gate(g) for g in config.getoption("tb_gates")]
        self.gate_skipped = False  # the session stopped early (-x / --maxfail): the gate could not run
        self.min_effect = parse_fraction("--gate-min-effect", config.getoption("tb_gate_min_effect"), upper=1.0)
        self.alpha = parse_fraction("--gate-alpha", config.getoption("tb_gate_alpha"), upper=0.5, positive=True)
        self.per_table = config.getoption("tb_baseline_per_table") != "off"
        if not self.per_table:  # no single table fails against the baseline; known failures stay known
            bench.gate.tolerance = math.inf
        self.repeat = _positive_int("--repeat", config.getoption("tb_repeat"))
        shard = config.getoption("tb_shard")
        self.shard = parse_shard(shard) if shard else None
        self.shard_pages: set[str] | None = None
        if self.shard:
            from harness.cases.shard import select

            pages = [p for p in bench.cases.pages if p.n_items]
            self.shard_pages = select({p.page_id: p.n_items for p in pages}, *self.shard)
            if not self.shard_pages:
                raise ValueError(f"--shard {shard}: this shard holds none of the case set's {len(pages)} pages "
                                 "(use fewer shards)")
        self.concurrency = _positive_int("--parse-concurrency", config.getoption("tb_parse_concurrency"))
        if self.gates and not config.getoption("tb_baseline"):
            raise ValueError("--gate needs --baseline FILE (the run to compare with)")
        groups = [*bench.metrics, *(["judge"] if bench.judge else [])]
        for gate in self.gates:
            if not any(gate.metric == g or gate.metric.startswith(g + "_") for g in groups):
                raise ValueError(f"--gate {gate.label}: not a score of the selected metrics ({', '.join(groups)})")
        self.pool = ParsePool(self.concurrency)
        _vlm_endpoint(bench, config.getoption("tb_judge_api_base"))
        self.comparisons: list[Comparison] = []
        self._order: dict[str, int] = {}

    @property
    def is_worker(self) -> bool:
        return hasattr(self.config, "workerinput")

    # -- what BenchSession uses ------------------------------------------------------------------
    def evaluate(self, page: Any, spec: str, metrics: Any, **options: Any) -> list[TableResult]:
        """`harness.evaluate.page.evaluate_page` with --repeat and the look-ahead pool."""
        from harness.evaluate.repeat import evaluate_repeated

        options.pop("pool", None)
        return evaluate_repeated(page, spec, metrics, repeat=self.repeat, pool=self.pool, **options)

    def meta(self) -> dict:
        """Facts for the report: what a merge checks and what the gate said."""
        from harness.cases.shard import fingerprint

        facts: dict[str, Any] = {"case_set_fingerprint": fingerprint(p for p in self.bench.cases.pages if p.n_items),
                                 "parser_versions": {k: v.get("version") for k, v in self.bench.parsers.items()}}
        if self.repeat > 1:
            facts["repeat"] = self.repeat
        if self.shard:
            facts["shard"] = f"{self.shard[0]}/{self.shard[1]}"
            facts["shard_pages"] = len(self.shard_pages or ())
        if self.comparisons:
            from harness.gating.aggregate import summary_lines

            facts["gate"] = summary_lines(self.comparisons)
        return facts

    # -- hooks -----------------------------------------------------------------------------------
    def pytest_collection_modifyitems(self, session: pytest.Session, config: pytest.Config,
                                      items: list[pytest.Item]) -> None:
        """--shard: deselect the tables of pages outside this shard (the harness's own tests stay)."""
        if self.shard_pages is None:
            return
        keep, drop = [], []
        for item in items:
            page = getattr(item, "page", None)
            (drop if page is not None and hasattr(item, "gt") and page.page_id not in self.shard_pages
             else keep).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self._order = {item.nodeid: i for i, item in enumerate(session.items)}

    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        """--parse-concurrency: keep the next pages this process will run queued for parsing."""
        if self.concurrency > 1 and hasattr(item, "gt"):
            self._look_ahead(item)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Iterator[None]:
        try:
            result = yield
        except (session.Failed, session.Interrupted):  # -x / --maxfail: the loop stopped, not every table was scored
            self.gate_skipped = bool(self.gates)
            raise
        if self.gates and not self.is_worker:
            if session.shouldfail or session.shouldstop:
                self.gate_skipped = True
            else:
                self.run_gates(session)
        return result

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.pool.close()
        written = getattr(self.bench, "written", {})
        if self.comparisons and not self.is_worker and "json" in written:
            path = Path(written["json"]).with_name("gate.json")
            from harness.core.files import write_atomic

            try:
                written["gate"] = write_atomic(path, json.dumps([c.to_dict() for c in self.comparisons], indent=1,
                                                                default=_json_number) + "\n")
            except OSError:
                pass

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> Iterator[None]:
        """The gate's verdict is the last block of the output (after the leaderboard: this
        wrapper is registered after the benchmark's, so it finishes last)."""
        yield
        if self.is_worker:
            return
        if self.repeat > 1 and self.bench.results:
            terminalreporter.write_line(f"tablebench repeats: {repeat_summary(list(self.bench.results.values()))}")
        if self.gate_skipped:
            terminalreporter.write_line("tablebench gate: not run: the session stopped early (-x / --maxfail), "
                                        "and the gate compares every table", yellow=True, bold=True)
        if not self.comparisons:
            return
        failed = [c for c in self.comparisons if c.failed]
        terminalreporter.section("tablebench gate", red=bool(failed), green=not failed, bold=True)
        for comparison in sorted(self.comparisons, key=lambda c: not c.gating):
            text = ("  " if not comparison.gating else "") + comparison.line()
            terminalreporter.write_line(text, red=comparison.failed, green=comparison.verdict == "improvement")
        verdict = (f"gate FAILED: {len(failed)} of {sum(c.gating for c in self.comparisons)} gated comparisons "
                   "regressed" if failed else "gate passed: no significant regression beyond the minimum effect")
        terminalreporter.write_line(verdict, red=bool(failed), green=not failed, bold=True)

    # -- the gate ----------------------------------------------------------------------------------
    def run_gates(self, session: pytest.Session) -> None:
        """Evaluate every --gate on the collected results and log each as a test report."""
        from harness.gating.aggregate import evaluate, gate_pairs
        from harness.core.metric_specs import scales

        started = time.perf_counter()
        results = list(self.bench.results.values())
        pairs = gate_pairs(results, self.baseline_scores)
        from harness.evaluate.repeat import sd_of

        run_sd = {(r.parser, r.test_id): sd_of(r) for r in results if sd_of(r)}
        self.comparisons = evaluate(pairs, self.gates, min_effect=self.min_effect, alpha=self.alpha,
                                    scale=scales(), run_sd=run_sd, groups=list(self.bench.labels))
        seconds = time.perf_counter() - started
        session.testscollected += len(self.gates)  # the gates are tests of this session too (progress %)
        for gate in self.gates:
            rows = [c for c in self.comparisons if c.gating and c.label == gate.label]
            log_gate_report(self.config, gate.label, rows, seconds / max(1, len(self.gates)))

    def baseline_scores(self, result: TableResult) -> dict[str, float] | None:
        """The baseline entry of a run's case ({} for a case the baseline had as not found), or None."""
        from harness.gating.aggregate import baseline_values

        return baseline_values(self.bench.gate.baseline, result)

    def _look_ahead(self, item: pytest.Item) -> None:
        upcoming = _upcoming_items(item, self._order)
        jobs: list[tuple[str, Any, int]] = []
        seen: set[tuple[str, str]] = set()
        for nxt in upcoming:
            page, label = getattr(nxt, "page", None), getattr(nxt, "label", None)
            spec = self.bench.labels.get(label) if label is not None else None
            if page is None or spec is None or (spec, page.page_id) in seen:
                continue
            seen.add((spec, page.page_id))
            jobs += [(spec, page.pdf, r) for r in range(self.repeat)]
            if len(seen) >= 2 * self.concurrency:
                break
        self.pool.prefetch(jobs, self.bench.cache_dir, self.bench.timeout, bool(self.config.getoption("tb_refresh")))


def _vlm_endpoint(bench: Any, api_base: str | None) -> None:
    """`--llm-api-base URL` also serves `vlm:` parsers whose spec names no `api_base`: the URL
    is added to the spec they run with, while their label (test ids, baselines) stays as given."""
    if not api_base:
        return
    from urllib.parse import quote

    from harness.parse.registry import resolve

    for label, spec in list(bench.labels.items()):
        if spec.startswith("vlm:") and "api_base=" not in spec:
            served = f"{spec}{'&' if '?' in spec else '?'}api_base={quote(api_base, safe='')}"
            resolve(served)  # a bad URL is a usage error now, not a failed page later
            bench.labels[label] = served
            if label in getattr(bench, "parsers", {}):
                bench.parsers[label]["spec"] = served


def repeat_summary(results: list[TableResult]) -> str:
    """'3 parses per page; per-table sd (mean over tables): teds 0.012, grits_con 0.010'."""
    from harness.evaluate.repeat import sd_of

    k = max((int((r.extra.get("repeat") or {}).get("k", 1)) for r in results), default=1)
    sds: dict[str, list[float]] = {}
    for r in results:
        for metric, sd in sd_of(r).items():
            sds.setdefault(metric, []).append(sd)
    spread = ", ".join(f"{m} {sum(v) / len(v):.3f}" for m, v in sds.items())
    return f"{k} parses per page; per-table sd (mean over tables): {spread or 'none'}"


def _json_number(value: Any) -> Any:
    return None if isinstance(value, float) and not math.isfinite(value) else str(value)


def _upcoming_items(item: pytest.Item, order: dict[str, int]) -> list[pytest.Item]:
    """The items this process runs from `item` on: xdist's queue on a worker, else collection order."""
    items = item.session.items
    queue = _xdist_queue(item.config)
    if queue is not None:
        return [item, *(items[i] for i in queue if isinstance(i, int) and 0 <= i < len(items))]
    start = order.get(item.nodeid, 0)
    return items[start:]


def _xdist_queue(config: pytest.Config) -> list[int] | None:
    """The test indices queued on this xdist worker (None when not a worker, or xdist changed)."""
    if not hasattr(config, "workerinput"):
        return None
    for plugin in config.pluginmanager.get_plugins():
        torun = getattr(plugin, "torun", None)
        if type(plugin).__name__ == "WorkerInteractor" and torun is not None:
            try:
                with torun.lock() as queue:
                    return list(queue)
            except Exception:  # noqa: BLE001 -- a private structure: without it, no look-ahead
                return None
    return None


def log_gate_report(config: pytest.Config, label: str, rows: list[Comparison], seconds: float) -> None:
    """Log one gate as a test `tablebench::gate[LABEL]`: terminal, junit XML and the exit status see it."""
    from _pytest.reports import TestReport

    nodeid = f"{GATE_NODE}[{label}]"
    location = ("tablebench", None, f"gate[{label}]")
    failed = [c for c in rows if c.failed]
    message = "; ".join(c.line() for c in failed) if failed else None
    props = [("gate", json.dumps([c.to_dict() for c in rows], default=_json_number))]
    config.hook.pytest_runtest_logstart(nodeid=nodeid, location=location)
    for when, outcome, longrepr, duration in (("setup", "passed", None, 0.0),
                                              ("call", "failed" if failed else "passed", message, seconds),
                                              ("teardown", "passed", None, 0.0)):
        report = TestReport(nodeid=nodeid, location=location, keywords={"tablebench": 1}, outcome=outcome,
                            longrepr=longrepr, when=when, duration=duration,
                            user_properties=props if when == "teardown" else [],
                            sections=[("tablebench gate", "\n".join(c.line() for c in rows))] if when == "call" else [])
        config.hook.pytest_runtest_logreport(report=report)
    # no pytest_runtest_logfinish: the terminal's progress counts collected items, which this is not
