"""The leaderboard sections of report.html: each kind's ranking with its parsers' verdict counts
(at the top of the page), and its groups and breakdowns (further down).

Why apart from `tablebench.report.html`: these are the page's tables of numbers, the rest is
the page and its cards. The same rules hold: every text through `e`, no event-handler
attributes; a parser's row and its name (`to_cards`) carry the parser as data, and the page's
script turns a click on them into that parser's cards, worst first. Numbers are formatted by
`tablebench.report.fmt`, as in every other rendering.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tablebench.core import kinds as item_kinds
from tablebench.core.metric_specs import direction
from tablebench.core.results import OUTCOMES
from tablebench.report import fmt
from tablebench.report.aggregate import Leaderboard, MetricStats
from tablebench.report.html_bars import group_bars_html
from tablebench.report.html_escape import e
from tablebench.report.verdict_counts import COLUMNS, VerdictCounts
from tablebench.report.verdicts import FAILED


def num(value: float | None) -> str:
    """A data-v attribute for sorting ('' sorts last)."""
    return "" if value is None else repr(float(value))


def _heat(stats: MetricStats | None, metric: str) -> str:
    if stats is None or stats.include_missing is None:
        return ""
    way = direction(metric)  # the share of the way from the worst value to the best
    return f"q{min(4, max(0, int(5 * way.gain(way.worst, stats.include_missing) / way.scale)))}"


def _pair_cell(stats: MetricStats | None, metric: str, primary: bool) -> str:
    if stats is None or stats.include_missing is None or (stats.n_failed and not stats.n_values):
        return f'<td data-v="">{e(fmt.pair(stats, metric))}</td>'
    cls = " ".join(c for c in (_heat(stats, metric), "primary" if primary else "") if c)
    return (f'<td class="{cls}" data-v="{num(stats.include_missing)}">{fmt.score(stats.include_missing, metric)}'
            f' <span class="excl">({fmt.score(stats.exclude_missing, metric)})</span></td>')


def _leaderboard_html(board: Leaderboard, title: str, unit: str) -> str:
    if not board.rows:
        return f"<h2>{e(title)}</h2><p class=\"none\">No results.</p>"
    primary = board.primary
    heads = ['<th data-type="number">#</th>', '<th data-type="text" class="name">parser</th>',
             f'<th title="located {unit} / all {unit}">found</th>']
    heads += [f"<th>{e(fmt.metric_label(m))}</th>" for m in board.headline]
    heads += [f'<th title="share of all {unit} with {e(primary)} at full score">perfect</th>',
              f'<th title="median {e(primary)} over found {unit}">median</th>', "<th>s/page</th>", "<th>cost</th>"]
    heads += [f"<th>{e(fmt.OUTCOME_LABELS.get(o, o))}</th>" for o in OUTCOMES[1:]]  # ok = found
    rows = []
    for row in board.rows:
        stats = fmt.primary_stats(board, row)
        cells = [f'<td data-v="{row.rank}">{row.rank}</td>', f'<td class="name">{to_cards(row.parser)}</td>',
                 (f'<td data-v="{num(row.coverage)}">{row.found}/{row.total}'
                  f' <span class="excl">{fmt.pct(row.coverage)}</span></td>')]
        cells += [_pair_cell(row.overall.metrics.get(m), m, m == primary) for m in board.headline]
        perfect = stats.perfect_rate if stats else None
        median = stats.median if stats else None
        cells += [f'<td data-v="{num(perfect)}">{fmt.pct(perfect)}</td>',
                  f'<td data-v="{num(median)}">{fmt.score(median, primary or "")}</td>',
                  f'<td data-v="{num(row.seconds_per_page)}">{fmt.seconds(row.seconds_per_page)}</td>',
                  f'<td data-v="{num(row.cost)}">{fmt.usd(row.cost)}</td>']
        cells += [f'<td data-v="{row.outcomes.get(o, 0)}">{row.outcomes.get(o, 0)}</td>' for o in OUTCOMES[1:]]
        rows.append(f'<tr data-rank="{row.rank}" data-show-parser="{e(row.parser)}">{"".join(cells)}</tr>')
    return (f"<h2>{e(title)}</h2>"
            f'<p class="note">{f"Ranked by <b>{e(primary)}</b>" if primary else "Not ranked: no score was computed"}. '
            f'{e(fmt.legend(board))}. Perfect = share of all {unit} '
            f"at full score; median over found {unit}; seconds and cost per PDF page"
            f"{' (a document divided by its pages)' if board.case_unit == 'documents' else ''}. "
            "Click a header to sort, "
            f"a row for that parser's {unit} below, worst first.</p>"
            f'<div class="scroll"><table class="board sortable-table"><thead><tr>{"".join(heads)}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def ranking_html(board: Leaderboard, counts: Sequence[VerdictCounts]) -> str:
    """One kind's leaderboard and its parsers' verdict counts, in a section of their own (the
    first kind's is `#leaderboard`, the top of the page)."""
    kind = item_kinds.get(board.kind)
    ident = "leaderboard" if not kind.label else f"leaderboard-{kind.name}"
    title = f"{kind.label} leaderboard" if kind.label else "Leaderboard"
    return (f'<section id="{e(ident)}" class="ranking">{_leaderboard_html(board, title, kind.title)}'
            f"{_counts_html(counts, kind.title)}</section>")


def _counts_html(counts: Sequence[VerdictCounts], unit: str) -> str:
    """Each parser's verdict counts; its name shows its cards, its failed count its failed cards."""
    if not counts:
        return ""
    heads = "".join(f"<th>{e(h)}</th>" for h in COLUMNS)
    rows = []
    for c in counts:
        cells = c.cells()
        failed = to_cards(c.parser, cells[2], verdict=FAILED) if c.failed else cells[2]
        shown = [cells[0], cells[1], failed, *cells[3:]]
        cls = ' class="v-fail"' if c.gate_fails else ""
        rows.append(f'<tr{cls}><td class="name">{to_cards(c.parser)}</td>'
                    + "".join(f"<td>{x if i == 2 else e(x)}</td>" for i, x in enumerate(shown)) + "</tr>")
    return (f'<p class="note">Verdicts per parser: {e(unit)} found, cases passed, failed, known failures '
            "(xfailed: failed in the baseline too), regressed against the baseline, and the gate.</p>"
            f'<div class="scroll"><table class="board counts"><thead><tr><th class="name">parser</th>{heads}</tr>'
            f'</thead><tbody>{"".join(rows)}</tbody></table></div>')


def to_cards(parser: str, text: str | None = None, verdict: str = "") -> str:
    """A link that shows `parser`'s cards in the drill-down, worst first (the script filters them)."""
    also = f' data-verdict="{e(verdict)}"' if verdict else ""
    return (f'<a class="to-cards" href="#cases-head" data-parser="{e(parser)}"{also}>'
            f"{e(parser) if text is None else e(text)}</a>")


def track_html(board: Leaderboard, colors: Mapping[str, str]) -> str:
    """One kind's group section (its table, then its bars: `html_bars`) and its breakdowns, headed
    by the kind's label (its leaderboard is at the top of the page, `ranking_html`)."""
    kind = item_kinds.get(board.kind)
    title = f"By {kind.group_title}" if not kind.label else f"{kind.title.capitalize()}: {kind.group_title}"
    return _group_html(board, title, kind.title) + group_bars_html(board, colors) + _breakdowns_html(board)


def _breakdowns_html(board: Leaderboard) -> str:
    """'By page break' / 'By language' / 'By variant' sections, for the breakdowns with more than one
    value in the run."""
    kind = item_kinds.get(board.kind)
    prefix = f"{kind.title.capitalize()} by" if kind.label else "By"
    return "".join(_group_html(board, f"{prefix} {fmt.breakdown_name(attribute)}", board.unit, attribute)
                   for attribute in board.breakdowns)


def _group_html(board: Leaderboard, title: str, unit: str, attribute: str = "group") -> str:
    if not board.rows:
        return ""
    values = board.values(attribute)
    heads = "".join(["<th class=\"name\">parser</th><th class=\"name\"></th><th>all</th>"]
                    + [f"<th>{e(c)}</th>" for c in values])
    rows = []
    for row in board.rows:
        groups = [row.overall] + [row.by(attribute).get(c) for c in values]
        found = "".join(f"<td>{e(fmt.found(g)) if g else fmt.DASH}</td>" for g in groups)
        rows.append(f'<tr class="block"><td class="name">{e(row.parser)}</td><td class="name">found</td>{found}</tr>')
        for metric in board.headline:
            cells = "".join(_pair_cell(g.metrics.get(metric), metric, False) if g else f"<td>{fmt.DASH}</td>"
                            for g in groups)
            rows.append(f'<tr><td></td><td class="name">{e(fmt.metric_label(metric))}</td>{cells}</tr>')
        if fmt.perfect_rows(board):
            cells = "".join(f"<td>{e(fmt.perfect(board, g))}</td>" for g in groups)
            rows.append(f'<tr><td></td><td class="name">perfect {e(board.primary)}</td>{cells}</tr>')
    return (f"<h2>{e(title)}</h2>"
            f'<p class="note">Mean with missing {unit} as 0 (mean over found {unit}).</p>'
            f'<div class="scroll"><table class="board"><thead><tr>{heads}</tr></thead>'
            f'<tbody class="flat">{"".join(rows)}</tbody></table></div>')
