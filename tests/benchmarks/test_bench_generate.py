"""Page generation speed: pages per minute and pdflatex runs per page (the issue asks <= 3).

Run: `.venv/bin/python -m pytest -p no:xdist --benchmark-only --benchmark-enable tests/benchmarks/test_bench_generate.py`
The numbers land in `extra_info` (pages_per_minute, runs_per_page) and are printed.
"""

from __future__ import annotations

import time

import pytest

from tablebench.generate.caseset import make_page
from tablebench.generate.tables import generate_table
from tablebench.tex.runner import have_pdflatex, run_pdflatex

pytestmark = pytest.mark.skipif(not have_pdflatex(), reason="pdflatex is not installed")

PAGES = 8


def test_bench_generate_pages(benchmark) -> None:
    make_page(0, 0)  # warm-up: font maps and format file into the OS cache
    runs: list[int] = []
    tables: list[int] = []

    def build() -> None:
        runs.clear()
        tables.clear()
        for i in range(1, PAGES + 1):
            page = make_page(2026, i)
            runs.append(page.runs)
            tables.append(len(page.tables))

    benchmark.pedantic(build, rounds=1, iterations=1)
    seconds = benchmark.stats.stats.mean
    per_minute = PAGES / seconds * 60
    runs_per_page = sum(runs) / PAGES
    benchmark.extra_info.update(pages_per_minute=round(per_minute, 1), runs_per_page=round(runs_per_page, 2),
                                tables_per_page=round(sum(tables) / PAGES, 2))
    print(f"\n{PAGES} pages: {per_minute:.1f} pages/min, {runs_per_page:.2f} pdflatex runs/page, "
          f"{sum(tables) / PAGES:.2f} tables/page")
    assert runs_per_page <= 3


def test_bench_single_pdflatex_run(benchmark) -> None:
    """The unit cost: one run of a page-sized document with 12 tables."""
    body = "".join(generate_table(s, c).latex + "\n\n" for s in range(4) for c in ("simple", "moderate", "complex"))
    src = ("\\documentclass{article}\\usepackage{booktabs,multirow,amssymb}\\begin{document}\n"
           + body + "\\end{document}\n")
    run_pdflatex(src)
    start = time.perf_counter()
    result = benchmark.pedantic(run_pdflatex, args=(src,), rounds=5, iterations=1)
    assert result.pdf is not None and time.perf_counter() - start < 30
