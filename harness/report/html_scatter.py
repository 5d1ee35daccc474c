"""The scatter of report.html: a kind's ranking metric against another of its metrics, a point per case.

Why: a mean hides where two metrics disagree on the same item (pypdf's tables: semantic 10 beside
TEDS 0.28, every value read, the structure lost); a point per found case, each a link to its
card, shows where they part and which cases to open. The points are not a second list of cases:
each card's values travel in the cards' index (`html_data.Card.points`, for the metrics named
here), and the page's script draws the chosen pair from it, as it draws the histograms from
their aggregates.
"""

from __future__ import annotations

from collections.abc import Sequence

from tablebench.core.metric_specs import scale_of
from tablebench.report.aggregate import Leaderboard


def scatter_metrics(boards: Sequence[Leaderboard]) -> dict[str, list[str]]:
    """{kind: its ranking metric, then each other metric of the kind}, for the kinds that have both."""
    return {b.kind: [b.primary, *(m for m in b.metrics if m != b.primary)]
            for b in boards if b.primary and len(b.metrics) > 1}


def card_metrics(boards: Sequence[Leaderboard]) -> dict[str, list[str]]:
    """{kind: its ranking metric, then each other metric}, for every kind with metrics: the values
    each card carries in the index (`html_data.Card.points`). The scatter plots the kinds with two
    or more; a histogram bar's link picks its cards by them, one metric being enough."""
    return {b.kind: [*([b.primary] if b.primary else []), *(m for m in b.metrics if m != b.primary)]
            for b in boards if b.metrics}


def scatter_data(boards: Sequence[Leaderboard]) -> dict:
    """What the script needs beside the cards' values: per kind, its title, ranking metric and scales."""
    out = {}
    for b in boards:
        names = scatter_metrics([b]).get(b.kind)
        if names:
            out[b.kind] = {"title": b.unit, "primary": names[0], "scale": {m: scale_of(m) for m in names}}
    return out


def scatter_html(boards: Sequence[Leaderboard]) -> str:
    """The section and its empty chart (the script draws it once the cards' index is read), or ''."""
    kinds = scatter_metrics(boards)
    if not kinds:
        return ""
    return ('<h2 id="scatter-head">Metric against metric</h2>'
            '<p class="note">A point per found case: its ranking metric (up) against the metric chosen '
            "(across), coloured by parser; a click opens its card. Points on the diagonal are cases "
            'the two metrics agree on. <label>across <select id="scatter-metric"></select></label> '
            '<span id="scatter-count"></span></p><div class="scatter" id="scatter"></div>')
