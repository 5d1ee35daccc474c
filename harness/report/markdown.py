"""`leaderboard.md`: GitHub-flavoured Markdown tables, ready to paste into a README.

Parser names and meta values are untrusted text: `md_text` escapes what Markdown or the
HTML GitHub allows inside Markdown would otherwise interpret.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from tablebench.core import kinds as item_kinds
from tablebench.core.completeness import of_meta
from tablebench.core.results import ItemResult
from tablebench.report import fmt
from tablebench.report.aggregate import Leaderboard
from tablebench.report.regressions import RegressionView, regressions_md
from tablebench.report.verdict_counts import COLUMNS, VerdictCounts, verdict_counts
from tablebench.report.verdicts import failed_md

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")


def md_text(value: object) -> str:
    """One table cell of plain text: entities for &, <, >; backslash before Markdown syntax; one line."""
    text = str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = " ".join(text.split())  # a newline would end the table row
    return _MD_SPECIAL.sub(r"\\\1", text)


def render_markdown(board: Leaderboard, meta: Mapping[str, object] | None = None,
                    more: Sequence[Leaderboard] = (), regressions: RegressionView | None = None,
                    results: Sequence[ItemResult] = ()) -> str:
    """The whole file, the answer first: each kind's leaderboard (under a heading of its own) with
    each parser's verdict counts, then the failed cases of `results` grouped by cause
    (`tablebench.report.verdicts`), the run against its baseline (`regressions`: the gate's
    table and the cases that moved most), the sections of each leaderboard (every metric, per
    group, per language / variant when the run has several, outcomes) and last the run's facts.

    `more`, the leaderboards of the run's other item kinds, follow the first, each titled by its
    kind ("Formula leaderboard"; its sections under "Formulas", e.g. inline / display)."""
    parts = ["# tablebench leaderboard", ""]
    banner = of_meta(meta, 0).banner() if meta else None
    if banner:
        parts += [f"> **{md_text(banner)}**", ""]
    tracks = [board, *(track for track in more if track.rows)]
    comparisons = regressions.comparisons if regressions is not None else []
    for track in tracks:
        if track.rows or track is board:
            parts += [f"## {_board_title(track)}", ""]
            parts += _board_md(track, verdict_counts([row.parser for row in track.rows], results, comparisons,
                                                     track.kind))
    parts += failed_md(results, md_text, meta=meta)
    if regressions is not None:
        parts += regressions_md(regressions, md_text)
    if board.rows:
        parts += _sections(board, "##")
    for track in tracks[1:]:
        parts += [f"## {item_kinds.get(track.kind).title.capitalize()}", ""] + _sections(track, "###")
    if meta:
        shown = {k: v for k, v in meta.items() if not (regressions and regressions.comparisons and k == "gate")}
        parts += ["## Run", ""] + [f"- **{md_text(k)}**: {md_text(fmt.meta_text(v))}" for k, v in shown.items()] + [""]
    return "\n".join(parts)


def _board_title(board: Leaderboard) -> str:
    """'Leaderboard' (tables), or the kind's label before it ('Formula leaderboard')."""
    label = item_kinds.get(board.kind).label
    return f"{label} leaderboard" if label else "Leaderboard"


def _board_md(board: Leaderboard, counts: Sequence[VerdictCounts]) -> list[str]:
    """A kind's ranking, its legend, and each parser's verdict counts."""
    if not board.rows:
        return ["No results.", ""]
    rows = [[md_text(c.parser), *(md_text(cell) for cell in c.cells())] for c in counts]
    legend = "; ".join(n for n in (fmt.legend(board), fmt.time_note(board)) if n)
    return [leaderboard_md(board), "", f"_{md_text(legend)}._", "",
            _table(["parser", *COLUMNS], rows, right_from=1), ""]


def _sections(board: Leaderboard, h: str) -> list[str]:
    """One track's sections under headings of level `h` (its leaderboard is at the top of the file)."""
    kind = item_kinds.get(board.kind)
    qualifier = f"{kind.label.lower()} " if kind.label else ""
    groups = kind.group_title.capitalize() if kind.label else f"By {kind.group_title}"
    by = f"{kind.title.capitalize()} by" if kind.label else "By"
    outcomes = f"{kind.label} outcomes" if kind.label else "Outcomes"
    parts = [f"{h} Every {qualifier}metric", "", metrics_md(board), ""]
    parts += [f"{h} {groups}", "", group_md(board), ""]
    for attribute in board.breakdowns:  # only when the run has several languages / variants / page breaks
        parts += [f"{h} {by} {fmt.breakdown_name(attribute)}", "", group_md(board, attribute), ""]
    parts += [f"{h} {outcomes}", "", outcomes_md(board), ""]
    return parts


def leaderboard_md(board: Leaderboard) -> str:
    """Rank, parser, coverage, every headline metric (include-missing mean), primary details, time, cost."""
    primary = board.primary
    head = ["#", "parser", "found"] + [fmt.metric_label(m) for m in board.headline]
    head += [f"perfect {primary}", f"median {primary}", "s/page", "cost (USD)"]
    rows = []
    for row in board.rows:
        stats = fmt.primary_stats(board, row)
        cells = [str(row.rank), md_text(row.parser), fmt.found(row)]
        cells += [f"**{v}**" if m == primary else v for m, v in
                  ((m, fmt.pair(row.overall.metrics.get(m), m)) for m in board.headline)]
        cells += [fmt.pct(stats.perfect_rate if stats else None), fmt.score(stats.median if stats else None,
                  primary or ""), fmt.seconds(row.seconds_per_page), fmt.usd(row.cost)]
        rows.append(cells)
    return _table(head, rows, right_from=2)


def metrics_md(board: Leaderboard) -> str:
    """One row per (parser, metric) for every score present, including the non-headline ones."""
    head = ["parser", "metric", "mean (missing = 0)", "mean (found only)", "median", "perfect", "n"]
    rows = []
    for row in board.rows:
        for metric in board.metrics:
            s = row.overall.metrics[metric]
            rows.append([md_text(row.parser), md_text(fmt.metric_label(metric)), fmt.score(s.include_missing, metric),
                         fmt.score(s.exclude_missing, metric), fmt.score(s.median, metric), fmt.pct(s.perfect_rate),
                         str(s.n_values)])
    return _table(head, rows, right_from=2)


def group_md(board: Leaderboard, attribute: str = "group") -> str:
    """Found and every headline metric per group (a complexity level, inline / display; or per `attribute`: language,
    variant, page break), one block of rows per parser."""
    values = board.values(attribute)
    head = ["parser", "", "all"] + [md_text(c) for c in values]
    rows = []
    for row in board.rows:
        groups = [row.overall] + [row.by(attribute).get(c) for c in values]
        rows.append([md_text(row.parser), "found"] + [fmt.found(g) if g else fmt.DASH for g in groups])
        for metric in board.headline:
            rows.append(["", md_text(fmt.metric_label(metric))]
                        + [fmt.pair(g.metrics.get(metric), metric) if g else fmt.DASH for g in groups])
        if fmt.perfect_rows(board):
            rows.append(["", md_text(f"perfect {board.primary}")] + [fmt.perfect(board, g) for g in groups])
    return _table(head, rows, right_from=2)


def outcomes_md(board: Leaderboard) -> str:
    """How every table ended, per parser, beside its pages (or documents) and PDF pages."""
    names = list(dict.fromkeys(name for row in board.rows for name in row.outcomes))
    pdf = board.case_unit != "pages"
    head = ["parser", board.unit, board.case_unit, *(["PDF pages"] if pdf else [])]
    head += [md_text(fmt.OUTCOME_LABELS.get(n, n)) for n in names]
    rows = [[md_text(r.parser), str(r.total), str(r.pages), *([str(r.pdf_pages)] if pdf else [])]
            + [str(r.outcomes.get(n, 0)) for n in names] for r in board.rows]
    return _table(head, rows, right_from=1)


def _table(head: list[str], rows: list[list[str]], right_from: int) -> str:
    align = ["---" if i < right_from else "---:" for i in range(len(head))]
    lines = [head, align] + rows
    return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)
