"""One benchmark step for one page: parse (cached, isolated) -> locate -> score -> TableResults.

A page's items are its tables and its formulas (`TableResult.kind`): one parse serves both;
tables are located and scored by the table locator and registry, formulas by
`harness.locate.formulas` and `harness.metrics.formulas.registry` (`harness.metrics.select` splits `metrics`).

No pytest here: the plugin, the CLI and plain Python all call `evaluate_page`. A parser
failure (error / timeout / empty output) becomes that outcome for every table of the page;
a table the locator cannot find is "missing"; only located tables are scored.

Parser worker processes are expensive to start (a parser imports its library once per
worker), so runners are kept in a `RunnerPool` and reused page after page; the module's
default pool is closed at interpreter exit, callers that care close it earlier.
"""

from __future__ import annotations

import atexit
import math
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from harness.cases import Page
from harness.core.messages import one_line
from harness.metrics.tables.registry import parse_metric_list, score_details
from harness.parse.runner import DEFAULT_TIMEOUT, ParseResult, ParseRunner
from harness.metrics.select import split_metrics
from harness.core.results import TableResult

# harness.parse.runner outcome -> TableResult outcome for every table of the page
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
    label: str | None = None,
) -> list[TableResult]:
    """One TableResult per ground-truth table of `page`, then one per formula, each in page order.

    `metrics` are registry group names (None: every offline metric); `judge` is a litellm
    model string scored into `scores["judge"]` for located tables (0 for missing ones,
    without a call), its answers cached under `cache_dir/judge`; `judge_options` go to
    `harness.metrics.judge.judge_table` (api_base, variant, ...). `locator="llm"` finds the tables
    with `locator_model` (`harness.locate.llm`: spans re-found literally in the output, the
    offline locator as fallback; answers cached under `cache_dir/locate`). `refresh` parses
    again even when the parse cache holds a result. `label` names the parser in results
    (default: the spec).

    A table the harness cannot score (unreadable ground truth, a metric that raises) gets
    outcome "error" with a one-line reason; the other tables of the page are unaffected.
    """
    names, formula_names = split_metrics(metrics)
    names = parse_metric_list(names)
    if locator not in ("offline", "llm") or (locator == "llm" and not locator_model):
        raise ValueError(f"locator {locator!r} needs to be 'offline' or 'llm' with a model")
    judge_fn = load_judge() if judge else None
    parsed = (pool or DEFAULT_POOL).get(parser_spec, cache_dir, timeout, refresh).run(page.pdf)
    base = _base_results(page, parser_spec, label or parser_spec, parsed)
    formulas = _formula_results(page, parser_spec, label or parser_spec, parsed)
    if parsed.outcome != "ok":
        base += formulas
        outcome = PARSE_OUTCOMES.get(parsed.outcome, "parse_error")
        message = f"{outcome}: {parsed.message or 'no message'}"
        for r in base:
            if r.outcome == "ok":
                r.outcome, r.message = outcome, message
        if judge_fn is not None:
            for r in base:
                r.scores["judge"] = 0.0  # nothing to judge: 0 without a call, as for a missing table
        return base
    options = dict(judge_options or {})
    if cache_dir is not None:
        options.setdefault("cache_dir", Path(cache_dir) / "judge")
    _score_tables(page, base, parsed.text, names, locator, locator_model, cache_dir, dict(options),
                  judge if judge_fn is not None else None, judge_fn)
    if formulas:
        from harness.evaluate.formulas import score_formulas

        score_formulas(page, formulas, parsed.text, formula_names, judge=judge, judge_options=options,
                       locator=locator, locator_model=locator_model, cache_dir=cache_dir)
    return base + formulas


def _score_tables(page: Page, base: list[TableResult], text: str, names: Sequence[str], locator: str,
                  locator_model: str | None, cache_dir: Path | str | None, options: dict[str, Any],
                  judge: str | None, judge_fn: Any) -> None:
    """Locate and score the page's readable tables into `base` (the table half of `evaluate_page`)."""
    readable = [i for i, r in enumerate(base) if r.outcome == "ok"]
    if not readable:
        return
    try:
        located = _locate([page.tables[i] for i in readable], text, locator, locator_model, cache_dir, options)
        located = sorted(located, key=lambda loc: loc.gt_index)
        if [loc.gt_index for loc in located] != list(range(len(readable))):
            raise RuntimeError(f"locator returned indices {[loc.gt_index for loc in located]} "
                               f"for {len(readable)} tables")
    except Exception as exc:  # noqa: BLE001 -- a locator fault is this page's outcome, not a crash
        for i in readable:
            mark_error(base[i], f"locating failed ({describe(exc)})")
        return
    for i, loc in zip(readable, located):
        result, gt = base[i], page.tables[i]
        try:
            _fill(result, gt.table, loc, names)
        except Exception as exc:  # noqa: BLE001 -- one table's fault stays with that table
            mark_error(result, f"scoring failed ({describe(exc)})")
            continue
        if judge_fn is not None:
            try:
                _judge(result, lambda latex, text: judge_fn(latex, text, judge, **options), gt.latex)
            except Exception as exc:  # noqa: BLE001 -- keep the other scores; the judge's fault is noted
                result.extra["judge_error"] = describe(exc)


def describe(exc: BaseException) -> str:
    """'NoTableError: no LaTeX tabular ...' on one line: what a report cell can show."""
    return one_line(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__, 240)


def mark_error(result: TableResult, reason: str) -> TableResult:
    """Turn `result` into an "error" case: no scores, no match, the reason on one line."""
    result.outcome, result.message = "error", f"error: {one_line(reason)}"
    result.scores, result.semantic_errors = {}, []
    result.pred_html = result.matched_text = result.matched_span = None
    return result


def page_error_results(page: Page, parser_spec: str, exc: BaseException, label: str | None = None) -> list[TableResult]:
    """Every table and formula of `page` as an "error" case, for a page whose evaluation raised."""
    label = label or parser_spec
    items = [_table_result(page, gt, parser_spec, label) for gt in page.tables]
    items += [_formula_result(page, gt, parser_spec, label) for gt in page.formulas]
    return [mark_error(r, f"page failed ({describe(exc)})") for r in items]


def _locate(tables: Sequence[Any], text: str, locator: str, model: str | None, cache_dir: Path | str | None,
            llm_options: dict[str, Any]) -> list[Any]:
    """The given ground-truth tables found in the parser output, offline (default) or by an LLM."""
    gt_tables = [t.table for t in tables]
    if locator == "offline":
        from harness.locate.tables import locate_tables

        return locate_tables(gt_tables, text)
    from harness.locate.llm import locate_tables_llm

    options = {k: v for k, v in llm_options.items() if k in ("api_base",)}
    return locate_tables_llm([t.latex for t in tables], text, model, gt_tables=gt_tables,
                             cache_dir=None if cache_dir is None else Path(cache_dir) / "locate", **options)


def _table_result(page: Page, gt: Any, parser_spec: str, label: str) -> TableResult:
    return TableResult(parser=label, spec=parser_spec, case_set=page.set_name, page=page.page_id, table=gt.index,
                       complexity=gt.complexity, outcome="ok", gt_latex=gt.latex, gt_html=gt.stored_html or "",
                       language=page.language, variant=page.variant)


def _formula_result(page: Page, gt: Any, parser_spec: str, label: str) -> TableResult:
    return TableResult(parser=label, spec=parser_spec, case_set=page.set_name, page=page.page_id, table=gt.index,
                       complexity=gt.kind, outcome="ok", gt_latex=gt.latex, kind="formula",
                       language=page.language, variant=page.variant)


def _formula_results(page: Page, parser_spec: str, label: str, parsed: ParseResult) -> list[TableResult]:
    """A result per formula with the page's time, cost and cache flag (as `_base_results` for tables)."""
    seconds, cost = _page_number(parsed.meta.get("seconds")), _page_number(parsed.meta.get("cost"))
    out = []
    for gt in page.formulas:
        result = _formula_result(page, gt, parser_spec, label)
        result.parse_seconds, result.cost, result.extra = seconds, cost, {"parse_cached": bool(parsed.cached)}
        out.append(result)
    return out


def _base_results(page: Page, parser_spec: str, label: str, parsed: ParseResult) -> list[TableResult]:
    """A result per table with the page's time, cost and cache flag; unreadable ground truth is an error."""
    seconds = _page_number(parsed.meta.get("seconds"))
    cost = _page_number(parsed.meta.get("cost"))
    out = []
    for gt in page.tables:
        result = _table_result(page, gt, parser_spec, label)
        result.parse_seconds, result.cost, result.extra = seconds, cost, {"parse_cached": bool(parsed.cached)}
        try:
            result.gt_html = gt.table.to_html(headers=True)
        except Exception as exc:  # noqa: BLE001 -- the case set's fault: this table cannot be scored
            mark_error(result, f"ground truth unreadable ({describe(exc)})")
        out.append(result)
    return out


def _page_number(value: Any) -> float:
    """A page's seconds or cost as a finite number >= 0 (a parser's sidecar may say anything)."""
    try:
        number = float(value or 0.0)
    except (TypeError, ValueError):
        return 0.0
    return number if math.isfinite(number) and number >= 0 else 0.0


def _fill(result: TableResult, gt: Any, loc: Any, metrics: Sequence[str]) -> None:
    """Outcome, matched span and scores of one table from its `Located`."""
    result.locate_score = float(loc.score) if loc.score is not None else None
    result.message = one_line(loc.note) if loc.note else ""
    if loc.table is None:
        result.outcome = "missing"
        result.message = f"not found in parser output: {one_line(loc.note or 'no candidate')}"
        return
    scores, notes = score_details(gt, loc.table, metrics)
    result.matched_text = loc.text
    result.matched_span = list(loc.span) if loc.span is not None else None
    result.pred_html = loc.table.to_html(headers=True)
    result.scores = scores
    result.semantic_errors = [one_line(n, 200) for n in notes.get("semantic", [])]


def load_judge() -> Any:
    """`harness.metrics.judge.judge_table`, or a one-line error when this install has no judge."""
    try:
        from harness.metrics.judge import judge_table
    except ImportError as exc:
        raise RuntimeError(f"--judge needs harness.metrics.judge, which cannot be imported here ({exc})") from None
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
