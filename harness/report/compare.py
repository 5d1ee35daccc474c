"""`tablebench compare RUN_A RUN_B [RUN_C...]`: two or more runs side by side, case by case.

Why a command of its own: `report merge` joins shards of one measurement and refuses anything
else; comparing is the opposite question (another parser, another version, another case set:
what changed, where, and is it more than chance?).

How runs are paired, so the numbers mean one thing:

- each argument is one parser of one run: `RUN` when the run holds a single parser, else
  `RUN:LABEL` (the same run may be given twice with two labels, to compare its parsers); it
  splits where the part before a ':' is a run, so labels and paths may hold ':' (`readings`);
- the first is the reference (A); every other side is compared with it (A vs B, A vs C);
- a case is matched by its id without the parser label (`set/page::tN`): case set, page,
  item kind and index; cases only one side has are counted and listed, never scored;
- the statistics are the gate's own (`tablebench.gating.aggregate`): the same pairs
  (`gate_pairs`, include-missing: a case one side did not find counts 0 there), the same
  seeded bootstrap CI and paired sign-flip p, in the order of the compared run. The verdict
  reads as the gate's would with A as the baseline and B as the run.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tablebench.core.metric_specs import direction, headline_scores, scale_of, scales
from tablebench.core.options import DEFAULT_ALPHA, DEFAULT_MIN_EFFECT, GateSpec
from tablebench.core.results import ItemResult, item_name
from tablebench.gating.aggregate import NOT_FOUND, Comparison, Pair, evaluate, gate_pairs
from tablebench.report.aggregate import headline_order
from tablebench.report.results_file import read_results

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def item_id(r: ItemResult) -> str:
    """A case's id without its parser label (`set/page::tN`): what two runs' cases are matched by."""
    return f"{r.case_set}/{r.page}::{item_name(r.kind, r.index)}"


def card_id(item: str) -> str:
    """The anchor of a case's card in the comparison page: readable, URL-safe, unique (a hash of the id)."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", item).strip("-")[:80]
    return f"cmp-{slug}-{hashlib.sha1(item.encode('utf-8')).hexdigest()[:8]}"


@dataclass
class Side:
    """One parser of one run, as given on the command line."""

    letter: str
    arg: str  # RUN or RUN:LABEL as given
    label: str  # the parser label in that run
    meta: dict
    results: list[ItemResult]  # that parser's cases, in the run's order

    @property
    def name(self) -> str:
        return f"{self.letter} = {self.label} ({self.arg})"

    def version(self) -> str:
        versions = self.meta.get("parser_versions")
        return str(versions.get(self.label, "")) if isinstance(versions, dict) else ""


@dataclass
class CaseDelta:
    """One case both sides have: each side's result and the per-metric difference B - A."""

    item: str
    a: ItemResult
    b: ItemResult
    deltas: dict[str, float | None]

    def gain(self, metric: str) -> float:
        """How much better B is than A on `metric` (negative: worse; a smaller edit distance is a
        gain: `direction`), 0 without both values."""
        delta = self.deltas.get(metric)
        return 0.0 if delta is None else direction(metric).gain(0.0, delta)


@dataclass
class PairReport:
    """A (reference) against B: the gate's rows per metric, every shared case's deltas, the rest."""

    a: Side
    b: Side
    metrics: list[str]
    comparisons: list[Comparison]
    cases: list[CaseDelta]  # most worse first on the first metric
    only_a: list[str] = field(default_factory=list)
    only_b: list[str] = field(default_factory=list)


def readings(arg: str) -> list[tuple[str, str | None]]:
    """The ways to read `arg` as `RUN` or `RUN:LABEL`: (run path, label or None).

    A label may hold ':' (`vlm:gpt-4o`) and so may a path (`x:vlm`), so no ':' is the separator by
    position: the argument splits at each ':' whose left part is a run (a results.json file, or a
    folder holding one) and is never split when it is a path that exists itself."""
    if Path(arg).exists():
        return [(arg, None)]
    return [(arg[:i], arg[i + 1:]) for i, char in enumerate(arg)
            if char == ":" and i and arg[i + 1:] and _is_run(Path(arg[:i]))]


def _is_run(path: Path) -> bool:
    return path.is_file() or (path / "results.json").is_file()


def load_side(arg: str, letter: str) -> Side:
    """One side; a run of several parsers needs `RUN:LABEL` (one line naming its labels). When two
    readings of `arg` name runs (`readings`), the one whose run has that parser is meant; when
    none or several do, a one-line error."""
    found = readings(arg)
    if not found:
        raise ValueError(f"{arg}: no such run: give a run's report folder or its results.json, "
                         "with :LABEL to choose one of its parsers")
    if len(found) == 1:
        return _side(arg, letter, *found[0], *read_results(found[0][0]))
    loaded = [(path, label, *read_results(path)) for path, label in found]
    meant = [side for side in loaded if any(r.parser == side[1] for r in side[3])]
    if len(meant) != 1:
        shown = " or ".join(f"run {path} with parser {label!r}" for path, label, *_ in (meant or loaded))
        raise ValueError(f"{arg}: ambiguous: {shown}; give the run as its results.json (RUN/results.json:LABEL)")
    return _side(arg, letter, *meant[0])


def _side(arg: str, letter: str, path: str, label: str | None, meta: dict, results: list[ItemResult]) -> Side:
    labels = list(dict.fromkeys(r.parser for r in results))
    if not labels:
        raise ValueError(f"{arg}: the run has no results to compare")
    if label is None:
        if len(labels) > 1:
            raise ValueError(f"{arg}: the run holds {len(labels)} parsers ({', '.join(labels)}); "
                             f"choose one as {arg}:LABEL")
        label = labels[0]
    elif label not in labels:
        raise ValueError(f"{arg}: no parser {label!r} in this run (it has {', '.join(labels)})")
    return Side(letter, arg, label, meta, [r for r in results if r.parser == label])


def default_metrics(sides: Sequence[Side]) -> list[str]:
    """The headline scores (`headline_scores`: no sub-metrics) every side scored, in leaderboard order; a
    side that found nothing (no scores at all) constrains nothing: its cases count 0 on what the others scored."""
    present = [found for s in sides if (found := {m for r in s.results for m in r.scores})]
    common = set.intersection(*present) if present else set()
    lead = headline_scores()
    return [m for m in headline_order() if m in common and m in lead]


def choose_metrics(sides: Sequence[Side], wanted: str | None) -> list[str]:
    """`--metrics a,b` as given (each must be scored by some side), else the shared headline metrics."""
    if not wanted:
        chosen = default_metrics(sides)
        if not chosen:
            raise ValueError("the runs share no headline metric; name the metrics to compare with --metrics")
        return chosen
    names = [m.strip() for m in wanted.split(",") if m.strip()]
    present = {m for s in sides for r in s.results for m in r.scores}
    unknown = [m for m in names if m not in present]
    if unknown:
        raise ValueError(f"--metrics: no run scored {', '.join(unknown)} (they have {', '.join(sorted(present))})")
    return names


def _values(r: ItemResult | None) -> Mapping[str, float] | None:
    """A reference case's values as the gate reads a baseline entry: None = no such case, `NOT_FOUND` =
    not found (it counts 0)."""
    if r is None:
        return None
    return {k: v for k, v in r.scores.items() if isinstance(v, (int, float))} if r.outcome == "ok" else NOT_FOUND


def compare_pair(a: Side, b: Side, metrics: Sequence[str], *, alpha: float = DEFAULT_ALPHA,
                 min_effect: float = DEFAULT_MIN_EFFECT, seed: int = 0) -> PairReport:
    """A against B with the gate's pairs and statistics (B plays the run, A the baseline)."""
    by_item = {item_id(r): r for r in a.results}
    b_items = {item_id(r): r for r in b.results}
    pairs = gate_pairs(b.results, lambda r: _values(by_item.get(item_id(r))))
    comparisons = evaluate(pairs, [GateSpec(m) for m in metrics], min_effect=min_effect, alpha=alpha, seed=seed,
                           scale=scales(), breakdown=False, groups=[b.label])
    cases = [CaseDelta(item_id(r), by_item[item_id(r)], r, _deltas(p, metrics))
             for r, p in zip([r for r in b.results if item_id(r) in by_item], pairs)]
    cases.sort(key=lambda c: _worse_first(c, metrics))
    return PairReport(a, b, list(metrics), comparisons, cases,
                      only_a=[i for i in by_item if i not in b_items], only_b=[i for i in b_items if i not in by_item])


def _deltas(p: Pair, metrics: Sequence[str]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for m in metrics:
        base, run = p.base.get(m), p.run.get(m)
        out[m] = None if base is None or run is None else run - base
    return out


def _worse_first(case: CaseDelta, metrics: Sequence[str]) -> tuple:
    """Sort key: the first metric's gain (0-1 scale) ascending, most worse first, then the next
    ones'; no value last."""
    key = []
    for m in metrics:
        key.append(math.inf if case.deltas.get(m) is None else case.gain(m) / scale_of(m))
    return (*key, case.item)


def compare_runs(args: Sequence[str], *, metrics: str | None = None, alpha: float = DEFAULT_ALPHA,
                 min_effect: float = DEFAULT_MIN_EFFECT, seed: int = 0) -> list[PairReport]:
    """Every side after the first against the first."""
    if len(args) < 2:
        raise ValueError("compare needs at least two runs (RUN_A RUN_B ...)")
    if len(args) > len(LETTERS):
        raise ValueError(f"compare takes at most {len(LETTERS)} runs")
    sides = [load_side(arg, LETTERS[i]) for i, arg in enumerate(args)]
    chosen = choose_metrics(sides, metrics)
    reports = [compare_pair(sides[0], other, chosen, alpha=alpha, min_effect=min_effect, seed=seed)
               for other in sides[1:]]
    if not any(r.cases for r in reports):
        raise ValueError("the runs share no case (matched by set/page::item, whatever the parser label)")
    return reports
