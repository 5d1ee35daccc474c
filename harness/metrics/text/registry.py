"""The text metrics' scorers, as `tablebench.core.metric_specs` names them: (the page's text blocks,
the parser's output) -> `Scored`. The diff and the notes a card shows are the text kind's to add
(`tablebench.metrics.text.details`): once per item, whichever of these metrics were selected."""

from __future__ import annotations

from collections.abc import Sequence

from tablebench.core.metric_specs import Scored
from tablebench.metrics.text.alignment import align_text
from tablebench.metrics.text.scores import counts, fidelity_of, order_of, precision_of, recall_of


def score_text_fidelity(gt: Sequence[str], pred: str) -> Scored:
    return Scored({"text_fidelity": fidelity_of(counts(align_text(gt, pred)))})


def score_reading_order(gt: Sequence[str], pred: str) -> Scored:
    return Scored({"reading_order": order_of(counts(align_text(gt, pred)))})


def score_text_coverage(gt: Sequence[str], pred: str) -> Scored:
    c = counts(align_text(gt, pred))
    return Scored({"text_recall": recall_of(c), "text_precision": precision_of(c)})
