"""The last pass of the table locator: a table still missing, looked for in loose plain lines.

Text-only parsers (pypdf) and lists write tables as loose lines outside any table markup, and
their content deserves its score. A run of such lines that matches a missing table's content is
read as that table, one line per one-cell row: the content counts, the lost structure shows in
the metrics.
"""

from __future__ import annotations

from collections import Counter

from tablebench.core.table import Cell, Table
from tablebench.locate.engine import added
from tablebench.locate.table_profile import TOKEN_WEIGHT, Profile, combine, common, text_profile

LOOSE_HIT = 0.5  # a plain line belongs to a table's run when this share of its tokens (or trigrams) is in it
LOOSE_GAP = 1  # non-blank lines of other text tolerated inside such a run
LOOSE_MIN_GRAMS = 10  # shared char trigrams a loose run needs: one stray word or digit is no table


def find_loose(output: str, cands: list[Table], gt_prof: list[Profile], missing: list[int],
               min_score: float) -> dict[int, tuple[Table, float]]:
    """Runs of plain lines outside all candidates that match a missing table; best match first.

    A line is "hot" for a table when at least LOOSE_HIT of its tokens (or trigrams) occur in the table; a run
    is hot lines with blank lines and at most LOOSE_GAP cold lines between them, trimmed at
    its ends while that raises the score. The best run of all tables is taken first; its
    lines then break the runs of the others, which are searched again (each line serves one).
    """
    lines = _free_lines(output, cands)
    if not lines:
        return {}
    profs = [text_profile([text], (1, 1)) for _, _, text in lines]
    used: set[int] = set()
    best: dict[int, tuple[float, int, int] | None] = {}
    for g in missing:
        if not gt_prof[g].empty:
            best[g] = _loose_run(gt_prof[g], profs, used, min_score)
    out: dict[int, tuple[Table, float]] = {}
    while True:
        found = [(run[0], -g, run[1], run[2]) for g, run in best.items() if run is not None]
        if not found:
            return out
        score, neg_g, a, b = max(found)
        del best[-neg_g]
        rows = [[Cell(lines[i][2])] for i in range(a, b + 1)]
        out[-neg_g] = (Table(rows, fmt="lines", span=(lines[a][0], lines[b][1])), score)
        used.update(range(a, b + 1))
        for g, run in best.items():  # only runs that lost lines need a new search
            if run is not None and run[1] <= b and a <= run[2]:
                best[g] = _loose_run(gt_prof[g], profs, used, min_score)


def _loose_run(target: Profile, profs: list[Profile], used: set[int], min_score: float
               ) -> tuple[float, int, int] | None:
    """The best run for `target` when it scores enough and shares enough text, else None."""
    run = _best_run(target, profs, used, min_score)
    if run is None or run[0] < min_score:
        return None
    window = added(profs[run[1]:run[2] + 1])
    if common(target.grams, window.grams) < LOOSE_MIN_GRAMS:  # a stray word or digit is no table
        return None
    return run


def _free_lines(output: str, cands: list[Table]) -> list[tuple[int, int, str]]:
    """(start, end, text) of every non-blank line that no candidate's span touches."""
    taken = sorted(t.span for t in cands if t.span is not None)
    out = []
    pos = 0
    k = 0
    for line in output.split("\n"):
        start, end = pos, pos + len(line)
        pos = end + 1
        text = line.strip()
        if not text:
            continue
        while k < len(taken) and taken[k][1] <= start:
            k += 1
        if k < len(taken) and taken[k][0] < end:
            continue
        lead = len(line) - len(line.lstrip())
        out.append((start + lead, start + lead + len(text), text))
    return out


def _best_run(target: Profile, profs: list[Profile], used: set[int], floor: float
              ) -> tuple[float, int, int] | None:
    """The best-scoring run of hot lines for `target` that crosses no `used` line: (score, first, last)."""
    hot = [_hot(p.tokens, target.tokens) or _hot(p.grams, target.grams) for p in profs]
    runs: list[tuple[int, int]] = []
    start = last = -1
    for i, h in enumerate(hot):
        if i in used:
            if start >= 0:
                runs.append((start, last))
            start = last = -1
            continue
        if not h:
            continue
        if start >= 0 and i - last - 1 <= LOOSE_GAP:
            last = i
        else:
            if start >= 0:
                runs.append((start, last))
            start = last = i
    if start >= 0:
        runs.append((start, last))
    best = None
    for bound, a, b in sorted(((_bound(target, profs, a, b), a, b) for a, b in runs), reverse=True):
        if bound < floor or (best is not None and bound <= best[0]):
            break  # no trim of this run (or of any later one) can score enough
        score, a, b = _trim(target, profs, a, b)
        if best is None or score > best[0]:
            best = (score, a, b)
    return best


def _hot(line: Counter, table: Counter) -> bool:
    """Whether at least LOOSE_HIT of the line's tokens (or of its char trigrams) occur in the table.

    Trigrams ignore spacing: a subscript written as `P 1` by a text parser is the table's `P₁`."""
    n = line.total()
    return n > 0 and sum(k for t, k in line.items() if t in table) >= LOOSE_HIT * n


def _bound(target: Profile, profs: list[Profile], a: int, b: int) -> float:
    """An upper bound of `similarity` for any sub-run of [a, b], from multiset sizes alone.

    Dice(A, B) <= 2 min(|A|, |B|) / (|A| + |B|), which grows with |A| up to |A| = |B|.
    """
    tokens = sum(profs[i].tokens.total() for i in range(a, b + 1))
    grams = sum(profs[i].grams.total() for i in range(a, b + 1))
    return (TOKEN_WEIGHT * _size_bound(tokens, target.tokens.total())
            + (1 - TOKEN_WEIGHT) * _size_bound(grams, target.grams.total()))


def _size_bound(n: int, m: int) -> float:
    return 1.0 if n >= m else 2.0 * n / (n + m)


def _trim(target: Profile, profs: list[Profile], a: int, b: int) -> tuple[float, int, int]:
    """Drop lines at either end of [a, b] while the run matches `target` better without them.

    The overlap is updated per dropped line (no multiset copies): a run may be long.
    """
    tokens, grams = _Overlap(target.tokens), _Overlap(target.grams)
    for i in range(a, b + 1):
        tokens.add(profs[i].tokens)
        grams.add(profs[i].grams)

    def score(drop: Profile | None, rows: int) -> float:
        if drop is None:
            return combine(tokens.dice(), grams.dice(), target.shape, (rows, 1))
        return combine(tokens.dice(drop.tokens), grams.dice(drop.grams), target.shape, (rows, 1))

    current = score(None, b - a + 1)
    while a < b:
        left, right = score(profs[a], b - a), score(profs[b], b - a)
        if max(left, right) <= current:
            break
        if left >= right:
            tokens.remove(profs[a].tokens)
            grams.remove(profs[a].grams)
            current, a = left, a + 1
        else:
            tokens.remove(profs[b].tokens)
            grams.remove(profs[b].grams)
            current, b = right, b - 1
    return current, a, b


class _Overlap:
    """A growing/shrinking multiset and its overlap |W & T| with a fixed target T."""

    def __init__(self, target: Counter) -> None:
        self.target = target
        self.counts: Counter = Counter()
        self.total = 0
        self.common = 0

    def add(self, part: Counter) -> None:
        for t, k in part.items():
            have = self.counts[t]
            want = self.target.get(t, 0)
            self.common += min(have + k, want) - min(have, want)
            self.counts[t] = have + k
        self.total += part.total()

    def remove(self, part: Counter) -> None:
        self.common -= self._loss(part)
        for t, k in part.items():
            self.counts[t] -= k
        self.total -= part.total()

    def dice(self, without: Counter | None = None) -> float:
        """Dice with the target, optionally as if `without` were removed first."""
        common, total = self.common, self.total
        if without is not None:
            common -= self._loss(without)
            total -= without.total()
        size = total + self.target.total()
        return 2.0 * common / size if size else 0.0

    def _loss(self, part: Counter) -> int:
        loss = 0
        for t, k in part.items():
            want = self.target.get(t, 0)
            if want:
                have = self.counts[t]
                loss += min(have, want) - min(have - k, want)
        return loss
