"""Item kinds: what a benchmark item is (a table, a formula, ...) as one strategy object.

Every stage serves every kind without branching on it: a case set reads each kind's ground
truth from a page record, the evaluator locates and scores items through their kind, reports
group and title results by their kind, the plugin marks items by their kind's groups. So a
kind is one object (`ItemKind`) that answers each stage's question, and adding a kind means
writing one module and registering it: `register(kind)`, or an entry point in the
`tablebench.kinds` group that loads the kind object.

The built-in kinds live in `tablebench.kinds` (they compose readers, locators and metrics, so
they sit above those layers); this registry knows them by the "module:attribute" names of
`tablebench.core.named_builtins` and imports them on first use, which keeps every stage free of an
import of the layer above.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from tablebench.core import metric_specs
from tablebench.core.messages import one_line
from tablebench.core.named_builtins import KINDS, load
from tablebench.core.table import Table

ENTRY_POINT_GROUP = "tablebench.kinds"
BUILTIN = KINDS  # name -> "module:attribute" of each built-in kind
# The built-in kinds' id prefixes (`ItemKind.prefix`, which they take from here): a case id is
# computed everywhere, and computing one must not import the kinds, which sit above every stage.
BUILTIN_PREFIX = {"table": "t", "formula": "f", "text": "x"}
# The kind there was before there were kinds: what a result naming none is (results.json format 1
# holds its items alone), and the one list a case set's fingerprint always records (`tablebench.cases.shard`).
ORIGINAL_KIND = next(iter(BUILTIN))


@runtime_checkable
class GroundTruth(Protocol):
    """One ground-truth item of a page, whatever its kind: what every stage may read of any item
    (`ItemKind.read` makes them; the kind's own stages read the rest of its type)."""

    index: int  # 0-based position among the page's items of its kind
    latex: str  # the item as the ground truth writes it (what the judge and the report show)
    group: str  # what it is grouped and marked by (a table's complexity, a formula's inline/display)


@dataclass
class Located:
    """Where ground truth `gt_index` is in the output; `prediction is None` means it is missing.

    `prediction` is what the kind read there (a `Table`; a formula's LaTeX), `text` what the
    kind shows or scores (a table's literal output text; a formula's LaTeX), `score` the
    similarity that decided (for a missing item: its best candidate's), `source` how the
    output wrote it (a table's format; "latex", "mathml" or "text" for a formula).

    `span` covers the whole match; `spans` are its fragments in output order (a table the
    parser split in two is found as two spans, `span` from the first start to the last end).
    A locator that finds one piece may leave `spans` empty: it becomes `(span,)`.
    """

    gt_index: int
    prediction: Any
    span: tuple[int, int] | None
    text: str | None
    score: float | None
    note: str = ""
    source: str = ""
    spans: tuple[tuple[int, int], ...] = ()
    # a missing item's best-scoring candidate (what `score` is the score of) and its span: the
    # evidence a report shows for "best candidate scored 0.16 < 0.30"
    best: Any = None
    best_span: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        if not self.spans and self.span is not None:
            self.spans = (tuple(self.span),)  # type: ignore[assignment]

    @property
    def found(self) -> bool:
        return self.prediction is not None

    @property
    def table(self) -> Table | None:
        """The located table (None when missing, or for a kind that reads no tables)."""
        return self.prediction if isinstance(self.prediction, Table) else None


@dataclass
class Scoring:
    """A found item's scores and what the report shows of the prediction."""

    scores: dict[str, float]
    notes: list[str]  # the headline metric's explanations in words, worst first
    pred_html: str | None = None  # the prediction as canonical HTML, where the kind has one
    evidence: dict | None = None  # facts for the item's card, by name (e.g. the LaTeX a formula was scored as)
    not_computed: dict[str, str] | None = None  # metric group -> why it gave no value (too large to score)


class ItemKind:
    """The base of every kind: the questions each stage asks, with the defaults most kinds share.

    A kind overrides `read` (its ground truth from a page record), `locate`, `score` and
    `judge`; the rest has defaults."""

    name: str = ""  # "table": results' `kind`, `--metrics` ownership, leaderboards
    title: str = ""  # "tables": what a board counts
    prefix: str = ""  # "t": item ids `t3`
    groups: tuple[str, ...] = ()  # known groups, in display order (markers, leaderboard columns)
    group_title: str = "group"  # what its groups are called in headings ("complexity", "inline / display")
    # the case attribute its group is under in a gate's subset and breakdown (`--gate=teds:complexity=complex`;
    # a bare `--gate=teds:complex` selects on any kind's group)
    group_name: str = "group"
    label: str = ""  # the word that qualifies report headings ("Formula leaderboard"); "" for none
    notes_title: str = "errors"  # what its headline metric's notes (`Scoring.notes`) are called on cards and failures
    perfect_by_group: bool = False  # the per-group section also shows the share at full score
    default: bool = True  # benchmarked when no kinds are named (`chosen`); an opt-in kind says False
    # The kind's items are what no other item of the page is (a page's prose): it is located after
    # every other kind, in the output with the text their found items claimed blanked out
    # (`tablebench.evaluate.page`), so an inline formula a text-layer parser wrote as Unicode inside
    # a sentence is the formula item's, not prose the parser invented.
    reads_unclaimed: bool = False
    # Its report card: the "module:attr" name of a renderer (result, cache) -> (ground truth, extraction)
    # as HTML, every text escaped, which the report loads by the kind's name (`tablebench.report.cards`);
    # "" for the generic card (the ground truth and the matched text as written). A name, not an import:
    # the report asks the kinds, so a kind that imported the report would make a loop.
    card: str = ""
    # What its card shows of the PDF (`tablebench.report.crops`): "region", a crop of each page the
    # item is on, where its ground truth places it (`tablebench.cases.Page.regions_of`: none without
    # a bbox); "page", a thumbnail of its case's first page (an item that is the whole page); "", none.
    picture: str = "region"
    # Its metrics (`tablebench.core.metric_specs.MetricSpec`), registered and unregistered with it: a
    # plug-in kind declares them here. The built-in kinds' are `metric_specs.BUILTIN`, read by every
    # stage without importing a kind.
    metrics: tuple[Any, ...] = ()

    def read(self, record: object, blocks: list[dict], gt_path: Path) -> list[GroundTruth]:
        """The page's ground-truth items of this kind, in page order; one-line errors for bad data."""
        raise NotImplementedError

    def gt_html(self, gt: GroundTruth) -> str:
        """The ground truth as canonical HTML for results ("" when the kind has none); raising
        here makes the item an `error` case (unreadable ground truth)."""
        return ""

    def locate(self, gts: Sequence[GroundTruth], output: str) -> list[Located]:
        """Each ground-truth item found (or not) in the parser's output, offline."""
        raise NotImplementedError

    def locate_llm(self, gts: Sequence[GroundTruth], output: str, model: str, *, cache_dir: Path | None,
                   api_base: str | None = None, timeout: float | None = None) -> list[Located]:
        """The same with an LLM quoting each item's span (re-found literally in the output);
        `timeout`: seconds at most for each request to the model."""
        raise NotImplementedError(f"no LLM locator for {self.title}")

    def score(self, gt: GroundTruth, found: Located, metrics: Sequence[Any]) -> Scoring:
        """The selected metric specs' values for one found item."""
        raise NotImplementedError

    def judge(self, gt: GroundTruth, extraction: str, model: str, **options: Any) -> Any:
        """The LLM judge's verdict (`tablebench.metrics.judge.JudgeResult`) with the kind's own prompt."""
        raise NotImplementedError(f"no judge prompt for {self.title}")

    def missing_message(self, found: Located) -> str:
        """Why an item counts as missing, on one line."""
        return f"not found in parser output: {one_line(found.note or 'no candidate')}"

    def found_message(self, found: Located) -> str:
        """What the locator noticed about a found item ("" when nothing)."""
        return one_line(found.note) if found.note else ""


_REGISTRY: dict[str, ItemKind] = {}
_TARGETS: dict[str, str] = {}


def register(kind: ItemKind) -> ItemKind:
    """Add a kind (a test's or a user's), and its metrics (`ItemKind.metrics`); its name and id prefix must be new.

    The same class registering the same name again is its module imported again (an in-process
    pytest run drops the modules it imported when it ends, and the next one imports them anew):
    the new instance replaces the old one rather than failing every later import."""
    for other_name in names():
        other = _REGISTRY.get(other_name)
        if other is not None and other_name == kind.name and _same_class(other, kind):
            other = kind
        if other_name == kind.name and other is not None and other is not kind:
            raise ValueError(f"item kind {kind.name!r} is registered twice")
        if other is not None and other is not kind and other.prefix == kind.prefix:
            raise ValueError(f"item kinds {other_name!r} and {kind.name!r} share the id prefix {kind.prefix!r}")
    if not kind.name or not kind.prefix:
        raise ValueError("an item kind needs a name and an id prefix")
    replaced = _REGISTRY.get(kind.name)
    for spec in replaced.metrics if replaced is not None else ():
        metric_specs.unregister(spec.name)
    for spec in kind.metrics:
        metric_specs.register(spec)
    _TARGETS.setdefault(kind.name, "")
    _REGISTRY[kind.name] = kind
    return kind


def _same_class(a: ItemKind, b: ItemKind) -> bool:
    """Are `a` and `b` instances of one class, as named by its module and qualified name?"""
    return (type(a).__module__, type(a).__qualname__) == (type(b).__module__, type(b).__qualname__)


def unregister(name: str) -> None:
    """Remove a kind added with `register` (tests, interactive sessions); built-ins stay."""
    if name in BUILTIN:
        raise ValueError(f"item kind {name!r} is built in")
    for spec in getattr(_REGISTRY.get(name), "metrics", ()):
        metric_specs.unregister(spec.name)
    _REGISTRY.pop(name, None)
    _targets().pop(name, None)


def _targets() -> dict[str, str]:
    if not _TARGETS:
        _TARGETS.update(BUILTIN)
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            _TARGETS.setdefault(ep.name, ep.value)
    return _TARGETS


def names() -> list[str]:
    """Every known kind's name, built-ins first (the order results and reports use)."""
    return list(_targets())


def get(name: str) -> ItemKind:
    """The kind called `name`, imported on first use; a one-line error for an unknown name."""
    if name not in _REGISTRY:
        target = _targets().get(name)
        if not target:
            raise ValueError(f"unknown item kind {name!r}; known: {', '.join(names())}")
        kind = load(target)
        if not isinstance(kind, ItemKind) or kind.name != name:
            raise ValueError(f"{target} is not the item kind {name!r}")
        _REGISTRY[name] = kind
    return _REGISTRY[name]


def prefix_of(name: str) -> str:
    """The id prefix of the kind called `name` ("t" in `t3`), without importing a built-in kind."""
    if name in _REGISTRY:
        return _REGISTRY[name].prefix
    return BUILTIN_PREFIX.get(name) or get(name).prefix


def titled(title: str) -> str | None:
    """The name of the kind whose `title` is `title` ("tables" -> "table"), None when no kind's is."""
    return next((kind.name for kind in all_kinds() if kind.title == title), None)


def all_kinds() -> list[ItemKind]:
    return [get(name) for name in names()]


def chosen(spec: str | Iterable[str] | None) -> list[str]:
    """The kinds a run benchmarks, in registry order: those named ("table,text", `--kinds`), or every
    kind whose `default` is true when none is named (tables and formulas; text is opt-in, so a run
    on a set that has always meant its tables keeps meaning them). A one-line error for a name no
    kind has."""
    if spec is None:
        return [kind.name for kind in all_kinds() if kind.default]
    wanted = [n.strip() for n in (spec.split(",") if isinstance(spec, str) else spec) if n.strip()]
    unknown = [n for n in wanted if n not in names()]
    if unknown or not wanted:
        raise ValueError(f"unknown item kind(s) {', '.join(unknown) or '(none named)'}; known: {', '.join(names())}")
    return [name for name in names() if name in wanted]


