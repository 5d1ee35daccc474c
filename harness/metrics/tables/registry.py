"""The table metrics' scorers, as `tablebench.core.metric_specs` names them: (gt, pred) -> `Scored`.

Each group yields flat, named floats (rule metrics in [0, 1], `semantic` on the 0-10 scale)
so results travel as plain data; the semantic score also explains itself in words.
"""

from __future__ import annotations

from tablebench.core.metric_specs import Scored
from tablebench.core.results import CELL_DIFF
from tablebench.core.table import Table
from tablebench.metrics.tables.grits import grits_details
from tablebench.metrics.tables.semantic import semantic_details
from tablebench.metrics.tables.teds import teds
from tablebench.metrics.tables.tlag import tlag_details

MAX_NOTES = 5  # explanations kept per group, most severe first


def score_teds(gt: Table, pred: Table) -> Scored:
    return Scored({"teds": teds(gt, pred)})


def score_teds_struct(gt: Table, pred: Table) -> Scored:
    return Scored({"teds_struct": teds(gt, pred, structure_only=True)})


def score_grits(gt: Table, pred: Table) -> Scored:
    return Scored({f"grits_{k}": float(v) for k, v in grits_details(gt, pred).items()})


def score_tlag(gt: Table, pred: Table) -> Scored:
    r = tlag_details(gt, pred)
    return Scored({"tlag": float(r["f1"]), "tlag_precision": float(r["precision"]), "tlag_recall": float(r["recall"])})


def score_semantic(gt: Table, pred: Table) -> Scored:
    result = semantic_details(gt, pred)
    return Scored({"semantic": float(result.score)}, tuple(result.errors[:MAX_NOTES]),
                  evidence={CELL_DIFF: result.diff})
