"""One offline locate engine for every kind of item: which piece of a parser's output is which
ground truth, deterministically.

The steps are the same for every kind; a `Strategy` supplies what differs:
1. candidates: every piece of the output that may be an item, with its literal span;
2. a similarity matrix of ground truths x candidates;
3. rounds of optimal one-to-one assignment (`scipy.optimize.linear_sum_assignment`) keeping
   the pairs that score at least `min_score`. Where candidates may overlap
   (`Strategy.exclusive`: a formula, its rows, a joined pair), one piece of output serves one
   item: the better pick keeps it, the other waits for the next round, which offers the
   ground truths left over the candidates still free;
4. for kinds whose contents add up (`Strategy.joins`), two repairs: an item the parser split
   into adjacent candidates is joined back, and one left without a candidate may share one
   that holds it beside another (items the parser fused);
5. last, the items still missing are looked for in the plain text outside the candidates.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from tablebench.core.assignment import linear_sum_assignment
from tablebench.core.kinds import Located

Span = tuple[int, int]

# A ground truth is found as at most this many consecutive pieces of the output (a table the
# parser broke at each section row): enough for the splits parsers make, small enough that a
# run of neighbours cannot grow into a page's worth of unrelated tables.
MAX_FRAGMENTS = 4


@dataclass(frozen=True)
class Joins:
    """How a kind's contents add up, for the split and fused repairs.

    The kind's keys support `a + b` (the content of both, `a` first) and `.empty`.
    """

    similarity: Callable[[Any, Any], float]  # content match in [0, 1]
    split_gain: float  # a neighbouring candidate joins a match only when the score rises this much
    merge_gain: float  # a shared candidate must explain both items better than one by this much
    max_fragments: int = MAX_FRAGMENTS  # a split item joins at most this many candidates
    # The key of adjacent candidates read as one item, from the candidates and their keys (None:
    # the keys added); a kind whose pieces repeat part of each other (a table's header said
    # again on each page) reads them as the item's reader would.
    combine: Callable[[list[Any], list[Any]], Any] | None = None
    # Whether everything a candidate holds is in the ground truth (its key against the ground
    # truth's). Such a piece joins without `split_gain` when the score does not fall, and the
    # run may step over it to the piece beyond: a header the parser set apart, or said again at
    # a page break, adds too little to the score to pass the gain on its own.
    held: Callable[[Any, Any], bool] | None = None


class Strategy(Protocol):
    """What the engine needs from a kind of item (tables, formulas)."""

    noun: str  # "table": names the entry point and the notes
    rounds: int  # assignment rounds
    exclusive: bool  # overlapping candidates exclude each other
    joins: Joins | None  # None: no split/fused repair (the kind offers joined neighbours itself)

    def candidates(self, output: str) -> tuple[list[Any], str]:
        """Every candidate in the output, and a one-line reason when there is none."""

    def key(self, gt: Any) -> Any:
        """A ground truth's content, as the similarity compares it."""

    def candidate_key(self, candidate: Any) -> Any:
        """A candidate's content, as the similarity compares it."""

    def scores(self, gt_keys: list[Any], cand_keys: list[Any]) -> np.ndarray:
        """The similarity matrix, shape (ground truths, candidates)."""

    def span(self, candidate: Any) -> Span | None:
        """Where the candidate is in the output."""

    def found(self, g: int, pieces: list[Any], score: float, note: str, output: str, key: Any) -> Located:
        """Ground truth `g` located in these candidates (several: a split item joined)."""

    def missing(self, g: int, scores: np.ndarray, key: Any, why_none: str, min_score: float) -> Located:
        """Ground truth `g` not located; `scores` is its row of the matrix."""

    def search_text(self, output: str, cands: list[Any], gts: Sequence[Any], keys: list[Any],
                    located: list[Located], min_score: float) -> None:
        """The last pass: fill in missing items found in the plain text outside the candidates."""


def locate(strategy: Strategy, gts: Sequence[Any], output: str, min_score: float, *,
           text_pass: bool = True) -> list[Located]:
    """One `Located` per ground truth, in order; see the module docstring for the steps."""
    if not isinstance(output, str):
        raise TypeError(f"locate_{strategy.noun}s expects the output as str, got {type(output).__name__}")
    if not 0.0 <= min_score <= 1.0:
        raise ValueError(f"min_score must be in [0, 1], got {min_score}")
    if not gts:
        return []
    cands, why_none = strategy.candidates(output)
    keys = [strategy.key(g) for g in gts]
    cand_keys = [strategy.candidate_key(c) for c in cands]
    scores = strategy.scores(keys, cand_keys)
    spans = [strategy.span(c) for c in cands] if strategy.exclusive else None
    match = Match.of(assign(scores, min_score, spans=spans, rounds=strategy.rounds))
    if strategy.joins is not None:
        join_split(match, strategy, keys, cand_keys, scores, min_score, cands)
        share_fused(match, strategy, keys, cand_keys, min_score)
    located = [strategy.found(g, [cands[c] for c in match.pieces[g]], match.score[g], match.notes.get(g, ""), output, keys[g])
               if g in match.pieces else strategy.missing(g, scores[g], keys[g], why_none, min_score)
               for g in range(len(gts))]
    _note_best(strategy, located, cands, scores)
    if text_pass and not all(loc.found for loc in located):
        strategy.search_text(output, cands, gts, keys, located, min_score)
    return located


def _note_best(strategy: Strategy, located: list[Located], cands: Sequence[Any], scores: np.ndarray) -> None:
    """Each missing item's best-scoring candidate (none when every candidate scored 0), for the report."""
    for loc in located:
        if loc.found or not len(cands):
            continue
        row = scores[loc.gt_index]
        c = int(np.argmax(row))
        if row[c] > 0:
            loc.best, loc.best_span = cands[c], strategy.span(cands[c])


# -- assignment ------------------------------------------------------------------------------------
def assign(scores: np.ndarray, min_score: float, *, spans: Sequence[Span] | None = None, rounds: int = 1,
           done: Iterable[int] = ()) -> list[tuple[int, int, float]]:
    """(ground truth, candidate, score) picks of `rounds` rounds of optimal assignment.

    Each round pairs the ground truths not yet picked (nor in `done`) with the candidates still
    free so that the summed score is largest, and keeps the pairs scoring at least `min_score`.
    With `spans`, a candidate overlapping a taken span is not free: picks are taken best first
    (then by ground truth) and one that overlaps a better one waits for the next round.
    """
    picked, used = set(done), set()
    taken: list[Span] = []
    out: list[tuple[int, int, float]] = []
    for _ in range(rounds):
        free_g = [g for g in range(scores.shape[0]) if g not in picked]
        free_c = [c for c in range(scores.shape[1])
                  if (c not in used if spans is None else not _overlaps(spans[c], taken))]
        if not free_g or not free_c:
            break
        sub = scores[np.ix_(free_g, free_c)]
        rows, cols = linear_sum_assignment(-sub)
        picks = sorted(((sub[r, c], free_g[r], free_c[c]) for r, c in zip(rows, cols) if sub[r, c] >= min_score),
                       key=lambda x: (-x[0], x[1]))
        progress = False
        for score, g, c in picks:
            if spans is not None:
                if _overlaps(spans[c], taken):
                    continue
                taken.append(spans[c])
            picked.add(g)
            used.add(c)
            out.append((int(g), int(c), float(score)))
            progress = True
        if not progress:
            break
    return out


def _overlaps(span: Span, taken: list[Span]) -> bool:
    return any(span[0] < b and a < span[1] for a, b in taken)


@dataclass
class Match:
    """The assignment being built: candidate indices per ground truth and the reverse."""

    pieces: dict[int, list[int]] = field(default_factory=dict)  # ground truth -> its candidates
    owner: dict[int, list[int]] = field(default_factory=dict)  # candidate -> ground truths in it
    score: dict[int, float] = field(default_factory=dict)
    notes: dict[int, str] = field(default_factory=dict)

    @classmethod
    def of(cls, picks: list[tuple[int, int, float]]) -> Match:
        match = cls()
        for g, c, score in sorted(picks):
            match.pieces[g], match.owner[c], match.score[g] = [c], [g], score
        return match


# -- repairs (kinds whose contents add up) -----------------------------------------------------------
def join_split(match: Match, strategy: Strategy, gt_keys: list[Any], cand_keys: list[Any], scores: np.ndarray,
               min_score: float, cands: Sequence[Any] | None = None) -> None:
    """Split items: each ground truth (in order) takes free neighbours while its score rises,
    up to `Joins.max_fragments` candidates in a row.

    Only free candidates join, so a run never crosses a candidate another ground truth holds
    (text between the pieces, such as a second title line, is no candidate and does not stop
    it). A missing ground truth starts from its best free candidate, so two halves that each
    scored too low are found together. `cands` (the candidates themselves) are needed by a kind
    with `Joins.combine`.
    """
    joins = strategy.joins
    assert joins is not None
    for g in range(len(gt_keys)):
        seed = match.pieces.get(g)
        if seed is None:
            free = [c for c in range(len(cand_keys)) if c not in match.owner]
            if not free:
                continue
            seed = [max(free, key=lambda c: (scores[g, c], -c))]
        joined, score = _extend(joins, gt_keys[g], cand_keys, seed, match.owner, joins.max_fragments, cands)
        if len(joined) > 1 and score >= min_score:
            for c in match.pieces.get(g, []):
                del match.owner[c]
            match.pieces[g], match.score[g] = joined, score
            match.owner.update((c, [g]) for c in joined)
            match.notes[g] = f"split {strategy.noun} joined from {len(joined)} fragments"


def share_fused(match: Match, strategy: Strategy, gt_keys: list[Any], cand_keys: list[Any],
                min_score: float) -> None:
    """Fused items: a missing ground truth joins a candidate that holds it beside its owner.

    It joins when the owner and it together explain the candidate better (by `merge_gain`)
    than the owner alone; then every ground truth in that candidate reports the joint score.
    """
    joins = strategy.joins
    assert joins is not None
    for g in range(len(gt_keys)):
        if g in match.pieces or gt_keys[g].empty:
            continue
        best: tuple[float, int] | None = None
        for c, holders in match.owner.items():
            if len(match.pieces[holders[0]]) != 1:
                continue  # a joined split item is no fused one
            held = added(gt_keys[h] for h in holders)
            fused = joins.similarity(held + gt_keys[g], cand_keys[c])
            gains = fused >= min_score and fused > joins.similarity(held, cand_keys[c]) + joins.merge_gain
            if gains and (best is None or fused > best[0]):
                best = (fused, c)
        if best is not None:
            match.pieces[g] = [best[1]]
            match.owner[best[1]].append(g)
    for c, holders in match.owner.items():
        if len(holders) > 1:
            fused = joins.similarity(added(gt_keys[h] for h in holders), cand_keys[c])
            for h in holders:
                others = ", ".join(f"{strategy.noun[0]}{o}" for o in holders if o != h)
                match.notes[h] = f"candidate also holds {others} (merged {strategy.noun}s)"
                match.score[h] = fused


def _extend(joins: Joins, target: Any, keys: list[Any], seed: list[int], owner: dict[int, list[int]],
            limit: int, cands: Sequence[Any] | None = None) -> tuple[list[int], float]:
    """Grow a run of adjacent candidates left or right while it matches `target` better (by
    `split_gain`; a piece `Joins.held` by the target as long as the score does not fall), up to
    `limit` candidates. A held piece next to the run may also be stepped over together with the
    piece beyond it, when the two raise the score by `split_gain`."""
    def key_of(run: list[int]) -> Any:
        if joins.combine is not None and cands is not None:
            return joins.combine([cands[c] for c in run], [keys[c] for c in run])
        return added(keys[c] for c in run)

    def held(c: int) -> bool:
        return joins.held is not None and joins.held(target, keys[c])

    run = list(seed)
    score = joins.similarity(target, key_of(run))
    while len(run) < limit:
        options = []
        steps = [(run[0] - 1,), (run[-1] + 1,)]
        if joins.held is not None and len(run) + 2 <= limit:
            steps += [(run[0] - 2, run[0] - 1), (run[-1] + 1, run[-1] + 2)]
        for step in steps:
            if not all(0 <= c < len(keys) and c not in owner for c in step):
                continue
            near = step[-1] if step[0] < run[0] else step[0]  # the piece next to the run
            joined = sorted(run + list(step))
            value = joins.similarity(target, key_of(joined))
            ok = value >= score + joins.split_gain or (len(step) == 1 and held(near) and value >= score)
            if ok and (len(step) == 1 or held(near)):
                options.append((value, -len(step), -min(step), joined))
        if not options:
            return run, score
        best, _, _, joined = max(options, key=lambda o: (o[0], o[1], o[2]))
        run, score = joined, best
    return run, score


def describe_spans(spans: Sequence[Span]) -> str:
    """'[46, 205) + [228, 383)': where an item's fragments are, for notes."""
    return " + ".join(f"[{a}, {b})" for a, b in spans)


def added(keys: Iterable[Any]) -> Any:
    """The content of several candidates (or ground truths) read as one, in order."""
    total = None
    for key in keys:
        total = key if total is None else total + key
    assert total is not None
    return total
