"""A table written as lines of text, read back into cells from what the lines themselves show.

Some parsers lose a table's grid and keep its text: a line per row, cells apart by single spaces
(`ResNet-50 76.1 93.0`). A reader who sees only those lines rebuilds the grid from their own
regularity, never from the table they came from; so does `read_lines` (a symbol the parser set in
italics on its own, `_×_`, is read as the symbol):

- **Tokens** are the words between spaces, with what a reader keeps together glued (`glue`): a
  superscript or a mark set after a word or number (`3.41 <sup>∗</sup>`, `R@5 (↑)`), a number with
  its ± or × 10ᵏ part (`5.21 × 10−3`), a size (`16 × 16`), a bound and its number (`> 0.35`, `< 95%`,
  `∼ 900s`), two numbers about a spaced slash (`99.1 / 97.5`), a bracket or an emphasised phrase
  that holds a space (`[86.1, 90.2]`, `**Net Income**`), a list item's comma (`\\Cap, \\doublecap`), an enumerator and
  its label (`(a) COCO`), a number in brackets after a label when what follows is not bracketed
  (`Base + Tune (0.3) 21.65`: a setting that names the row; `Time (27.0) (128.3)` are values).
- **Numbered labels** (`enumerated`): a label followed by a different small integer on several lines
  is one label with its number, wherever it stands (`Option 1`, `Player 2`); lines that begin with a
  number and the same word begin with a label that counts something (`1–2 files 57.8`).
- **Cells**: each value token (a number, a mark, a null marker) is a cell of its own; a run of
  words between values is one label (an operator joins what stands on both sides: `A + B`). Runs
  that every line of the body's most common shape writes with as many words, two or more, and no
  operator joins, are a cell per word (`regular_runs`: `BB Net7 Local 58.31` over `XYZ Net7 Ours
  77.45`), unless they are one word and a letter that tells the lines apart (`Stage A`, `Stage
  B`), and so are the words of a table without values when most lines hold as many
  (`regular_words`). A null marker
  after a label stands for a label's cell: where lines show one (`Synthetic - 10 5`), lines with one
  cell fewer hold that column's label as their label's last word (`OSM Milan BNC 10 20`).
- **Header and body**: the body's lines share a shape (which of their cells are values); the
  lines above the first line of such a shape are the header. Where no two lines share a shape
  (labels with numbers in them: `Model X 2.5 Pro 0.812 ...`), a reader counts the values from a
  line's end: the lines that end in the most common run of values are the body, as wide as that
  run and a label. The table is as wide as most body
  lines with values, widened to a count two lines share when those begin with a label where the
  others begin with a value (a row label written once in a group). Every line stands against
  the right edge (values are right; a label written once leaves the left cells blank); a line
  with more cells than the width reads its first ones as one label.
- **The last header line** names the columns a word each, against the right edge; with more words
  than columns, the words are grouped as language groups them (`semantic_header_words`). A
  header line above it is a title when it is one run of words (where group labels in it would
  end is not in the text), else its first cells name the stub columns from the left and the
  others spread over the value columns alike, as group headers. Where the last line's labels
  repeat a cycle (`Train Test Train Test`), the run of words above names the groups of the
  cycle's length, grouped as language groups them (`cycles`).
- **A line of one label** in the body is a section row over the table's width; so is one right
  above the body whose words could not name half the columns (`(a) COCO`, `CLIP` over rows of four;
  an operator and what it joins name one thing: `λ = 10−3`).

What this reading gets wrong is what a reader of the lines would get wrong: the score charges it
through the comparison (values under other columns, headers misread), so a table of one-word
cells read back whole costs nothing for having been lines, and one whose cells the lines do not
show costs what its misreading costs. Nothing here sees the ground truth.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from tablebench.core.table import Cell, Table
from tablebench.metrics.tables.semantic_header_words import cycle_groups, name_columns, right_aligned
from tablebench.metrics.tables.semantic_struct import is_numeric, is_value
from tablebench.metrics.tables.semantic_text import NULL, normalize

# The rules this reader follows beyond cutting at spaces and values (`semantic_read.RULES`;
# `tablebench meta-eval --ablation` removes each in turn).
LINE_RULES = ("glue", "regular_runs", "regular_words", "enumerated", "cycles")
ALL = frozenset(LINE_RULES)

_KEEP = "\u00a0"  # a space inside a token (never cut at: tokens are cut at ASCII white space)
_SPACES = re.compile(r"[ \t\r\f\v]+")
_SCRIPT_APART = re.compile(r"[ \t]+(?=<su[pb]>)")  # a superscript or subscript set apart belongs to what precedes it
# a number with its ± part, or times a power of ten (5.21 × 10−3, 1.2 x 10^{-3}, 7.6 × 10 <sup>-3</sup>)
_PLUS_MINUS = re.compile(r"(?<=\d)[ \t]*[_*]*(?:±|\+/-|\+-)[_*]*[ \t]*(?=[\d.])")
# two numbers about a spaced slash, a pair in one cell (`99.1 / 97.5`: accuracy / calibration)
_PAIR = re.compile(r"(?<=\d)[ \t]+/[ \t]+(?=[\d.−-])")
# a bound: a comparison before a number is the value it bounds (`> 0.35`, `< 95%`), not a join
_BOUND = re.compile(r"(?<!\S)[<>≤≥~∼≈][ \t]+(?=[−-]?[\d.][^\s,;]*+(?:[ \t]|$))")  # possessive: linear
# two numbers a reader reads as one size (`16 × 16`, `3 x 3`)
_TIMES = re.compile(r"(?<=\d)[ \t]+[×x][ \t]+(?=\d)")
# a symbol a parser set in italics on its own (`_×_`, `_γ_`): the emphasis is the parser's, not a cell's
_EMPHASISED_SYMBOL = re.compile(r"(?<![\w*])([_*])([^\s_*]{1,3})\1(?![\w*])")
_POWER = re.compile(r"(?<=\d)[ \t]*[×x·][ \t]*10(?:[ \t]+(?=<sup>))?(?=[ \t]*(?:<sup>|[−\-+⁻⁺⁰-⁹^]))")
# one thing to a reader although it holds spaces: a bracketed pair, an emphasised phrase
_TOGETHER = re.compile(r"[\[(][^\[\]()\n]{1,40}[\])]|(\*\*|__)[^*_\n]{1,60}?\1|<(u|b|i|em|strong)>[^<\n]{1,60}?</\2>")
_BRACKETED = re.compile(r"[\[(][^\[\]()\n]{1,40}[\])]")
_SINGLE = re.compile(r"\([^\s()]+\)")  # one number in brackets
_ENUMERATOR = re.compile(r"^(?:\(\w{1,3}\)|\w{1,3}\))$")  # (a), (ii), b): one with the label that follows
_MARKS = "†‡§¶*∗⋆↑↓⇑⇓"
_MARK = re.compile(rf"^(?:[{_MARKS}]+|\([{_MARKS}]+\))$")  # set after what it marks
_TRAILING_MARKS = re.compile(rf"[{_MARKS}\s]+$")
_OPERATOR = re.compile(r"^[=+&/~<>≤≥≈×-]$")  # joins what stands on both sides of it


@dataclass(frozen=True, slots=True)
class _Piece:
    words: tuple[str, ...]  # its tokens
    value: bool  # a value token: a cell of its own

    @property
    def text(self) -> str:
        return " ".join(self.words)


def read_lines(lines: list[str], rules: frozenset[str] = ALL) -> Table | None:
    """`lines` (a table's rows as written, one per line) read as a grid (see the module
    docstring); None for no text. `rules` names the rules read by (`LINE_RULES`; all but for an
    ablation)."""
    tokens = [t for t in (tokens_of(line, "glue" in rules) for line in lines) if t]
    if not tokens:
        return None
    rows = [_pieces(t) for t in tokens]
    numbered = ""
    if "enumerated" in rules:
        rows, numbered = _enumerated_labels(rows)
        rows = _counted_labels(rows)
    if "regular_words" in rules and not any(p.value for r in rows for p in r) and _regular(tokens):
        rows = [[_Piece((w,), True) for w in t] for t in tokens]
    if "regular_runs" in rules:
        rows = _split_at_nulls(_split_regular_runs(rows))
    head = _header_end(rows)
    width = _width(rows[head:]) or max(len(_words(r)) for r in rows)
    while head > 0 and _one_label(rows[head - 1]) and 2 * _naming_words(rows[head - 1][0]) < width:
        head -= 1  # a label of a few words right above the body groups the rows below it: a section row
    last = name_columns(_words(rows[head - 1]), width, numbered) if head else []  # the last header line
    stub = _stub(rows[head:], width)
    over_cycle = None  # the line right above the last, one run of words naming the groups of a cycle (`cycles`)
    if "cycles" in rules and head >= 2 and _one_label(rows[head - 2]):
        over_cycle = cycle_groups(_words(rows[head - 2]), [c.text for c in last])
    out = [[Cell(c.text, colspan=c.colspan, header=True)
            for c in (over_cycle if r == head - 2 and over_cycle else _group_line(rows[r], width, stub))]
           for r in range(head - 1)]  # header lines above the last: a title, or stub and group headers
    if head:
        out.append([Cell(c.text, header=True) for c in last])
    for pieces in rows[head:]:
        if _one_label(pieces) and width > 1:
            out.append([Cell(pieces[0].text, colspan=width)])  # a section row: one label over the width
        else:
            out.append(right_aligned([p.text for p in pieces], width))
    return Table(out, fmt="lines-read")


def tokens_of(line: str, glue: bool = True) -> list[str]:
    """A line's tokens: its words, with what a reader keeps together glued (see the module
    docstring; without `glue`, the words alone)."""
    if not glue:
        return line.split()
    line = _EMPHASISED_SYMBOL.sub(r"\2", _SCRIPT_APART.sub("", line.strip()))
    for pattern in (_PLUS_MINUS, _PAIR, _BOUND, _TIMES, _POWER, _TOGETHER):
        line = pattern.sub(lambda m: m.group(0).replace(" ", _KEEP), line)
    out: list[str] = []
    words = [w for w in _SPACES.split(line) if w]
    for k, word in enumerate(words):
        if out and _MARK.match(word):
            out[-1] += word
        elif out and out[-1].endswith(",") and not is_numeric(normalize(out[-1][:-1])):
            out[-1] += " " + word  # a list in one cell
        elif out and _BRACKETED.fullmatch(word) and not _is_value(out[-1]) and (
                not _is_value(word) or (_SINGLE.fullmatch(word) and k + 1 < len(words)
                                        and not _BRACKETED.fullmatch(words[k + 1]))):
            out[-1] += " " + word  # a unit or a note in brackets after a label: "Param (M)", "Ours (0.5) 21.0"
        elif len(out) == 1 and _ENUMERATOR.match(out[0]):
            out[0] += _KEEP + word
        else:
            out.append(word)
    return [t.replace(_KEEP, " ") for t in out]


def _is_operator(token: str) -> bool:
    """A sign that joins what stands on both sides of it (a backslash too: `True \\ Pred`, which
    normalises to the null marker)."""
    return token == "\\" or bool(_OPERATOR.match(normalize(token)))


def _is_value(token: str) -> bool:
    """A number, a mark or a null marker (significance marks after a number do not make it a word)."""
    if _is_operator(token):
        return False
    norm = normalize(token)
    if norm == NULL:
        return True
    bare = _TRAILING_MARKS.sub("", norm)
    return is_value(norm) or (bare != norm and bool(bare) and is_value(bare))


def _pieces(tokens: list[str]) -> list[_Piece]:
    """The line's natural cells: each value token alone, each run of words between values one
    piece (an operator joins what stands on both sides of it: `A + B`, `∆M/M = −3`)."""
    out: list[_Piece] = []
    glue = False
    for token in tokens:
        value = _is_value(token)
        if out and _is_operator(token):
            out[-1] = _Piece((*out[-1].words, token), False)
            glue = True
        elif out and (glue or (not value and not out[-1].value)):
            out[-1] = _Piece((*out[-1].words, token), False)
            glue = False
        else:
            out.append(_Piece((token,), value))
    return out


_INTEGER = re.compile(r"^\d{1,4}[a-z]?$")  # an ordinal a label is numbered by (1, 12, 3b)


def _enumerated_labels(rows: list[list[_Piece]]) -> tuple[list[list[_Piece]], str]:
    """A label repeated in several lines, each time followed by another small integer (`Option 1
    4.80`, `Option 2 5.07`; `... 2 Player 1 (2, 1, 1)`, `... 2 Player 3 (3, 2, 2)`), is one label with its
    number: a label tells rows or values apart, and the word alone does not. Returns the rows and the
    label most lines are numbered under at their start ("" for none)."""
    numbers: dict[str, set[str]] = {}
    for r in rows:
        for k in range(len(r) - 1):
            if not r[k].value and r[k + 1].value and _INTEGER.match(r[k + 1].text):
                numbers.setdefault(r[k].text, set()).add(r[k + 1].text)
    repeated = {label for label, seen in numbers.items() if len(seen) >= 2}
    if not repeated:
        return rows, ""
    starts: Counter[str] = Counter(r[0].text for r in rows if len(r) >= 2 and r[0].text in repeated
                                   and r[1].value and _INTEGER.match(r[1].text))
    most = max(sorted(starts), key=lambda label: starts[label]) if starts else ""
    return [_numbered(r, repeated) for r in rows], most


def _counted_labels(rows: list[list[_Piece]]) -> list[list[_Piece]]:
    """Lines that begin with a number and then the same word (`1–2 files 57.8 294`, `10+ files 44.4 18`)
    begin with a label that counts something: the number and its word are one label, as a unit is one
    with its number (`Edited Files` names both)."""
    units = Counter(r[1].text for r in rows if len(r) >= 3 and r[0].value and not r[1].value
                    and len(r[1].words) == 1)
    units = Counter({w: k for w, k in units.items() if k >= 2})
    if not units:
        return rows
    return [[_Piece((f"{r[0].text} {r[1].text}",), False), *r[2:]]
            if len(r) >= 3 and r[0].value and r[1].text in units else r for r in rows]


def _numbered(pieces: list[_Piece], repeated: set[str]) -> list[_Piece]:
    """`pieces` with each `repeated` label and the small integer after it as one label (one word: never
    split a word a cell)."""
    out: list[_Piece] = []
    k = 0
    while k < len(pieces):
        p = pieces[k]
        if (not p.value and p.text in repeated and k + 1 < len(pieces) and pieces[k + 1].value
                and _INTEGER.match(pieces[k + 1].text)):
            out.append(_Piece((f"{p.text} {pieces[k + 1].text}",), False))
            k += 2
        else:
            out.append(p)
            k += 1
    return out


def _shape(pieces: list[_Piece]) -> tuple[bool, ...]:
    return tuple(p.value for p in pieces)


def _one_label(pieces: list[_Piece]) -> bool:
    return len(pieces) == 1 and not pieces[0].value


def _naming_words(piece: _Piece) -> int:
    """How many column names a label's words could be: an operator and the words it joins are one
    expression (`λ = 10−3` names a setting, not three columns)."""
    operators = sum(1 for w in piece.words if _is_operator(w))
    return max(1, len(piece.words) - 2 * operators)


def _words(pieces: list[_Piece]) -> list[str]:
    """A header line's words, a label each; an operator and the words it joins are one label
    (`True \\ Pred`, `A + B`)."""
    out: list[str] = []
    for p in pieces:
        join = False
        for k, w in enumerate(p.words):
            operator = _is_operator(w) and 0 < k < len(p.words) - 1
            if out and k and (join or operator):
                out[-1] += " " + w
            else:
                out.append(w)
            join = operator
    return out


def _regular(tokens: list[list[str]]) -> bool:
    """Lines of words without values that a reader reads a word a cell: most of them (at least
    two, more than any other count) hold the same number of words, two or more."""
    counts = Counter(len(t) for t in tokens)
    n, k = max(counts.items(), key=lambda item: (item[1], item[0]))
    return n >= 2 and k >= 2 and 2 * k >= len(tokens)


def _split_regular_runs(rows: list[list[_Piece]]) -> list[list[_Piece]]:
    """Runs of words that every line of the body's most common shape writes with the same number
    of words, two or more, split a word a cell: that regularity is what tells a reader where the
    cells end. Runs elsewhere keep their words together."""
    shapes = Counter(_shape(r) for r in rows if any(p.value for p in r))
    if not shapes:
        return rows
    shape = max(shapes, key=lambda s: (shapes[s], len(s)))
    lines = [r for r in rows if _shape(r) == shape]
    split = {k for k, value in enumerate(shape) if not value and len(lines) >= 2
             and len({len(r[k].words) for r in lines}) == 1 and len(lines[0][k].words) > 1
             and not any(_is_operator(w) for r in lines for w in r[k].words)
             and not _lettered([r[k].words for r in lines])}
    if not split:
        return rows
    return [r if _shape(r) != shape else
            [q for k, p in enumerate(r) for q in ([_Piece((w,), False) for w in p.words] if k in split else [p])]
            for r in rows]


_LETTER = re.compile(r"^(?:[A-Z]|[IVX]{1,4})$")  # a name's letter or numeral: Stage A, Phase II


def _lettered(runs: list[tuple[str, ...]]) -> bool:
    """Runs that are one word every line writes alike and a letter or numeral that tells the lines
    apart (`Stage A`, `Stage B`, `Stage C`): one label each, a name lettered as `Option 1` is numbered;
    a word the same on every line would be a column that says nothing."""
    return (all(len(run) == 2 for run in runs) and len({run[0] for run in runs}) == 1
            and all(_LETTER.match(run[1]) for run in runs) and len({run[1] for run in runs}) == len(runs))


def _split_at_nulls(rows: list[list[_Piece]]) -> list[list[_Piece]]:
    """Lines whose label is followed by a null marker and then values only (`Synthetic - 10 5`, two or
    more alike) show a label column there: the marker stands for its cell. Lines with one cell fewer,
    values after a label of two words or more (`Synthetic BNC 10 20`, `OSM Milan BNC 10 20`), hold that
    column's label as their label's last word."""
    nulls = Counter(len(r) for r in rows if len(r) >= 3 and not r[0].value and normalize(r[1].text) == NULL
                    and all(p.value for p in r[1:]))
    n = max((n for n, k in nulls.items() if k >= 2), key=lambda n: nulls[n], default=0)
    if not n:
        return rows
    return [[_Piece(r[0].words[:-1], False), _Piece(r[0].words[-1:], False), *r[1:]]
            if len(r) == n - 1 and not r[0].value and len(r[0].words) >= 2 and all(p.value for p in r[1:]) else r
            for r in rows]


def _header_end(rows: list[list[_Piece]]) -> int:
    """The first line shaped as the body's lines are: its cells, value or label in turn, as those
    of at least two lines that hold a value (of the most common such shape when none repeats).
    A header line names what the body lines hold, so it is shaped otherwise (`Source Corpus 0%
    50% Gain` over `Model-A1 21.4% 61.0% 1.5%`; `1 2 4 8` over `Phase A 2.41 2.38 ...`).
    0 when no line holds a value (a table of labels has no header)."""
    shapes = Counter(_shape(r) for r in rows if any(p.value for p in r))
    if not shapes:
        return 0
    body = {s for s, k in shapes.items() if k >= 2}
    if not body and (tail := _common_tail(rows)):
        return next(r for r, pieces in enumerate(rows) if _tail(pieces) == tail)
    body = body or {max(shapes, key=lambda s: (shapes[s], -len(s)))}
    return next(r for r, pieces in enumerate(rows) if _shape(pieces) in body)


def _tail(pieces: list[_Piece]) -> int:
    """How many values end the line."""
    n = 0
    while n < len(pieces) and pieces[-1 - n].value:
        n += 1
    return n


def _common_tail(rows: list[list[_Piece]]) -> int:
    """Where no two lines share a shape, the run of values that ends most lines (two or more values, on two
    or more lines that begin with a label): a reader counts a row's values from its end, and the words
    before them are its label, numbers in it or not (`Model X 2.5 Pro 0.812 0.611–0.934 90.2%`). 0 when
    there is none."""
    tails = Counter(t for r in rows if r and not r[0].value and (t := _tail(r)) >= 2)
    common = [t for t, k in tails.items() if k >= 2]
    return max(common, key=lambda t: (tails[t], t)) if common else 0


def _width(rows: list[list[_Piece]]) -> int:
    """How many columns the body's lines show: the most common count of cells among lines that
    hold a value (the larger on a tie), widened to a larger count at least two such lines share
    when those lines begin with a label where the common ones begin with a value (a row label
    written once, in one row of each group: `GRP(0,1) .6 -0.004 ...` among `.3 -0.021 ...`)."""
    lines = [r for r in rows if any(p.value for p in r)]
    counts = Counter(len(r) for r in lines)
    if not counts:
        return 0
    width = max(counts, key=lambda n: (counts[n], n))
    if counts[width] == 1 and (tail := _common_tail(rows)):
        return tail + 1
    if all(r[0].value for r in lines if len(r) == width):
        wider = [n for n, k in counts.items() if n > width and k >= 2
                 and all(not r[0].value for r in lines if len(r) == n)]
        width = max(wider, default=width)
    return width


def _stub(rows: list[list[_Piece]], width: int) -> int:
    """How many columns at the left the body's full lines hold labels in (the stub), most commonly."""
    counts = Counter(next((k for k, p in enumerate(r) if p.value), len(r)) for r in rows if len(r) == width)
    return max(counts, key=lambda n: (counts[n], -n)) if counts else 0


def _group_line(pieces: list[_Piece], width: int, stub: int) -> list[Cell]:
    """A header line above the last: one run of words is the table's title; else its first cells
    name the `stub` columns (as many as it can while a cell is left for the rest) and the others
    spread over the value columns alike in width (the leftmost take what is left over), as group
    headers."""
    if _one_label(pieces):
        return [Cell(pieces[0].text, colspan=width)]
    labels = _words(pieces)
    if len(labels) >= width:
        return right_aligned(labels, width)  # grouped by language on the line naming the columns (and over cycles)
    stub = max(0, min(stub, len(labels) - 1))
    groups = labels[stub:]
    each, extra = divmod(width - stub, len(groups))
    return [Cell(t) for t in labels[:stub]] + [Cell(t, colspan=each + (k < extra)) for k, t in enumerate(groups)]
