"""Emphasis a parser added: bold, italic, underline or strike-through the source does not have.

In a table, emphasis says something: the best result set bold, a group underlined. A parser that
emphasises what the source does not (every header underlined, a value set bold, a row struck
through) tells a reader something the table does not say, and puts
markup into cells a reader has to see through. The comparison counts, for each kind of emphasis
(bold, italic, underline, strike-through), the texts the extraction emphasises so that are not
texts (or pieces of texts) the ground truth emphasises so (`RULE`, ablatable), one cause, toward
the feature `emphasis` (charged log(1 + n) at the rated size, as the other counts are:
`semantic_size`). Italics over text the
ground truth sets as math (`$T$`, `$P6_3/mmc$`) are not added: math letters are set in italics,
and a parser that writes `<i>T</i>` writes what the page shows.

Emphasis lost is not charged: text-only formats (lines of text, CSV) cannot write it at all, and
what a reader misses there is a marker of the best value, which the values themselves still show.

Each side is counted from its own text in its own syntax (`Table.fmt`): LaTeX commands in a table
read from LaTeX; Markdown and HTML emphasis in any other. Nothing here reads the prediction with
the ground truth's help: each count is a property of one table.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from tablebench.core.table import Table
from tablebench.metrics.tables.semantic_align import FEATURES, Differences
from tablebench.metrics.tables.semantic_causes import Cause
from tablebench.metrics.tables.semantic_text import normalize
from tablebench.readers.textnorm import fold_case
from tablebench.tex.math_spans import inside, math_spans

RULE = "emphasis"  # the comparison's rule (`semantic.RULES`; `tablebench meta-eval --ablation` removes it)

# Per kind of emphasis: the LaTeX commands that set it, and the Markdown and HTML that write it (a
# single * or _ only around text that is not part of a longer word: a mark `0.91*` or a name `a_1`
# is not emphasis). Each Markdown/HTML pattern captures what it emphasises in its last group. An
# element's (and `\(...\)` math's) text is looked for within 300 characters of its opener: a cell
# of many openers without closers (a parser's repetition loop) must not cost time quadratic in its length.
_LATEX = {
    "bold": re.compile(r"\\(?:textbf|bfseries|bf|mathbf|boldsymbol|bm)(?![A-Za-z])"),
    "italic": re.compile(r"\\(?:textit|emph|itshape|it|textsl|slshape|sl)(?![A-Za-z])"),
    "underline": re.compile(r"\\(?:underline|uline)(?![A-Za-z])"),
    "strike": re.compile(r"\\(?:sout|st)(?![A-Za-z])"),
}
_MARKUP = {
    "bold": re.compile(r"\*\*(?=\S)([^*\n]+?)\*\*|__(?=\S)([^_\n]+?)__|<(?:b|strong)>(.{0,300}?)</(?:b|strong)>", re.I),
    "italic": re.compile(r"(?<![\w*])\*(?=[^\s*])([^*\n]+?)\*(?![\w*])|(?<![\w_\\])_(?=[^\s_])([^_\n]+?)_(?![\w_])"
                         r"|<(?:i|em)>(.{0,300}?)</(?:i|em)>", re.I),
    "underline": re.compile(r"<(?:u|ins)>(.{0,300}?)</(?:u|ins)>", re.I),
    "strike": re.compile(r"~~(?=\S)([^~\n]+?)~~|<(?:s|del|strike)>(.{0,300}?)</(?:s|del|strike)>", re.I),
}
# what a cell must hold to emphasise anything, per syntax: most cells hold none (nothing to look for)
_MAYBE_LATEX = re.compile(r"\\")
_MAYBE_MARKUP = re.compile(r"[*_~<]")

Span = tuple[str, str]  # (kind of emphasis, the text it emphasises, normalised: `_key`)


def emphasised(table: Table) -> Counter[Span]:
    """What `table` emphasises: (kind, text as `_key` compares it), each as often as it does, read
    in the syntax the table was written in (a LaTeX cell with an emphasis command emphasises its
    text; in Markdown and HTML each emphasised span its own, nested ones each)."""
    return Counter(span for span, _ in _spans(table))


def _spans(table: Table) -> Iterator[tuple[Span, str]]:
    """Each emphasised text of `table` (see `emphasised`), and the text as written."""
    latex = "latex" in table.fmt.split("+")
    maybe = _MAYBE_LATEX if latex else _MAYBE_MARKUP
    for row in table.rows:
        for cell in row:
            text = cell.raw if cell.raw is not None else cell.text
            if not text or not maybe.search(text):
                continue
            if latex:
                yield from (((kind, _key(cell.text)), cell.text) for kind, p in _LATEX.items() if p.search(text))
                continue
            for kind, pattern in _MARKUP.items():
                for m in pattern.finditer(text):
                    inner = next(g for g in m.groups() if g is not None)
                    yield (kind, _key(inner)), inner


def _key(text: str) -> str:
    """A text as emphasis is compared: normalised, without spaces (a parser's spacing is not emphasis)."""
    return normalize(text).replace(" ", "")


def math_text(table: Table) -> str:
    """The text `table` sets as math (LaTeX `$...$`, `\\(...\\)`: `tex.math_spans`), normalised and case-folded, one
    segment a line: math letters are set in italics, so italics over them are the table's own."""
    out = []
    for row in table.rows:
        for cell in row:
            if cell.raw and ("$" in cell.raw or "\\(" in cell.raw):
                out += [fold_case(_key(inside(cell.raw, span))) for span in math_spans(cell.raw)]  # the one finder
    return "\n".join(out)


def with_added_emphasis(differences: Differences, gt: Table, pred: Table) -> Differences:
    """`differences` with the texts `pred` emphasises that `gt` does not emphasise so counted (see
    the module docstring): a text the ground truth emphasises so, or a piece of one (a parser that
    sets `56.1` and `0.4` bold apart where the table bolds `56.1±0.4`), is the table's own, and so
    are italics over what the ground truth sets as math."""
    spans = emphasised(pred)
    if not spans:  # nothing emphasised: nothing added (the ground truth need not be read)
        return differences
    own = {kind: [] for kind in _MARKUP}
    for kind, text in emphasised(gt):
        own[kind].append(fold_case(text))
    own["italic"].append(math_text(gt))
    within = {kind: "\n".join(texts) for kind, texts in own.items()}
    extra = Counter({(kind, t): n for (kind, t), n in spans.items() if not (t and fold_case(t) in within[kind])})
    added = extra.total()
    if not added:
        return differences
    features = differences.features.copy()
    features[FEATURES.index("emphasis")] += added
    shown = dict(reversed(list(_spans(pred))))  # (kind, normalised) -> as first written
    some = ", ".join(f"{kind} '{shown[kind, t]}'" for kind, t in list(extra)[:3]) + (", ..." if len(extra) > 3 else "")
    text = (f"{added} text{'s' if added > 1 else ''} emphasised (bold, italic, underline or strike-through) "
            f"that the table does not emphasise so ({some})")
    cause = Cause("emphasis", float(added), text)
    return Differences(features, [*differences.causes, cause], differences.f1, differences.recall,
                       differences.precision, differences.n_gt, differences.n_pred, differences.alignment)
