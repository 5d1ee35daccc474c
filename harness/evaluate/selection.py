"""Which metrics score which item kind, from one `--metrics` list naming metrics of any kind."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tablebench.core import kinds as item_kinds
from tablebench.core.metric_specs import select


def metric_selection(spec: str | Iterable[str] | None, kinds: Sequence[str] | None = None) -> dict[str, list[str]]:
    """{kind: metric groups} for every kind (default: all registered kinds), see `metric_specs.select`."""
    names = list(kinds) if kinds is not None else item_kinds.names()
    every = item_kinds.names()
    chosen = select(spec, every, {k: item_kinds.get(k).title for k in every})
    return {kind: chosen[kind] for kind in names}


def metric_names(spec: str | Iterable[str] | None, kinds: Iterable[str] = (item_kinds.ORIGINAL_KIND,)) -> list[str]:
    """The metrics a run with these item kinds computes, in kind order (what reports and baselines record)."""
    wanted = set(kinds)
    return [name for kind, names in metric_selection(spec).items() if kind in wanted for name in names]
