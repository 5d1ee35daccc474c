"""Emphasis a parser added (`semantic_emphasis`): counted from each table's own markup, charged
only where the extraction has more than the ground truth, named, and removable as a rule. The
contents are invented; the shapes are those parsers write (underlined headers, a × set in italics)."""

from __future__ import annotations

from tablebench.core.table import Cell, Table
from tablebench.metrics.tables.semantic import RULES, read_and_count, semantic_details
from tablebench.metrics.tables.semantic_align import FEATURES
from tablebench.metrics.tables.semantic_causes import MAX_TEXT, Cause
from tablebench.metrics.tables.semantic_emphasis import RULE, emphasised, math_text
from tablebench.readers.latex import read_latex
from tablebench.readers.markdown import read_markdown
from tablebench.readers.text import read_lines

GT = read_latex(r"""\begin{tabular}{lcc}
\textbf{Method} & \textbf{Speed} & \textbf{Memory} \\
Alpha & 1.2 & 30 \\
Beta & \textbf{2.4} & $\times$ \\
Gamma & 0.8 & 41 \\
\end{tabular}""")[0]
AS_WRITTEN = "| **Method** | **Speed** | **Memory** |\n|---|---|---|\n| Alpha | 1.2 | 30 |\n" \
             "| Beta | **2.4** | × |\n| Gamma | 0.8 | 41 |"


def _md(text: str) -> Table:
    return read_markdown(text)[0]


def test_emphasis_is_counted_in_each_tables_own_syntax() -> None:
    table_has = {("bold", t): 1 for t in ("method", "speed", "memory", "2.4")}  # three bold headers, a bold value
    assert emphasised(GT) == table_has
    assert emphasised(_md(AS_WRITTEN)) == table_has
    # a mark after a value and a name with an underscore are not emphasis; a value in italics, an
    # underlined word and a struck-through one are, in Markdown and HTML alike
    md = _md("| a | b | c |\n|---|---|---|\n| 0.91* | a_1 | ~~y~~ |\n| _0.5_ | <u>on</u> | <b>on</b> |")
    assert emphasised(md) == {("italic", "0.5"): 1, ("underline", "on"): 1, ("bold", "on"): 1, ("strike", "y"): 1}
    assert emphasised(Table([[Cell("z w", raw="<td><i>z</i> w</td>")]], fmt="html")) == {("italic", "z"): 1}
    # nested emphasis is each of its kinds; a parser's spacing inside it is not emphasis
    nested = emphasised(read_lines("_<u>Slope</u>_ **1 2.5**\na 1.0"))
    assert nested == {("italic", "slope"): 1, ("underline", "slope"): 1, ("bold", "12.5"): 1}


def test_emphasis_the_table_does_not_have_is_counted_and_named() -> None:
    """A value underlined, a row label in italics, a bold header also underlined: three texts the
    table does not emphasise so; the same table with the table's own emphasis costs nothing for it."""
    same = semantic_details(GT, _md(AS_WRITTEN))
    added = semantic_details(GT, _md(AS_WRITTEN.replace("| 30 |", "| <u>30</u> |").replace("| Gamma |", "| _Gamma_ |")
                                     .replace("**Speed**", "**<u>Speed</u>**")))
    assert same.features["emphasis"] == 0.0 and same.score == 10.0
    assert added.counts["emphasis"] == 3.0
    assert added.features["emphasis"] > 0 and added.score < same.score
    named = ("3 texts emphasised (bold, italic, underline or strike-through) that the table does not emphasise so "
             "(underline 'Speed', underline '30', italic 'Gamma')")
    assert named in added.errors


def test_pieces_of_a_text_the_table_emphasises_are_the_tables_own() -> None:
    """A parser that bolds a value and its ± part apart, or a header in two pieces, writes the
    table's own emphasis; a bold value elsewhere is not."""
    gt = read_latex(r"""\begin{tabular}{lc}
\textbf{Components} & mAP \\
Ours & \textbf{56.1\textsubscript{$\pm$0.4}} \\
Base & 52.7\textsubscript{$\pm$0.6} \\
\end{tabular}""")[0]
    pieces = _md("| **Comp** **onents** | mAP |\n|---|---|\n| Ours | **56.1**_±_**0.4** |\n| Base | 52.7±0.6 |")
    assert read_and_count(gt, pieces).differences.features[FEATURES.index("emphasis")] == 0.0
    elsewhere = _md("| **Components** | mAP |\n|---|---|\n| Ours | **56.1**±**0.4** |\n| Base | **52.7**±0.6 |")
    read = semantic_details(gt, elsewhere)
    assert read.counts["emphasis"] == 1 and "bold '52.7'" in read.errors[-1]


def test_italics_over_what_the_table_sets_as_math_are_the_maths_own() -> None:
    """`$\\times$` is set in italics on the page: a parser writing `_×_` writes what the page shows."""
    read = read_and_count(GT, _md(AS_WRITTEN.replace("| × |", "| _×_ |")))
    assert read.differences.features[FEATURES.index("emphasis")] == 0.0
    read = read_and_count(GT, _md(AS_WRITTEN.replace("| × |", "| <u>×</u> |")))  # underlined: not the math's
    assert read.differences.features[FEATURES.index("emphasis")] > 0.0


def test_emphasis_lost_costs_nothing() -> None:
    """A format without emphasis (lines of text) cannot write it: its absence is not charged."""
    plain = read_lines("Method Speed Memory\nAlpha 1.2 30\nBeta 2.4 ×\nGamma 0.8 41")
    read = read_and_count(GT, plain)
    assert read.undelimited and read.differences.features[FEATURES.index("emphasis")] == 0.0


def test_emphasis_in_lines_of_text_is_charged_at_the_lines_weight() -> None:
    marked = read_lines("**Method** **Speed** **Memory**\nAlpha 1.2 30\nBeta **2.4** ×\n<u>Gamma</u> 0.8 41")
    plain = read_lines("Method Speed Memory\nAlpha 1.2 30\nBeta 2.4 ×\nGamma 0.8 41")
    a, b = semantic_details(GT, marked), semantic_details(GT, plain)
    # the headers and 2.4 are bold as in the table: only Gamma's underline is not the table's
    assert a.counts["emphasis"] == 1.0 and b.counts["emphasis"] == 0.0
    assert a.reading == b.reading == "lines of text split into cells"
    assert a.score < b.score


def test_without_the_rule_added_emphasis_costs_nothing() -> None:
    marked = _md(AS_WRITTEN.replace("| Alpha |", "| <u>Alpha</u> |").replace("| 41 |", "| ~~41~~ |"))
    with_rule, without = read_and_count(GT, marked), read_and_count(GT, marked, rules=RULES - {RULE})
    k = FEATURES.index("emphasis")
    assert with_rule.differences.features[k] > 0 and without.differences.features[k] == 0.0


def test_a_cause_keeps_at_most_max_text_characters() -> None:
    """A hostile extraction (a 100 KB header label) cannot make an error message that long."""
    cause = Cause("headers", 1.0, "header 'x" + "y" * 100_000 + "' misread")
    assert len(cause.text) == MAX_TEXT and cause.text.endswith("…")
    huge = _md("| " + "w" * 100_000 + " | Speed | Memory |\n|---|---|---|\n| Alpha | 1.2 | 30 |")
    assert all(len(e) <= MAX_TEXT for e in semantic_details(GT, huge).errors)


def test_an_element_is_looked_for_near_its_opener_only() -> None:
    """A cell of 40,000 openers without closers (a parser's repetition loop) holds no emphasis and is
    read once, not once per opener; an element's text is looked for within 300 characters of it."""
    loop = "<b>x " * 40_000
    assert emphasised(Table([[Cell(loop, raw=loop)]], fmt="markdown")) == {}
    near, far = "<u>" + "y" * 300 + "</u>", "<u>" + "y" * 301 + "</u>"
    assert emphasised(_md(f"| a | b |\n|---|---|\n| {near} | {far} |")) == {("underline", "y" * 300): 1}


def test_the_math_a_table_sets_is_found_by_the_one_math_finder():
    """An escaped `\\$` is a dollar sign, not math: its own pattern read `$0.029 (2.2$` as a formula and
    missed the `\\times` after it, so a parser's italic × (math's own italics) was charged as added."""
    gt = Table([[Cell("$0.029 (2.2×)", raw="\\$0.029 (2.2$\\times$)"), Cell("z", raw="$z$ and \\(y\\)")]])
    assert math_text(gt).split("\n") == ["✗", "z", "y"]  # a lone × is the cross mark (`semantic_glyphs`)
