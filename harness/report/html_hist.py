"""The score histograms of report.html: their section, and their data as aggregates.

Every kind's metrics (tables, formulas, text), each kind from its own leaderboard: a text
metric is counted over text items and their parsers' totals, never mixed into the tables'.
Per kind, parser and metric the page gets the found items' count per bin, their count and sum,
not one value per item: the data stays the same size at any number of items. Values outside a
metric's scale are counted in its end bins, and the section says how many there are.

Each bar is a link that shows its cards below, worst first (the page's script picks them by each
card's value in the cards' index, `html_data.Card.points`). So a value is binned as the index
holds it, rounded to `html_data.DIGITS` decimals: the script then puts every card in the bin
whose bar counted it, a value a hair below a bin's edge included.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from tablebench.core.metric_specs import scale_of
from tablebench.core.results import ItemResult
from tablebench.report.aggregate import Leaderboard
from tablebench.report.html_data import DIGITS
from tablebench.report.html_escape import e


def histograms_html(boards: Sequence[Leaderboard], results: Sequence[ItemResult]) -> str:
    boards = [b for b in boards if b.metrics]
    if not boards:
        return ""
    board = boards[0] if len(boards) == 1 else None
    unit = board.unit if board else "items"
    outside = out_of_scale(results)
    clamp = ""
    if outside:
        one = unit.removesuffix("s")  # "1 table", "1 formula"
        counts = ", ".join(f"{e(m)}: {n} {e(unit if n != 1 else one)}" for m, n in sorted(outside.items()))
        clamp = (f" Values outside a metric's scale are drawn in its end bin ({counts} here; TEDS, like its "
                 "reference, can go slightly below 0); every other number on this page is exact.")
    return ("<h2>Score distributions</h2>"
            f'<p class="note">Per parser: {e(unit)} by score (found {e(unit)}), and the {e(unit)} '
            f'without a value (grey). Same vertical scale for every parser; a bar shows its {e(unit)} below, '
            f'worst first.{clamp} <label>metric <select id="hist-metric"></select>'
            '</label></p><div class="hists" id="hists"></div>')


def out_of_scale(results: Sequence[ItemResult]) -> dict[str, int]:
    """{metric: tables whose value lies outside [0, full scale]} among found tables (display clamps them)."""
    out: dict[str, int] = {}
    for r in results:
        if r.outcome != "ok":
            continue
        for metric, value in r.scores.items():
            if isinstance(value, (int, float)) and math.isfinite(value) and not 0 <= value <= scale_of(metric):
                out[metric] = out.get(metric, 0) + 1
    return out


_BINS = 10  # histogram bins over a metric's scale, as BINS in the script


def script_data(boards: Sequence[Leaderboard], results: Sequence[ItemResult]) -> dict:
    """{"hists": per kind with metrics, what its histograms need (`_kind_data`)}."""
    return {"hists": [_kind_data(b, [r for r in results if r.kind == b.kind]) for b in boards if b.metrics]}


def _kind_data(board: Leaderboard, results: Sequence[ItemResult]) -> dict:
    """What one kind's histograms need, aggregated (not one value per item): per parser and metric,
    the found items' count per bin (values outside the scale in its end bins; each value as the
    cards' index rounds it, so the bin the script finds a card in is the bin that counted it),
    their count and sum."""
    hist: dict[str, dict] = {row.parser: {"total": row.total, "bins": {m: [0] * _BINS for m in board.metrics},
                                          "n": dict.fromkeys(board.metrics, 0),
                                          "sum": dict.fromkeys(board.metrics, 0.0)} for row in board.rows}
    for r in results:
        if r.outcome != "ok" or r.parser not in hist:
            continue
        h = hist[r.parser]
        for metric, value in r.scores.items():
            if metric in h["bins"] and isinstance(value, (int, float)) and math.isfinite(value):
                scale = board.scale.get(metric) or 1
                shown = round(float(value), DIGITS)
                h["bins"][metric][max(0, min(_BINS - 1, math.floor(shown / scale * _BINS)))] += 1
                h["n"][metric] += 1
                h["sum"][metric] += float(value)
    return {"kind": board.kind, "title": board.unit, "metrics": board.metrics, "primary": board.primary,
            "scale": board.scale, "parsers": [row.parser for row in board.rows], "hist": hist}
