"""Plain-text readers: column-aligned grids (pdftotext -layout) and CSV/TSV with sniffing."""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest

from tablebench.core.table import NoTableError, Table
from tablebench.readers.text import read_delimited, read_text, sniff_delimiter


def grid(table: Table) -> list[list[str]]:
    return [[c.text for c in row] for row in table.rows]


def spans(table: Table) -> list[list[int]]:
    return [[c.colspan for c in row] for row in table.rows]


# -- aligned text -------------------------------------------------------------------------

LAYOUT_PAGE = """\
Results of the first experiment are shown below, and they are discussed at length here.

   Method        Accuracy    F1 score    Time (s)
   Baseline      71.2        0.65        12.5
   Ours (full)   91.2        0.88        14.0
   Ours - aux                0.80        13.1

The proposed method improves the accuracy by twenty points over the baseline model.
"""


def test_aligned_block_becomes_a_grid_with_empty_cells() -> None:
    tables = read_text(LAYOUT_PAGE)
    assert len(tables) == 1
    t = tables[0]
    assert grid(t) == [
        ["Method", "Accuracy", "F1 score", "Time (s)"],
        ["Baseline", "71.2", "0.65", "12.5"],
        ["Ours (full)", "91.2", "0.88", "14.0"],
        ["Ours - aux", "", "0.80", "13.1"],
    ]
    assert t.fmt == "text" and t.header_rows == 0


def test_span_is_the_literal_block() -> None:
    t = read_text(LAYOUT_PAGE)[0]
    literal = LAYOUT_PAGE[t.span[0]:t.span[1]]
    assert literal.startswith("Method") and literal.endswith("13.1")
    assert literal.count("\n") == 3


def test_single_spaces_stay_inside_a_cell_and_double_spaces_split() -> None:
    t = read_text("Model A  1.0\nModel B  2.0")[0]
    assert grid(t) == [["Model A", "1.0"], ["Model B", "2.0"]]


def test_blank_lines_between_rows_and_a_label_row_stay_in_the_block() -> None:
    text = "Name     Value\n\nalpha    1\nGroup B\nbeta     2\n"
    t = read_text(text)[0]
    assert grid(t) == [["Name", "Value"], ["alpha", "1"], ["Group B", ""], ["beta", "2"]]


def test_group_header_crossing_a_boundary_becomes_a_colspan() -> None:
    text = (
        "             Walker2d\n"
        "Numbers    MSE      RA      TE\n"
        "0          0.29     0.77    0.16\n"
        "500        0.11     0.77    0.18\n"
        "1000       0.28     0.81    0.14\n"
        "2000       0.24     0.84    0.13\n"
    )
    t = read_text(text)[0]
    assert t.shape == (6, 4)
    assert grid(t)[0] == ["", "Walker2d", ""]
    assert spans(t)[0] == [1, 2, 1]
    assert grid(t)[1] == ["Numbers", "MSE", "RA", "TE"]


def test_tabs_are_expanded_before_columns_are_found() -> None:
    t = read_text("a\t\tb\nccc\t\tddd\n")[0]
    assert grid(t) == [["a", "b"], ["ccc", "ddd"]]


def test_two_tables_separated_by_prose() -> None:
    text = ("x   y\n1   2\n"
            "This sentence is long enough to count as a paragraph of prose text.\n"
            "p    q    r\n7    8    9\n")
    tables = read_text(text)
    assert [grid(t) for t in tables] == [[["x", "y"], ["1", "2"]], [["p", "q", "r"], ["7", "8", "9"]]]
    assert [text[slice(*t.span)] for t in tables] == ["x   y\n1   2", "p    q    r\n7    8    9"]


def test_one_row_or_one_column_is_not_a_table() -> None:
    with pytest.raises(NoTableError, match="aligned"):
        read_text("only    one    line")
    with pytest.raises(NoTableError):
        read_text("alpha\nbeta\ngamma\n")


def test_prose_with_double_spaces_is_not_a_table() -> None:
    prose = ("The quick brown fox jumps over the lazy dog and then  keeps running far away into the woods.\n"
             "Another line of justified text  with a double space somewhere in the middle of it all.\n")
    with pytest.raises(NoTableError):
        read_text(prose)


def test_wide_prose_columns_are_not_a_table() -> None:
    two_columns = "\n".join(
        f"left column sentence number {i} goes on and on here    right column sentence {i} also goes on long"
        for i in range(6))
    with pytest.raises(NoTableError):
        read_text(two_columns)


@pytest.mark.shared
@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext (poppler-utils) is not installed")
def test_finds_tables_in_real_pdftotext_layout_output(bench_sample_dir) -> None:
    out = subprocess.run(["pdftotext", "-layout", str(bench_sample_dir / "pdfs" / "001.pdf"), "-"],
                         capture_output=True, text=True, check=True).stdout
    tables = read_text(out)
    assert tables, "no table found in page 001"
    cells = {c.text for t in tables for c in t.cells()}
    # numbers of the page's first table, each in a cell of its own
    assert {"54.8", "48.0", "58.8", "54.5"} <= cells
    # a table of the two-column page, read without the prose printed beside it
    grids = [t.text_grid() for t in tables]
    assert any(g[0] == ["Method", "Rendering Speed", "Train Time"] and g[-1] == ["Ours", "0.45×", "2.43×"]
               for g in grids)


# -- delimited text -----------------------------------------------------------------------


def test_csv_with_quotes_embedded_delimiters_and_newlines() -> None:
    text = 'name,value,note\nalpha,1,"x, y"\nbeta,2,"two\nlines"\n'
    t = read_delimited(text)[0]
    assert grid(t) == [["name", "value", "note"], ["alpha", "1", "x, y"], ["beta", "2", "two\nlines"]]
    assert t.fmt == "csv" and t.span == (0, len(text) - 1)


def test_tsv_is_sniffed() -> None:
    t = read_delimited("a\tb, c\n1\t2, 3\n")[0]
    assert grid(t) == [["a", "b, c"], ["1", "2, 3"]]


@pytest.mark.parametrize(("text", "delimiter"), [
    ("a,b,c\n1,2,3\n", ","),
    ("a;b;c\n1,5;2,5;3\n", ";"),
    ("a\tb\n1\t2\n", "\t"),
    ("a|b|c\n1|2|3\n", "|"),
    ("just words\nand more words\n", None),
])
def test_sniff_delimiter(text: str, delimiter: str | None) -> None:
    assert sniff_delimiter(text) == delimiter


def test_explicit_delimiter_and_bad_delimiter() -> None:
    assert grid(read_delimited("a;b\n1;2", delimiter=";")[0]) == [["a", "b"], ["1", "2"]]
    with pytest.raises(ValueError, match="one character"):
        read_delimited("a;b\n1;2", delimiter=";;")


def test_blank_lines_split_tables_and_titles_are_dropped() -> None:
    text = "Table 1\na,b\n1,2\n\nTable 2\nc,d,e\n3,4,5\n6,7\n"
    tables = read_delimited(text)
    assert [grid(t) for t in tables] == [[["a", "b"], ["1", "2"]], [["c", "d", "e"], ["3", "4", "5"], ["6", "7"]]]
    assert [text[slice(*t.span)] for t in tables] == ["a,b\n1,2", "c,d,e\n3,4,5\n6,7"]


def test_whitespace_around_fields_is_stripped() -> None:
    t = read_delimited("a , b\n 1,  2 \n")[0]
    assert grid(t) == [["a", "b"], ["1", "2"]]


def test_no_delimited_table_raises() -> None:
    with pytest.raises(NoTableError, match="delimiter"):
        read_delimited("one line, only\n")
    with pytest.raises(NoTableError):
        read_delimited("")


def test_non_string_input_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="expects str"):
        read_text(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expects str"):
        read_delimited(3)  # type: ignore[arg-type]


def test_random_garbage_gives_tables_or_no_table_error() -> None:
    rng = random.Random(11)
    pieces = ["a", "bb", "1.5", " ", "  ", "    ", "\t", "\n", "\n\n", ",", ";", "|", '"', "\r", "\x00", "\ud800", "é"]
    for _ in range(400):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 120)))
        for reader in (read_text, read_delimited):
            try:
                tables = reader(text)
            except NoTableError:
                continue
            for t in tables:
                assert 0 <= t.span[0] < t.span[1] <= len(text)
                assert t.shape[0] >= 2 and t.shape[1] >= 1


def test_a_group_label_written_once_in_its_own_column_stays_a_column() -> None:
    # the first column holds text on 3 of 15 lines: too few to make a column by density, but
    # blank space on both sides sets it apart
    models = ["Alpha", "Beta", "Gamma", "Delta", "Eps", "Zeta", "Eta"]
    lines = ["Family   Size   Model   Acc"]
    for family in ("Dense", "Sparse"):
        for i, model in enumerate(models):
            lines.append(f"{family if i == 0 else '':<9}{'7B' if i < 4 else '1B':<7}{model:<8}{50 + i}.5")
    t = read_text("\n".join(lines))[0]
    assert grid(t)[0] == ["Family", "Size", "Model", "Acc"]
    assert grid(t)[1] == ["Dense", "7B", "Alpha", "50.5"] and grid(t)[2] == ["", "7B", "Beta", "51.5"]


def test_aligned_text_with_decimal_commas_is_text_not_csv() -> None:
    from tablebench.readers import detect_format

    rows = [f"Item{i}     kg      {i},87    {i + 1},51" for i in range(6)]
    assert detect_format("Item      Unit    2022    2023\n" + "\n".join(rows)) == "text"
    assert detect_format("a,b,c\n1,2,3\n4,5,6\n") == "csv"


# -- issue 43: commas a reader never reads as delimiters --------------------------------------------
def test_commas_inside_brackets_or_numbers_do_not_delimit() -> None:
    """`1 (1, 1, 1) All three 2` is a line of words and a tuple, not five comma fields; `13 1410
    306,869` holds one number with a thousands separator, not two fields."""
    tuples = "\n".join(f"{i} ({i}, 1, 1) All three 2 Player 1 ({i + 1}, 1, 1)" for i in range(1, 6))
    assert sniff_delimiter(tuples) is None
    thousands = "13 1410 306,869\n23 1453 680,902\n24 1352 4,476,619"
    assert sniff_delimiter(thousands) is None
    csv_text = "name,score\nalpha,\"1,5\"\nbeta,(2, 3)\n"
    (table,) = read_delimited(csv_text)
    assert [[c.text for c in row] for row in table.rows] == [["name", "score"], ["alpha", "1,5"], ["beta", "(2, 3)"]]
