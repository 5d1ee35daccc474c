"""Spans that lines of text cannot show (`semantic_spans`): a header label over several columns, a
row label over several rows. Lines keep the label once and say nothing of where it ends; the judge
takes points off for it ("span only implied") even when every value is there. Contents invented;
shapes as parsers write them (issue 43: pymupdf4llm's complex tables as lines were scored +0.76
above the judge on average, the pairs whose truth has row spans +1.10)."""

from __future__ import annotations

from tablebench.metrics.tables.semantic import DEFAULT, RULES, combine, read_and_count, semantic_details
from tablebench.metrics.tables.semantic_align import FEATURES
from tablebench.metrics.tables.semantic_spans import RULE, spanned
from tablebench.metrics.tables.semantic_struct import header_rows, to_grid
from tablebench.readers.html import as_table
from tablebench.readers.text import read_lines as lines_of

# a group label over three of five columns, a stub label over two header rows
GROUPED = ("<table><tr><th rowspan='2'>Scene</th><th colspan='3'>Accuracy</th><th rowspan='2'>Cost</th></tr>"
           "<tr><th>Full</th><th>Verb</th><th>Noun</th></tr>"
           "<tr><td>Indoor</td><td>0.337</td><td>0.498</td><td>0.452</td><td>0.271</td></tr>"
           "<tr><td>Outdoor</td><td>0.383</td><td>0.434</td><td>0.417</td><td>0.328</td></tr></table>")
GROUPED_LINES = "Scene Accuracy Cost\nFull Verb Noun\nIndoor 0.337 0.498 0.452 0.271\nOutdoor 0.383 0.434 0.417 0.328"
# a row label over two rows each (multirow), under a title over the whole width
NESTED = ("<table><tr><th colspan='3'>Success rate</th></tr><tr><th>Task</th><th>Setting</th><th>Rate</th></tr>"
          "<tr><td rowspan='2'>Knots</td><td>Random</td><td>52.6</td></tr><tr><td>Tuned</td><td>70.2</td></tr>"
          "<tr><td rowspan='2'>Origami</td><td>Random</td><td>50.4</td></tr><tr><td>Tuned</td><td>74.5</td></tr>"
          "</table>")
NESTED_LINES = "Success rate\nTask Setting Rate\nKnots Random 52.6\nTuned 70.2\nOrigami Random 50.4\nTuned 74.5"


def _spans(gt: str, text: str, rules: frozenset[str] = RULES) -> float:
    read = read_and_count(gt, lines_of(text), rules=rules)
    assert read.undelimited
    return float(read.differences.features[FEATURES.index("spans")])


def test_spans_lines_cannot_show_cost_their_share_in_lines_only() -> None:
    grid = to_grid(as_table(GROUPED))
    assert spanned(grid, header_rows(grid)) == (3, 0)  # Full, Verb, Noun under `Accuracy`; the stub spans rows only
    assert _spans(GROUPED, GROUPED_LINES) == 3 / 5
    result = semantic_details(GROUPED, lines_of(GROUPED_LINES))
    assert any(e.startswith("spans only implied by the lines' order: 3 of 5 columns") for e in result.errors)
    assert 5.0 < result.score < 10.0  # every value there: the spans cost what a reader's guess costs, not the table
    assert semantic_details(GROUPED, GROUPED).score == 10.0  # markup shows the spans: nothing implied


def test_rows_under_a_label_written_once_count_and_a_title_does_not() -> None:
    grid = to_grid(as_table(NESTED))
    assert spanned(grid, header_rows(grid)) == (0, 2)  # `Tuned` twice, its label above; the title is one line
    assert _spans(NESTED, NESTED_LINES) == 2 / 4
    assert semantic_details(NESTED, NESTED).score == 10.0


def test_a_table_without_spans_costs_nothing_as_lines() -> None:
    flat = "<table><tr><th>Task</th><th>Rate</th></tr><tr><td>Knots</td><td>52.6</td></tr>" \
           "<tr><td>Origami</td><td>50.4</td></tr></table>"
    assert _spans(flat, "Task Rate\nKnots 52.6\nOrigami 50.4") == 0.0
    assert semantic_details(flat, lines_of("Task Rate\nKnots 52.6\nOrigami 50.4")).score == 10.0


def test_without_the_rule_spans_cost_nothing() -> None:
    assert RULE in RULES
    assert _spans(GROUPED, GROUPED_LINES, RULES - {RULE}) == 0.0
    with_rule, without = (combine(read_and_count(GROUPED, lines_of(GROUPED_LINES), rules=r).row, DEFAULT.vector)
                          for r in (RULES, RULES - {RULE}))
    assert with_rule < without  # the same reading: only the implied spans differ
