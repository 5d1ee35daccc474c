"""Benchmark items of more than one kind (tables, formulas): which metrics score which kind.

One `--metrics` list names metrics of either registry: table metric groups
(`harness.metrics.tables.registry`) and formula metrics (`harness.metrics.formulas.registry`). Each kind is
scored with the names of its own registry given in the list, or with that registry's defaults
when the list names none of them, so `--metrics=teds` still scores formulas, and the slow
rendered formula score (`cdm_like`, pdflatex) runs only when named.
"""

from __future__ import annotations

from collections.abc import Iterable

KIND_TITLES = {"table": "tables", "formula": "formulas"}


def _names(spec: str | Iterable[str] | None) -> list[str] | None:
    if spec is None:
        return None
    return [n.strip() for n in (spec.split(",") if isinstance(spec, str) else spec) if n.strip()]


def split_metrics(spec: str | Iterable[str] | None) -> tuple[list[str], list[str]]:
    """(table metric groups, formula metrics) of a `--metrics` value; unknown names: one-line error."""
    from harness.metrics.formulas.registry import DEFAULT_FORMULA_METRICS, FORMULA_METRICS
    from harness.metrics.tables.registry import DEFAULT_METRICS, METRICS

    names = _names(spec)
    if names is None:
        return list(DEFAULT_METRICS), list(DEFAULT_FORMULA_METRICS)
    unknown = [n for n in names if n not in METRICS and n not in FORMULA_METRICS]
    if unknown:
        raise ValueError(f"unknown metric(s) {', '.join(unknown)}; known: tables {', '.join(METRICS)}; "
                         f"formulas {', '.join(FORMULA_METRICS)}")
    tables = [n for n in names if n in METRICS] or list(DEFAULT_METRICS)
    formulas = [n for n in names if n in FORMULA_METRICS] or list(DEFAULT_FORMULA_METRICS)
    return tables, formulas


def metric_names(spec: str | Iterable[str] | None, kinds: Iterable[str] = ("table",)) -> list[str]:
    """The metrics a run with these item kinds computes, tables' first (what reports and baselines record)."""
    tables, formulas = split_metrics(spec)
    kinds = set(kinds)
    return [*(tables if "table" in kinds else []), *(formulas if "formula" in kinds else [])]


def formula_metric(name: str) -> bool:
    """Whether a score name belongs to formulas (for gating floors: a table has no formula_score)."""
    from harness.metrics.formulas.registry import FORMULA_METRICS

    return name in FORMULA_METRICS
