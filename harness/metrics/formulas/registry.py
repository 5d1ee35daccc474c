"""The formula metrics' scorers, as `tablebench.core.metric_specs` names them: (gt LaTeX, predicted
formula) -> `Scored`. `glyph_f1` needs pdflatex and pymupdf; without a renderable ground
truth it yields nothing; when the renders' budget is spent it is "not computed", saying so."""

from __future__ import annotations

from tablebench.core.metric_specs import Scored
from tablebench.metrics.formulas.glyph_match import glyph_match
from tablebench.metrics.formulas.score import explained, token_edit_similarity


def score_formula_score(gt: str, pred: str) -> Scored:
    score, notes = explained(gt, pred)
    return Scored({"formula_score": score}, tuple(f"formula: {note}" for note in notes))


def score_token_edit(gt: str, pred: str) -> Scored:
    return Scored({"token_edit": token_edit_similarity(gt, pred)})


def score_glyph_f1(gt: str, pred: str) -> Scored:
    from tablebench.tex.render import RenderSkipped
    try:
        value = glyph_match(gt, pred)
    except RenderSkipped as exc:
        reason = f"not computed: {exc}"
        return Scored({}, (f"glyph_f1 {reason}",), not_computed={"glyph_f1": reason})
    return Scored({} if value is None else {"glyph_f1": value})
