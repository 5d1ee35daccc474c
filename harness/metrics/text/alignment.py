"""Where a page's ground-truth text blocks are in a parser's prose: one word alignment, linear in the output.

Why with the text metrics: the ground truth enters at alignment and counting, never in a reader
(`readers.prose` reads the output alone); the text metrics count on this alignment, and the text
kind's locator and card read the same one, from above. It is no locating stage of its own.

Why not a diff: a page's prose is thousands of words on each side, a two-column page read in
the wrong order moves whole paragraphs, and the output may be megabytes. An edit-distance table
is quadratic and a sequence diff cannot follow moved text. So the alignment is anchored: the
output's words are read once, in order; a word continues the current run when it is the next
ground-truth word (or one of the next `WINDOW`, skipping dropped words, when the word after
agrees too), and otherwise a new run starts where its `K`-word anchor occurs in the ground truth
(anchors found more than `MAX_REPEATS` times are too ambiguous to start one). Each step costs a
bounded number of dictionary look-ups, so a 2 MB output against a 5,000-block page stays in a
few seconds.

Then each ground-truth word is claimed once: runs claim in order of length, so the text a
parser repeated is a duplicate, never a second match. A stretch of unmatched output between two
runs that follow each other in the ground truth, facing a stretch of unclaimed ground truth of
about its size, is read as that text edited (a changed word), not as text invented plus text missing. Fragments of
a block the output splits (a column or page break, a table between) are simply several runs of
one block: they are joined by ground-truth position.

What the alignment leaves for the metrics: every output word's status and ground-truth position,
every ground-truth word's coverage, and the runs in output order (`tablebench.metrics.text`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz.distance import Levenshtein

from tablebench.readers.prose import Word, prose_words, words_of

K = 3  # words in an anchor that starts a run away from where the reading was
MAX_REPEATS = 8  # an anchor occurring more often in the ground truth starts no run
WINDOW = 8  # ground-truth words a run may skip (dropped words) and still continue
MAX_GAP = 60  # words on either side of an edited stretch; longer stretches are invented + missing
SIZE_RATIO = 2  # an edited stretch: neither side more than this many times the other's size

# an output word's status
MATCHED, EDITED, INVENTED, DUPLICATE = "matched", "edited", "invented", "duplicate"
# a ground-truth word's coverage
MISSING, FOUND, CHANGED = 0, 1, 2


@dataclass(frozen=True)
class Run:
    """Consecutive output words [start, end) that are the ground-truth words from `gt_start` on."""

    start: int
    end: int
    gt_start: int

    @property
    def gt_end(self) -> int:
        return self.gt_start + self.end - self.start


@dataclass
class Alignment:
    """The ground truth's words (per block) against the output's prose words."""

    gt: list[Word]  # every block's words, blocks in reading order
    block_of: list[int]  # ground-truth word -> its block
    n_blocks: int
    out: list[Word]  # the output's prose words, in output order
    status: list[str]  # output word -> MATCHED / EDITED / INVENTED / DUPLICATE
    # output word -> the ground-truth position it reads (matched, duplicate: exact; edited: interpolated)
    position: list[float]
    coverage: bytearray  # ground-truth word -> MISSING / FOUND / CHANGED
    runs: list[Run]  # matched runs in output order
    edits: list[tuple[int, int, int, int]] = field(default_factory=list)  # (out start, out end, gt start, gt end)
    # what the metrics derive from it, derived once (every metric and the card ask): name -> value
    derived: dict = field(default_factory=dict, repr=False)

    def block_at(self, j: int) -> int:
        """The block output word `j` was read as (or repeats, for a duplicate); -1 for invented text."""
        if self.status[j] == INVENTED:
            return -1
        return self.block_of[min(int(self.position[j]), len(self.gt) - 1)]


def align_text(blocks: tuple[str, ...] | list[str], output: str) -> Alignment:
    """The alignment of `blocks` (ground truth, reading order) with the prose of `output`; computed
    once per (blocks, output) in a process, since every text metric and the locator ask for it."""
    return _aligned(tuple(blocks), output)


@lru_cache(maxsize=4)
def _aligned(blocks: tuple[str, ...], output: str) -> Alignment:
    gt: list[Word] = []
    block_of: list[int] = []
    for b, text in enumerate(blocks):
        words = words_of(text)
        gt.extend(words)
        block_of.extend([b] * len(words))
    out = prose_words(output)
    at = _walk([w.key for w in gt], [w.key for w in out])
    position = [float(g) for g in at]  # a duplicate keeps the position it repeats (its block, on a card)
    coverage, status = _claim(at, block_of)
    runs = _runs(at)
    alignment = Alignment(gt, block_of, len(blocks), out, status, position, coverage, runs)
    _bridge(alignment)
    _respelled(alignment)
    return alignment


def _walk(gt: list[str], out: list[str]) -> list[int]:
    """Output word -> the ground-truth word it reads (-1: none), in one pass over the output."""
    n, m = len(gt), len(out)
    anchors: dict[tuple[str, ...], list[int]] = {}
    for g in range(n - K + 1):
        found = anchors.setdefault(tuple(gt[g:g + K]), [])
        if len(found) <= MAX_REPEATS:
            found.append(g)
    at = [-1] * m
    expect = 0  # the ground-truth word after the last one read
    for j in range(m):
        word = out[j]
        if expect < n and word == gt[expect]:
            at[j], expect = expect, expect + 1
            continue
        nxt = out[j + 1] if j + 1 < m else None
        skipped = next((g for g in range(expect + 1, min(n, expect + 1 + WINDOW))
                        if gt[g] == word and (g + 1 == n or gt[g + 1] == nxt)), -1)
        if skipped >= 0:
            at[j], expect = skipped, skipped + 1
            continue
        found = anchors.get(tuple(out[j:j + K])) if j + K <= m else None
        if not found or len(found) > MAX_REPEATS:
            continue
        g = next((g for g in found if g >= expect), found[-1])
        at[j], expect = g, g + 1
    return at


def _runs(at: list[int]) -> list[Run]:
    """Maximal stretches of output words reading consecutive ground-truth words, in output order."""
    runs: list[Run] = []
    start = -1
    for j, g in enumerate(at):
        if g < 0:
            if start >= 0:
                runs.append(Run(start, j, at[start]))
                start = -1
        elif start < 0 or g != at[j - 1] + 1:
            if start >= 0:
                runs.append(Run(start, j, at[start]))
            start = j
    if start >= 0:
        runs.append(Run(start, len(at), at[start]))
    return runs


def _claim(at: list[int], block_of: list[int]) -> tuple[bytearray, list[str]]:
    """Each ground-truth word read once. Runs, cut at block ends, claim longest first and, among
    equals, first in the output: a repeated paragraph's later copy is the repeat, and a short
    chance match never takes words from a long reading of them. A later reading of a claimed word
    is a duplicate (its `at` set to -1). Returns the coverage and the output words' status."""
    coverage = bytearray(len(block_of))
    status = [INVENTED] * len(at)
    pieces = []
    for run in _runs(at):
        start = run.start
        for j in range(run.start + 1, run.end):
            if block_of[at[j]] != block_of[at[j - 1]]:
                pieces.append((start, j))
                start = j
        pieces.append((start, run.end))
    for start, end in sorted(pieces, key=lambda p: (p[0] - p[1], p[0])):  # longest first, then output order
        for j in range(start, end):
            g = at[j]
            if coverage[g]:
                status[j], at[j] = DUPLICATE, -1
            else:
                coverage[g], status[j] = FOUND, MATCHED
    return coverage, status


def _bridge(a: Alignment) -> None:
    """Unclaimed ground truth between two runs that follow each other in it, facing unmatched output
    between the same runs, is that ground truth edited (a changed word, words glued together) when
    neither is more than twice the other's size and reading it so costs less than counting it
    missing and the output invented. The output words so read are the ones next to either run (a
    table's lines between two paragraphs stay invented): of every stretch touching one of the runs,
    the one with the least cost. Marked EDITED, placed proportionally between the runs."""
    n, m = len(a.gt), len(a.out)
    bounds = [(0, 0), *((r.end, r.gt_end) for r in a.runs)]  # (out end, gt end) of the stretch before
    starts = [*((r.start, r.gt_start) for r in a.runs), (m, n)]
    for (o_lo, g_lo), (o_hi, g_hi) in zip(bounds, starts, strict=True):
        gg = g_hi - g_lo
        if not (0 < gg <= MAX_GAP and o_hi > o_lo) or any(a.coverage[g_lo:g_hi]):
            continue
        was = " ".join(w.norm for w in a.gt[g_lo:g_hi])
        piece = _cheapest(a, was, o_lo, o_hi)
        if piece is None:
            continue
        lo, hi = piece
        for t, j in enumerate(range(lo, hi)):
            a.status[j], a.position[j] = EDITED, g_lo + t * gg / (hi - lo)
        a.coverage[g_lo:g_hi] = bytes([CHANGED]) * gg
        a.edits.append((lo, hi, g_lo, g_hi))


def _cheapest(a: Alignment, was: str, o_lo: int, o_hi: int) -> tuple[int, int] | None:
    """The output words [lo, hi) at either end of [o_lo, o_hi), all unmatched, that read `was` with
    the least (edit distance - their characters), when that beats leaving both as they are.

    Only a stretch of about the size of `was` (neither side more than `SIZE_RATIO` times the other,
    counting a separator each) can be `was` edited. Why: the edit distance of two strings never exceeds the
    longer one's length, so it always "beats" missing plus invented; without the bound a dropped
    paragraph next to a page footer would read as that paragraph edited into the footer, found."""
    size = len(was) + 1  # characters with a separator, as the metrics count them
    best, best_cost = None, size  # not bridged: `was` missing (the words read stay invented)
    for from_left in (True, False):
        words: list[str] = []
        for j in range(o_lo, o_hi) if from_left else range(o_hi - 1, o_lo - 1, -1):
            if a.status[j] != INVENTED:
                break
            words.append(a.out[j].norm)
            text = " ".join(words if from_left else words[::-1])
            if len(text) + 1 > SIZE_RATIO * size:
                break  # and every longer stretch too
            if SIZE_RATIO * (len(text) + 1) < size:
                continue  # not yet
            cost = Levenshtein.distance(was, text) - len(text) - 1
            if cost < best_cost:
                best_cost, best = cost, ((o_lo, j + 1) if from_left else (j, o_hi))
    return best


def _respelled(a: Alignment) -> None:
    """A matched word found by its lookup form but written otherwise (case, punctuation) is an edit
    of one word: the reader sees the difference, so the metrics charge it."""
    for run in a.runs:
        for j in range(run.start, run.end):
            g = run.gt_start + j - run.start
            if a.out[j].norm != a.gt[g].norm:
                a.status[j], a.coverage[g] = EDITED, CHANGED
                a.edits.append((j, j + 1, g, g + 1))


def in_order(a: Alignment) -> list[bool]:
    """For each run, whether it belongs to the heaviest subsequence of runs read in ground-truth
    order (weights: the runs' characters): what a reader reads in order; the rest was read out of it.
    A Fenwick tree over ground-truth positions: O(runs x log words)."""
    if "in_order" in a.derived:
        return a.derived["in_order"]
    n = len(a.gt)
    weights = run_weights(a)
    tree = [(0, -1)] * (n + 1)  # best (weight, run index) of a chain ending at or before a position
    best_before: list[int] = []
    total: list[int] = []
    for i, run in enumerate(a.runs):
        q, best = run.gt_start, (0, -1)  # best chain ending strictly before this run's first word
        while q > 0:
            best = max(best, tree[q])
            q -= q & -q
        best_before.append(best[1])
        total.append(best[0] + weights[i])
        q = run.gt_end  # this run ends at gt_end - 1: stored at 1-based index gt_end
        while q <= n:
            tree[q] = max(tree[q], (total[i], i))
            q += q & -q
    keep = [False] * len(a.runs)
    i = max(range(len(a.runs)), key=lambda k: (total[k], -k), default=-1)
    while i >= 0:
        keep[i] = True
        i = best_before[i]
    a.derived["in_order"] = keep
    return keep


def run_weights(a: Alignment) -> list[int]:
    """Each run's characters (its words plus one separator each): what reading order is weighed by."""
    if "run_weights" not in a.derived:
        a.derived["run_weights"] = [sum(len(w.norm) + 1 for w in a.out[r.start:r.end]) for r in a.runs]
    return a.derived["run_weights"]
