"""The prose reader reads hostile output in linear time and reads ordinary text as it always did.

Why: every pattern of `tablebench.readers.prose` runs on parser output, which is anybody's. Two of
them backtracked over a long run of one character, from every character of it: `_+(?!\\w)` of
`_MARKUP` on `a` + 40,000 x `_` + `a`, and `[^\\w]+$` of `_EDGE` (a word's edge punctuation) on
`é` + 40,000 x `!` + `é` took 29 s (quadratic in the run). Both now take a run whole from its
first character (a lookbehind and a possessive quantifier), which matches what the old patterns
matched and nothing else: the old patterns are kept here, verbatim, as the reference, and both
are compared on a seeded corpus of short strings (where their cost does not matter). How long a
100,000-character run takes is measured by tests/benchmarks/test_bench_prose.py; here, what the
reader reads of one.
"""

from __future__ import annotations

import random
import re
import unicodedata

import pytest

from tablebench.readers import prose
from tablebench.readers.prose import key_of, prose_words, words_of

# the patterns before issue 46 (finding 6): same results, quadratic on long runs
OLD_EDGE = re.compile(r"^[^\w]+|[^\w]+$")
OLD_MARKUP = re.compile(
    r"</?[A-Za-z][^<>\n]{0,200}>"
    r"|^[ \t]{0,3}#{1,6}(?=[ \t])"
    r"|^[ \t]{0,3}>+"
    r"|^[ \t]*(?:[-*+]|\d{1,3}[.)])(?=[ \t])"
    r"|^[ \t]*(?:-{3,}|\*{3,}|_{3,}|={3,})[ \t]*$"
    r"|\*+|`+|(?<!\w)_+|_+(?!\w)"
    r"|\]\([^)\n]{0,500}\)|\[(?=[^\]\n]{0,300}\]\()"
    r"|\\[A-Za-z]+\*?|\\(?=[^\w\s])|[{}]",
    re.MULTILINE)
# letters (ASCII, accented, a digit, CJK), punctuation, the markup characters (twice: they are what
# the patterns read), white space, and pieces of markup a character at a time seldom makes
ALPHABET = [*"abZé1中", *"_*`!.,;:?'\"-#>+=|$\\{}[]()<>/&%", *"_*`", *"_*`", " ", " ", "\t", "\n", "\n",
            "](", "![", "<b>", "</i>", "\\emph", "# ", "> ", "- ", "1. ", "---"]
N = 100_000


def corpus(count: int, seed: int = 0) -> list[str]:
    """`count` strings of up to 12 chunks, each chunk one character repeated 1-6 times (runs are
    what the old patterns backtracked over, so they must be common), seeded."""
    rng = random.Random(seed)
    return ["".join(rng.choice(ALPHABET) * rng.choice((1, 1, 1, 2, 3, 6)) for _ in range(rng.randint(0, 12)))
            for _ in range(count)]


def test_the_linear_patterns_match_what_the_old_ones_matched() -> None:
    strings = corpus(6000)
    assert sum("_" in s for s in strings) > 1000 and sum("\n" in s for s in strings) > 1000
    for s in strings:
        assert [m.span() for m in prose._MARKUP.finditer(s)] == [m.span() for m in OLD_MARKUP.finditer(s)], repr(s)
        assert prose._EDGE.sub("", s) == OLD_EDGE.sub("", s), repr(s)


def test_a_word_s_key_is_what_it_was() -> None:
    """`key_of` on non-ASCII words (the only ones `_EDGE` reads), against its old form."""
    for s in corpus(3000, seed=1):
        norm = unicodedata.normalize("NFKC", "é" + s.replace(" ", "").replace("\n", "").replace("\t", ""))
        assert key_of(norm) == ((OLD_EDGE.sub("", norm) or norm).casefold()), repr(norm)


@pytest.mark.parametrize(("text", "expected"), [
    # a run of `_` inside a word is no emphasis mark: one word
    ("a" + "_" * N + "a", ["a" + "_" * N + "a"]),
    ("a " + "_" * N + " a", ["a", "a"]),  # a run of `_` between words is markup: blanked
    ("a" + "_" * N, ["a"]),  # a closing run: blanked
    ("é" + "!" * N + "é", ["é" + "!" * N + "é"]),
    ("*" * N + "word", ["word"]),
])
def test_a_100000_character_run_reads_as_it_should(text: str, expected: list[str]) -> None:
    words = prose_words(text)
    assert [w.norm for w in words] == expected
    assert [text[w.start:w.end] for w in words] == expected, "offsets point at the words"


def test_a_word_s_edge_punctuation_is_stripped_from_a_100000_character_run() -> None:
    [inside] = words_of("é" + "!" * N + "é")
    assert inside.key == "é" + "!" * N + "é", "punctuation inside a word is the word's"
    [edges] = words_of("¡" * N + "é" + "!" * N)
    assert edges.key == "é"
    [only] = words_of("é!" + "¿" * N)
    assert only.key == "é"
