"""Locator speed on whole pages: Markdown, HTML, and plain lines (the loose-line search).

Pages hold `n` damaged tables (from `tests/benchmarks/pairs.py`) between paragraphs of prose,
in reverse order, plus one distractor; every table must be found at its own span.
Run: `.venv/bin/python -m pytest -p no:xdist --benchmark-only --benchmark-enable tests/benchmarks/test_bench_locate.py`
"""

from __future__ import annotations

import pytest

from tablebench.core.table import Table
from tablebench.locate.tables import locate_tables
from tests.benchmarks.pairs import realistic_pair

PROSE = ("Sell much answer seem card participant. Anyone after bring party, and the committee met "
         "again in the spring to review the numbers reported below.\n\n")
LIMIT_SECONDS = {"markdown": 0.05, "html": 0.05, "lines": 0.1}  # fastest run of a 10-table page; load-proof


def _markdown(table: Table) -> str:
    rows = [[cell.text for cell in row] for row in table.rows]
    width = max(len(r) for r in rows)
    lines = ["| " + " | ".join(r) + " |" for r in rows]
    lines.insert(1, "|" + "---|" * width)
    return "\n".join(lines)


def _lines(table: Table) -> str:
    return "\n".join(" ".join(cell.text for cell in row) for row in table.rows)


RENDER = {"markdown": _markdown, "html": Table.to_html, "lines": _lines}


def _page(fmt: str, n: int, rows: int, cols: int) -> tuple[list[Table], str, list[tuple[int, int]]]:
    pairs = [realistic_pair(rows, cols, seed=i) for i in range(n + 1)]
    gts = [gt for gt, _ in pairs[:n]]
    blocks = [RENDER[fmt](pred) for _, pred in pairs]  # the last one is a distractor
    order = list(range(n))[::-1] + [n]
    out, where = PROSE, {}
    for i in order:
        where[i] = (len(out), len(out) + len(blocks[i]))
        out += blocks[i] + "\n\n" + PROSE
    return gts, out, [where[i] for i in range(n)]


@pytest.mark.parametrize("fmt", ["markdown", "html", "lines"])
def test_bench_locate_page_of_10(benchmark, fmt: str) -> None:
    gts, output, where = _page(fmt, 10, 12, 6)
    located = benchmark(locate_tables, gts, output)
    assert [loc.span for loc in located] == where
    benchmark.extra_info["chars"] = len(output)
    assert benchmark.stats.stats.min < LIMIT_SECONDS[fmt]


def test_bench_locate_long_document(benchmark) -> None:
    """A 40-table document (~25 pages of Markdown): the assignment and scoring grow as n^2."""
    gts, output, where = _page("markdown", 40, 20, 8)
    located = benchmark(locate_tables, gts, output)
    assert [loc.span for loc in located] == where
    benchmark.extra_info["chars"] = len(output)
