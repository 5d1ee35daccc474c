"""The readers' tag patterns on 100,000-character runs of openers without their `>`, <= 1 s each.

Why: `readers/html._TABLE_TAG` and `readers/formula_text._PIECE` run on whole parser outputs; with
`[^>]*` each opener scanned to the end (quadratic: 0.6 s at 80,000 characters, minutes at 1 MB).
What they read is checked in the default suite (tests/test_readers_linear.py); here, only time.

Run: python -m pytest -p no:xdist --benchmark-only --benchmark-enable tests/benchmarks/test_bench_tag_openers.py
"""

from __future__ import annotations

import pytest

from tablebench.readers.formula_text import reader_tokens
from tablebench.readers.html import table_spans

N = 100_000
LIMIT_SECONDS = 1.0  # issue 46's bound for a 100,000-character run
CASES = {"table openers": (table_spans, "<table " * (N // 7)),
         "table openers in capitals": (table_spans, "<TABLE x" * (N // 8)),
         "style tag openers": (reader_tokens, "<em" * (N // 3)),
         "bold tag openers": (reader_tokens, "<b " * (N // 3))}


@pytest.mark.parametrize("name", CASES)
def test_bench_tag_pattern_on_a_100000_character_run(benchmark, name: str) -> None:
    read, text = CASES[name]
    benchmark.pedantic(read, args=(text,), rounds=3, iterations=1)
    assert benchmark.stats.stats.max <= LIMIT_SECONDS
