"""The reader dispatcher: format detection, explicit formats, pages that mix formats."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tablebench.core.table import NoTableError, Table
from tablebench.readers import FORMATS, detect_format, read_tables

HTML = "<p>x</p><table><tr><td>a</td><td>b</td></tr><tr><td>1</td><td>2</td></tr></table>"
MARKDOWN = "Intro.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
LATEX = "Intro.\n\\begin{tabular}{|c|c|}\n\\hline\na & b \\\\\n1 & 2 \\\\\n\\hline\n\\end{tabular}\n"
CSV = "a,b\n1,2\n3,4\n"
TSV = "a\tb\n1\t2\n"
TEXT = "Name      Score\nalpha     1.0\nbeta      2.0\n"


def grid(table: Table) -> list[list[str]]:
    return [[c.text for c in row] for row in table.rows]


@pytest.mark.parametrize(("text", "fmt"), [
    (HTML, "html"),
    ("<TABLE><TR><TD>x", "html"),
    (MARKDOWN, "markdown"),
    ("a | b\n--|--\n1 | 2", "markdown"),
    ("| a | b |\n| 1 | 2 |", "markdown"),
    (LATEX, "latex"),
    ("\\begin {tabularx}{\\linewidth}{XX} a & b \\end{tabularx}", "latex"),
    (CSV, "csv"),
    (TSV, "csv"),
    ("a;b;c\n1;2;3\n", "csv"),
    (TEXT, "text"),
    ("just a sentence, with a comma.\nAnd another line here.", "text"),
    ("", "text"),
])
def test_detect_format(text: str, fmt: str) -> None:
    assert detect_format(text) == fmt


def test_markup_precedence_html_over_latex_over_markdown() -> None:
    assert detect_format(MARKDOWN + HTML) == "html"
    assert detect_format(MARKDOWN + LATEX) == "latex"


def test_detect_format_names_are_the_known_formats() -> None:
    assert {detect_format(t) for t in (HTML, MARKDOWN, LATEX, CSV, TEXT)} == set(FORMATS)


@pytest.mark.parametrize(("text", "fmt"), [(HTML, "html"), (MARKDOWN, "markdown"), (CSV, "csv"), (TEXT, "text")])
def test_read_tables_detects_and_tags_each_format(text: str, fmt: str) -> None:
    tables = read_tables(text)
    assert len(tables) == 1
    assert tables[0].fmt == fmt
    assert [row[:2] for row in grid(tables[0])][:2] in ([["a", "b"], ["1", "2"]], [["Name", "Score"], ["alpha", "1.0"]])


def test_read_tables_reads_latex_lazily_and_ignores_the_pipes_of_its_column_spec() -> None:
    tables = read_tables(LATEX)
    assert [(t.fmt, grid(t)) for t in tables] == [("latex", [["a", "b"], ["1", "2"]])]
    assert LATEX[slice(*tables[0].span)].startswith("\\begin{tabular}")


@pytest.mark.parametrize(("fmt", "text", "expected"), [
    ("html", HTML, "html"), ("markdown", MARKDOWN, "markdown"), ("md", MARKDOWN, "markdown"),
    ("csv", CSV, "csv"), ("tsv", TSV, "csv"), ("text", TEXT, "text"), ("TXT", TEXT, "text"),
])
def test_explicit_format_and_aliases(fmt: str, text: str, expected: str) -> None:
    assert [t.fmt for t in read_tables(text, fmt)] == [expected]


def test_explicit_format_that_does_not_match_raises_no_table_error() -> None:
    with pytest.raises(NoTableError):
        read_tables(MARKDOWN, "html")


def test_unknown_format_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="unknown table format 'docx'"):
        read_tables("x", "docx")


def test_mixed_page_returns_every_table_in_span_order() -> None:
    page = MARKDOWN + "\nThen an HTML one:\n" + HTML + "\n\nand a second pipe table\n\nx | y\n--|--\n7 | 8\n"
    tables = read_tables(page)
    assert [t.fmt for t in tables] == ["markdown", "html", "markdown"]
    assert [grid(t)[-1] for t in tables] == [["1", "2"], ["1", "2"], ["7", "8"]]
    starts = [t.span[0] for t in tables]
    assert starts == sorted(starts)


def test_no_table_anywhere_raises() -> None:
    with pytest.raises(NoTableError):
        read_tables("Nothing to see here.\nReally nothing.")


def test_non_string_input_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="expects str"):
        read_tables(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expects str"):
        detect_format(42)  # type: ignore[arg-type]


@pytest.mark.shared
def test_every_metric_study_extraction_is_detected_and_read(metric_study_dev: list[dict]) -> None:
    formats: Counter[str] = Counter()
    for gt in metric_study_dev:
        for ex in gt["extractions"]:
            text = ex["extracted_table"]
            if not text.strip():
                continue
            fmt = detect_format(text)
            formats[fmt] += 1
            if fmt == "text":  # one nanonets output is bare words on lines: no columns to read
                with pytest.raises(NoTableError):
                    read_tables(text)
                continue
            assert read_tables(text), ex["parser"]
    assert formats == {"html": 113, "markdown": 80, "latex": 11, "text": 1}


def test_random_garbage_gives_tables_or_no_table_error() -> None:
    rng = random.Random(5)
    pieces = ["<table>", "<td>", "</table>", "| a | b |", "|---|", "\\begin{tabular}{cc}", "a & b \\\\",
              "\\end{tabular}", "a,b", "\t", "  ", "\n", "x", "$", "\\", "{", "}", '"', "\x00", "\ud800"]
    for _ in range(300):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 60)))
        assert detect_format(text) in FORMATS
        try:
            tables = read_tables(text)
        except NoTableError:
            continue
        for t in tables:
            assert t.fmt in FORMATS and 0 <= t.span[0] <= t.span[1] <= len(text)
