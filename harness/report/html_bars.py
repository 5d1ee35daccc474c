"""Per-parser bars by group in report.html: each parser's mean of the ranking metric in each group.

Why: the group table beside it holds the numbers; bars show at a glance where a parser falls
behind (complex tables, two-column text, display formulas). Each bar is a link that shows that
parser's cards of that group in the drill-down, worst first: the page's script reads its
`data-parser` and `data-group` as it reads a leaderboard row's parser. Drawn here as SVG, not by
the script, because the numbers are the leaderboard's own (`MetricStats.include_missing`:
missing items count as 0), known when the page is written. Every text goes through `e`; SVG
presentation attributes are not styles, so the strict CSP lets them be.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tablebench.core import kinds as item_kinds
from tablebench.core.metric_specs import scale_of
from tablebench.report import fmt
from tablebench.report.aggregate import Leaderboard
from tablebench.report.html_escape import e

# a parser's colour in every chart of the page (bars, scatter), by its place in the first leaderboard
PALETTE = ("#0969da", "#cf222e", "#1a7f37", "#8250df", "#bf8700", "#1b7c83", "#6e7781", "#e16f24")
_BAR, _GAP, _LEFT, _TOP, _HIGH, _BOTTOM = 16, 28, 40, 14, 140, 22  # px in the SVG's own units


def parser_colors(boards: Iterable[Leaderboard]) -> dict[str, str]:
    """{parser: colour}, one per parser of the run, the same in every chart and kind."""
    parsers = dict.fromkeys(row.parser for board in boards for row in board.rows)
    return {p: PALETTE[i % len(PALETTE)] for i, p in enumerate(parsers)}


def group_bars_html(board: Leaderboard, colors: Mapping[str, str]) -> str:
    """One SVG: per group, a bar per parser (in leaderboard order) up to its mean of the ranking
    metric with missing items as 0; a bar's link shows that parser's cards of that group."""
    primary, groups = board.primary, board.groups
    if not primary or not board.rows or not groups:
        return ""
    scale = scale_of(primary)
    per_group = len(board.rows) * _BAR + _GAP
    width, base = _LEFT + len(groups) * per_group, _TOP + _HIGH
    parts = [f'<line x1="{_LEFT}" y1="{base}" x2="{width}" y2="{base}" stroke="#8c959f"/>']
    for f in (0, 0.5, 1):
        y = base - f * _HIGH
        parts.append(f'<text x="{_LEFT - 4}" y="{y + 3:g}" text-anchor="end">{e(f"{f * scale:g}")}</text>'
                     f'<line x1="{_LEFT}" y1="{y:g}" x2="{width}" y2="{y:g}" stroke="#eaeef2"/>')
    for g, group in enumerate(groups):
        x0 = _LEFT + _GAP / 2 + g * per_group
        for p, row in enumerate(board.rows):
            stats = row.by("group").get(group)
            metric = stats.metrics.get(primary) if stats else None
            value = metric.include_missing if metric else None
            if value is None:
                continue
            high = _HIGH * max(0.0, min(1.0, value / scale))
            x = x0 + p * _BAR
            label = f"{row.parser}, {group}: mean {primary} {fmt.score(value, primary)} (missing as 0)"
            parts.append(f'<a class="to-cards" href="#cases-head" data-parser="{e(row.parser)}" '
                         f'data-group="{e(group)}"><title>{e(label)}</title>'
                         f'<rect x="{x + 1:g}" y="{base - high:g}" width="{_BAR - 2}" height="{max(high, 1):g}" '
                         f'fill="{e(colors.get(row.parser, PALETTE[0]))}"/></a>')
        middle = x0 + len(board.rows) * _BAR / 2
        parts.append(f'<text x="{middle:g}" y="{base + 15}" text-anchor="middle">{e(group)}</text>')
    kind = item_kinds.get(board.kind)
    legend = "".join(f'<span class="key"><svg width="10" height="10" aria-hidden="true"><rect width="10" '
                     f'height="10" fill="{e(colors.get(row.parser, PALETTE[0]))}"/></svg> {e(row.parser)}</span>'
                     for row in board.rows)
    return (f'<div class="bars"><p class="note">Mean {e(primary)} per parser and {e(kind.group_title)} '
            f"(missing {e(board.unit)} as 0); a bar shows that parser's {e(board.unit)} of that group below, "
            f'worst first. {legend}</p><svg viewBox="0 0 {width} {base + _BOTTOM}" width="{width}" role="img">'
            f"<title>{e(f'mean {primary} per parser and {kind.group_title}')}</title>{''.join(parts)}</svg></div>")
