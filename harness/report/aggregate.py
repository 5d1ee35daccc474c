"""Leaderboard numbers from a list of `ItemResult`s: pure arithmetic, no rendering.

Conventions (every rendering shows these numbers, none recomputes them):

- *include-missing* mean: sum of a metric over **all** tables of a parser / number of tables;
  a table without that value (not located, parse error, timeout, empty output, or a score
  that failed) counts the metric's worst value (0; its scale for a lower-is-better metric, an
  edit distance). This is the number parsers are ranked by, best first (`direction`).
- *exclude-missing* mean: mean over the tables that have the value (the located ones).
- coverage = found / total, found = outcome ``ok``.
- perfect rate = share of **all** tables whose value reaches the metric's best (1 for rule
  metrics, 10 for ``semantic`` and ``judge``, 0 for a lower-is-better one), so a missing table is
  not perfect.
- median: over the tables that have the value (a quality summary of what was found).
- seconds per page and cost per page are per *PDF page*: a case's time and cost (every item of a
  case repeats them) over its PDF's pages (`ItemResult.pdf_pages`: a document has several).

Beside each item's group (`ItemResult.group`: a table's complexity, a formula's inline /
display), a board groups by the page's language and variant (`ItemResult.language`,
`.variant`) and by page break (`ItemResult.page_break`: broken across PDF pages or on one) when
the run has more than one of either; with one value those groups are empty, so a
single-language born-digital run of one-page cases reads as before.

Tables and formulas (`ItemResult.kind`) are different tracks with different metrics: `boards`
aggregates each kind into its own leaderboard (formulas grouped inline / display where tables
are grouped by complexity); `leaderboard` aggregates what it is given.

Values that do not exist (no table found, no page) are None, never NaN, so the numbers go
to JSON as they are.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace

from tablebench.core import kinds as item_kinds
from tablebench.core.metric_specs import Direction, direction, display_order, ranking_metric, scale_of
from tablebench.core.results import OUTCOMES, PAGE_BREAKS, ItemResult, case_unit

VARIANT_ORDER = ("digital", "scan", "photo")
# case attributes (ItemResult fields) a leaderboard also groups by, beside `group`, when a run
# has more than one value of them: one value only would repeat the overall numbers
BREAKDOWNS = ("page_break", "language", "variant")
_EPS = 1e-9


@dataclass(frozen=True)
class MetricStats:
    """One metric over one group of tables (see the module docstring for each number)."""

    include_missing: float | None
    exclude_missing: float | None
    median: float | None
    perfect_rate: float | None
    n_values: int  # tables that have this value
    n_failed: int = 0  # found tables the metric was asked for and failed on (`ItemResult.metric_errors`, e.g. judge)


@dataclass(frozen=True)
class Group:
    """A set of items of one parser (all of them, or one group: a complexity level, inline / display)."""

    total: int
    found: int
    metrics: dict[str, MetricStats]

    @property
    def coverage(self) -> float | None:
        return self.found / self.total if self.total else None


@dataclass(frozen=True)
class ParserRow:
    """One leaderboard line: a parser's overall numbers, per group, outcomes, time, cost."""

    rank: int
    parser: str
    overall: Group
    by_group: dict[str, Group]
    outcomes: dict[str, int]
    pages: int  # cases: pages, or documents of several PDF pages
    seconds_per_page: float | None  # per PDF page
    cost: float  # USD over unique cases: what parsing cost
    cost_per_page: float | None  # per PDF page
    judge_cost: float = 0.0  # USD of LLM-judge calls (per table, `ItemResult.judge_cost`): what scoring cost
    by_language: dict[str, Group] = field(default_factory=dict)  # only when the run has several languages
    by_variant: dict[str, Group] = field(default_factory=dict)  # only when the run has several variants
    by_page_break: dict[str, Group] = field(default_factory=dict)  # only when the run has broken and single-page items
    pdf_pages: int = 0  # PDF pages of its cases (a document counts each of its pages)

    def by(self, attribute: str) -> dict[str, Group]:
        """The groups of one breakdown: "group", "language", "variant" or "page_break"."""
        return {"group": self.by_group, "language": self.by_language, "variant": self.by_variant,
                "page_break": self.by_page_break}[attribute]

    @property
    def total(self) -> int:
        return self.overall.total

    @property
    def found(self) -> int:
        return self.overall.found

    @property
    def coverage(self) -> float | None:
        return self.overall.coverage


@dataclass(frozen=True)
class Leaderboard:
    """Parsers sorted best first by `primary` (include-missing mean), with the metric order to show."""

    rows: list[ParserRow]
    metrics: list[str]  # every score name present, headline ones first
    primary: str | None
    groups: list[str]  # the items' groups present (`ItemResult.group`), in display order
    scale: dict[str, float] = field(default_factory=dict)  # metrics not on 0-1
    kind: str = item_kinds.ORIGINAL_KIND  # the item kind it ranks (set by `boards`)
    languages: list[str] = field(default_factory=list)  # per-language groups: empty unless the run has several
    variants: list[str] = field(default_factory=list)  # per-variant groups (digital, scan, photo): likewise
    page_breaks: list[str] = field(default_factory=list)  # broken / single-page: likewise
    case_unit: str = "pages"  # what its cases are called: "documents" when one has several PDF pages (`case_unit`)

    def values(self, attribute: str) -> list[str]:
        """The groups a breakdown shows, in display order ([] for a breakdown with one value)."""
        return {"group": self.groups, "language": self.languages, "variant": self.variants,
                "page_break": self.page_breaks}[attribute]

    @property
    def breakdowns(self) -> list[str]:
        """The language / variant / page-break breakdowns this board shows (those with more than one value)."""
        return [b for b in BREAKDOWNS if self.values(b)]

    @property
    def unit(self) -> str:
        """'tables' / 'formulas': what its rows count, for titles and notes."""
        return item_kinds.get(self.kind).title

    @property
    def headline(self) -> list[str]:
        """The headline metrics present, in display order (what compact renderings show)."""
        return [m for m in headline_order() if m in self.metrics]

    def to_dict(self) -> dict:
        """Plain data for results.json (properties included, None kept as null)."""
        out = asdict(self)
        for row, data in zip(self.rows, out["rows"]):
            data["coverage"] = row.coverage
            data["overall"]["coverage"] = row.overall.coverage
            for attribute in ("group", *BREAKDOWNS):
                for name, group in row.by(attribute).items():
                    data[f"by_{attribute}"][name]["coverage"] = group.coverage
        return out


def headline_order() -> list[str]:
    """Headline values in display order (any other score present follows, alphabetically)."""
    return display_order(item_kinds.names())


def group_order() -> list[str]:
    """Every kind's groups (a table's complexity, a formula's inline / display) in display order."""
    return [group for kind in item_kinds.all_kinds() for group in kind.groups]


def as_results(results: Iterable[ItemResult | dict]) -> list[ItemResult]:
    """TableResults as given, or rebuilt from their dicts (as they arrive from xdist workers or JSON)."""
    return [r if isinstance(r, ItemResult) else ItemResult.from_dict(r) for r in results]


def leaderboard(results: Iterable[ItemResult | dict], primary: str | None = None) -> Leaderboard:
    """Aggregate results per parser and rank them (a result without a group counts as "unknown").

    `primary` defaults to ``semantic`` when present, else ``teds``, else the first score
    present. Ranking: include-missing mean of `primary` (best first: the smaller for a
    lower-is-better metric), then its exclude-missing mean (the same way), then coverage (desc),
    then parser name, so equal numbers always order the same way.
    Raises ValueError for a `primary` metric no result has.
    """
    results = as_results(results)
    metrics = _metric_names(results)
    if primary is None:
        primary = ranking_metric(item_kinds.names(), metrics)
    elif primary not in metrics:
        raise ValueError(f"primary metric {primary!r} is in no result; present: {', '.join(metrics) or 'none'}")
    groups = _ordered({group_of(r) for r in results}, group_order())
    languages = _several(_ordered({language_of(r) for r in results}, ("en",), last="unknown"))
    variants = _several(_ordered({variant_of(r) for r in results}, VARIANT_ORDER))
    page_breaks = _ordered({r.page_break for r in results}, PAGE_BREAKS, last="unknown")
    page_breaks = _several(page_breaks) if "broken" in page_breaks else []  # older results say "unknown"

    by_parser: dict[str, list[ItemResult]] = {}
    for r in results:
        by_parser.setdefault(r.parser, []).append(r)
    rows = [_parser_row(name, rs, metrics, groups, languages, variants, page_breaks) for name, rs in by_parser.items()]
    rows.sort(key=lambda row: _rank_key(row, primary))
    rows = [replace(row, rank=i + 1) for i, row in enumerate(rows)]
    scale = {m: scale_of(m) for m in metrics if scale_of(m) != 1.0}
    return Leaderboard(rows, metrics, primary, groups, scale, languages=languages, variants=variants,
                       page_breaks=page_breaks, case_unit=case_unit({r.pdf_pages for r in results}))


def _several(values: list[str]) -> list[str]:
    """The values when there are two or more; one value only is the overall group again."""
    return values if len(values) > 1 else []


def by_kind(results: Iterable[ItemResult | dict]) -> dict[str, list[ItemResult]]:
    """Results per item kind, tables first; only kinds that have results. A result of a kind no
    installed package registers is a one-line error, never dropped from the leaderboards."""
    results = as_results(results)
    known = item_kinds.names()
    unknown = sorted({r.kind for r in results} - set(known))
    if unknown:
        raise ValueError(f"results of unknown item kind(s) {', '.join(map(repr, unknown))}; known: {', '.join(known)} "
                         "(install the package that registers them)")
    return {k: rs for k in known if (rs := [r for r in results if r.kind == k])}


def boards(results: Iterable[ItemResult | dict], primary: str | None = None) -> dict[str, Leaderboard]:
    """One leaderboard per item kind present ({"table": ..., "formula": ...}, tables first).

    `primary` ranks the kinds that have it; the others rank by their default. An empty
    `results` gives {"table": <empty board>} (`ORIGINAL_KIND`'s), so a report still has one to show."""
    kinds = by_kind(results)
    if primary is not None and kinds and not any(primary in _metric_names(rs) for rs in kinds.values()):
        leaderboard([r for rs in kinds.values() for r in rs], primary)  # the one-line error naming what is present
    return {k: replace(leaderboard(rs, primary if primary in _metric_names(rs) else None), kind=k)
            for k, rs in kinds.items()} or {item_kinds.ORIGINAL_KIND: leaderboard([], None)}


def group_stats(results: Sequence[ItemResult], metrics: Sequence[str]) -> Group:
    """Totals and per-metric statistics of one set of tables."""
    found = sum(1 for r in results if r.outcome == "ok")
    stats = {m: metric_stats([metric_value(r, m) for r in results], direction(m)) for m in metrics}
    for m in metrics:
        failed = sum(1 for r in results if r.outcome == "ok" and metric_value(r, m) is None and r.metric_errors.get(m))
        if failed:
            stats[m] = replace(stats[m], n_failed=failed)
    return Group(len(results), found, stats)


def exact_sum(values: Iterable[float]) -> float:
    """An exact sum (`math.fsum`), or +-inf where finite values sum past the float range (fsum
    raises OverflowError there: one stray 1e308 in a sidecar or results.json cost the whole report)."""
    values = list(values)
    try:
        return math.fsum(values)
    except OverflowError:
        return sum(values)


def metric_stats(values: Sequence[float | None], way: Direction = Direction(1, 1.0)) -> MetricStats:
    """Statistics of one metric over tables; None marks a table without the value (it counts
    `way.worst` in the include-missing mean)."""
    present = [v for v in values if v is not None]
    total = len(values)
    if not present:
        return MetricStats(way.worst if total else None, None, None, 0.0 if total else None, 0)
    return MetricStats(
        include_missing=exact_sum([*present, *[way.worst] * (total - len(present))]) / total,
        exclude_missing=exact_sum(present) / len(present),
        median=float(statistics.median(present)),
        perfect_rate=sum(1 for v in present if not way.worse(v, way.best - way.sign * _EPS)) / total,
        n_values=len(present),
    )


def _parser_row(name: str, results: list[ItemResult], metrics: list[str], groups: list[str],
                languages: Sequence[str] = (), variants: Sequence[str] = (),
                page_breaks: Sequence[str] = ()) -> ParserRow:
    outcomes = dict.fromkeys(OUTCOMES, 0)
    for r in results:
        outcomes[r.outcome] = outcomes.get(r.outcome, 0) + 1
    pages: dict[tuple[str, str], tuple[float, float, int]] = {}
    for r in results:  # every item of a case repeats the case's time, cost and PDF pages: keep one
        key = (r.case_set, r.page)
        seconds, cost, pdf_pages = pages.get(key, (0.0, 0.0, 1))
        pages[key] = (max(seconds, r.parse_seconds or 0.0), max(cost, r.cost or 0.0), max(pdf_pages, r.pdf_pages))
    n_pages = len(pages)
    n_pdf_pages = sum(n for _, _, n in pages.values())
    seconds = exact_sum(s for s, _, _ in pages.values())
    cost = exact_sum(c for _, c, _ in pages.values())
    by_group = {c: group_stats([r for r in results if group_of(r) == c], metrics) for c in groups}
    by_language = {v: group_stats([r for r in results if language_of(r) == v], metrics) for v in languages}
    by_variant = {v: group_stats([r for r in results if variant_of(r) == v], metrics) for v in variants}
    by_page_break = {v: group_stats([r for r in results if r.page_break == v], metrics) for v in page_breaks}
    return ParserRow(
        rank=0,
        parser=name,
        overall=group_stats(results, metrics),
        by_group={c: g for c, g in by_group.items() if g.total},
        outcomes=outcomes,
        pages=n_pages,
        seconds_per_page=seconds / n_pdf_pages if n_pdf_pages else None,
        cost=cost,
        cost_per_page=cost / n_pdf_pages if n_pdf_pages else None,
        judge_cost=exact_sum(r.judge_cost for r in results),
        by_language={v: g for v, g in by_language.items() if g.total},
        by_variant={v: g for v, g in by_variant.items() if g.total},
        by_page_break={v: g for v, g in by_page_break.items() if g.total},
        pdf_pages=n_pdf_pages,
    )


def metric_value(result: ItemResult, metric: str) -> float | None:
    """A table's value of a metric, or None when the table was not scored (NaN / inf count as None)."""
    if result.outcome != "ok":
        return None
    value = result.scores.get(metric)
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def group_of(result: ItemResult) -> str:
    """The group a result is counted under ("unknown" when the case set has none)."""
    return result.group or "unknown"


def language_of(result: ItemResult) -> str:
    """The language a result is grouped under (its page's; "unknown" when the ground truth has none)."""
    return result.language or "unknown"


def variant_of(result: ItemResult) -> str:
    """The variant a result is grouped under: "digital" (born-digital page), "scan", "photo"."""
    return result.variant or "digital"


def _metric_names(results: list[ItemResult]) -> list[str]:
    """Every score present, and every metric that was asked for and failed everywhere (an
    unreachable judge keeps its column, which says how many tables it could not score)."""
    names = {k for r in results for k in r.scores}
    names |= {m for r in results for m in r.metric_errors if m in headline_order()}
    return _ordered(names, headline_order())


def _ordered(names: set[str], first: Sequence[str], last: str | None = None) -> list[str]:
    """`first` in its order, then the rest sorted, `last` at the very end."""
    rest = sorted(n for n in names if n not in first and n != last)
    return [n for n in first if n in names] + rest + ([last] if last in names and last not in first else [])


def _rank_key(row: ParserRow, primary: str | None) -> tuple:
    stats = row.overall.metrics.get(primary) if primary else None
    way = direction(primary) if primary else Direction(1, 1.0)
    incl = way.oriented(stats.include_missing) if stats and stats.include_missing is not None else -math.inf
    excl = way.oriented(stats.exclude_missing) if stats and stats.exclude_missing is not None else -math.inf
    cov = row.coverage if row.coverage is not None else -math.inf
    return (-incl, -excl, -cov, row.parser)


def run_counts(results: Iterable[ItemResult]) -> dict[str, int]:
    """{kind title: distinct ground-truth items, for each kind that has any (the first kind's
    title with 0 for no results), "parsers": n, "cases": items x parsers as run}."""
    results = list(results)
    counts = {item_kinds.get(kind).title: len({(r.case_set, r.page, r.index) for r in results if r.kind == kind})
              for kind in item_kinds.names()}
    shown = {title: n for title, n in counts.items() if n} or dict([next(iter(counts.items()))])
    return {**shown, "parsers": len({r.parser for r in results}), "cases": len(results)}


def cache_summary(results: Iterable[ItemResult]) -> str:
    """'3 of 4 pages from the cache': (parser, case) parses read from the parse cache, not run
    ('documents' when a case has several PDF pages, `case_unit`)."""
    pages: dict[tuple[str, str, str], bool] = {}
    sizes = set()
    for r in results:
        key = (r.parser, r.case_set, r.page)
        pages[key] = pages.get(key, True) and r.parse_cached
        sizes.add(r.pdf_pages)
    return f"{sum(pages.values())} of {len(pages)} {case_unit(sizes)} from the cache"
