"""What a table says, as multisets, and how alike two tables' contents are (format-agnostic).

Why content, not structure: parsers mangle structure (merged cells, lost rows, split or fused
tables) far more often than they invent text, so a table is recognised by what it says. A
`Profile` holds a table's tokens and char trigrams plus its grid shape; `similarity` scores two
profiles in [0, 1]. Profiles add up, so split pieces or fused tables are scored as one.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from tablebench.core.table import Table
from tablebench.readers.textnorm import ELEMENT_TAG, MARKS, Processor, fold_case, forgiven

TOKEN_WEIGHT = 0.5  # share of exact-token overlap in the content score; the rest is char trigrams
SHAPE_WEIGHT = 0.1  # how much a differing grid shape may lower a score (a tie-breaker, no more)

_NOISE = str.maketrans("", "", "*_`~")  # Markdown emphasis / code marks parsers sprinkle in cells
# Combining marks (Devanagari vowel signs and virama, Arabic harakat) are not `\w` to `re`:
# they belong to the word they sit in, or "किसान" would read as the skeleton "क स न".
_MARKS = MARKS
_TOKEN = re.compile(rf"\d+(?:[.,٫٬]\d+)+|(?:[^\W_]|[{_MARKS}])+")  # decimals stay whole; words split at punctuation
_DROP = re.compile(rf"(?:[^\w{_MARKS}]|_)+")  # what char trigrams ignore: spacing and punctuation differ freely


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


def holds_words(prof: Profile, text: str) -> bool:
    """Whether every word of `text` is among the table's words (`text` names something in it)."""
    words = _TOKEN.findall(normalize(text))
    return bool(words) and all(prof.tokens[w] > 0 for w in words)


def normalize(text: str, processor: Processor = forgiven) -> str:
    """What a reader forgives forgiven (`processor`: `readers.textnorm.forgiven`, as the semantic
    score reads it), HTML tags and emphasis marks dropped, case folded for finding (Greek keeps
    its case: `fold_case`), whitespace collapsed: a table is recognised by its words."""
    if "<" in text:
        text = ELEMENT_TAG.sub(" ", text)
    return " ".join(fold_case(processor(text).translate(_NOISE)).split())


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
        text = normalize(raw)
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
    return combine(dice(a.tokens, b.tokens), dice(a.grams, b.grams), a.shape, b.shape)


def combine(tokens: float, grams: float, shape_a: tuple[int, int], shape_b: tuple[int, int]) -> float:
    """The content score from the token and trigram Dice values and the two grid shapes."""
    (ra, ca), (rb, cb) = shape_a, shape_b
    shape = (_ratio(ra, rb) * _ratio(ca, cb)) ** 0.5
    return (TOKEN_WEIGHT * tokens + (1 - TOKEN_WEIGHT) * grams) * (1 - SHAPE_WEIGHT + SHAPE_WEIGHT * shape)


def dice(a: Counter, b: Counter) -> float:
    total = a.total() + b.total()
    return 2.0 * common(a, b) / total if total else 0.0


def common(a: Counter, b: Counter) -> int:
    """|a & b| for multisets."""
    return sum(min(a[t], b[t]) for t in a.keys() & b.keys())  # the key intersection runs in C


def _ratio(x: int, y: int) -> float:
    return min(x, y) / max(x, y) if max(x, y) > 0 else 1.0
