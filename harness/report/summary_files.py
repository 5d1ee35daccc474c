"""summary.json and leaderboard.csv: a run's answer for programs, beside results.json.

Why: results.json holds every case, its texts included; a CI step, a dashboard or a notebook
that wants each parser's numbers had to read all of it and recount what the leaderboard already
counted (and results.json's leaderboard has no verdict counts: "n_failed: 0" there is the count
of tables a metric failed on, beside 30 failed cases). Both files are written by
`tablebench.report.write.write_report`, the code path of the other files (the end of a pytest
run, `tablebench report --out`, `report merge`), from the same leaderboards, verdict counts
(`verdict_counts`) and causes (`causes`) the other artefacts show, so none can disagree.

summary.json (`FORMAT`): the run's facts that say what was measured, then per parser and item
kind: rank, the ranking metric, total, found, passed, failed, xfailed, regressed, the gate's
verdict, time and cost per page, and per headline metric its mean with missing items as 0 (what
the leaderboard ranks by) with a 95% interval, the mean over found items, the median and the
share at full score; in a run of documents with tables broken across pages and tables on one
(`Leaderboard.page_breaks`), the same per page break (`by_page_break`: "broken", "single-page");
then the failures by cause. Time and cost per page are per PDF page (a document's divided by its
pages). The interval is a percentile bootstrap of the
mean over the items (`tablebench.gating.aggregate.bootstrap_ci`, the gate's own, seeded, with
`N_BOOT` resamples): it says how far the mean could move on another draw of as many items.

leaderboard.csv: one row per (kind, parser), in rank order, `CSV_HEAD` then four columns per
headline metric (`M`, `M_ci_low`, `M_ci_high`, `M_found`), then, with a page-break breakdown,
per value (`broken`, `single-page`) its found count and each metric's mean (`found_broken`,
`M_broken`); a cell is empty where a kind has no such metric or no value. It is written from
summary.json's data, so the two agree digit for digit.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping, Sequence

import numpy as np

from tablebench.core import kinds as item_kinds
from tablebench.core.metric_specs import direction
from tablebench.core.results import ItemResult
from tablebench.gating.aggregate import Comparison, bootstrap_ci
from tablebench.report.aggregate import Leaderboard, metric_value
from tablebench.report.causes import causes
from tablebench.report.verdict_counts import verdict_counts

FORMAT = "tablebench-summary/1"
N_BOOT = 1000  # bootstrap resamples per interval: 0.3 s for 5 parsers x 441 tables x 6 metrics
ALPHA = 0.05
# the run's facts summary.json repeats, besides each kind's count (under its title: "tables")
META = ("case_set", "case_set_manifest_sha256", "timestamp", "finished", "version", "metrics", "judge", "baseline",
        "cases", "completeness", "merged_from")
CSV_HEAD = ("kind", "rank", "parser", "total", "found", "passed", "failed", "xfailed", "regressed", "gate",
            "seconds_per_page", "cost_usd")


def summary_data(tracks: Sequence[Leaderboard], results: Sequence[ItemResult], comparisons: Sequence[Comparison] = (),
                 meta: Mapping[str, object] | None = None) -> dict:
    """summary.json's content (see the module docstring). `results` need no texts."""
    by_parser: dict[str, dict] = {}
    for board in tracks:
        counts = verdict_counts([row.parser for row in board.rows], results, comparisons, board.kind)
        for row, count in zip(board.rows, counts, strict=True):
            mine = [r for r in results if r.parser == row.parser and r.kind == board.kind]
            by_parser.setdefault(row.parser, {})[board.kind] = entry = {
                "rank": row.rank, "primary": board.primary, "total": count.total, "found": count.found,
                "passed": count.passed, "failed": count.failed, "xfailed": count.xfailed,
                "regressed": count.regressed, "gate": count.gate, "gate_failed": list(count.gate_failed),
                "seconds_per_page": row.seconds_per_page, "cost_usd": row.cost,
                "metrics": {m: _metric(m, row.overall.metrics[m], [metric_value(r, m) for r in mine])
                            for m in _metrics(board)}}
            if board.page_breaks:
                entry["by_page_break"] = {
                    value: {"total": group.total, "found": group.found,
                            "metrics": {m: _metric(m, group.metrics[m], [metric_value(r, m) for r in mine
                                                                      if r.page_break == value])
                                        for m in _metrics(board)}}
                    for value, group in row.by_page_break.items()}
    titles = {kind.title for kind in item_kinds.all_kinds()}
    facts = {k: v for k, v in (meta or {}).items() if k in META or k in titles}
    return {"format": FORMAT, **facts, "parsers": by_parser,
            "causes": [{"parser": c.parser, "outcome": c.outcome, "reason": c.reason, "cases": len(c.cases),
                        "pages": len(c.pages), "parser_pages": c.parser_pages, "every_page": c.every_page,
                        "first_case": c.first.test_id} for c in causes(results)]}


def summary_json(data: Mapping) -> str:
    """Strict JSON: a number that is not finite (a parser's sidecar may claim 1e309 seconds) is null."""
    return json.dumps(_all_finite(data), ensure_ascii=False, allow_nan=False, indent=1) + "\n"


def _all_finite(value: object) -> object:
    if isinstance(value, float):
        return _finite(value)
    if isinstance(value, Mapping):
        return {k: _all_finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_all_finite(v) for v in value]
    return value


def leaderboard_csv(data: Mapping) -> str:
    """leaderboard.csv's text from `summary_data`'s content (a number that is not finite: an empty cell)."""
    data = _all_finite(data)
    metrics = list(dict.fromkeys(m for kinds in data["parsers"].values() for row in kinds.values()
                                 for m in row["metrics"]))
    rows = sorted(((kind, parser, row) for parser, kinds in data["parsers"].items() for kind, row in kinds.items()),
                  key=lambda x: (_kind_order(data, x[0]), x[2]["rank"]))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    breaks = list(dict.fromkeys(v for kinds in data["parsers"].values() for row in kinds.values()
                                for v in row.get("by_page_break", {})))
    writer.writerow([*CSV_HEAD, *(f"{m}{suffix}" for m in metrics for suffix in ("", "_ci_low", "_ci_high", "_found")),
                     *(f"{m}_{v}" for v in breaks for m in ("found", *metrics))])
    for kind, parser, row in rows:
        cells = [kind, row["rank"], parser, *(row[k] for k in CSV_HEAD[3:])]
        for m in metrics:
            stats = row["metrics"].get(m) or {}
            ci = stats.get("ci95") or [None, None]
            cells += [stats.get("mean"), ci[0], ci[1], stats.get("mean_found")]
        for v in breaks:
            group = row.get("by_page_break", {}).get(v) or {}
            cells += [group.get("found"), *((group.get("metrics", {}).get(m) or {}).get("mean") for m in metrics)]
        writer.writerow(["" if c is None else c for c in cells])
    return out.getvalue()


def _kind_order(data: Mapping, kind: str) -> int:
    kinds = list(dict.fromkeys(k for kinds in data["parsers"].values() for k in kinds))
    return kinds.index(kind)


def _metrics(board: Leaderboard) -> list[str]:
    """The headline metrics a board shows, its ranking metric first when it is another."""
    return list(dict.fromkeys([*([board.primary] if board.primary else []), *board.headline]))


def _metric(metric: str, stats, values: list[float | None]) -> dict:
    """One metric of one parser and kind: the leaderboard's numbers and the interval of its mean (a
    table without a value counts the metric's worst, as the leaderboard's mean counts it)."""
    worst = direction(metric).worst
    counted = np.array([v if v is not None else worst for v in values], dtype=float)
    ci = None
    if counted.size and stats.include_missing is not None:
        low, high = bootstrap_ci(counted, ALPHA, n_boot=N_BOOT)
        ci = [_finite(low), _finite(high)]
    return {"mean": _finite(stats.include_missing), "ci95": ci, "mean_found": _finite(stats.exclude_missing),
            "median": _finite(stats.median), "perfect_rate": _finite(stats.perfect_rate), "n": stats.n_values}


def _finite(value: float | None) -> float | None:
    return value if value is None or math.isfinite(value) else None
