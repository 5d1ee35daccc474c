"""One benchmark step for one page: parse (cached, isolated) -> locate -> score -> results.

A page holds items of every kind (`tablebench.core.kinds`: tables, formulas, ...). One parse
serves them all; each kind's items are located, scored and judged through their kind object,
so this module never asks what kind an item is.

No pytest here: the plugin, the CLI and plain Python all call `evaluate_page`. A parser
failure (error / timeout / empty output) becomes that outcome for every item of the page;
an item the locator cannot find is "missing"; only found items are scored; an item the
harness cannot score (unreadable ground truth, a locator or metric that raised) is "error"
with a one-line reason, and the page's other items are unaffected. Locating a page's items (offline,
or every request of the LLM locator together) and scoring each item have the parse timeout as
their budget (past it: "timeout"); the formula renders of all the page's items together have it
too (past it: `glyph_f1` not computed, saying why). The judge's questions of one page together
have `judge_page_timeout` seconds from the first (each question its own `budget` within it);
an item asked past it is not asked ("judge timeout: this page's judge budget ... is spent").

Parser worker processes are expensive to start (a parser imports its library once per
worker), so runners are kept in a `ParsePool` and reused page after page; the module's
default pool is closed at interpreter exit, callers that care close it earlier.
"""

from __future__ import annotations

import atexit
import math
import re
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from tablebench.cases import Page
from tablebench.core import kinds as item_kinds
from tablebench.core.deadline import BudgetExceeded, time_budget
from tablebench.core.kinds import ItemKind, Located
from tablebench.core.messages import one_line
from tablebench.core.metric_specs import JUDGE, spec
from tablebench.core.options import DEFAULT_JUDGE_PAGE_TIMEOUT, DEFAULT_JUDGE_TIMEOUT
from tablebench.core.results import PARSE_FAILURES, ItemResult
from tablebench.core.table import Table
from tablebench.evaluate.judging import judge_cache
from tablebench.evaluate.selection import metric_selection
from tablebench.parse.prefetch import ParsePool
from tablebench.parse.result import TRACEBACK
from tablebench.parse.runner import DEFAULT_TIMEOUT, ParseResult
from tablebench.tex.render import render_budget

# tablebench.parse's outcome of a failed parse -> the outcome of every item of the page (`PARSE_FAILURES`)
PARSE_OUTCOMES = dict(zip(("error", "timeout", "empty"), PARSE_FAILURES))


_DEFAULT_POOL: ParsePool | None = None


def default_pool() -> ParsePool:
    """The process's parse pool for callers that bring none, made on first use and closed at
    exit: importing the evaluator starts and registers nothing."""
    global _DEFAULT_POOL
    if _DEFAULT_POOL is None:
        _DEFAULT_POOL = ParsePool()
        atexit.register(_DEFAULT_POOL.close)
    return _DEFAULT_POOL


def close_default_pool() -> None:
    """Close the default pool's workers, if it was ever made."""
    if _DEFAULT_POOL is not None:
        _DEFAULT_POOL.close()


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
    pool: ParsePool | None = None,
    label: str | None = None,
    judge_page_timeout: float = DEFAULT_JUDGE_PAGE_TIMEOUT,
) -> list[ItemResult]:
    """One result per ground-truth item of `page`: every kind's items in page order, kinds in
    registry order (tables, then formulas).

    `metrics` names metric groups of any kind (None: each kind's defaults; a kind none of whose
    metrics is named keeps its defaults); `judge` is a litellm model string scored into
    `scores["judge"]` for found items (0 for missing ones, without a call), its answers cached
    under `cache_dir/judge`; `judge_options` go to the kind's judge (api_base, variant, budget:
    the seconds of one question, max_answer_mb, ...), and all of a page's questions together
    have `judge_page_timeout` seconds.
    `locator="llm"` finds the items with `locator_model` (spans re-found literally in the
    output; answers cached under `cache_dir/locate`). `refresh` parses again even when the
    parse cache holds a result. `label` names the parser in results (default: the spec).
    """
    selection = metric_selection(metrics)
    if locator not in ("offline", "llm") or (locator == "llm" and not locator_model):
        raise ValueError(f"locator {locator!r} needs to be 'offline' or 'llm' with a model")
    if judge:
        load_judge()
    parsed = (pool or default_pool()).get(parser_spec, cache_dir, timeout, refresh).run(page.pdf)
    label = label or parser_spec
    per_kind = [(kind, _base_results(page, kind, parser_spec, label, parsed)) for kind in _kinds_of(page)]
    results = [r for _, rs in per_kind for r in rs]
    if parsed.outcome != "ok":
        outcome = PARSE_OUTCOMES.get(parsed.outcome, "parse_error")
        message = f"{outcome}: {parsed.message or 'no message'}"
        trace = parsed.meta.get(TRACEBACK)
        for r in results:
            if r.outcome == "ok":
                r.outcome, r.message = outcome, message
                if isinstance(trace, str) and trace:
                    r.parser_traceback = trace
            if judge:
                r.scores[JUDGE] = 0.0  # nothing to judge: 0 without a call, as for a missing item
        return results
    options = dict(judge_options or {})
    if cache_dir is not None:
        options.setdefault("cache_dir", judge_cache(cache_dir))
    steps = _Steps(parsed.text, locator, locator_model, cache_dir, options, judge, timeout, judge_page_timeout)
    with render_budget(timeout, "this page's"):  # metrics that typeset (glyph_f1) share the page's budget
        for kind, kind_results in per_kind:
            steps.run(kind, page.items_of(kind.name), kind_results, selection[kind.name])
    if results:  # once per page, not per item: the report highlights every item's span in it
        results[0].page_output = parsed.text[:MAX_PAGE_OUTPUT]
    return results


def _kinds_of(page: Page) -> list[ItemKind]:
    """The page's kinds in registry order, a kind that reads what the others leave
    (`ItemKind.reads_unclaimed`) after them all."""
    kinds = [item_kinds.get(name) for name in item_kinds.names() if page.items_of(name)]
    return sorted(kinds, key=lambda kind: kind.reads_unclaimed)  # stable: registry order otherwise


def unclaimed(text: str, claimed: Sequence[tuple[int, int]]) -> str:
    """`text` with every claimed span blanked (each character a space, line breaks kept), so the
    offsets of what is left, and its lines, stay those of the output. Linear in the text however
    many spans overlap (items of one page may all claim one long stretch)."""
    if not claimed:
        return text
    pieces, at = [], 0
    for start, end in _merged(claimed, len(text)):
        pieces += [text[at:start], _NOT_A_LINE_BREAK.sub(" ", text[start:end])]
        at = end
    pieces.append(text[at:])
    return "".join(pieces)


_NOT_A_LINE_BREAK = re.compile(r"[^\n]")


def _merged(spans: Sequence[tuple[int, int]], size: int) -> list[tuple[int, int]]:
    """The spans clipped to [0, size), sorted and joined where they overlap or touch."""
    out: list[tuple[int, int]] = []
    for start, end in sorted((max(0, s), min(e, size)) for s, e in spans):
        if start >= end:
            continue
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


class _Steps:
    """Locate, score and judge one kind's items in one parser output."""

    def __init__(self, text: str, locator: str, model: str | None, cache_dir: Path | str | None,
                 options: dict[str, Any], judge: str | None, budget: float = DEFAULT_TIMEOUT,
                 judge_budget: float = DEFAULT_JUDGE_PAGE_TIMEOUT) -> None:
        self.text, self.locator, self.model, self.options, self.judge = text, locator, model, options, judge
        self.budget = budget  # seconds for locating, and for scoring each item: the output is the parser's
        self.locate_cache = None if cache_dir is None else Path(cache_dir) / "locate"
        self.claimed: list[tuple[int, int]] = []  # the output's spans the items found so far are
        self.judge_budget = judge_budget  # seconds of the page's judge questions together
        self._judge_started: float | None = None  # time.monotonic() of the page's first question

    def run(self, kind: ItemKind, gts: Sequence[Any], results: Sequence[ItemResult], metrics: Sequence[str]) -> None:
        readable = [i for i, r in enumerate(results) if r.outcome == "ok"]
        if not readable:
            return
        output = unclaimed(self.text, self.claimed) if kind.reads_unclaimed else self.text
        try:
            found = self._locate(kind, [gts[i] for i in readable], output)
        except BudgetExceeded as exc:  # a degenerate output: this page's outcome, as a slow parse is
            for i in readable:
                mark_timeout(results[i], str(exc))
            return
        except Exception as exc:  # noqa: BLE001 -- a locator fault is this page's outcome, not a crash
            for i in readable:
                mark_error(results[i], f"locating failed ({describe(exc)})")
            return
        if not kind.reads_unclaimed:
            self.claimed += [span for item in found if item.found for span in (item.spans or (item.span,)) if span]
        specs = [spec(name) for name in metrics]
        for i, item in zip(readable, found):
            result, gt = results[i], gts[i]
            try:
                with time_budget(self.budget, f"scoring {kind.title}"):  # per item, like locating per page
                    _fill(result, kind, gt, item, specs)
            except BudgetExceeded as exc:
                mark_timeout(result, str(exc))
                continue
            except Exception as exc:  # noqa: BLE001 -- one item's fault stays with that item
                mark_error(result, f"scoring failed ({describe(exc)})")
                continue
            if not item.found and item.best_span is not None:
                result.best_candidate = best_candidate(item, self.text)
            if self.judge:
                try:
                    _judge(result, lambda latex, extraction, gt=gt: self._ask_judge(kind, gt, extraction), gt.latex)
                except Exception as exc:  # noqa: BLE001 -- keep the other scores; the judge's fault is noted
                    result.metric_errors[JUDGE] = describe(exc)

    def _ask_judge(self, kind: ItemKind, gt: Any, extraction: str) -> Any:
        """The kind's judge on one item within what is left of the page's judge budget: its
        question gets the smaller of its own budget and that; past it, a timeout without a call."""
        if self._judge_started is None:
            self._judge_started = time.monotonic()
        left = self.judge_budget - (time.monotonic() - self._judge_started)
        spent = f"judge timeout: this page's judge budget of {self.judge_budget:g} s is spent"
        if left <= 0:
            return load_judge().JudgeResult(score=None, error=spent)
        own = float(self.options.get("budget") or DEFAULT_JUDGE_TIMEOUT)
        verdict = kind.judge(gt, extraction, str(self.judge), **{**self.options, "budget": min(own, left)})
        if left < own and verdict.score is None and str(verdict.error or "").startswith("judge timeout"):
            verdict.error = spent  # the page's budget ended it, not the question's own
        return verdict

    def _locate(self, kind: ItemKind, gts: list[Any], output: str) -> list[Located]:
        """The items found in `output`, in ground-truth order, offline or by an LLM."""
        with time_budget(self.budget, f"locating {kind.title} in the output"):  # the model's requests too
            if self.locator == "offline":
                found = kind.locate(gts, output)
            else:  # each request also has the budget as its timeout (bounded where no alarm can be armed)
                found = kind.locate_llm(gts, output, str(self.model), cache_dir=self.locate_cache,
                                        api_base=self.options.get("api_base"), timeout=min(self.budget, 120.0))
        found = sorted(found, key=lambda f: f.gt_index)
        if [f.gt_index for f in found] != list(range(len(gts))):
            raise RuntimeError(f"locator returned indices {[f.gt_index for f in found]} for {len(gts)} {kind.title}")
        return found


def describe(exc: BaseException) -> str:
    """'NoTableError: no LaTeX tabular ...' on one line: what a report cell can show."""
    return one_line(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__, 240)


def mark_error(result: ItemResult, reason: str) -> ItemResult:
    """Turn `result` into an "error" case: no scores, no match, the reason on one line."""
    result.outcome, result.message = "error", f"error: {one_line(reason)}"
    result.scores, result.errors = {}, []
    result.pred_html = result.matched_text = result.matched_span = None
    result.matched_spans = []
    return result


def mark_timeout(result: ItemResult, reason: str) -> ItemResult:
    """Turn `result` into a "timeout" case (a step on the parser's output ran past its budget)."""
    mark_error(result, reason)
    result.outcome, result.message = "timeout", f"timeout: {one_line(reason)}"
    return result


def page_error_results(page: Page, parser_spec: str, exc: BaseException, label: str | None = None) -> list[ItemResult]:
    """Every item of `page` as an "error" case, for a page whose evaluation raised."""
    label = label or parser_spec
    items = [_result(page, kind, gt, parser_spec, label) for kind in _kinds_of(page) for gt in page.items_of(kind.name)]
    return [mark_error(r, f"page failed ({describe(exc)})") for r in items]


def lost_result(page: Page, parser_spec: str, label: str, kind: str, index: int, reason: str) -> ItemResult | None:
    """One item of `page` as an "error" case that was never evaluated (its process was lost);
    None when the page has no such item."""
    gt = next((g for g in page.items_of(kind) if g.index == index), None)
    if gt is None:
        return None
    return mark_error(_result(page, item_kinds.get(kind), gt, parser_spec, label), reason)


def _result(page: Page, kind: ItemKind, gt: Any, parser_spec: str, label: str) -> ItemResult:
    return ItemResult(parser=label, spec=parser_spec, case_set=page.set_name, page=page.page_id, index=gt.index,
                       group=gt.group, outcome="ok", gt_latex=gt.latex, gt_html=getattr(gt, "stored_html", None) or "",
                       kind=kind.name, language=page.language, variant=page.variant,
                       pages=list(page.page_span_of(gt) or ()), pdf_pages=page.pdf_pages)


def _base_results(page: Page, kind: ItemKind, parser_spec: str, label: str, parsed: ParseResult) -> list[ItemResult]:
    """A result per item of `kind` with the page's time, cost and cache flag; unreadable ground truth is an error."""
    seconds = _page_number(parsed.meta.get("seconds"))
    cost = _page_number(parsed.meta.get("cost"))
    out = []
    for gt in page.items_of(kind.name):
        result = _result(page, kind, gt, parser_spec, label)
        result.parse_seconds, result.cost, result.parse_cached = seconds, cost, bool(parsed.cached)
        try:
            result.gt_html = kind.gt_html(gt)
        except Exception as exc:  # noqa: BLE001 -- the case set's fault: this item cannot be scored
            mark_error(result, f"ground truth unreadable ({describe(exc)})")
        out.append(result)
    return out


MAX_BEST_TEXT = 4_000  # characters of a missing item's best candidate kept in results
MAX_BEST_CELLS = 400  # a best candidate table larger than this keeps its text only


def best_candidate(found: Located, output: str) -> dict[str, Any]:
    """A missing item's best candidate for results: its span, score, text (bounded) and, for a
    table of bounded size, its canonical HTML: what "best candidate scored 0.16 < 0.30" was."""
    start, end = found.best_span  # type: ignore[misc]
    text = output[start:end]
    best: dict[str, Any] = {"span": [start, end], "score": found.score,
                            "text": text[:MAX_BEST_TEXT], "cut": max(0, len(text) - MAX_BEST_TEXT)}
    table = found.best
    if isinstance(table, Table) and len(table.cells()) <= MAX_BEST_CELLS:
        best["html"] = table.to_html(headers=True)
    return best


MAX_PAGE_OUTPUT = 200_000  # characters of it kept (spans past it are shown as text only)
MAX_PAGE_NUMBER = 1e9  # seconds (31 years) or USD for one page: anything above is not a measurement


def _page_number(value: Any) -> float:
    """A page's seconds or cost as a finite number in [0, MAX_PAGE_NUMBER] (a parser's sidecar may
    say anything, and sums of values near the float limit overflow); anything else counts as 0."""
    try:
        number = float(value or 0.0)
    except (TypeError, ValueError, OverflowError):
        return 0.0
    return number if math.isfinite(number) and 0 <= number <= MAX_PAGE_NUMBER else 0.0


def _fill(result: ItemResult, kind: ItemKind, gt: Any, found: Located, metrics: Sequence[Any]) -> None:
    """Outcome, matched span and scores of one item from where its kind's locator found it."""
    result.locate_score = float(found.score) if found.score is not None else None
    if not found.found:
        result.outcome = "missing"
        result.message = kind.missing_message(found)
        return
    result.message = kind.found_message(found)
    result.matched_text = found.text
    result.matched_span = list(found.span) if found.span is not None else None
    result.matched_spans = [list(s) for s in found.spans]
    scoring = kind.score(gt, found, metrics)
    result.scores = scoring.scores
    result.pred_html = scoring.pred_html
    result.errors = [one_line(n, 200) for n in scoring.notes]
    result.evidence = dict(scoring.evidence or {})
    result.not_computed = dict(scoring.not_computed or {})
    for reason in sorted(set(result.not_computed.values())):
        result.message = f"{result.message}; {reason}" if result.message else reason  # shown, never a silent 0


def load_judge() -> Any:
    """`tablebench.metrics.judge`, or a one-line error when this install has no judge."""
    try:
        from tablebench.metrics import judge
    except ImportError as exc:
        raise RuntimeError(f"--judge needs tablebench.metrics.judge, which cannot be imported here ({exc})") from None
    return judge


def _judge(result: ItemResult, ask: Any, gt_latex: str) -> None:
    """Judge a found item on 0-10; a missing one counts 0 without spending a call."""
    if result.outcome != "ok":
        result.scores[JUDGE] = 0.0
        return
    verdict = ask(gt_latex, result.matched_text or "")
    result.judge_cost = float(verdict.cost or 0.0)
    result.judge_cached = bool(verdict.cached)
    result.judge_errors = [str(e) for e in verdict.errors or ()]
    if verdict.score is None:
        result.metric_errors[JUDGE] = one_line(verdict.error or "judge gave no score")
    else:
        result.scores[JUDGE] = float(verdict.score)
