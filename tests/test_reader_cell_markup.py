"""Markup inside one Markdown cell is found in linear time, with the lazy regexes' exact matches."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tablebench.readers.cell_markup import strip_emphasis, sub_code, sub_math, sub_script

REPO = Path(__file__).resolve().parents[1]

# the specification: what each function must match, as the (quadratic) lazy regex matches it
CODE = re.compile(r"(`+)(.+?)\1", re.DOTALL)
MATH = re.compile(r"\$\$(.+?)\$\$|\\\((.+?)\\\)|\\\[(.+?)\\\]|(?<![\\$])\$(?=\S)(.+?)(?<=\S)(?<!\\)\$(?!\d)", re.DOTALL)
SCRIPT = re.compile(r"<(sup|sub)\b[^<>]*>(.*?)</\1\s*>", re.IGNORECASE | re.DOTALL)
EMPHASIS = [re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*", re.DOTALL),
            re.compile(r"(?<![^\W_])__(?=\S)(.+?)(?<=\S)__(?![^\W_])", re.DOTALL),
            re.compile(r"~~(?=\S)(.+?)(?<=\S)~~", re.DOTALL),
            re.compile(r"\*(?=\S)(.+?)(?<=\S)\*", re.DOTALL),
            re.compile(r"(?<![^\W_])_(?=\S)(.+?)(?<=\S)_(?![^\W_])", re.DOTALL)]
TOKENS = ["`", "``", "```", "$", "$$", "\\", "\\(", "\\)", "\\[", "\\]", "*", "**", "_", "__", "~~", " ", "\n", "x",
          "1", "é", "<sup>", "</sup>", "<SUB x>", "</sub >", "<\u017fup>", "</Sup>", "<sup", ">", "</", "-"]


def mark(text: str) -> str:
    return f"<{text}>"


@pytest.mark.parametrize("seed", range(4))
def test_the_same_matches_as_the_lazy_regexes_on_random_cells(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(3000):
        s = "".join(rng.choice(TOKENS) for _ in range(rng.randint(0, 40)))
        assert sub_code(s, mark) == CODE.sub(lambda m: mark(m.group(2)), s), s
        assert sub_math(s, mark) == MATH.sub(lambda m: mark(next(g for g in m.groups() if g is not None)), s), s
        assert sub_script(s, lambda a, b: mark(a + "|" + b)) == SCRIPT.sub(
            lambda m: mark(m.group(1) + "|" + m.group(2)), s), s
        for which, pattern in enumerate(EMPHASIS):
            assert strip_emphasis(s, which) == pattern.sub(r"\1", s), (which, s)


def test_code_spans_take_the_longest_opener_that_closes() -> None:
    assert sub_code("```a``b`", mark) == "<`a>b`"  # ``` finds no closer, `` does
    assert sub_code("``a`b``", mark) == "<a`b>"
    assert sub_code("````", mark) == "<`>`"  # a closer may lie inside the opener's own run
    assert sub_code("x``` `` ` y", mark) == "x<` > ` y"


_CHILD = """
import sys
from tablebench.readers.markdown import cell_text
for unit in sys.argv[1:]:
    text = unit * (160_000 // len(unit))
    out = cell_text(text)
    print(unit, len(out))
"""
UNITS = ["\\[x ", "\\(x ", "$x ", "**x ", " __x ", "~~x ", "*x ", " _x ", "<sup>x ", "``` `` ` x"]


def test_a_huge_cell_of_unclosed_openers_reads_in_linear_time() -> None:
    """160 KB of `\\[x ` in one cell took 28 s (each unclosed opener rescanned the rest of the cell)."""
    proc = subprocess.run([sys.executable, "-c", _CHILD, *UNITS], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.splitlines()) == len(UNITS)
