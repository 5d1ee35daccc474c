"""Formula metric names, as the table registry (`harness.metrics.tables.registry`) names table metrics.

Each group maps (ground-truth LaTeX, predicted formula) to flat, named floats: rule metrics
in [0, 1], `formula_score` on the study's 0-10 scale. `cdm_like` needs pdflatex and pymupdf
and is not in the defaults; without a renderable ground truth it yields nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

FormulaScoreFn = Callable[[str, str], dict[str, float]]


def _formula_score(gt: str, pred: str) -> dict[str, float]:
    from harness.metrics.formulas.score import formula_score

    return {"formula_score": formula_score(gt, pred)}


def _token_edit(gt: str, pred: str) -> dict[str, float]:
    from harness.metrics.formulas.score import token_edit_similarity

    return {"token_edit": token_edit_similarity(gt, pred)}


def _cdm_like(gt: str, pred: str) -> dict[str, float]:
    from harness.metrics.formulas.cdm import cdm_like

    value = cdm_like(gt, pred)
    return {} if value is None else {"cdm_like": value}


FORMULA_METRICS: dict[str, FormulaScoreFn] = {
    "formula_score": _formula_score,
    "token_edit": _token_edit,
    "cdm_like": _cdm_like,
}
DEFAULT_FORMULA_METRICS = ("formula_score", "token_edit")  # offline, no TeX needed
HEADLINE = {name: name for name in FORMULA_METRICS}
SCALE = {"formula_score": 10.0}


def score_formula(gt: str, pred: str, metrics: Iterable[str] = DEFAULT_FORMULA_METRICS) -> dict[str, float]:
    """All values of the selected formula metrics for one pair; unknown names: one-line error."""
    names = list(metrics)
    unknown = [n for n in names if n not in FORMULA_METRICS]
    if unknown:
        raise ValueError(f"unknown formula metric(s) {', '.join(unknown)}; known: {', '.join(FORMULA_METRICS)}")
    out: dict[str, float] = {}
    for name in names:
        out.update(FORMULA_METRICS[name](gt, pred))
    return out
