"""Grouping a header line's words into column labels (`semantic_header_words.name_columns`) at its worst.

Why: the grouping is a dynamic programme over the words and the columns, O(words^2 x columns),
run once per table on the line that names the columns and at most once more on the line above it
(when the labels below repeat a cycle; other group lines are read a word a column from the right),
and only up to `MAX_WORDS` words; so a table's lines cost at most two worst groupings, whatever a
parser writes. The worst: `MAX_WORDS` words over half as many
columns (6-7 ms measured on an idle machine), against the score's 60 ms bound for a 40 x 40 table.

Run: python -m pytest -p no:xdist --benchmark-only --benchmark-enable tests/benchmarks/test_bench_header_words.py
"""

from __future__ import annotations

from tablebench.metrics.tables.semantic_header_words import MAX_WORDS, name_columns
from tablebench.metrics.tables.semantic_lines import read_lines

LIMIT_SECONDS = 0.06  # the semantic score's bound for a 40 x 40 table (issue 43)


def test_bench_header_words_at_their_most(benchmark) -> None:
    words = ["Word"] * MAX_WORDS
    cells = benchmark.pedantic(name_columns, args=(words, MAX_WORDS // 2), rounds=5, iterations=1)
    assert len(cells) == MAX_WORDS // 2
    assert benchmark.stats.stats.max <= LIMIT_SECONDS


def test_bench_a_table_of_many_long_header_lines(benchmark) -> None:
    """Hundreds of long header lines (each a different shape, so none is taken for the body) cost
    one grouping, not one per line."""
    heads = [" ".join(["Word", *(["7"] * (k % 9 + 1)), "of", "Word"] * 4) for k in range(300)]
    lines = heads + [" ".join(["Lab", *(f"{i}.5" for i in range(19))])] * 3
    table = benchmark.pedantic(read_lines, args=(lines,), rounds=3, iterations=1)
    assert table is not None
    assert benchmark.stats.stats.max <= 1.0
