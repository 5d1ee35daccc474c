"""Locating is linear on degenerate outputs, and held to the parse timeout when it is still slow.

A model in a repetition loop writes an opener again and again (`\\[`, `\\begin{equation}`, `<math`,
`|---|`); locating such an output must cost time linear in its length. The "finishes" tests run
in a child process under an address-space limit and a generous timeout (the quadratic scan took
minutes at these sizes)."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tablebench.tex.math_spans import math_spans
from tests.peak_rss import PEAK_KB

LIMIT = 1024 * 1024 * 1024  # bytes of address space for the child (the acceptance bound is 500 MB resident)

_CHILD = PEAK_KB.replace("{", "{{").replace("}", "}}") + """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
from tablebench.core.table import Table
from tablebench.locate.formulas import locate_formulas
from tablebench.locate.tables import locate_tables
text = sys.stdin.read()
if sys.argv[1] == "formula":
    found = locate_formulas([r"x^{{2}}+y^{{2}}=z^{{2}}", r"\\frac{{a}}{{b}}"], text)
else:
    found = locate_tables([Table.from_rows([["a", "b"], ["1", "2"], ["3", "4"]], 1)], text)
print(sum(f.found for f in found), _peak_kb() // 1024)  # its own peak, not its parent's (tests/peak_rss.py)
"""


def _locate_in_child(kind: str, text: str) -> int:
    proc = subprocess.run([sys.executable, "-c", _CHILD.format(limit=LIMIT), kind], input=text, capture_output=True,
                          text=True, timeout=90, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    found, peak_mb = map(int, proc.stdout.split())
    assert peak_mb <= 500
    return found


@pytest.mark.parametrize("unit", ["\\[x ", "\\begin{equation} x ", "<math><mi>x</mi>", "$$x ", "\\(x "])
def test_600kb_of_one_unclosed_math_opener_locates(unit: str) -> None:
    assert _locate_in_child("formula", unit * (600_000 // len(unit))) == 0


@pytest.mark.parametrize("unit", ["|---|", "|---|\n", "| --- |"])
def test_1mb_of_a_repeated_separator_row_locates(unit: str) -> None:
    assert _locate_in_child("table", unit * (1_000_000 // len(unit))) == 0


# The spans' definition: one leftmost-first regex with lazy bodies (linear only when every opener closes).
_LAZY = re.compile(
    r"(?P<env>\\begin\{(?P<name>equation|align|gather|multline|eqnarray|displaymath|math|flalign|alignat)"
    r"(?P<star>\*?)\}.*?\\end\{(?P=name)(?P=star)\})"
    r"|(?P<dd>(?<!\\)\$\$.+?(?<!\\)\$\$)"
    r"|(?P<br>\\\[.+?\\\])"
    r"|(?P<pa>\\\(.+?\\\))"
    r"|(?P<d>(?<!\\)\$(?!\$)(?:(?!\n[ \t]*\n)(?:[^$]|(?<=\\)\$))+?(?<!\\)\$)"  # `\$` inside, no blank line
    r"|(?P<mml><(?P<pfx>\w+:)?(?i:math)\b.*?(?i:</(?P=pfx)?math>))",  # tag names in any case
    re.DOTALL,
)
_ATOMS = ["$", "$$", "\\", "\\[", "\\]", "\\(", "\\)", "x", " ", "\n", "<math>", "</math>", "<m:math a>", "</m:math>",
          "</n:math>", "<mathx", "\\begin{equation}", "\\end{equation}", "\\begin{equation*}", "\\end{equation*}",
          "\\begin{align}", "\\end{alignat}", "\\begin{alignat}", "\\end{align}", "\\end{align*}", "{", "}", "\\$", "<",
          "<MATH>", "</Math>", "</M:math>", "\n\n", "\n \n"]


def test_math_spans_are_the_lazy_regexs_matches() -> None:
    rng = random.Random(20)
    for _ in range(20_000):
        text = "".join(rng.choice(_ATOMS) for _ in range(rng.randint(0, 14)))
        want = [(m.lastgroup, m.start(), m.end()) for m in _LAZY.finditer(text)]
        assert [(s.start, s.end) for s in math_spans(text)] == [(a, b) for _, a, b in want], text
        assert [s.kind for s in math_spans(text)] == [k if k != "pfx" else "mml" for k, _, _ in want], text


def test_a_page_whose_locating_outlasts_the_parse_timeout_is_a_timeout(tmp_path: Path) -> None:
    from tablebench.cases import load_case_set
    from tablebench.evaluate.page import evaluate_page
    from tests.ci_cases import case_set

    (page,) = load_case_set(case_set(tmp_path / "set", 1)).pages
    out = tmp_path / "out"
    out.mkdir()
    (out / f"{page.pdf.stem}.txt").write_text("alpha  beta  gamma\n" * 400_000, encoding="utf-8")  # linear but long
    results = evaluate_page(page, f"dir:{out}", "teds", cache_dir=None, timeout=1.0)
    assert {r.outcome for r in results} == {"timeout"}, [r.message for r in results]
    assert all("locating tables in the output took longer than 1 s" in r.message for r in results)
