"""Semantic table score: does the prediction tell a reader the same things as the ground truth?

The prediction is read once, as a reader who sees only the extraction reads it (`semantic_read`:
no ground truth reaches the reading): header rows give each column a header path, stub columns
give each body row a key, a caption row over the table is its title, every cell text is
normalised (`semantic_text`, forgiving what `readers.textnorm.forgiven` forgives), and a table
written as lines of text is read back into cells from the lines' own regularity
(`semantic_lines`). The ground truth is read the same way, its markup saying where every cell
is. Then the reading is aligned with the ground truth and
their differences are counted by cause, not by the cells a cause touches (`semantic_align`):
the share of facts that agree, wrong values, lost or invented rows and columns, misread headers,
values under another row's or column's label, the share of values whose key (row path,
column path) a reader can no longer recover, emphasis the table does not have
(`semantic_emphasis`), words run together (`semantic_spacing`), in lines of text the spans
only their order implies (`semantic_spans`), and, whatever the cells, the share of the table's
text that is nowhere in the extraction and the share of the extraction's text that is not the
table's. Counts are charged log(1 + n), at the size the ratings cover (`semantic_size`). The
score combines these twelve features:

    score = 10 * exp(-sum_k w_k * feature_k),   every w_k >= 0

so every error can only lower it, and each weight says what an error of its kind costs. A grid
rebuilt from lines has weights of its own (`Params.lines_weights`), and there each kind of error
also costs for being there at all, whatever its amount (`Params.lines_presence`, a weight times 1
or 0): the amounts our reading of lines counts are in part its own misreading. The weights, `key_weight` and `midpoint`
are chosen by a procedure in code (`semantic_fit.fit`: least squares against the reference
ratings, every unit weighing alike) and checked by a cross-validation that holds out one unit at a
time, a judged page with all its tables or a rated ground-truth table (`tablebench meta-eval FILES
--cv`), re-running that procedure for every held-out unit. The shipped constants are the procedure's choice on the human-rated pairs of the
table-metric-study (dev, dev2) and the judge-rated pairs of the built-in parsers' outputs
(data/judged-pairs), rounded. Every feature, rule and constant, the test that pins it and how it
was chosen are rows in code (`semantic_table`), rendered into docs/semantic-score.md. The rules
were designed looking at those pairs, so only pairs outside them measure how far they generalise.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tablebench.core.table import NoTableError, Table, TableLike
from tablebench.metrics.tables.semantic_align import (
    ALIGN_RULES,
    FEATURES,
    NOTE,
    Cause,
    Differences,
    as_lines,
    count_differences,
    nothing_read,
)
from tablebench.metrics.tables.semantic_diff import cell_diff
from tablebench.metrics.tables.semantic_emphasis import RULE as EMPHASIS
from tablebench.metrics.tables.semantic_emphasis import with_added_emphasis
from tablebench.metrics.tables.semantic_read import READ_RULES, read_prediction
from tablebench.metrics.tables.semantic_size import at_rated_size
from tablebench.metrics.tables.semantic_spacing import RULE as SPACING
from tablebench.metrics.tables.semantic_spacing import with_lost_spacing
from tablebench.metrics.tables.semantic_spans import RULE as SPANS
from tablebench.metrics.tables.semantic_spans import with_implied_spans
from tablebench.metrics.tables.semantic_struct import Grid, View, header_rows, to_grid, view
from tablebench.readers.html import as_table

MAX_ERRORS = 5
SUMMARIES = frozenset({"absent", "invented"})  # features that sum up the text a reader misses or must set aside
# Every rule the score follows: how the prediction is read (`semantic_read.READ_RULES`) and what the
# comparison counts (`semantic_align.ALIGN_RULES`, `semantic_emphasis.RULE`, `semantic_spacing.RULE`,
# `semantic_spans.RULE`); `tablebench meta-eval --ablation` removes each in turn.
RULES = READ_RULES | frozenset(ALIGN_RULES) | {EMPHASIS, SPACING, SPANS}


@dataclass(frozen=True, slots=True, order=True)
class Counting:
    """The constants of `Params` that change the features themselves (`read_and_count`): a fit
    counts every pair's differences once per candidate (`semantic_fit.COUNTINGS`), then fits the
    weights of each."""

    key_weight: float
    midpoint: float


def per_feature(**weights: float) -> tuple[float, ...]:
    """Weights given by feature name, in the order of `FEATURES` (`Params.vector`'s layout): every
    feature named once, so a weight cannot land on its neighbour's feature."""
    if set(weights) != set(FEATURES):
        raise ValueError(f"Params: a weight for each of {', '.join(FEATURES)} expected, got {', '.join(weights)}")
    return tuple(float(weights[name]) for name in FEATURES)


@dataclass(frozen=True, slots=True)
class Params:
    """The score's tunable constants (see the module docstring), all fitted (`semantic_fit`): what
    each kind of error costs in a grid read as written (`weights`) and in one rebuilt from lines of
    text (`lines_weights`); how much header keys, against content, decide the alignment
    (`key_weight`); and the likeness below which a thing is not the table's own (`midpoint`): a
    label less like its own names nothing, a row sharing less of both its label and its values is
    another row in its place, a line with a smaller share of its words in the table is text foreign
    to it; and, in lines of text, what each kind of error costs for being there at all, whatever its
    amount (`lines_presence`): there the amount our reading counts is in part its own misreading (a
    reader resolves by language what the reading cannot), so that a fault is there says more than
    how much of it is counted, and a reader who notices a fault works around it."""

    key_weight: float = 0.3
    weights: tuple[float, ...] = per_feature(
        share=0.21, values=0.17, lines=0.14, headers=0.34, attached=0.12, unattributed=0.32, unlabelled=0.0,
        emphasis=0.01, absent=1.44, invented=0.0, spacing=0.03, spans=0.0)
    lines_weights: tuple[float, ...] = per_feature(
        share=0.03, values=0.01, lines=0.06, headers=0.0, attached=0.0, unattributed=0.03, unlabelled=0.28,
        emphasis=0.0, absent=1.84, invented=0.62, spacing=0.07, spans=0.0)
    midpoint: float = 0.6
    lines_presence: tuple[float, ...] = per_feature(
        share=0.06, values=0.03, lines=0.0, headers=0.05, attached=0.0, unattributed=0.03, unlabelled=0.0,
        emphasis=0.08, absent=0.0, invented=0.03, spacing=0.09, spans=0.18)

    def __post_init__(self) -> None:
        parts = (self.weights, self.lines_weights, self.lines_presence)
        if (any(len(part) != len(FEATURES) for part in parts) or min(sum(parts, ())) < 0
                or not 0 <= self.key_weight <= 1 or not 0 < self.midpoint < 1):
            raise ValueError(f"Params: three times {len(FEATURES)} non-negative weights, key_weight in [0, 1] and "
                             "midpoint in (0, 1) expected")

    @property
    def counting(self) -> Counting:
        """The constants that change what is counted, not what it costs."""
        return Counting(self.key_weight, self.midpoint)

    @property
    def vector(self) -> np.ndarray:
        """Every weight in one vector, as `feature_row` lays a reading's features out."""
        return np.asarray(self.weights + self.lines_weights + self.lines_presence, dtype=float)

    @classmethod
    def of_vector(cls, counting: Counting, vector: np.ndarray) -> Params:
        n = len(FEATURES)
        part = [tuple(float(v) for v in vector[k * n:(k + 1) * n]) for k in range(3)]
        return cls(counting.key_weight, part[0], part[1], counting.midpoint, part[2])


DEFAULT = Params()


@dataclass(slots=True)
class SemanticResult:
    """A 0-10 score, its most significant errors in words (most severe first), and its parts."""

    score: float
    errors: list[str] = field(default_factory=list)
    recall: float = 0.0  # share of the ground truth's facts found (soft)
    precision: float = 0.0  # share of the prediction's facts that are true (soft)
    n_gt: int = 0
    n_pred: int = 0
    features: dict[str, float] = field(default_factory=dict)  # the features the score combines
    counts: dict[str, float] = field(default_factory=dict)  # the causes per feature, as counted (`Cause.amount`)
    diff: dict = field(default_factory=dict)  # the cell-level diff (`semantic_diff.cell_diff`)
    reading: str = ""  # how the prediction was read (`semantic_read.Reading.how`)


@dataclass(frozen=True, slots=True)
class Read:
    """The prediction as read (`semantic_read`) and its differences from the ground truth."""

    how: str
    differences: Differences
    undelimited: bool = False  # a grid rebuilt from lines of text: its errors cost `Params.lines_weights`

    @property
    def row(self) -> np.ndarray:
        """The features in the slots of this kind of reading (`Params.vector`'s layout)."""
        return feature_row(self.differences.features, self.undelimited)


def feature_row(features: np.ndarray, undelimited: bool) -> np.ndarray:
    """A reading's features laid out against `Params.vector`: the amounts in the first third for a
    grid read as written, in the second for one rebuilt from lines of text (a reader of lines
    resolves by language what lines do not show, which our reading cannot: the same misreading
    costs differently there); for lines, whether each is there at all (1 or 0) in the last third."""
    n = len(features)
    row = np.zeros(3 * n)
    start = n if undelimited else 0
    row[start:start + n] = features
    if undelimited:
        row[2 * n:] = features > 0
    return row


def semantic(gt: TableLike, pred: TableLike, *, params: Params = DEFAULT) -> float:
    """The semantic score of `pred` against `gt` on the 0-10 scale of human ratings."""
    return semantic_details(gt, pred, params=params).score


def semantic_details(gt: TableLike, pred: TableLike, *, params: Params = DEFAULT) -> SemanticResult:
    """Score `pred` against `gt` on the 0-10 scale with its main errors in words."""
    read = read_and_count(gt, pred, params.counting)
    c = read.differences
    score = 0.0 if c.n_pred == 0 else combine(read.row, params.vector)  # nothing read: nothing right
    counts = {name: sum(x.amount for x in c.causes if x.feature == name) for name in FEATURES}
    weights = np.asarray(params.lines_weights if read.undelimited else params.weights)
    presence = np.asarray(params.lines_presence) if read.undelimited else None
    return SemanticResult(round(score, 4), describe(c.causes, weights, presence), c.recall, c.precision, c.n_gt, c.n_pred,
                          dict(zip(FEATURES, c.features.tolist())), counts, cell_diff(c.alignment, c.n_gt), read.how)


def combine(features: np.ndarray, weights: np.ndarray) -> float:
    """The 0-10 score of a feature vector (see the module docstring)."""
    return float(10.0 * np.exp(-float(np.dot(weights, features))))


def read_truth(gt: TableLike) -> tuple[View, int]:
    """The ground truth as the facts it states (its markup says where every cell is), and its
    blank rows and columns. Raises `NoTableError` for a table without cells."""
    gv, g = _truth(as_table(gt))
    return gv, g.blank_lines


def _truth(gt: Table) -> tuple[View, Grid]:
    g = to_grid(gt)
    if not g.cells:
        raise NoTableError("the ground-truth table has no cells")
    return view(g, header_rows(g)), g


def read_and_count(gt: TableLike, pred: TableLike, counting: Counting = DEFAULT.counting,
                   rules: frozenset[str] = RULES) -> Read:
    """The prediction read without the ground truth (`semantic_read`; `rules`: the rules it reads
    by, all but for an ablation), then aligned with the ground truth and its differences counted
    (`counting`: the constants that change the counts): the features do not depend on the score's
    weights, so a fit scores them again without reading or aligning again."""
    gt_table = as_table(gt)
    pred_table = as_table(pred)
    gv, gt_grid = _truth(gt_table)
    reading = read_prediction(pred_table, rules)
    if reading is None:
        return Read("nothing read", nothing_read(gv.n_facts))
    c = count_differences(gv, reading.view, reading.grid.blank_lines - gt_grid.blank_lines, counting.key_weight,
                          reading.undelimited, rules & frozenset(ALIGN_RULES), midpoint=counting.midpoint)
    if EMPHASIS in rules:
        c = with_added_emphasis(c, gt_table, pred_table)
    if SPACING in rules:
        c = with_lost_spacing(c, gt_table, pred_table)
    if SPANS in rules and reading.undelimited:
        c = with_implied_spans(c, gt_grid, gv.header_rows)
    c = at_rated_size(c)
    return Read(reading.how, as_lines(c, len(reading.grid.cells)) if reading.undelimited else c, reading.undelimited)


def describe(causes: list[Cause], weights: np.ndarray, presence: np.ndarray | None = None) -> list[str]:
    """The costliest causes in words, most costly first (what each takes off the score's log: its
    feature's weight times its amount, and what its kind costs for being there, `presence`);
    then, where room is left, the notes (what a reader sees that costs nothing itself)."""
    index = {name: k for k, name in enumerate(FEATURES)}
    costed = [c for c in causes if c.feature in index and c.feature != "share"]
    # the whole-text shares sum up what the named causes show (rows lost, text run in): named only
    # when no other cause is
    if any(c.feature not in SUMMARIES for c in costed):
        costed = [c for c in costed if c.feature not in SUMMARIES]
    there = np.zeros(len(FEATURES)) if presence is None else presence
    ranked = sorted(costed, key=lambda c: -(weights[index[c.feature]] * c.amount + there[index[c.feature]]))
    out = list(dict.fromkeys(c.text for c in ranked))[:MAX_ERRORS]  # one cause may count toward two features
    if not out and any(c.feature == "share" for c in causes):
        out = [c.text for c in causes if c.feature == "share"][:1]
    notes = [c.text for c in causes if c.feature == NOTE]
    return out + notes[:max(0, MAX_ERRORS - len(out))]
