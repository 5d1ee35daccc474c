"""One benchmark step for one page: parse (cached, isolated) -> locate -> score -> TableResults.

No pytest here: the plugin, the CLI and plain Python all call `evaluate_page`. A parser
failure (error / timeout / empty output) becomes that outcome for every table of the page;
a table the locator cannot find is "missing"; only located tables are scored.

Parser worker processes are expensive to start (a parser imports its library once per
worker), so runners are kept in a `RunnerPool` and reused page after page; the module's
default pool is closed at interpreter exit, callers that care close it earlier.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from harness.cases import Page
from harness.metrics.registry import parse_metric_list, score
from harness.parse import DEFAULT_TIMEOUT, ParseResult, ParseRunner, one_line
from harness.results import TableResult

# harness.parse outcome -> TableResult outcome for every table of the page
PARSE_OUTCOMES = {"error": "parse_error", "timeout": "timeout", "empty": "empty"}


class RunnerPool:
    """Live `ParseRunner`s keyed by (parser spec, cache dir, timeout): one worker per parser."""

    def __init__(self) -> None:
        self._runners: dict[tuple[str, str | None, float, bool], ParseRunner] = {}
        self._lock = threading.Lock()

    def get(self, spec: str, cache_dir: Path | str | None, timeout: float, refresh: bool = False) -> ParseRunner:
        key = (spec, None if cache_dir is None else str(cache_dir), float(timeout), refresh)
        with self._lock:
            runner = self._runners.get(key)
            if runner is None:
                runner = self._runners[key] = ParseRunner(spec, cache_dir, timeout, refresh=refresh)
            return runner

    def close(self) -> None:
        """Stop every worker process this pool started."""
        with self._lock:
            runners, self._runners = list(self._runners.values()), {}
        for runner in runners:
            runner.close()


DEFAULT_POOL = RunnerPool()
atexit.register(DEFAULT_POOL.close)


def evaluate_page(
    page: Page,
    parser_spec: str,
    metrics: Iterable[str] | str | None,
    *,
    cache_dir: Path | str | None,
    timeout: float = DEFAULT_TIMEOUT,
    judge: str | None = None,
    judge_options: dict[str, Any] | None = None,
    locator: str = "offline",
    locator_model: str | None = None,
    refresh: bool = False,
    pool: RunnerPool | None = None,
) -> list[TableResult]:
    """One TableResult per ground-truth table of `page`, in page order.

    `metrics` are registry group names (None: every offline metric); `judge` is a litellm
    model string scored into `scores["judge"]` for located tables (0 for missing ones,
    without a call), its answers cached under `cache_dir/judge`; `judge_options` go to
    `harness.judge.judge_table` (api_base, variant, ...). `locator="llm"` finds the tables
    with `locator_model` (`harness.locate_llm`: spans re-found literally in the output, the
    offline locator as fallback; answers cached under `cache_dir/locate`). `refresh` parses
    again even when the parse cache holds a result.
    """
    names = parse_metric_list(metrics)
    judge_fn = load_judge() if judge else None
    parsed = (pool or DEFAULT_POOL).get(parser_spec, cache_dir, timeout, refresh).run(page.pdf)
    base = _base_results(page, parser_spec, parsed)
    if parsed.outcome != "ok":
        outcome = PARSE_OUTCOMES.get(parsed.outcome, "parse_error")
        message = f"{outcome}: {parsed.message or 'no message'}"
        for r in base:
            r.outcome, r.message = outcome, message
            if judge_fn is not None:
                r.scores["judge"] = 0.0  # nothing to judge: 0 without a call, as for a missing table
        return base
    if not base:
        return base
    options = dict(judge_options or {})
    located = sorted(_locate(page, parsed.text, locator, locator_model, cache_dir, options), key=lambda loc: loc.gt_index)
    if [loc.gt_index for loc in located] != list(range(len(base))):
        raise RuntimeError(f"locator returned indices {[loc.gt_index for loc in located]} for "
                           f"{len(base)} ground-truth tables of {page.set_name}/{page.page_id}")
    if cache_dir is not None:
        options.setdefault("cache_dir", Path(cache_dir) / "judge")
    for result, gt, loc in zip(base, page.tables, located):
        _fill(result, gt.table, loc, names)
        if judge_fn is not None:
            _judge(result, lambda latex, text: judge_fn(latex, text, judge, **options), gt.latex)
    return base


def _locate(page: Page, text: str, locator: str, model: str | None, cache_dir: Path | str | None,
            llm_options: dict[str, Any]) -> list[Any]:
    """The page's tables found in the parser output, offline (default) or by an LLM."""
    gt_tables = [t.table for t in page.tables]
    if locator == "offline":
        from harness.locate import locate_tables

        return locate_tables(gt_tables, text)
    if locator != "llm" or not model:
        raise ValueError(f"locator {locator!r} needs to be 'offline' or 'llm' with a model")
    from harness.locate_llm import locate_tables_llm

    options = {k: v for k, v in llm_options.items() if k in ("api_base",)}
    return locate_tables_llm([t.latex for t in page.tables], text, model, gt_tables=gt_tables,
                             cache_dir=None if cache_dir is None else Path(cache_dir) / "locate", **options)


def _base_results(page: Page, parser_spec: str, parsed: ParseResult) -> list[TableResult]:
    seconds = float(parsed.meta.get("seconds", 0.0) or 0.0)
    cost = float(parsed.meta.get("cost", 0.0) or 0.0)
    return [
        TableResult(parser=parser_spec, case_set=page.set_name, page=page.page_id, table=gt.index,
                    complexity=gt.complexity, outcome="ok", gt_latex=gt.latex, gt_html=gt.table.to_html(headers=True),
                    parse_seconds=seconds, cost=cost, extra={"parse_cached": parsed.cached})
        for gt in page.tables
    ]


def _fill(result: TableResult, gt: Any, loc: Any, metrics: Sequence[str]) -> None:
    """Outcome, matched span and scores of one table from its `Located`."""
    result.locate_score = float(loc.score) if loc.score is not None else None
    result.message = one_line(loc.note) if loc.note else ""
    if loc.table is None:
        result.outcome = "missing"
        result.message = f"not found in parser output: {one_line(loc.note or 'no candidate')}"
        return
    result.matched_text = loc.text
    result.matched_span = list(loc.span) if loc.span is not None else None
    result.pred_html = loc.table.to_html(headers=True)
    result.scores = score(gt, loc.table, metrics)


def load_judge() -> Any:
    """`harness.judge.judge_table`, or a one-line error when this install has no judge."""
    try:
        from harness.judge import judge_table
    except ImportError as exc:
        raise RuntimeError(f"--judge needs harness.judge, which cannot be imported here ({exc})") from None
    return judge_table


def _judge(result: TableResult, ask: Any, gt_latex: str) -> None:
    """Judge a located table on 0-10; a missing one counts 0 without spending a call."""
    if result.outcome != "ok":
        result.scores["judge"] = 0.0
        return
    verdict = ask(gt_latex, result.matched_text or "")
    result.extra["judge_cost"] = float(verdict.cost or 0.0)
    result.extra["judge_cached"] = bool(verdict.cached)
    if verdict.errors:
        result.extra["judge_errors"] = list(verdict.errors)
    if verdict.score is None:
        result.extra["judge_error"] = one_line(verdict.error or "judge gave no score")
    else:
        result.scores["judge"] = float(verdict.score)
