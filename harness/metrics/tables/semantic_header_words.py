"""The header lines of a table written as lines of text: which words name which columns.

Split from `semantic_lines` (which reads the whole table) because it is a reading of its own: with
more header words than columns, where one label ends and the next begins is not in the text, and a
reader decides it from language and from the lines below. No label begins or ends with a joining
word; a lower-case word continues the word before it; labels are as even as that allows. A header
line whose labels repeat a cycle (`Train Test Train Test`) says the columns come in groups, and the
line above it names them (`cycles`, a rule of `semantic_lines.LINE_RULES`). Nothing here sees the
ground truth.
"""

from __future__ import annotations

from tablebench.core.table import Cell


def right_aligned(texts: list[str], width: int) -> list[Cell]:
    """A line's cells against the right edge of a grid `width` wide: with more cells than the
    width, the first ones are read as one label; with fewer, blank cells fill the left."""
    if len(texts) > width:
        extra = len(texts) - width + 1
        texts = [" ".join(texts[:extra]), *texts[extra:]]
    return [Cell("") for _ in range(width - len(texts))] + [Cell(t) for t in texts]


# words that join what stands on both sides of them: a cell neither begins nor ends with one
_JOINERS = frozenset({"of", "and", "or", "per", "in", "on", "at", "for", "to", "the", "with", "vs", "vs.", "by",
                      "from", "a", "an", "&", "over", "via", "than", "w/", "w/o", "without", "de", "et"})
MAX_WORDS = 40  # header lines longer than this are read a word a column from the right (`right_aligned`)


def name_columns(words: list[str], width: int, stub: str = "") -> list[Cell]:
    """The last header line's words as the labels of `width` columns (once a table: the grouping costs
    O(words^2 x columns), up to `MAX_WORDS` words; a group line above it is grouped only over a cycle,
    `cycle_groups`). With more words than columns, which words share a cell is not marked; a reader
    groups them as language does: no label begins or ends with a joining word (`of`, `and`, `per`),
    none but the first begins with a lower-case word (it continues the word before: `Soil type`,
    `1,000 tokens`); the word the rows' numbered labels share (`stub`: `Option` over `Option 1`,
    `Option 2`) is the stub's label alone; the labels are as even in length as that allows
    (`1,000 tokens 5,000 tokens`), and on a tie the first ones are longer (`Target Model Acc F1` over
    three columns: the stub's label, then two metrics)."""
    if len(words) <= width or width < 2 or len(words) > MAX_WORDS:
        return right_aligned(words, width)
    rest = groupings(words, width - 1)
    best: tuple | None = None
    for first in range(1, len(words) - width + 2):
        bad, longest, groups = rest[first]
        cue = int(bool(stub) and words[0] == stub and first != 1)
        cost = (_joined_badly(words[:first], first=True) + bad, cue, max(first, longest), -first)
        if best is None or cost < best[0]:
            best = (cost, [words[:first], *groups])
    assert best is not None
    return [Cell(" ".join(group)) for group in best[1]]


def _joined_badly(group: list[str], first: bool = False) -> int:
    """Marks against `group` being one label: it begins or ends with a joining word, or (after the
    line's first label) begins with a lower-case word, which continues the word before it
    (`Soil type`, `1,000 tokens`, `Collapse models`)."""
    return (int(_joins(group[0])) + int(_joins(group[-1])) + int(not first and group[0][:1].islower()))


def _joins(word: str) -> bool:
    """A joining word; a capital letter alone is a name (`Group A`, `Type I`), not the article."""
    return word.lower() in _JOINERS and not (len(word) == 1 and word.isupper())


def groupings(words: list[str], n: int) -> dict[int, tuple[int, int, list[list[str]]]]:
    """For each start i, the best way to put `words[i:]` in `n` consecutive groups: the fewest badly
    joined groups (`_joined_badly`), then the shortest longest group, then the longest first group.
    One pass of dynamic programming (that order is kept under adding a group in front: the sum leads,
    and a max with the same group's length keeps the order of the rest), O(len(words)^2 * n)."""
    m = len(words)
    best: dict[int, tuple[int, int, list[list[str]]]] = {m: (0, 0, [])}  # i -> for the groups counted so far
    for k in range(1, n + 1):
        now: dict[int, tuple[int, int, list[list[str]]]] = {}
        for i in range(m - k, -1, -1):
            options = []
            for j in range(i + 1, m - k + 2):
                if j in best:
                    bad, longest, groups = best[j]
                    options.append((_joined_badly(words[i:j]) + bad, max(j - i, longest), i - j, groups, j))
            if options:
                bad, longest, _, groups, j = min(options, key=lambda o: o[:3])
                now[i] = (bad, longest, [words[i:j], *groups])
        best = now
    return best


def cycle_groups(words: list[str], last: list[str]) -> list[Cell] | None:
    """The labels of a one-run header line (`words`) right above a last header line (`last`, its cells
    against the right edge) whose labels end in a cycle repeated (`error order error order error order`,
    `Train Test Train Test`): the columns come in groups of the cycle's length, and the line above names
    the groups in order, after a label each for the columns before the cycle that the last line leaves
    blank (`N` over the row labels' column). Its words are grouped as language groups them (`L1 norm`,
    `Group A`). None where every grouping joins a word badly, or the columns before the cycle are part
    blank and part labelled: nothing then tells where a label ends, and the line stays a title."""
    found = _cycle(last)
    if found is None:
        return None
    lead, length, repeats = found
    if any(last[:lead]) and not all(last[:lead]):
        return None
    named = 0 if any(last[:lead]) else lead  # blank columns before the cycle take the line's first labels
    if len(words) < named + repeats or len(words) > MAX_WORDS:
        return None
    bad, _, groups = groupings(words, named + repeats)[0]
    if bad:
        return None
    return ([Cell(" ".join(g)) for g in groups[:named]] + [Cell("") for _ in range(lead - named)]
            + [Cell(" ".join(g), colspan=length) for g in groups[named:]])


def _cycle(labels: list[str]) -> tuple[int, int, int] | None:
    """(columns before it, length, repeats) of the first run of labels to the end that repeats a cycle of
    two or more labels (`Model | Train Test Train Test`: 1, 2, 2), or None. At most `MAX_WORDS` columns
    before it and `MAX_WORDS` labels in the cycle (the line above names them in as many words): linear in
    the line, whatever its length."""
    blank = max((k + 1 for k, t in enumerate(labels) if not t), default=0)  # the cycle starts after the last blank
    for lead in range(blank, min(len(labels) - 3, MAX_WORDS) + 1):
        rest = labels[lead:]
        for length in range(2, min(len(rest) // 2, MAX_WORDS) + 1):
            if len(rest) % length == 0 and rest[length:] == rest[:-length]:
                return lead, length, len(rest) // length
    return None
