"""Number formatting shared by every rendering, so the terminal, Markdown and HTML agree digit for digit."""

from __future__ import annotations

from tablebench.core import kinds as item_kinds
from tablebench.core.metric_specs import JUDGE, scale_of, specs_of
from tablebench.core.results import OUTCOMES
from tablebench.report.aggregate import Leaderboard, MetricStats, ParserRow

DASH = "–"
# each outcome in words: "error" is the harness's (a table it could not score); a parser's failure is "parse error"
OUTCOME_LABELS = {outcome: outcome.replace("_", " ") for outcome in OUTCOMES}


def meta_text(value: object) -> str:
    """A run fact's value on one line, as the Markdown and HTML reports list them: a list joined
    by commas, a mapping (parser specs by label, score floors by metric) as `key = value`s."""
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k} = {v}" for k, v in value.items())
    return str(value)


# what each breakdown (`Leaderboard.breakdowns`) is called in headings: "by page break"
BREAKDOWN_NAMES = {"language": "language", "variant": "variant", "page_break": "page break"}


def breakdown_name(attribute: str) -> str:
    return BREAKDOWN_NAMES.get(attribute, attribute)


def time_note(board: Leaderboard) -> str:
    """What "s/page" divides by, said where the board's cases are documents (a one-page case's
    page is its PDF page): '' otherwise."""
    return "s/page = parse seconds per PDF page, a document's divided by its pages" \
        if board.case_unit == "documents" else ""


def pages_text(pages: list[int], pdf_pages: int) -> str:
    """Where in its document an item is: 'page 1 → page 2' (broken across pages), 'page 3' (on one
    page of a document); '' on a one-page case or where the result does not say (`ItemResult.pages`)."""
    if len(pages) != 2 or not all(type(p) is int for p in pages) or (pdf_pages <= 1 and pages[1] <= pages[0]):
        return ""
    return f"page {pages[0]} → page {pages[1]}" if pages[1] > pages[0] else f"page {pages[0]}"


def legend(board: Leaderboard) -> str:
    """The legend under a kind's leaderboard: how missing items count, which scores are on 0-10."""
    title = item_kinds.get(board.kind).title
    ten = [s.headline for s in specs_of(board.kind) if s.scale == 10.0] + [JUDGE]
    return (f"Each score: mean with missing {title} as 0 (mean over found {title} only); "
            f"{' and '.join(ten)} {'are' if len(ten) > 1 else 'is'} on 0-10, the rest on 0-1")


def score(value: float | None, metric: str) -> str:
    """3 decimals on the 0-1 scale, 2 on the 0-10 scale."""
    if value is None:
        return DASH
    return f"{value:.2f}" if scale_of(metric) != 1.0 else f"{value:.3f}"


def pair(stats: MetricStats | None, metric: str) -> str:
    """'include (exclude)': the two means of one metric; '– (12 not scored)' when it failed on tables."""
    failed = f"{stats.n_failed} not scored" if stats is not None and stats.n_failed else ""
    if stats is None or stats.include_missing is None or (failed and not stats.n_values):
        return f"{DASH} ({failed})" if failed else DASH
    text = f"{score(stats.include_missing, metric)} ({score(stats.exclude_missing, metric)})"
    return f"{text} [{failed}]" if failed else text


def pct(value: float | None) -> str:
    return DASH if value is None else f"{100 * value:.1f}%"


def found(row_or_group) -> str:
    """'40/60 (66.7%)' for a ParserRow or a Group."""
    return f"{row_or_group.found}/{row_or_group.total} ({pct(row_or_group.coverage)})"


def seconds(value: float | None) -> str:
    return DASH if value is None else f"{value:.2f} s"


def usd(value: float | None) -> str:
    return DASH if value is None else f"${value:.4f}"


def metric_label(metric: str) -> str:
    """The column name of a metric, with its scale when it is not 0-1."""
    scale = scale_of(metric)
    return f"{metric} (0-{scale:g})" if scale != 1.0 else metric


def outcomes(row: ParserRow, only: tuple[str, ...] | None = None) -> str:
    """'ok 40 · missing 12 · parse error 3' (zero counts left out; `only` these outcomes when given)."""
    parts = [f"{OUTCOME_LABELS.get(k, k)} {n}" for k, n in row.outcomes.items() if n and (only is None or k in only)]
    return " · ".join(parts) or DASH


def perfect_rows(board: Leaderboard) -> bool:
    """Whether the per-group section shows a "perfect" row (the share at full score per group, for
    kinds that ask for it, e.g. formulas inline / display)."""
    return item_kinds.get(board.kind).perfect_by_group and board.primary is not None


def perfect(board: Leaderboard, group) -> str:
    """'42.0%': a group's share of all items at full primary score ('–' for a group without items)."""
    stats = group.metrics.get(board.primary) if group is not None and board.primary else None
    return pct(stats.perfect_rate) if stats is not None else DASH


def primary_stats(board: Leaderboard, row: ParserRow) -> MetricStats | None:
    return row.overall.metrics.get(board.primary) if board.primary else None
