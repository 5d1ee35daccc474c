"""Formulas as benchmark items: LaTeX formulas found in any math markup or plain text, scored
by the formula score and token edit (and the rendered comparison when asked), judged with the
formula prompt, which is told whether the formula is inline or display."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tablebench.cases.formulas import FORMULA_KINDS, GroundTruthFormula, read_formulas_of
from tablebench.core.kinds import BUILTIN_PREFIX, ItemKind, Located, Scoring, register
from tablebench.core.messages import one_line
from tablebench.core.metric_specs import MetricSpec
from tablebench.core.results import SCORED_LATEX

# Locators, metrics and judges are imported where they are used: a run's controller process reads
# the kinds to report, never to score, and need not import numba, scipy or the LLM client.


class FormulaKind(ItemKind):
    name = "formula"
    title = "formulas"
    prefix = BUILTIN_PREFIX["formula"]
    groups = FORMULA_KINDS
    group_title = "inline / display"
    group_name = "placement"
    picture = ""  # a formula's record gives no place on the page to crop
    label = "Formula"
    notes_title = "formula errors"
    perfect_by_group = True
    card = "tablebench.report.html:formula_sides"

    def read(self, record: object, blocks: list[dict], gt_path: Path) -> list[GroundTruthFormula]:
        return read_formulas_of(record, blocks, gt_path)

    def locate(self, gts: Sequence[GroundTruthFormula], output: str) -> list[Located]:
        from tablebench.locate.formulas import locate_formulas
        located = locate_formulas([gt.latex for gt in gts], output)
        return [_found(loc, "", output) for loc in located]

    def locate_llm(self, gts: Sequence[GroundTruthFormula], output: str, model: str, *, cache_dir: Path | None,
                   api_base: str | None = None, timeout: float | None = None) -> list[Located]:
        from tablebench.locate.llm_formulas import locate_formulas_llm
        options = {key: value for key, value in (("api_base", api_base), ("timeout", timeout)) if value is not None}
        located, notes = locate_formulas_llm([(gt.latex, gt.kind) for gt in gts], output, model,
                                             cache_dir=cache_dir, **options)
        return [_found(loc, note, output) for loc, note in zip(located, notes, strict=True)]

    def score(self, gt: GroundTruthFormula, found: Located, metrics: Sequence[MetricSpec]) -> Scoring:
        from tablebench.metrics.score import score_details
        scored = score_details(gt.latex, found.prediction or "", metrics)
        evidence = dict(scored.evidence or {})
        if found.prediction != found.text:
            evidence[SCORED_LATEX] = found.prediction
        return Scoring(scored.values, list(scored.notes), evidence=evidence, not_computed=scored.not_computed)

    def judge(self, gt: GroundTruthFormula, extraction: str, model: str, **options: Any) -> Any:
        from tablebench.metrics.judge import judge_formula
        return judge_formula(gt.latex, extraction, model, kind=gt.kind, **options)

    def missing_message(self, found: Located) -> str:
        return (f"not found in parser output: {one_line(found.note)}" if found.note else
                f"not found in parser output (best candidate similarity {found.score:.2f})")

    def found_message(self, found: Located) -> str:
        return "; ".join(filter(None, [f"found as {found.source}" if found.source != "latex" else "",
                                       one_line(found.note) if found.note else ""]))


def _found(loc: Any, note: str, output: str) -> Located:
    """A located formula as every kind's answer: the literal span as text, the scored LaTeX as prediction."""
    if not loc.found or loc.span is None:
        return Located(loc.gt_index, None, None, None, float(loc.score), note, loc.source)
    start, end = loc.span
    return Located(loc.gt_index, loc.text or "", (start, end), output[start:end], float(loc.score), note, loc.source)


KIND = register(FormulaKind())
