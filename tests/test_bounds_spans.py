"""Spans a parser writes are bounded alike in every reader: a huge N costs what a wide table costs.

Each read runs in a child process under an address-space limit, so an unbounded span fails as
a MemoryError (or a kill) there instead of exhausting the machine."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tablebench.core.table import MAX_SPAN

LIMIT = 1024 * 1024 * 1024  # bytes of address space for the child: far above a 70-byte table's need

_CHILD = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
from tablebench.locate.tables import candidates
tables, why = candidates(sys.stdin.read())
print(json.dumps({{"why": why, "tables": [[t.fmt, [[c.colspan, c.rowspan] for r in t.rows for c in r]]
                                        for t in tables]}}))
"""


def _candidates(text: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", _CHILD.format(limit=LIMIT)], input=text, capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


@pytest.mark.parametrize("n", ["99999999", "999999999", "9" * 500])
def test_latex_multicolumn_of_any_size_is_read_with_bounded_memory(n: str) -> None:
    text = "\\begin{tabular}{ll}\n\\multicolumn{" + n + "}{c}{A} \\\\\nb & c \\\\\n\\end{tabular}\n"
    out = _candidates(text)
    assert out["why"] == ""
    assert [fmt for fmt, _ in out["tables"]] == ["latex"]  # not dropped and re-read as loose lines
    assert out["tables"][0][1][0] == [MAX_SPAN, 1]


@pytest.mark.parametrize("n", ["99999999", "-99999999"])
def test_latex_multirow_of_any_size_is_bounded(n: str) -> None:
    text = "\\begin{tabular}{ll}\n\\multirow{" + n + "}{*}{A} & x \\\\\n & c \\\\\n\\end{tabular}\n"
    out = _candidates(text)
    assert [fmt for fmt, _ in out["tables"]] == ["latex"]
    assert all(1 <= rs <= MAX_SPAN and 1 <= cs <= MAX_SPAN for cs, rs in out["tables"][0][1])


def test_html_span_of_thousands_of_digits_is_clamped_like_latex() -> None:
    text = '<table><tr><td colspan="' + "9" * 5000 + '">A</td></tr><tr><td>b</td><td>c</td></tr></table>'
    out = _candidates(text)
    assert [fmt for fmt, _ in out["tables"]] == ["html"]
    assert out["tables"][0][1][0] == [MAX_SPAN, 1]
