"""The prose reader on hostile output: 100,000-character runs of what its patterns read, in <= 1 s each.

Why: every regular expression of `tablebench.readers.prose` runs on parser output, and a pattern
that backtracks over a run from each of its characters is quadratic in it: `a` + 40,000 x `_` + `a`
(`_MARKUP`'s closing emphasis) and `é` + 40,000 x `!` + `é` (`_EDGE`, a word's edge punctuation)
took 29 s before issue 46 (finding 6). The inputs are one long run of each character a pattern
reads (between word characters, where a pattern that needs a word boundary fails), and the
repeated openers of the bounded patterns (links, images, tags, math). What each reads as is
checked in the default suite (tests/test_prose_linear.py); here, only how long it takes.

Run: python -m pytest -p no:xdist --benchmark-only --benchmark-enable tests/benchmarks/test_bench_prose.py
"""

from __future__ import annotations

import pytest

from tablebench.readers.prose import prose_words

N = 100_000
LIMIT_SECONDS = 1.0  # issue 46's bound for a 100,000-character run


def _run(unit: str, edge: str = "") -> str:
    """`unit` repeated to N characters, between `edge` on both sides."""
    return edge + (unit * (N // len(unit) + 1))[:N] + edge


ADVERSARIAL = {
    "underscores in a word": _run("_", "a"),  # the first input
    "punctuation in an accented word": _run("!", "é"),  # the second
    "punctuation after an accented word": "é" + _run("!"),
    "asterisks in a word": _run("*", "a"),
    "backticks in a word": _run("`", "a"),
    "hyphens in an accented word": _run("-", "é"),
    "spaces on one line": _run(" ", "x"),
    "link openers": _run("["),
    "image openers": _run("!["),
    "link targets": _run("]("),
    "tag openers": _run("<a "),
    "inline math openers": _run("$a"),
    "escapes": _run("\\a"),
    "environment openers": _run("\\begin{"),
    "pipe rows": _run("\n|"),
    "hyphenated line ends": _run("a-\n"),
}


@pytest.mark.parametrize("name", ADVERSARIAL)
def test_bench_prose_reader_on_a_100000_character_run(benchmark, name: str) -> None:
    text = ADVERSARIAL[name]
    words = benchmark.pedantic(prose_words, args=(text,), rounds=3, iterations=1)
    assert all(0 <= w.start < w.end <= len(text) for w in words)
    assert benchmark.stats.stats.max <= LIMIT_SECONDS
