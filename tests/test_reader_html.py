"""HTML reader: one test per construct parsers emit, each pinning the grid it must give."""

from __future__ import annotations

import random

import pytest

from tablebench.core.table import NoTableError, Table
from tablebench.readers.html import read_html, table_spans


def grid(table: Table) -> list[list[str]]:
    return [[c.text for c in row] for row in table.rows]


def cells(table: Table) -> list[list[tuple[str, int, int, bool]]]:
    """(text, rowspan, colspan, header) of every cell, row by row."""
    return [[(c.text, c.rowspan, c.colspan, c.header) for c in row] for row in table.rows]


def only(text: str, **kwargs: bool) -> Table:
    tables = read_html(text, **kwargs)
    assert len(tables) == 1
    return tables[0]


# -- sections and header flags ------------------------------------------------------------


def test_thead_tbody_tfoot_give_header_flags_and_tfoot_goes_last() -> None:
    t = only("<table><thead><tr><td>h1</td><td>h2</td></tr></thead>"
             "<tfoot><tr><td>f1</td><td>f2</td></tr></tfoot>"
             "<tbody><tr><td>b1</td><td>b2</td></tr></tbody></table>")
    assert cells(t) == [[("h1", 1, 1, True), ("h2", 1, 1, True)],
                        [("b1", 1, 1, False), ("b2", 1, 1, False)],
                        [("f1", 1, 1, False), ("f2", 1, 1, False)]]
    assert t.header_rows == 1 and t.fmt == "html"


def test_th_marks_a_header_cell_anywhere() -> None:
    t = only("<table><tr><th>Name</th><th>Value</th></tr><tr><th>row</th><td>1</td></tr></table>")
    assert cells(t) == [[("Name", 1, 1, True), ("Value", 1, 1, True)], [("row", 1, 1, True), ("1", 1, 1, False)]]
    assert t.header_rows == 1


def test_rows_without_tbody_and_cells_without_tr() -> None:
    assert grid(only("<table><tr><td>a</td></tr><tr><td>b</td></tr></table>")) == [["a"], ["b"]]
    assert grid(only("<table><td>a</td><td>b</td></table>")) == [["a", "b"]]


# -- cell text ----------------------------------------------------------------------------


@pytest.mark.parametrize(("inner", "text"), [
    ("<b>91.2</b>", "91.2"),
    ("<i>x</i> <em>y</em> <strong>z</strong>", "x y z"),
    ('<span class="c" style="color:red">red</span>', "red"),
    ('<a href="https://x.org">link</a> text', "link text"),
    ("m<sup>2</sup>", "m²"),
    ("H<sub>2</sub>O", "H₂O"),
    ("x<sup>†</sup>", "x†"),  # no superscript form: the text stays as written
    ("first<br>second<br/>third", "first second third"),
    ("  spaced \n  out  ", "spaced out"),
    ("a<!-- a comment -->b", "ab"),
    ("<p>one</p><p>two</p>", "one two"),
    ("keep<script>var x = 1;</script><style>td {}</style>", "keep"),
])
def test_inline_markup_is_read_as_text(inner: str, text: str) -> None:
    assert grid(only(f"<table><tr><td>{inner}</td></tr></table>")) == [[text]]


def test_br_is_a_line_break_when_whitespace_is_kept() -> None:
    t = only("<table><tr><td>a<br>b</td></tr></table>", collapse_whitespace=False)
    assert grid(t) == [["a\nb"]]


@pytest.mark.parametrize(("inner", "text"), [
    ("&amp;", "&"),
    ("a&nbsp;b", "a b"),
    ("&#945;", "α"),
    ("&#x3B2;", "β"),
    ("&lt;td&gt;", "<td>"),
    ("&alpha;", "α"),
])
def test_entities_are_decoded(inner: str, text: str) -> None:
    assert grid(only(f"<table><tr><td>{inner}</td></tr></table>")) == [[text]]


def test_nbsp_is_kept_verbatim_without_collapsing() -> None:
    assert grid(only("<table><tr><td>a&nbsp;b</td></tr></table>", collapse_whitespace=False)) == [["a\xa0b"]]


def test_mathml_is_read_from_alttext_or_tex_annotation() -> None:
    t = only('<table><tr><td><math alttext="\\alpha"><mi>a</mi></math></td>'
             '<td><math><semantics><mi>b</mi><annotation encoding="application/x-tex">\\beta^{2}</annotation>'
             '</semantics></math></td><td><math><mi>x</mi><mo>+</mo><mn>1</mn></math></td></tr></table>')
    assert grid(t) == [["α", "β²", "x+1"]]


# -- attributes ---------------------------------------------------------------------------


def test_span_attributes_quoted_unquoted_and_bogus() -> None:
    t = only('<table><tr><td colspan="2" style="x" class="y">a</td><td rowspan=3>b</td>'
             '<td colspan="x">c</td><td rowspan="0">d</td><td colspan=" 2 ">e</td></tr></table>')
    assert [(c.text, c.rowspan, c.colspan) for c in t.rows[0]] == [
        ("a", 1, 2), ("b", 3, 1), ("c", 1, 1), ("d", 1, 1), ("e", 1, 2)]
    assert t.layout().shape == (3, 7)


def test_raw_keeps_the_cell_source() -> None:
    t = only('<table><tr><td class="n"><b>1</b></td></tr></table>')
    assert t.rows[0][0].raw == '<td class="n"><b>1</b></td>'


# -- several tables, nesting, text around -------------------------------------------------


def test_several_tables_with_literal_spans() -> None:
    first = "<table><tr><td>1</td></tr></table>"
    second = "<TABLE border=1><tr><td>2</td></tr></TABLE>"
    page = f"<p>intro</p>\n{first}\n<p>between</p>{second} tail"
    tables = read_html(page)
    assert [grid(t) for t in tables] == [[["1"]], [["2"]]]
    assert [page[slice(*t.span)] for t in tables] == [first, second]


def test_nested_table_stays_inside_its_cell() -> None:
    page = "<table><tr><td>out<table><tr><td>in</td><td>2</td></tr></table></td><td>z</td></tr></table>"
    t = only(page)
    assert grid(t) == [["out in 2", "z"]]
    assert t.span == (0, len(page))


def test_text_around_tables_is_ignored() -> None:
    t = only("Here is the table: <table><tr><td>a</td></tr></table> and that was it.")
    assert grid(t) == [["a"]]


# -- malformed input ----------------------------------------------------------------------


def test_unclosed_cells_rows_and_table() -> None:
    page = "<table><tr><td>a<td>b<tr><td>c"
    t = only(page)
    assert grid(t) == [["a", "b"], ["c"]]
    assert t.span == (0, len(page))


def test_stray_tags_are_ignored() -> None:
    page = "</td></table><table><tr></b><td>a</i></td></span></tr></table></table>"
    t = only(page)
    assert grid(t) == [["a"]]
    assert page[slice(*t.span)] == "<table><tr></b><td>a</i></td></span></tr></table>"


def test_uppercase_tags_and_attributes() -> None:
    t = only("<TABLE><THEAD><TR><TH COLSPAN=2>A</TH></TR></THEAD><TR><TD>b</TD><TD>c</TD></TR></TABLE>")
    assert cells(t) == [[("A", 1, 2, True)], [("b", 1, 1, False), ("c", 1, 1, False)]]


def test_tables_inside_comments_do_not_count() -> None:
    page = "<!-- <table><tr><td>old</td></tr></table> --><table><tr><td>new</td></tr></table><!-- <table>"
    t = only(page)
    assert grid(t) == [["new"]]
    assert page[slice(*t.span)] == "<table><tr><td>new</td></tr></table>"
    assert table_spans("<!-- <table> -->") == []


def test_no_table_raises_clear_error() -> None:
    with pytest.raises(NoTableError, match="no HTML <table>"):
        read_html("<p>no table here</p>")
    with pytest.raises(NoTableError):
        read_html("<table></table>")
    with pytest.raises(NoTableError):
        read_html("")


def test_control_characters_and_lone_surrogates_do_not_lose_text() -> None:
    t = only("<table><tr><td>a\ud800b</td><td>c\x00d</td></tr></table>")
    assert grid(t)[0][0].startswith("a") and grid(t)[0][0].endswith("b")
    assert grid(t)[0][1].startswith("c") and grid(t)[0][1].endswith("d")


@pytest.mark.shared
def test_reads_every_html_extraction_of_the_metric_study(metric_study_dev: list[dict]) -> None:
    read = 0
    for gt in metric_study_dev:
        assert only(gt["gt_table_html"]).shape[0] >= 2
        for ex in gt["extractions"]:
            if "<table" in ex["extracted_table"].lower():
                assert read_html(ex["extracted_table"]), ex["parser"]
                read += 1
    assert read == 113  # the tms-dev pairs of the conformance set are exactly these


def test_random_garbage_gives_tables_or_no_table_error() -> None:
    rng = random.Random(3)
    pieces = ["<table>", "</table>", "<tr>", "</tr>", "<td>", "</td>", "<th colspan=x>", "<thead>", "<tfoot>",
              "<!--", "-->", "<b>", "<sup>", "</sup>", "<math>", "&amp;", "&#", "x", " ", "<", ">", "\x00",
              "\ud800", "'", '"', "=", "<br>"]
    for _ in range(400):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 60)))
        try:
            tables = read_html(text)
        except NoTableError:
            continue
        for t in tables:
            assert 0 <= t.span[0] < t.span[1] <= len(text)
            assert t.to_html().startswith("<table>")
