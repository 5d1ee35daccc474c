"""Tables as benchmark items: LaTeX tabulars read to canonical tables, found by content, scored
by TEDS, GriTS, T-LAG and the semantic score, judged with the table prompt."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tablebench.cases.tables import COMPLEXITIES, GroundTruthTable, read_tables_of
from tablebench.core.kinds import BUILTIN_PREFIX, ItemKind, Located, Scoring, register
from tablebench.core.metric_specs import MetricSpec
from tablebench.core.table import MAX_SCORED_CELLS, MAX_SCORED_CHARS, Table, TableTooLarge

# the metrics `MAX_SCORED_CELLS` (tablebench.core.table) bounds, in cells and in grid slots: above it,
# `ItemResult.not_computed`, a note and the message say why
PAIRWISE = frozenset({"teds", "teds_struct", "grits", "tlag", "semantic"})
# Locators, metrics and judges are imported where they are used: a run's controller process reads
# the kinds to report, never to score, and need not import numba, scipy or the LLM client.


class TableKind(ItemKind):
    name = "table"
    title = "tables"
    prefix = BUILTIN_PREFIX["table"]
    groups = COMPLEXITIES
    group_title = "complexity"
    group_name = "complexity"
    notes_title = "semantic errors"
    card = "tablebench.report.html:table_sides"

    def read(self, record: object, blocks: list[dict], gt_path: Path) -> list[GroundTruthTable]:
        return read_tables_of(blocks, gt_path)

    def gt_html(self, gt: GroundTruthTable) -> str:
        return gt.table.to_html(headers=True)

    def locate(self, gts: Sequence[GroundTruthTable], output: str) -> list[Located]:
        from tablebench.locate.tables import locate_tables
        return locate_tables([gt.table for gt in gts], output)

    def locate_llm(self, gts: Sequence[GroundTruthTable], output: str, model: str, *, cache_dir: Path | None,
                   api_base: str | None = None, timeout: float | None = None) -> list[Located]:
        from tablebench.locate.llm import locate_tables_llm
        options = {key: value for key, value in (("api_base", api_base), ("timeout", timeout)) if value is not None}
        return locate_tables_llm([gt.latex for gt in gts], output, model, gt_tables=[gt.table for gt in gts],
                                 cache_dir=cache_dir, **options)

    def score(self, gt: GroundTruthTable, found: Located, metrics: Sequence[MetricSpec]) -> Scoring:
        from tablebench.metrics.score import score_details
        reason = _too_large(gt.table, found.prediction)
        skipped = [m for m in metrics if m.name in PAIRWISE] if reason else []
        scored = score_details(gt.table, found.prediction, [m for m in metrics if m not in skipped])
        notes = [f"{', '.join(m.name for m in skipped)} {reason}"] if skipped else []
        return Scoring(scored.values, [*notes, *scored.notes], pred_html=found.prediction.to_html(headers=True),
                       evidence=scored.evidence, not_computed={**(scored.not_computed or {}),
                                                               **{m.name: str(reason) for m in skipped}})

    def judge(self, gt: GroundTruthTable, extraction: str, model: str, **options: Any) -> Any:
        from tablebench.metrics.judge import judge_table
        return judge_table(gt.latex, extraction, model, **options)


def _too_large(gt: Table, pred: Table) -> str | None:
    """Why the pairwise metrics are not computed for this pair (`MAX_SCORED_CELLS`, `MAX_SCORED_CHARS`), or None.

    The grid counts as the cells do: the metrics lay both tables out, and a few cells with large
    spans make a grid of millions of slots (each span within `MAX_SPAN`)."""
    cells = max(len(gt.cells()), len(pred.cells()))
    if cells > MAX_SCORED_CELLS:
        return f"not computed: table too large ({cells} cells > {MAX_SCORED_CELLS})"
    try:
        for table in (gt, pred):
            table.grid_shape(MAX_SCORED_CELLS)  # stops at the bound: never the cost of a huge grid
    except TableTooLarge as exc:
        return f"not computed: table too large ({exc})"
    chars = max(sum(len(c.text) for c in t.cells()) for t in (gt, pred))
    if chars > MAX_SCORED_CHARS:
        return f"not computed: table too large ({chars} characters > {MAX_SCORED_CHARS})"
    return None


KIND = register(TableKind())
