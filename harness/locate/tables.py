"""Find each ground-truth table in a parser's page output, offline and deterministically.

Why content, not structure: parsers mangle structure (merged cells, lost rows, split or fused
tables) far more often than they invent text, so a candidate is recognised by what it says.
Every table in the output (any markup, or aligned plain text) is a candidate with its literal
span; each (ground truth, candidate) pair gets a format-agnostic content score (`similarity`);
an optimal one-to-one assignment picks the pairs; then two repairs: a table the parser split
into adjacent pieces is merged back, and a ground truth left without a table may share a
candidate that holds it together with another ground truth (tables the parser fused).
Last, a table still missing is looked for in the plain lines outside every candidate: text-only
parsers (pypdf) and lists write tables as loose lines, and their content deserves its score.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from harness.core.messages import one_line
from harness.readers import read_tables
from harness.readers.textnorm import MARKS
from harness.core.table import Cell, NoTableError, Table

# Calibrated on the 20-page pdf-parse-bench sample (pymupdf4llm, pdfplumber, pypdf outputs): a
# page's tables looked for in the 19 other pages' outputs score <= 0.15 at p99 (max 0.30: another
# paper's hyperparameter table); true Markdown matches score >= 0.79, pypdf's loose lines >= 0.53,
# and pdfplumber's mangled fragments from 0.30 up.
MIN_SCORE = 0.30
TOKEN_WEIGHT = 0.5  # share of exact-token overlap in the content score; the rest is char trigrams
SHAPE_WEIGHT = 0.1  # how much a differing grid shape may lower a score (a tie-breaker, no more)
SPLIT_GAIN = 0.02  # a neighbouring candidate joins a match only when the score rises this much
MERGE_GAIN = 0.05  # a shared candidate must explain both tables better than one by this much
LOOSE_HIT = 0.5  # a plain line belongs to a table's run when this share of its tokens is in it
LOOSE_GAP = 1  # non-blank lines of other text tolerated inside such a run
LOOSE_MIN_GRAMS = 10  # shared char trigrams a loose run needs: one stray word or digit is no table

_STRUCTURED = ("html", "latex", "markdown")
_NOISE = str.maketrans("", "", "*_`~")  # Markdown emphasis / code marks parsers sprinkle in cells
# Combining marks (Devanagari vowel signs and virama, Arabic harakat) are not `\w` to `re`:
# they belong to the word they sit in, or "किसान" would read as the skeleton "क स न".
_MARKS = MARKS
_TOKEN = re.compile(rf"\d+(?:[.,٫٬]\d+)+|(?:[^\W_]|[{_MARKS}])+")  # decimals stay whole; words split at punctuation
_TAG = re.compile(r"</?[A-Za-z][^<>]{0,200}>")  # <u>, <sup>, <br/>: markup, never a cell's words
_DROP = re.compile(rf"(?:[^\w{_MARKS}]|_)+")  # what char trigrams ignore: spacing and punctuation differ freely


@dataclass
class Located:
    """Where one ground-truth table is in the output; `table is None` means it is missing.

    `score` is the `similarity` that decided (for a missing table: its best candidate's).
    """

    gt_index: int
    table: Table | None
    span: tuple[int, int] | None
    text: str
    score: float
    note: str = ""

    @property
    def found(self) -> bool:
        return self.table is not None


@dataclass(slots=True)
class Profile:
    """A table's content as multisets (tokens, char trigrams) plus its grid shape."""

    tokens: Counter
    grams: Counter
    shape: tuple[int, int]

    def __add__(self, other: Profile) -> Profile:
        """The content of two tables read as one (a split table joined, or two fused ones)."""
        return Profile(self.tokens + other.tokens, self.grams + other.grams,
                       (self.shape[0] + other.shape[0], max(self.shape[1], other.shape[1])))

    @property
    def empty(self) -> bool:
        return not self.tokens and not self.grams


def normalise(text: str) -> str:
    """NFKC, case-folded, HTML tags and emphasis marks dropped, whitespace collapsed."""
    if "<" in text:
        text = _TAG.sub(" ", text)
    return " ".join(unicodedata.normalize("NFKC", text).translate(_NOISE).casefold().split())


def profile(table: Table) -> Profile:
    """Tokens and char trigrams of every cell (trigrams stay inside a cell; spacing ignored)."""
    try:
        shape = table.shape
    except (ValueError, MemoryError):  # a broken span set from a parser: shape is only a prior
        shape = (len(table.rows), max((len(r) for r in table.rows), default=0))
    return text_profile([cell.text for cell in table.cells()], shape)


def text_profile(texts: list[str], shape: tuple[int, int]) -> Profile:
    """The profile of cell texts laid out in `shape`."""
    tokens: Counter = Counter()
    grams: Counter = Counter()
    for raw in texts:
        text = normalise(raw)
        if not text:
            continue
        tokens.update(_TOKEN.findall(text))
        compact = _DROP.sub("", text)
        if len(compact) < 3:
            if compact:
                grams[compact] += 1
            continue
        grams.update(compact[i:i + 3] for i in range(len(compact) - 2))
    return Profile(tokens, grams, shape)


def similarity(a: Profile, b: Profile) -> float:
    """Content match in [0, 1]: Dice of token and trigram multisets, nudged by grid shape.

    score = (w * Dice(tokens) + (1 - w) * Dice(trigrams)) * (1 - s + s * shape), with
    Dice(A, B) = 2 |A & B| / (|A| + |B|) on multisets and shape = sqrt(rows ratio * cols ratio).
    Tokens reward exact cell text; trigrams survive lost spaces and small OCR slips.
    """
    if a.empty or b.empty:
        return 0.0
    return _combine(_dice(a.tokens, b.tokens), _dice(a.grams, b.grams), a.shape, b.shape)


def _combine(tokens: float, grams: float, shape_a: tuple[int, int], shape_b: tuple[int, int]) -> float:
    (ra, ca), (rb, cb) = shape_a, shape_b
    shape = (_ratio(ra, rb) * _ratio(ca, cb)) ** 0.5
    return (TOKEN_WEIGHT * tokens + (1 - TOKEN_WEIGHT) * grams) * (1 - SHAPE_WEIGHT + SHAPE_WEIGHT * shape)


def _dice(a: Counter, b: Counter) -> float:
    total = a.total() + b.total()
    return 2.0 * _common(a, b) / total if total else 0.0


def _common(a: Counter, b: Counter) -> int:
    """|a & b| for multisets."""
    return sum(min(a[t], b[t]) for t in a.keys() & b.keys())  # the key intersection runs in C


def _ratio(x: int, y: int) -> float:
    return min(x, y) / max(x, y) if max(x, y) > 0 else 1.0


# -- candidates -----------------------------------------------------------------------------
def candidates(output: str) -> tuple[list[Table], str]:
    """Every table in `output` in span order, and a one-line reason when there is none.

    Markup tables come from `read_tables`; aligned plain-text blocks outside them are added
    too, since a parser may write some tables as Markdown and others as loose text.
    """
    try:
        found = read_tables(output)
    except NoTableError:
        return [], "no table candidates in the output"
    except Exception as exc:  # noqa: BLE001 - garbage output must not end a benchmark run
        return [], f"no table candidates: the reader failed ({type(exc).__name__}: {one_line(exc, 200)})"
    if found and all(t.fmt in _STRUCTURED for t in found):
        found = sorted(found + _plain_outside(output, found), key=_span_key)
    return found, "" if found else "no table candidates in the output"


def _plain_outside(output: str, tables: list[Table]) -> list[Table]:
    """Aligned plain-text tables in the text the markup tables leave (their spans blanked)."""
    chars = list(output)
    for t in tables:
        if t.span is not None:
            start, end = t.span
            chars[start:end] = [c if c == "\n" else " " for c in output[start:end]]
    from harness.readers.text import read_text

    try:
        return read_text("".join(chars))
    except NoTableError:
        return []


def _span_key(table: Table) -> tuple[int, int]:
    return table.span or (0, 0)


# -- locating -------------------------------------------------------------------------------
def locate_tables(gt: list[Table], output: str, min_score: float = MIN_SCORE, *,
                  loose_lines: bool = True) -> list[Located]:
    """One `Located` per ground-truth table, in order; see the module docstring for the steps.

    `min_score` is the least content score (see `similarity`) that counts as found. With
    `loose_lines`, a table still missing at the end is looked for in the lines outside every
    candidate (a parser that wrote the table as plain lines or a list): each line becomes a
    one-cell row, so the content counts and the lost structure shows in the metrics.
    """
    if not isinstance(output, str):
        raise TypeError(f"locate_tables expects the output as str, got {type(output).__name__}")
    if not 0.0 <= min_score <= 1.0:
        raise ValueError(f"min_score must be in [0, 1], got {min_score}")
    if not gt:
        return []
    cands, why_none = candidates(output)
    gt_prof = [profile(t) for t in gt]
    cand_prof = [profile(t) for t in cands]
    scores = np.array([[similarity(g, c) for c in cand_prof] for g in gt_prof], dtype=np.float64)
    scores = scores.reshape(len(gt), len(cands))
    match = _assign(scores, min_score)
    _join_split(match, gt_prof, cand_prof, scores, min_score)
    _share_fused(match, gt_prof, cand_prof, min_score)
    missing = [g for g in range(len(gt)) if g not in match.pieces]
    loose = _find_loose(output, cands, gt_prof, missing, min_score) if loose_lines and missing else {}

    out = []
    for g in range(len(gt)):
        if g in loose:
            table, score = loose[g]
            start, end = table.span  # type: ignore[misc]
            note = f"read from {len(table.rows)} loose line(s) outside any table markup"
            out.append(Located(g, table, (start, end), output[start:end], round(score, 6), note))
        elif g in match.pieces:
            table = _join([cands[c] for c in match.pieces[g]])
            text = output[table.span[0]:table.span[1]] if table.span is not None else ""
            out.append(Located(g, table, table.span, text, round(match.score[g], 6), match.notes.get(g, "")))
        else:
            note = _missing_note(scores, g, min_score, why_none, gt_prof[g])
            out.append(Located(g, None, None, "", _best(scores, g), note))
    return out


@dataclass
class _Match:
    """The assignment being built: candidate indices per ground truth and the reverse."""

    pieces: dict[int, list[int]] = field(default_factory=dict)  # ground truth -> its candidates
    owner: dict[int, list[int]] = field(default_factory=dict)  # candidate -> ground truths in it
    score: dict[int, float] = field(default_factory=dict)
    notes: dict[int, str] = field(default_factory=dict)


def _assign(scores: np.ndarray, min_score: float) -> _Match:
    """The one-to-one assignment that maximises the summed score; pairs below `min_score` dropped."""
    match = _Match()
    if scores.size:
        for g, c in zip(*linear_sum_assignment(-scores)):
            g, c = int(g), int(c)
            if scores[g, c] >= min_score:
                match.pieces[g], match.owner[c], match.score[g] = [c], [g], float(scores[g, c])
    return match


def _join_split(match: _Match, gt_prof: list[Profile], cand_prof: list[Profile], scores: np.ndarray,
                min_score: float) -> None:
    """Split tables: each ground truth (in order) takes free neighbours while its score rises.

    A missing ground truth starts from its best free candidate, so two halves that each
    scored too low are found together.
    """
    for g in range(len(gt_prof)):
        seed = match.pieces.get(g)
        if seed is None:
            free = [c for c in range(len(cand_prof)) if c not in match.owner]
            if not free:
                continue
            seed = [max(free, key=lambda c: (scores[g, c], -c))]
        joined, score = _extend(gt_prof[g], cand_prof, seed, match.owner)
        if len(joined) > 1 and score >= min_score:
            for c in match.pieces.get(g, []):
                del match.owner[c]
            match.pieces[g], match.score[g] = joined, score
            match.owner.update((c, [g]) for c in joined)
            match.notes[g] = f"merged from {len(joined)} candidates (split table)"


def _share_fused(match: _Match, gt_prof: list[Profile], cand_prof: list[Profile], min_score: float) -> None:
    """Fused tables: a missing ground truth joins a candidate that holds it beside its owner.

    It joins when the owner and it together explain the candidate better (by MERGE_GAIN) than
    the owner alone; then every ground truth in that candidate reports the joint score.
    """
    for g in range(len(gt_prof)):
        if g in match.pieces or gt_prof[g].empty:
            continue
        best: tuple[float, int] | None = None
        for c, holders in match.owner.items():
            if len(match.pieces[holders[0]]) != 1:
                continue  # a joined split table is no fused one
            held = _sum(gt_prof[h] for h in holders)
            fused = similarity(held + gt_prof[g], cand_prof[c])
            gains = fused >= min_score and fused > similarity(held, cand_prof[c]) + MERGE_GAIN
            if gains and (best is None or fused > best[0]):
                best = (fused, c)
        if best is not None:
            match.pieces[g] = [best[1]]
            match.owner[best[1]].append(g)
    for c, holders in match.owner.items():
        if len(holders) > 1:
            fused = similarity(_sum(gt_prof[h] for h in holders), cand_prof[c])
            for h in holders:
                others = ", ".join(f"t{o}" for o in holders if o != h)
                match.notes[h] = f"candidate also holds {others} (merged tables)"
                match.score[h] = fused


def _find_loose(output: str, cands: list[Table], gt_prof: list[Profile], missing: list[int],
                min_score: float) -> dict[int, tuple[Table, float]]:
    """Runs of plain lines outside all candidates that match a missing table; best match first.

    A line is "hot" for a table when at least LOOSE_HIT of its tokens occur in the table; a run
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
    window = _sum(profs[run[1]:run[2] + 1])
    if _common(target.grams, window.grams) < LOOSE_MIN_GRAMS:  # a stray word or digit is no table
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
    hot = []
    for p in profs:
        n = p.tokens.total()
        hits = sum(k for t, k in p.tokens.items() if t in target.tokens)
        hot.append(n > 0 and hits >= LOOSE_HIT * n)
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
            return _combine(tokens.dice(), grams.dice(), target.shape, (rows, 1))
        return _combine(tokens.dice(drop.tokens), grams.dice(drop.grams), target.shape, (rows, 1))

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


def _extend(target: Profile, profs: list[Profile], seed: list[int], owner: dict[int, list[int]]
            ) -> tuple[list[int], float]:
    """Grow a run of adjacent candidates left or right while it matches `target` better."""
    run = list(seed)
    current = _sum(profs[c] for c in run)
    score = similarity(target, current)
    while True:
        options = []
        for c in (run[0] - 1, run[-1] + 1):
            if 0 <= c < len(profs) and c not in owner:
                joined = current + profs[c] if c > run[-1] else profs[c] + current
                options.append((similarity(target, joined), -c, c, joined))
        if not options:
            return run, score
        best, _, c, joined = max(options, key=lambda o: (o[0], o[1]))
        if best < score + SPLIT_GAIN:
            return run, score
        run = sorted(run + [c])
        current, score = joined, best


def _sum(profs: Iterable[Profile]) -> Profile:
    total: Profile | None = None
    for p in profs:
        total = p if total is None else total + p
    assert total is not None
    return total


def _join(tables: list[Table]) -> Table:
    """Pieces of one table as one: rows stacked, span from the first start to the last end."""
    if len(tables) == 1:
        return tables[0]
    fmts = list(dict.fromkeys(t.fmt for t in tables))
    spans = [t.span for t in tables if t.span is not None]
    span = (min(s for s, _ in spans), max(e for _, e in spans)) if spans else None
    return Table([row for t in tables for row in t.rows], fmt="+".join(fmts), span=span)


def _best(scores: np.ndarray, g: int) -> float:
    return round(float(scores[g].max()), 6) if scores.shape[1] else 0.0


def _missing_note(scores: np.ndarray, g: int, min_score: float, why_none: str, prof: Profile) -> str:
    if prof.empty:
        return "the ground-truth table has no text to match"
    if not scores.shape[1]:
        return why_none
    best = float(scores[g].max())
    if best >= min_score:
        return f"best candidate scored {best:.2f} but fits another table better"
    return f"best candidate scored {best:.2f} < {min_score:.2f}"
