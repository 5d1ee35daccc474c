"""Tag patterns of the readers on 100,000-character runs of openers without their `>` (issue 46,
finding 6): each read in linear time by construction (`[^<>]*` stops at the next `<`); here what
they read (the time is a benchmark: tests/benchmarks/test_bench_tag_openers.py).

Before: `readers/html._TABLE_TAG` and `readers/formula_text._PIECE` scanned from every opener to the
end of the output (80,000 characters: 0.6 s each, growing with the square of the run)."""

from __future__ import annotations

from tablebench.readers.formula_text import reader_tokens
from tablebench.readers.html import table_spans

N = 100_000
TABLE = "<table><tr><td>a</td><td>1</td></tr></table>"


def test_table_openers_without_an_end_are_no_table_and_a_real_one_after_them_is_found() -> None:
    assert table_spans("<table " * (N // 7)) == []
    text = "<table " * (N // 7) + TABLE
    assert [text[a:b] for a, b in table_spans(text)] == [TABLE]


def test_style_tag_openers_without_an_end_read_as_their_characters() -> None:
    text = "<em" * (N // 3)
    tokens = [token for token, _, _ in reader_tokens(text)]
    assert tokens[:6] == ["<", "e", "m", "<", "e", "m"] and len(tokens) == len(text)
    assert [token for token, _, _ in reader_tokens("x<em>y</em>")] == ["x", "y"]  # a closed tag is still a tag
