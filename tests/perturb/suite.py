"""Score every (ground-truth table, transformation) and judge the scores.

Output text is read as a benchmark run reads a parser's page (`locate_tables`, then the score);
a table the locator cannot find scores 0. An invariance fails on a table when the score drops
below `FLOOR` (`LOSSY_FLOOR` for a format that cannot write spans). A damage fails on a table
when its score is not strictly below the score of the next smaller amount of the same family
(amount 1: below the undamaged table's score), so a family's curve must fall at every step.
"""

from __future__ import annotations

import random
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tablebench.core.table import Table
from tablebench.locate.tables import locate_tables
from tablebench.metrics.tables.semantic import semantic_details
from tests.perturb.corpus import GtTable
from tests.perturb.transforms import TRANSFORMS, Output, Transform

FLOOR = 9.5
# A format that cannot span (Markdown, aligned text) writes a spanned label once over blank
# cells. Raters charge that: rated pairs whose only fault the score names is a group label
# written once got 6.67 to 9.0 (tests/test_perturb_raters.py checks this floor stays at or below
# the lowest such rating). A row label of a body column written once reads as blanks under it (a
# reader cannot tell it from values that are missing), so a table of such labels keeps less. A
# lossy format must keep the score at or above this: a cascade falls far lower.
LOSSY_FLOOR = 5.5
# A table written as lines of text keeps its words and loses its grid. How much a reader gets back
# depends on how recoverable the cells are: cells of one word each are read back whole but for
# header levels a line cannot place (never below LINES_FLOOR); where a cell of several words ends
# is lost, so those tables keep only that the score does not collapse (LINES_WORDS_FLOOR), and
# tests/test_perturb.py checks that they keep less than the one-word ones.
LINES_FLOOR = 4.0
LINES_WORDS_FLOOR = 1.0


def floor_of(t: Transform, record: Scored | None = None) -> float:
    """The score an invariance must keep: `FLOOR`, `LOSSY_FLOOR` for a lossy format, and for lines of
    text a floor by how recoverable the table's cells are (`record.single_words`)."""
    if t.family == "lines":
        return LINES_FLOOR if record is None or record.single_words else LINES_WORDS_FLOOR
    return LOSSY_FLOOR if t.lossy else FLOOR


@dataclass(frozen=True, slots=True)
class Scored:
    """One table under one transformation: its score and the score's error messages."""

    ident: str
    digest: str
    transform: str
    score: float
    errors: tuple[str, ...]
    single_words: bool = False  # every cell of the ground truth is one word (recoverable from lines of text)


def rng_for(gt: GtTable, t: Transform) -> random.Random:
    """The transformation's draws for this table: the same for every amount of one family."""
    return random.Random(f"{gt.digest}:{t.family}")


def apply(gt: GtTable, t: Transform) -> Output | None:
    return t(gt.table, rng_for(gt, t))


def score_output(gt: Table, out: Output) -> tuple[float, tuple[str, ...]]:
    """The semantic score of `out` against `gt`, output text located first as a run does."""
    if isinstance(out, str):
        loc = locate_tables([gt], out)[0]
        if not loc.found:
            return 0.0, (f"not located: {loc.note}",)
        out = loc.prediction
    result = semantic_details(gt, out)
    return result.score, tuple(result.errors)


def run(tables: Iterable[GtTable], names: Sequence[str]) -> list[Scored]:
    """Each table under each named transformation that applies to it (identity always runs:
    it is the undamaged score the first damage amount is judged against)."""
    out = []
    names = list(dict.fromkeys(["identity", *names]))
    for gt in tables:
        for name in names:
            perturbed = apply(gt, TRANSFORMS[name])
            if perturbed is not None:
                score, errors = score_output(gt.table, perturbed)
                out.append(Scored(gt.ident, gt.digest, name, score, errors, single_words(gt.table)))
    return out


def single_words(table: Table) -> bool:
    """Every cell with text holds one word: a line of them splits back into its cells."""
    return all(len(c.text.split()) <= 1 for c in table.cells())


def sample(tables: Sequence[GtTable], t: Transform, n: int) -> list[GtTable]:
    """The first `n` tables (in content-digest order, so the sample is fixed) `t` applies to."""
    out = []
    for gt in sorted(tables, key=lambda g: g.digest):
        if apply(gt, t) is not None:
            out.append(gt)
            if len(out) == n:
                break
    return out


def previous(t: Transform) -> str:
    """The transformation a damage is judged against: the family's next smaller amount, else identity."""
    lower = [o for o in TRANSFORMS.values() if o.family == t.family and 0 < o.amount < t.amount]
    return max(lower, key=lambda o: o.amount).name if lower else "identity"


def failures(records: Sequence[Scored], name: str) -> list[tuple[Scored, float | None]]:
    """The records of `name` that fail, each with the score it was judged against (damage)."""
    t = TRANSFORMS[name]
    by_table = {(r.digest, r.transform): r for r in records}
    out = []
    for r in records:
        if r.transform != name:
            continue
        if t.invariant:
            if r.score < floor_of(t, r):
                out.append((r, None))
            continue
        base = _baseline(by_table, r.digest, t)
        if base is not None and r.score >= base:
            out.append((r, base))
    return out


def _baseline(by_table: dict[tuple[str, str], Scored], digest: str, t: Transform) -> float | None:
    """The score of the next smaller amount this table has a record of (identity last)."""
    lower = sorted((o for o in TRANSFORMS.values() if o.family == t.family and 0 < o.amount < t.amount),
                   key=lambda o: -o.amount)
    for o in [*lower, TRANSFORMS["identity"]]:
        if (digest, o.name) in by_table:
            return by_table[digest, o.name].score
    return None


def summarise(records: Sequence[Scored]) -> dict:
    """Per transformation: n, min, mean, failures (and share >= FLOOR for invariances); per
    damage family: its curve (mean / min per amount) and the tables where it does not fall."""
    per: dict[str, list[float]] = defaultdict(list)
    for r in records:
        per[r.transform].append(r.score)
    transforms = {}
    for name, t in TRANSFORMS.items():
        scores = per.get(name, [])
        row = {"kind": "invariant" if t.invariant else "damage", "family": t.family, "amount": t.amount,
               "n": len(scores), "min": round(min(scores), 3) if scores else None,
               "mean": round(statistics.fmean(scores), 3) if scores else None,
               "fails": len(failures(records, name))}
        if t.invariant:
            row["floor"] = floor_of(t)
            row["share_ge_floor"] = round(sum(r.score >= floor_of(t, r) for r in records if r.transform == name)
                                          / len(scores), 4) if scores else None
        transforms[name] = row
    families: dict[str, dict] = {}
    for t in TRANSFORMS.values():
        if t.invariant:
            continue
        fam = families.setdefault(t.family, {"curve": [], "breaks": set()})
        fam["curve"].append({"amount": t.amount, **{k: transforms[t.name][k] for k in ("n", "mean", "min")}})
        fam["breaks"] |= {r.digest for r, _ in failures(records, t.name)}
    for fam in families.values():
        fam["breaks"] = len(fam["breaks"])
    return {"floor": FLOOR, "lossy_floor": LOSSY_FLOOR, "transforms": transforms, "families": families}
