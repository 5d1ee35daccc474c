"""The session's CI parts: page evaluation (--repeat, --parse-concurrency), the shard, the gate.

`tablebench.plugin.session.BenchSession` makes one of each from its `RunOptions` and calls them;
none of them reaches into the session. The work is elsewhere: `tablebench.evaluate.repeat` (K
parses per page), `tablebench.parse.prefetch` (N parses in flight), `tablebench.cases.shard` (which
pages) and `tablebench.gating.decide` (the gate's statistics against the baseline).

How a gate reaches every output: after the last item is reported (in the controller under
xdist, where every worker's results arrive), each `--gate` is evaluated and logged as a test
of its own, `tablebench::gate[METRIC]`, through the ordinary report hooks. So it counts in the
session's outcome (a failing gate fails the run, exit code 1), shows in the short summary and
in junit XML as a testcase like any other; `tablebench.report.finish.finish_run` puts its lines into
the report's meta and a `gate.json` beside results.json.
"""

from __future__ import annotations

import itertools
import json
import time
import warnings
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tablebench.cases import CaseSet, Page
from tablebench.cases.shard import select
from tablebench.core.completeness import Completeness, refusal
from tablebench.core.results import ItemResult, sd_of
from tablebench.evaluate.repeat import evaluate_repeated
from tablebench.gating.aggregate import Comparison
from tablebench.gating.decide import GatePolicy, run_gates
from tablebench.parse.prefetch import ParsePool
from tablebench.parse.registry import resolve
from tablebench.plugin.workers import XdistChanged, worker_queue
from tablebench.report.finish import json_number

GATE_NODE = "tablebench::gate"


class PageEvaluation:
    """Evaluates one (parser, page): `repeat` parses combined, parsed through a pool that keeps
    up to `concurrency` upcoming pages of this process in flight."""

    def __init__(self, repeat: int, concurrency: int) -> None:
        self.repeat, self.concurrency = repeat, concurrency
        self.pool = ParsePool(concurrency)
        self.notes = list(self.pool.notes)  # a cap on parser workers, said once in the summary
        if repeat > self.pool.keep:
            self.notes.append(f"tablebench: --repeat={repeat}: at most {self.pool.keep} parser workers per parser "
                              f"stay alive ({self.pool.cap.reason()}); the others restart per page")
        self._order: dict[str, int] = {}
        self._queue_readable = True

    def evaluate(self, page: Page, spec: str, metrics: list[str], **options: Any) -> list[ItemResult]:
        """`tablebench.evaluate.page.evaluate_page` (its options as given) with --repeat and the pool."""
        return evaluate_repeated(page, spec, metrics, repeat=self.repeat, pool=self.pool, **options)

    def remember_order(self, items: list[pytest.Item]) -> None:
        self._order = {item.nodeid: i for i, item in enumerate(items)}

    def look_ahead(self, item: pytest.Item, specs: Mapping[str, str], cache_dir: Path, timeout: float,
                   refresh: bool) -> None:
        """Keep the next pages this process will run queued for parsing (with --parse-concurrency)."""
        if self.concurrency <= 1:
            return
        jobs: list[tuple[str, Any, int]] = []
        seen: set[tuple[str, str]] = set()
        for nxt in self._upcoming(item):
            page, label = getattr(nxt, "page", None), getattr(nxt, "label", None)
            spec = specs.get(label) if label is not None else None
            if page is None or spec is None or (spec, page.page_id) in seen:
                continue
            seen.add((spec, page.page_id))
            jobs += [(spec, page.pdf, r) for r in range(self.repeat)]
            if len(seen) >= 2 * self.concurrency:
                break
        self.pool.prefetch(jobs, cache_dir, timeout, refresh)

    def _upcoming(self, item: pytest.Item) -> Iterator[pytest.Item]:
        """The items this process runs from `item` on: xdist's queue on a worker, else collection order
        (read lazily: the look-ahead stops after a few pages, the run may have 100,000 items)."""
        items = item.session.items
        queue = None
        if self._queue_readable:
            try:
                queue = worker_queue(item.config)
            except XdistChanged as exc:  # said once; the look-ahead goes on in collection order
                self._queue_readable = False
                warnings.warn(pytest.PytestWarning(f"tablebench: {exc}"), stacklevel=1)
        if queue is not None:
            return itertools.chain([item], (items[i] for i in queue if 0 <= i < len(items)))
        return (items[i] for i in range(self._order.get(item.nodeid, 0), len(items)))

    def close(self) -> None:
        self.pool.close()


@dataclass(frozen=True)
class ShardSelection:
    """`--shard=I/N`: the pages of the case set this job runs."""

    index: int
    total: int
    pages: frozenset[str]

    @classmethod
    def of(cls, shard: tuple[int, int], cases: CaseSet) -> ShardSelection:
        index, total = shard
        pages = [p for p in cases.pages if p.n_items]
        if total > len(pages):  # checked before the split, whose cost grows with the shard count
            raise ValueError(f"--shard {index}/{total}: more shards than the case set's {len(pages)} pages "
                             f"(use at most {len(pages)})")
        chosen = select({p.page_id: p.n_items for p in pages}, index, total)
        if not chosen:
            raise ValueError(f"--shard {index}/{total}: this shard holds none of the case set's {len(pages)} pages "
                             "(use fewer shards)")
        return cls(index, total, frozenset(chosen))

    def deselect(self, items: list[pytest.Item], config: pytest.Config) -> None:
        """Drop the benchmark items of pages outside this shard (the harness's own tests stay)."""
        keep, drop = [], []
        for item in items:
            page = getattr(item, "page", None)
            (drop if page is not None and hasattr(item, "gt") and page.page_id not in self.pages
             else keep).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep

    def meta(self) -> dict[str, Any]:
        return {"shard": f"{self.index}/{self.total}", "shard_pages": len(self.pages)}


class GateStep:
    """`--gate` in a pytest session: evaluated when the test loop ends, each gate logged as a test."""

    def __init__(self, config: pytest.Config, policy: GatePolicy,
                 completeness: Callable[[str], Completeness] | None = None) -> None:
        self.config, self.policy = config, policy
        self.comparisons: list[Comparison] = []
        self.skipped = False  # the session stopped early (-x / --maxfail): the gate could not run
        self.refused = ""  # the run is incomplete: the gate failed without comparing (no --allow-incomplete)
        self.completeness = completeness  # reason -> the run's completeness when the loop ended

    def around_loop(self, session: pytest.Session, results: Callable[[], list[ItemResult]],
                    ) -> Generator[None, Any, Any]:
        """The body of a `pytest_runtestloop` wrapper: the loop, then the gates (controller only)."""
        try:
            result = yield
        except (session.Failed, session.Interrupted, KeyboardInterrupt):  # -x / --maxfail / Ctrl-C: not all scored
            self.skipped = bool(self.policy.gates)
            raise
        if self.policy.gates and not hasattr(self.config, "workerinput"):
            if session.shouldfail or session.shouldstop:
                self.skipped = True
            else:
                self.run(session, results(), stop_reason(session, 0))
        return result

    def run(self, session: pytest.Session, results: list[ItemResult], reason: str = "") -> None:
        """Evaluate every --gate on the results and log each as a test report; on an incomplete
        run each gate fails with the refusal instead (unless --allow-incomplete)."""
        started = time.perf_counter()
        done = self.completeness(reason) if self.completeness is not None else None
        self.refused = (refusal(done, "gate", self.policy.allow_incomplete) or "") if done is not None else ""
        if self.refused:
            session.testscollected += len(self.policy.gates)
            for gate in self.policy.gates:
                log_gate_report(self.config, gate.label, [], 0.0, failure=self.refused)
            return
        self.comparisons = run_gates(results, self.policy)
        seconds = time.perf_counter() - started
        gates = self.policy.gates
        session.testscollected += len(gates)  # the gates are tests of this session too (progress %)
        for gate in gates:
            rows = [c for c in self.comparisons if c.gating and c.label == gate.label]
            log_gate_report(self.config, gate.label, rows, seconds / max(1, len(gates)))


def log_gate_report(config: pytest.Config, label: str, rows: list[Comparison], seconds: float,
                    failure: str = "") -> None:
    """Log one gate as a test `tablebench::gate[LABEL]`: terminal, junit XML and the exit status see it.
    `failure`: the gate fails with this line without comparing (an incomplete run)."""
    nodeid = f"{GATE_NODE}[{label}]"
    location = ("tablebench", None, f"gate[{label}]")
    failed = [c for c in rows if c.failed] or ([failure] if failure else [])
    message = (failure or "; ".join(c.line() for c in rows if c.failed)) if failed else None
    props = [("gate", json.dumps([c.to_dict() for c in rows], default=json_number))]
    config.hook.pytest_runtest_logstart(nodeid=nodeid, location=location)
    for when, outcome, longrepr, duration in (("setup", "passed", None, 0.0),
                                              ("call", "failed" if failed else "passed", message, seconds),
                                              ("teardown", "passed", None, 0.0)):
        report = pytest.TestReport(nodeid=nodeid, location=location, keywords={"tablebench": 1}, outcome=outcome,
                                   longrepr=longrepr, when=when, duration=duration,
                                   user_properties=props if when == "teardown" else [],
                                   sections=[("tablebench gate", failure or "\n".join(c.line() for c in rows))]
                                   if when == "call" else [])
        config.hook.pytest_runtest_logreport(report=report)
    # no pytest_runtest_logfinish: the terminal's progress counts collected items, which this is not


def stop_reason(session: pytest.Session, exitstatus: int) -> str:
    """Why a session ended before every item ran, as one line ('' when nothing says so)."""
    if session.shouldfail:
        return f"stopped early: {session.shouldfail} (-x / --maxfail)"
    if exitstatus == pytest.ExitCode.INTERRUPTED:
        return f"interrupted: {session.shouldstop}" if isinstance(session.shouldstop, str) else "interrupted (Ctrl-C)"
    if session.shouldstop:
        return f"stopped early: {session.shouldstop}"
    if exitstatus == pytest.ExitCode.INTERNAL_ERROR:
        return "internal error (e.g. a remote worker lost)"
    return ""


def served_specs(specs: Mapping[str, str], api_base: str | None) -> dict[str, str]:
    """label -> the spec each parser runs with: `--llm-api-base URL` also serves `vlm:` parsers
    whose spec names no `api_base` (their label, in test ids and baselines, stays as given)."""
    out = dict(specs)
    if not api_base:
        return out
    for label, spec in specs.items():
        if spec.startswith("vlm:") and "api_base=" not in spec:
            served = f"{spec}{'&' if '?' in spec else '?'}api_base={quote(api_base, safe='')}"
            resolve(served)  # a bad URL is a usage error now, not a failed page later
            out[label] = served
    return out


def repeat_summary(results: Iterable[ItemResult]) -> str:
    """'3 parses per page; per-table sd (mean over tables): teds 0.012, grits_con 0.010'."""
    results = list(results)
    k = max((int((r.repeat or {}).get("k", 1)) for r in results), default=1)
    sds: dict[str, list[float]] = {}
    for r in results:
        for metric, sd in sd_of(r).items():
            sds.setdefault(metric, []).append(sd)
    spread = ", ".join(f"{m} {sum(v) / len(v):.3f}" for m, v in sds.items())
    return f"{k} parses per page; per-table sd (mean over tables): {spread or 'none'}"
