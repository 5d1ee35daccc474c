"""Rich renderables for the terminal: small tables composed by the CLI and the plugin."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich import box
from rich.console import Group
from rich.table import Table as RichTable
from rich.text import Text

from tablebench.core import kinds as item_kinds
from tablebench.core.results import FAILURES
from tablebench.report import fmt
from tablebench.report.aggregate import Leaderboard
from tablebench.report.verdict_counts import VerdictCounts
from tablebench.report.whole import label_lines


def meta_eval_table(results: dict[str, dict], title: str = "") -> RichTable:
    """Correlations with the reference ratings (human, or a stored judge's: the title says), best
    Pearson first, with the Pearson 95% CI."""
    table = RichTable(title=title or None)
    table.add_column("metric", overflow="fold")  # names as Text: `cv:formula_score [mixed]` is no markup tag
    means = any("mean" in r for r in results.values())  # rows of a class of pairs: their mean, and the ratings'
    for name in ("Pearson", "95% CI", "Spearman", "Kendall", "n", *(["mean (ratings)"] if means else [])):
        table.add_column(name, justify="right")
    ordered = sorted(results.items(), key=lambda kv: _key(kv[1]["pearson"]), reverse=True)
    for name, r in ordered:
        lo, hi = r["ci95"]["pearson"]
        ci = f"[{lo:.3f}, {hi:.3f}]" if lo is not None else "-"
        style = "bold" if name.startswith("ours:") else None
        mean = [f"{r['mean']:.2f} ({r['reference_mean']:.2f})" if "mean" in r else ""] if means else []
        table.add_row(Text(name), _fmt(r["pearson"]), ci, _fmt(r["spearman"]), _fmt(r["kendall"]), str(r["n"]), *mean,
                      style=style)
    return table


def _fmt(value: float) -> str:
    return "-" if value != value else f"{value:.3f}"


def _key(value: float) -> float:
    return float("-inf") if value != value else value


NAME_WIDTH = 20  # parser labels fold beyond this (at spaces or after punctuation, `whole.label_lines`)


def leaderboard_table(board: Leaderboard, title: str = "") -> RichTable:
    """The overall leaderboard: one row per parser, best first, by the primary metric.

    Fits 80 columns without breaking a header or a number mid-word: headers are single words
    (or wrap at a space), the parser label folds beyond `NAME_WIDTH` after its punctuation, a two-number cell wraps
    at its space. The median and every other metric are in `group_table` and the files.
    """
    primary = board.primary
    table = RichTable(title=title or None, caption=_caption(board), caption_justify="left", box=box.SIMPLE_HEAD,
                      padding=(0, 0), pad_edge=False)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("parser", overflow="fold", style="bold", max_width=NAME_WIDTH)
    with_cost = any(row.cost for row in board.rows)
    table.add_column("found", justify="right", no_wrap=True)
    if primary:
        table.add_column(fmt.metric_label(primary), justify="right")
        table.add_column("perfect", justify="right", no_wrap=True)
    table.add_column("s/page", justify="right")
    if with_cost:
        table.add_column("cost", justify="right", no_wrap=True)
    table.add_column("missing", justify="right", no_wrap=True)
    # every failure, the parser's and the harness's, summed under "errors" (not "failed": that is
    # pytest's word for failing tests); the files count each apart
    table.add_column("errors", justify="right", no_wrap=True)
    for row in board.rows:
        cells = [str(row.rank), label_lines(row.parser, NAME_WIDTH), f"{row.found}/{row.total}"]
        if primary:
            stats = fmt.primary_stats(board, row)
            cells += [fmt.pair(stats, primary), fmt.pct(stats.perfect_rate if stats else None)]
        cells += [fmt.seconds(row.seconds_per_page)] + [fmt.usd(row.cost)] * with_cost
        cells += [str(row.outcomes.get("missing", 0)), str(sum(row.outcomes.get(o, 0) for o in FAILURES))]
        table.add_row(*(Text(c) for c in cells))  # Text: parser names are never read as markup
    return table


def group_table(board: Leaderboard, title: str = "") -> RichTable:
    """Found and every headline metric, overall and per group (a complexity level, inline / display): a block of rows per parser
    (its label on the first row), so no column is spent on repeating the parser."""
    table = RichTable(title=title or None, caption=fmt.legend(board), caption_justify="left", box=box.SIMPLE_HEAD,
                      padding=(0, 1, 0, 0), pad_edge=False)
    labels = [" found"] + [" " + fmt.metric_label(m) for m in board.headline]
    table.add_column("", overflow="fold", no_wrap=True,  # keeps "teds_struct" and "formula_score (0-10)" whole
                     max_width=max(NAME_WIDTH, *map(len, labels)))
    table.add_column("all", justify="right", style="bold", min_width=8)
    for level in board.groups:
        table.add_column(level, justify="right", min_width=8)
    for row in board.rows:
        groups = [row.overall] + [row.by_group.get(level) for level in board.groups]
        table.add_row(Text(label_lines(row.parser, NAME_WIDTH), style="bold", overflow="fold", no_wrap=False),
                      *[""] * len(groups))
        table.add_row(labels[0], *(fmt.found(g) if g else fmt.DASH for g in groups))
        last = None if fmt.perfect_rows(board) or not board.headline else board.headline[-1]
        for label, metric in zip(labels[1:], board.headline):
            table.add_row(label,
                          *(fmt.pair(g.metrics.get(metric), metric) if g else fmt.DASH for g in groups),
                          end_section=metric == last)
        if fmt.perfect_rows(board):
            table.add_row(" perfect", *(fmt.perfect(board, g) for g in groups), end_section=True)
    return table


_CELL = 7  # a compact breakdown column: "10.00" / "0.912" / "100.0%" and a space


def breakdown_tables(board: Leaderboard, attribute: str, width: int = 80) -> list[RichTable]:
    """The primary metric and the share found per language (or variant, or page break), one row pair per parser:
    compact, so many languages fit; split into several tables when they would not fit `width`.
    Every other metric per language is in leaderboard.md, report.html and results.json."""
    values = board.values(attribute)
    if not values or not board.rows:
        return []
    label_width = max(NAME_WIDTH, len(" found"), len(" " + fmt.metric_label(board.primary or "")))
    per_table = max(1, (width - label_width - 1) // max(_CELL, *(len(v) + 1 for v in values)))
    chunks = [values[i:i + per_table] for i in range(0, len(values), per_table)]
    title = f"by {fmt.breakdown_name(attribute)}"
    return [_breakdown_table(board, attribute, chunk, label_width,
                             title + (f" ({n + 1}/{len(chunks)})" if len(chunks) > 1 else ""),
                             caption=n == len(chunks) - 1)
            for n, chunk in enumerate(chunks)]


def _breakdown_table(board: Leaderboard, attribute: str, values: list[str], label_width: int, title: str,
                     caption: bool) -> RichTable:
    primary = board.primary
    note = (f"{fmt.metric_label(primary)}: mean with missing {board.unit} as 0; found = share of "
            f"{board.unit} located" if primary else f"found = share of {board.unit} located")
    table = RichTable(title=title, caption=note if caption else None, caption_justify="left", box=box.SIMPLE_HEAD,
                      padding=(0, 1, 0, 0), pad_edge=False)
    table.add_column("", overflow="fold", no_wrap=True, max_width=label_width)
    for value in values:
        table.add_column(Text(value), justify="right", no_wrap=True)
    for row in board.rows:
        groups = [row.by(attribute).get(v) for v in values]
        table.add_row(Text(label_lines(row.parser, NAME_WIDTH), style="bold", overflow="fold", no_wrap=False),
                      *[""] * len(groups))
        table.add_row(" found", *(fmt.pct(g.coverage) if g else fmt.DASH for g in groups),
                      end_section=primary is None)
        if primary:
            table.add_row(" " + fmt.metric_label(primary),
                          *(fmt.score(g.metrics[primary].include_missing, primary) if g else fmt.DASH
                            for g in groups), end_section=True)
    return table


def _caption(board: Leaderboard) -> str:
    if not board.primary:
        return "no scores"
    unit = board.unit
    text = (f"ranked by {board.primary}: mean with missing {unit} as 0 (mean over found {unit}); "
            f"perfect = share of all {unit} at full score; errors = parse error, timeout, empty output "
            "or harness error" + (f"; {fmt.time_note(board)}" if fmt.time_note(board) else ""))
    details = [f"{row.parser}: {fmt.outcomes(row, FAILURES)}" for row in board.rows
               if any(row.outcomes.get(o, 0) for o in FAILURES)]
    return text + ("\nerrors: " + "; ".join(details) if details else "")


def leaderboard_group(board: Leaderboard, title: str = "tablebench leaderboard",
                      counts: Sequence[VerdictCounts] = ()) -> Group:
    """The leaderboard, each parser's line of verdict counts (`counts`, when given), then the
    per-group tables and per language / variant when the run has several, ready for
    `Console.print` (what the pytest plugin shows at session end)."""
    if not board.rows:
        return Group(Text(f"{title}: no results" if title else "no results"))
    return Group(leaderboard_table(board, title=title),
                 *(Text(c.line(), style="red" if c.failed or c.gate_fails else "") for c in counts),
                 group_table(board, title=_groups_title(board)),
                 *(t for attribute in board.breakdowns for t in breakdown_tables(board, attribute)))


def tracks_group(tracks: Mapping[str, Leaderboard], title: str = "",
                 counts: Mapping[str, Sequence[VerdictCounts]] | None = None) -> Group:
    """Every track's leaderboard (from `aggregate.boards`), each kind under its own title (the first,
    tables, under `title`, or untitled when it is the only one), each with its parsers' verdict
    counts when `counts` (`verdict_counts.counts_by_kind`) is given."""
    return Group(*(leaderboard_group(board, title=_track_title(kind, len(tracks), title),
                                     counts=(counts or {}).get(kind, ()))
                   for kind, board in tracks.items()))


def _track_title(kind: str, n_tracks: int, title: str) -> str:
    """A labelled kind (formulas) is always titled; the unlabelled one (tables) only beside others."""
    item_kind = item_kinds.get(kind)
    return item_kind.title if item_kind.label else title or (item_kind.title if n_tracks > 1 else "")


def _groups_title(board: Leaderboard) -> str:
    kind = item_kinds.get(board.kind)
    return kind.group_title if kind.label else f"by {kind.group_title}"
