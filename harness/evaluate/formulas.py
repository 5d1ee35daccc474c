"""The formula half of `harness.evaluate.page.evaluate_page`: locate a page's formulas, score, judge.

The page is parsed once (by `evaluate_page`); here its output is searched for every
ground-truth formula (`harness.locate.formulas`, offline; with `locator="llm"`
`harness.locate.llm_formulas`, spans re-found literally) and each found one is scored with
the selected formula metrics (`harness.metrics.formulas.registry`) and, with `--judge`, the formula
prompt of `harness.metrics.judge`. Results are the same `TableResult`s as for tables (kind
"formula"): a formula not found is "missing" (0 in every mean, judge 0 without a call);
a formula whose scoring raised is "error" and the others are unaffected.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.cases import Page
from harness.core.messages import one_line
from harness.core.results import TableResult


def score_formulas(page: Page, results: Sequence[TableResult], text: str, metrics: Sequence[str], *,
                   judge: str | None = None, judge_options: dict[str, Any] | None = None,
                   locator: str = "offline", locator_model: str | None = None,
                   cache_dir: Path | str | None = None) -> None:
    """Fill `results` (one per formula of `page`, in order) from the parser output `text`.

    `judge_options` go to the judge (and their `api_base` to the LLM locator); LLM-locator
    answers are cached under `cache_dir/locate`."""
    from harness.metrics.formulas.registry import score_formula
    from harness.evaluate.page import _judge, describe, mark_error

    try:
        located, notes = _locate(page, text, locator, locator_model, cache_dir, judge_options or {})
    except Exception as exc:  # noqa: BLE001 -- a locator fault is this page's outcome, not a crash
        for r in results:
            mark_error(r, f"locating failed ({describe(exc)})")
        return
    ask = _formula_judge(judge, judge_options or {}) if judge else None
    for result, gt, loc, note in zip(results, page.formulas, located, notes, strict=True):
        result.locate_score = float(loc.score)
        if not loc.found or loc.span is None:
            result.outcome = "missing"
            result.message = (f"not found in parser output: {one_line(note)}" if note else
                              f"not found in parser output (best candidate similarity {loc.score:.2f})")
        else:
            start, end = loc.span
            result.matched_span = [start, end]
            result.matched_text = text[start:end]
            if loc.text != result.matched_text:
                result.extra["scored_latex"] = loc.text  # MathML converted / plain text made LaTeX
            result.message = "; ".join(filter(None, [f"found as {loc.source}" if loc.source != "latex" else "",
                                                     one_line(note) if note else ""]))
            try:
                result.scores = score_formula(gt.latex, loc.text or "", metrics)
            except Exception as exc:  # noqa: BLE001 -- one formula's fault stays with that formula
                mark_error(result, f"scoring failed ({describe(exc)})")
                continue
        if ask is not None:
            try:
                _judge(result, lambda latex, extraction, kind=gt.kind: ask(latex, extraction, kind), gt.latex)
            except Exception as exc:  # noqa: BLE001 -- keep the other scores; the judge's fault is noted
                result.extra["judge_error"] = one_line(describe(exc))


def _locate(page: Page, text: str, locator: str, model: str | None, cache_dir: Path | str | None,
            options: dict[str, Any]) -> tuple[list[Any], list[str]]:
    """(located formulas, a note each) by the offline locator or, with `locator="llm"`, the model."""
    if locator != "llm":
        from harness.locate.formulas import locate_formulas

        return locate_formulas([gt.latex for gt in page.formulas], text), [""] * len(page.formulas)
    from harness.locate.llm_formulas import locate_formulas_llm

    return locate_formulas_llm([(gt.latex, gt.kind) for gt in page.formulas], text, str(model),
                               cache_dir=None if cache_dir is None else Path(cache_dir) / "locate",
                               **{k: v for k, v in options.items() if k == "api_base"})


def _formula_judge(model: str, options: dict[str, Any]) -> Any:
    """(gt, extraction, kind) -> JudgeResult with the formula prompt; one-line error without a judge."""
    try:
        from harness.metrics.judge import judge_formula
    except ImportError as exc:
        raise RuntimeError(f"--judge needs harness.metrics.judge, which cannot be imported here ({exc})") from None
    return lambda gt, extraction, kind: judge_formula(gt, extraction, model, kind=kind, **options)
