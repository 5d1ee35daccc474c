"""Rich renderables for the terminal: small tables composed by the CLI and the plugin."""

from __future__ import annotations

from rich import box
from rich.console import Group
from rich.table import Table as RichTable
from rich.text import Text

from harness.report import fmt
from harness.report.aggregate import Leaderboard


def meta_eval_table(results: dict[str, dict], title: str = "") -> RichTable:
    """Correlations with human ratings, best Pearson first, with the Pearson 95% CI."""
    table = RichTable(title=title or None)
    table.add_column("metric", overflow="fold")
    for name in ("Pearson", "95% CI", "Spearman", "Kendall", "n"):
        table.add_column(name, justify="right")
    ordered = sorted(results.items(), key=lambda kv: _key(kv[1]["pearson"]), reverse=True)
    for name, r in ordered:
        lo, hi = r["ci95"]["pearson"]
        ci = f"[{lo:.3f}, {hi:.3f}]" if lo is not None else "-"
        style = "bold" if name.startswith("ours:") else None
        table.add_row(name, _fmt(r["pearson"]), ci, _fmt(r["spearman"]), _fmt(r["kendall"]), str(r["n"]), style=style)
    return table


def _fmt(value: float) -> str:
    return "-" if value != value else f"{value:.3f}"


def _key(value: float) -> float:
    return float("-inf") if value != value else value


def leaderboard_table(board: Leaderboard, title: str = "") -> RichTable:
    """The overall leaderboard: one row per parser, best first, by the primary metric.

    Compact on purpose (fits 100 columns; only the parser name folds); every other metric
    is in `complexity_table`.
    """
    primary = board.primary
    table = RichTable(title=title or None, caption=_caption(board), caption_justify="left", box=box.SIMPLE_HEAD,
                      padding=(0, 0), pad_edge=False)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("parser", overflow="fold", style="bold", min_width=10)
    with_cost = any(row.cost for row in board.rows)
    numbers = ["found"]
    if primary:
        numbers += [fmt.metric_label(primary).replace(" (", "\n("), "perfect", "median"]
    numbers += ["s/page"] + ["cost"] * with_cost
    for name in numbers:
        table.add_column(name, justify="right", no_wrap=True)
    for name in ("missing", "error", "timeout", "empty"):  # their headers give way first on narrow terminals
        table.add_column(name, justify="right", overflow="fold")
    for row in board.rows:
        cells = [str(row.rank), row.parser, f"{row.found}/{row.total}"]
        if primary:
            stats = fmt.primary_stats(board, row)
            cells += [fmt.pair(stats, primary), fmt.pct(stats.perfect_rate if stats else None),
                      fmt.score(stats.median if stats else None, primary)]
        cells += [fmt.seconds(row.seconds_per_page)] + [fmt.usd(row.cost)] * with_cost
        cells += [str(row.outcomes.get(o, 0)) for o in ("missing", "parse_error", "timeout", "empty")]
        table.add_row(*(Text(c) for c in cells))  # Text: parser names are never read as markup
    return table


def complexity_table(board: Leaderboard, title: str = "") -> RichTable:
    """Every headline metric, overall and per complexity: a block of rows per parser."""
    table = RichTable(title=title or None, caption=fmt.LEGEND, caption_justify="left", box=box.SIMPLE_HEAD)
    table.add_column("parser", overflow="fold", style="bold", min_width=10)
    table.add_column("", no_wrap=True)
    table.add_column("all", justify="right", style="bold", no_wrap=True)
    for level in board.complexities:
        table.add_column(level, justify="right", no_wrap=True)
    for row in board.rows:
        groups = [row.overall] + [row.by_complexity.get(level) for level in board.complexities]
        table.add_row(Text(row.parser), "found", *(fmt.found(g) if g else fmt.DASH for g in groups))
        for metric in board.headline:
            table.add_row("", fmt.metric_label(metric),
                          *(fmt.pair(g.metrics.get(metric), metric) if g else fmt.DASH for g in groups),
                          end_section=metric == board.headline[-1])
    return table


def _caption(board: Leaderboard) -> str:
    if not board.primary:
        return "no scores"
    return (f"ranked by {board.primary}: mean with missing tables as 0 (mean over found tables); "
            f"perfect = share of all tables at full score; median over found tables")


def leaderboard_group(board: Leaderboard, title: str = "tablebench leaderboard") -> Group:
    """Both leaderboard tables, ready for `Console.print` (what the pytest plugin shows at session end)."""
    if not board.rows:
        return Group(Text(f"{title}: no results" if title else "no results"))
    return Group(leaderboard_table(board, title=title),
                 complexity_table(board, title="by complexity"))
