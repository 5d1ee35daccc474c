"""What every metric is, as data: its name, kind, scores, scale and needs; one registry for all kinds.

Reports, gates, baselines and meta-evaluation need to know a score's scale (semantic is 0-10,
TEDS 0-1), which score heads a group (GriTS yields six values, `grits_con` stands for them),
which metrics run by default and which need TeX or an LLM, without importing the metric code
(numba, TeX). So a metric is declared here as a `MetricSpec` whose `target` names its scorer
("module:function", loaded on first use; the built-ins' names are in `tablebench.core.named_builtins`,
the one place `core` names a higher layer); the scorer takes `(gt, pred)` of its kind and returns
a `Scored`. The built-in specs are below; third-party packages add theirs through the
`tablebench.metrics` entry-point group (each entry point loads one spec or a list of them),
and an item-kind module may `register` its own.
"""

from __future__ import annotations

import math
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

from tablebench.core.named_builtins import SCORERS, load

ENTRY_POINT_GROUP = "tablebench.metrics"
LLM = "llm"  # a requirement no program meets: a model, which the judge's own options give
JUDGE = "judge"  # the LLM judge's score: every kind has one, asked with the kind's own prompt


@dataclass(frozen=True)
class Scored:
    """A scorer's answer for one pair: named values, and explanations in words (worst first)."""

    values: dict[str, float]
    notes: tuple[str, ...] = ()
    evidence: dict | None = None  # facts for the item's card, by name (the semantic score's "cell_diff")
    not_computed: dict[str, str] | None = None  # metric group -> why it gave no value (too large to score)


@dataclass(frozen=True)
class MetricSpec:
    """One metric group as `--metrics` names it."""

    name: str  # what --metrics names
    kind: str  # the item kind it scores ("table", "formula", ...); "*" for every kind
    scores: tuple[str, ...]  # the values it yields, in order
    headline: str  # the value that stands for the group (leaderboards, meta-eval)
    target: str | Callable[[Any, Any], Scored] | None  # "module:function" or the scorer itself
    scale: float = 1.0  # the far end of its scores' range 0..scale: the best value, or the worst when lower is better
    higher_is_better: bool = True  # False: an edit distance, an error rate (read by `direction`)
    default: bool = True  # scored when --metrics names none of its kind's metrics
    requires: tuple[str, ...] = ()  # programs it runs ("pdflatex"; `select` refuses it without), "llm": a model
    shown: tuple[str, ...] = ()  # values a leaderboard shows (default: the headline)
    primary: bool = False  # the kind's ranking metric: leaderboards rank by it when it is present
    _loaded: list = field(default_factory=list, compare=False, repr=False)

    def scorer(self) -> Callable[[Any, Any], Scored]:
        """The scoring function, imported on first use."""
        if not self._loaded:
            target = self.target
            if isinstance(target, str):
                target = load(target)
            if target is None:
                raise ValueError(f"metric {self.name!r} is not computed by a scorer")
            self._loaded.append(target)
        return self._loaded[0]

    @property
    def displayed(self) -> tuple[str, ...]:
        return self.shown or (self.headline,)


BUILTIN: tuple[MetricSpec, ...] = (
    MetricSpec("teds", "table", ("teds",), "teds", SCORERS["teds"]),
    MetricSpec("teds_struct", "table", ("teds_struct",), "teds_struct", SCORERS["teds_struct"]),
    MetricSpec("grits", "table", tuple(f"grits_{k}{m}" for m in ("top", "con") for k in ("", "precision_", "recall_")),
               "grits_con", SCORERS["grits"], shown=("grits_con", "grits_top")),
    MetricSpec("tlag", "table", ("tlag", "tlag_precision", "tlag_recall"), "tlag", SCORERS["tlag"]),
    MetricSpec("semantic", "table", ("semantic",), "semantic", SCORERS["semantic"], scale=10.0, primary=True),
    MetricSpec("formula_score", "formula", ("formula_score",), "formula_score", SCORERS["formula_score"],
               scale=10.0, primary=True),
    MetricSpec("token_edit", "formula", ("token_edit",), "token_edit", SCORERS["token_edit"]),
    MetricSpec("glyph_f1", "formula", ("glyph_f1",), "glyph_f1", SCORERS["glyph_f1"],
               default=False, requires=("pdflatex",)),
    MetricSpec("text_fidelity", "text", ("text_fidelity",), "text_fidelity", SCORERS["text_fidelity"], primary=True),
    MetricSpec("reading_order", "text", ("reading_order",), "reading_order", SCORERS["reading_order"]),
    MetricSpec("text_coverage", "text", ("text_recall", "text_precision"), "text_recall", SCORERS["text_coverage"],
               shown=("text_recall", "text_precision")),
    MetricSpec(JUDGE, "*", (JUDGE,), JUDGE, None, scale=10.0, default=False, requires=(LLM,)),
)

_REGISTRY: dict[str, MetricSpec] = {}
_EXTERNAL_LOADED: list[bool] = []
_BY_SCORE: dict[str, MetricSpec] = {}  # score -> its spec, built again after the registry changes


def register(spec: MetricSpec) -> MetricSpec:
    """Add a metric; a second spec under a taken name is a one-line error, and so is a lower-is-better
    metric without a finite range (a case it could not score counts its worst value, the scale) or
    on every kind (the judge's scale is 0-10, higher better)."""
    if not spec.higher_is_better and not (math.isfinite(spec.scale) and spec.scale > 0 and spec.kind != "*"):
        raise ValueError(f"metric {spec.name!r}: lower is better, so it needs one kind and a finite scale > 0 "
                         f"(its worst value, what a case it could not score counts); got kind {spec.kind!r}, "
                         f"scale {spec.scale!r}")
    known = _specs()
    if spec.name in known and known[spec.name] != spec:
        raise ValueError(f"metric {spec.name!r} is registered twice")
    _REGISTRY[spec.name] = spec
    _BY_SCORE.clear()
    return spec


def unregister(name: str) -> None:
    """Remove a metric added with `register` (tests, interactive sessions); built-ins stay."""
    if any(s.name == name for s in BUILTIN):
        raise ValueError(f"metric {name!r} is built in")
    _specs().pop(name, None)
    _BY_SCORE.clear()


def _specs() -> dict[str, MetricSpec]:
    if not _REGISTRY:
        _REGISTRY.update({s.name: s for s in BUILTIN})
    if not _EXTERNAL_LOADED:
        _EXTERNAL_LOADED.append(True)
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            loaded = ep.load()
            for spec in loaded if isinstance(loaded, (list, tuple)) else [loaded]:
                if not isinstance(spec, MetricSpec):
                    raise ValueError(f"entry point {ep.name!r} of {ENTRY_POINT_GROUP} is not a MetricSpec")
                register(spec)
    return _REGISTRY


def all_specs() -> list[MetricSpec]:
    """Every registered metric, built-ins first, in declaration order."""
    return list(_specs().values())


def spec(name: str) -> MetricSpec:
    """The spec of metric group `name`; a one-line error naming the known ones."""
    found = _specs().get(name)
    if found is None:
        raise ValueError(f"unknown metric {name!r}; known: {', '.join(_specs())}")
    return found


def specs_of(kind: str) -> list[MetricSpec]:
    """The metric groups `--metrics` may name for items of `kind` (the judge is asked for separately)."""
    return [s for s in _specs().values() if s.kind == kind]


def defaults_of(kind: str) -> list[str]:
    return [s.name for s in specs_of(kind) if s.default]


def scores_of(name: str) -> tuple[str, ...]:
    """The scores metric group `name` yields (`grits` -> its six); a name that is no registered group
    stands for itself (a score named directly, as a results file may name what failed)."""
    found = _specs().get(name)
    return found.scores if found is not None else (name,)


def _by_score() -> dict[str, MetricSpec]:
    """score -> its spec (the report asks for each score of each case: built once, not per call)."""
    if not _BY_SCORE:
        _BY_SCORE.update({score: s for s in _specs().values() for score in s.scores})
    return _BY_SCORE


def scale_of(score: str) -> float:
    """The best possible value of a score: 10 for scores on the human-rating scale, else 1."""
    found = _by_score().get(score)
    return found.scale if found is not None else 1.0


def builtin_scale(score: str) -> float | None:
    """The scale of a built-in score, which it keeps to (0 to the scale; TEDS dips below 0, never
    below minus it); None for another name: a plugin's metric promises no range."""
    found = next((s for s in BUILTIN if score in s.scores), None)
    return found.scale if found is not None else None


@dataclass(frozen=True)
class Direction:
    """Which way a score gets better, and the ends of its range (0..scale).

    Why one: the leaderboard's ranking, the gate, each case's change, floors and perfect counts all
    decide by it; a lower-is-better metric (an edit distance) read as higher-is-better anywhere is
    ranked, gated or thresholded upside down. Every such decision asks `direction(score)`."""

    sign: int  # +1: a larger value is better; -1: a smaller one is
    scale: float

    @property
    def higher_is_better(self) -> bool:
        return self.sign > 0

    @property
    def best(self) -> float:
        return self.scale if self.sign > 0 else 0.0

    @property
    def worst(self) -> float:
        """What a case with no value counts (not found, not scored): 0, or the scale when lower is better."""
        return 0.0 if self.sign > 0 else self.scale

    def oriented(self, value: float) -> float:
        """`value` as a number that is larger when better (sort by it, compare with it)."""
        return self.sign * value

    def gain(self, old: float, new: float) -> float:
        """How much better `new` is than `old` (negative: worse), on the score's own scale."""
        return self.sign * (new - old)

    def worse(self, value: float, bound: float) -> bool:
        """Whether `value` is on the bad side of `bound` (below a floor, above a ceiling)."""
        return self.sign * (value - bound) < 0

    @property
    def bound_word(self) -> str:
        """What a `--min-score` threshold is for this score: "min" (a floor) or "max" (a ceiling)."""
        return "min" if self.sign > 0 else "max"


def direction(score: str) -> Direction:
    """The `Direction` of a score (its group's `higher_is_better` and scale); an unknown name:
    higher is better on 0-1 (a results file's score no metric registers now)."""
    found = _by_score().get(score)
    if found is None:
        return Direction(1, 1.0)
    return Direction(1 if found.higher_is_better else -1, found.scale)


def scales() -> dict[str, float]:
    """{score: scale} for every score whose scale is not 1."""
    return {score: s.scale for score, s in _by_score().items() if s.scale != 1.0}


def headline_scores() -> set[str]:
    """The value that stands for each metric group (teds, grits_con, semantic, ...), not its sub-metrics."""
    return {s.headline for s in _specs().values()}


def kind_of_score(score: str) -> str | None:
    """The item kind a score belongs to ("*" for the judge), None for an unknown name."""
    found = _by_score().get(score)
    return None if found is None else found.kind


def display_order(kinds: Sequence[str]) -> list[str]:
    """Leaderboard column order: the first kind's primary score, the judge, then every kind's shown scores."""
    shown = [score for kind in kinds for s in specs_of(kind) for score in s.displayed]
    lead = [s.headline for s in specs_of(kinds[0]) if s.primary][:1] if kinds else []
    return list(dict.fromkeys([*lead, JUDGE, *shown]))


def ranking_metric(kinds: Sequence[str], present: Iterable[str]) -> str | None:
    """The score a leaderboard ranks by: a kind's primary score when present, else the first present
    in display order that is not the (optional, paid) judge, else the judge, else the first by name."""
    present = set(present)
    primaries = [s.headline for kind in kinds for s in specs_of(kind) if s.primary and s.headline in present]
    shown = [score for score in display_order(kinds) if score in present and score != JUDGE]
    return next(iter([*primaries, *shown, *sorted(present, key=lambda s: s != JUDGE)]), None)


def _names(spec: str | Iterable[str] | None) -> list[str] | None:
    if spec is None:
        return None
    return [n.strip() for n in (spec.split(",") if isinstance(spec, str) else spec) if n.strip()]


def select(spec: str | Iterable[str] | None, kinds: Sequence[str], titles: Mapping[str, str]) -> dict[str, list[str]]:
    """{kind: metric groups to score} for a `--metrics` value: each kind gets the names of its own
    metrics in the list, or its defaults when the list names none of them (so `--metrics=teds`
    still scores formulas, and an opt-in metric such as `glyph_f1` runs only when named).
    `titles` names the kinds in the one-line error for an unknown metric."""
    names = _names(spec)
    own = {kind: [s.name for s in specs_of(kind)] for kind in kinds}
    if names is None:
        return {kind: defaults_of(kind) for kind in kinds}
    unknown = [n for n in names if not any(n in known for known in own.values())]
    if unknown:
        known = "; ".join(f"{titles.get(kind, kind)} {', '.join(names_)}" for kind, names_ in own.items())
        raise ValueError(f"unknown metric(s) {', '.join(unknown)}; known: {known}")
    chosen = {kind: [n for n in names if n in own[kind]] or defaults_of(kind) for kind in kinds}
    for name in (n for kind in kinds for n in chosen[kind]):
        missing = [r for r in _specs()[name].requires if r != LLM and shutil.which(r) is None]
        if missing:  # else every item would be scored without it, one error at a time
            tex = " (TeX Live: `./dev.sh setup` or `apt install texlive-latex-extra`)" if "pdflatex" in missing else ""
            raise ValueError(f"metric {name} runs {', '.join(missing)}, which is not on PATH{tex}")
    return chosen


RENAMED = {"cdm_like": "glyph_f1"}  # old metric names, so a command line that used one says where it went


def parse_names(spec: str | Iterable[str] | None, kind: str) -> list[str]:
    """'teds,grits' -> ['teds', 'grits'] of `kind`'s metrics (None: its defaults); a one-line error
    naming the known ones for any other name."""
    names = _names(spec)
    if names is None:
        return defaults_of(kind)
    own = [s.name for s in specs_of(kind)]
    unknown = [n for n in names if n not in own]
    if unknown:
        renamed = "".join(f" ({n} is now {RENAMED[n]})" for n in unknown if n in RENAMED)
        raise ValueError(f"unknown metric(s) {', '.join(unknown)}{renamed}; known: {', '.join(own)}")
    return names


def applies_to(score: str, kind: str) -> bool:
    """Whether a score (a `--min-score` floor) applies to an item of `kind`: its own kind's, or the judge."""
    return kind_of_score(score) in (kind, "*")
