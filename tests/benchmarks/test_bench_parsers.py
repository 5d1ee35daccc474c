"""Seconds per page of each built-in parser on the 20 shared sample pages, and the isolation cost.

Parsers are warmed first (imports, first page), so the numbers are the steady state a
benchmark run sees; `extra_info["seconds_per_page"]` is the figure for the leaderboard.
Run: `.venv/bin/python -m pytest -p no:xdist --benchmark-only --benchmark-enable tests/benchmarks/test_bench_parsers.py`
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tablebench.parse import ParseOutput, resolve
from tablebench.parse.runner import ParseRunner


class Instant:
    """Returns at once: what is left to time is the worker round trip."""

    name, version, config = "instant", "1", {}

    def parse(self, pdf_path: Path) -> ParseOutput:
        return ParseOutput("| a |\n|---|\n" * 200)


@pytest.mark.parametrize("spec", ["pypdf", "pdfplumber", "pymupdf4llm", "pymupdf4llm?layout=off", "camelot"])
def test_bench_builtin_seconds_per_page(benchmark, bench_sample_dir: Path, spec: str) -> None:
    pdfs = sorted((bench_sample_dir / "pdfs").glob("*.pdf"))
    parser = resolve(spec)
    parser.prepare()
    parser.parse(pdfs[0])  # warm-up: lazy imports, font caches
    outputs = benchmark.pedantic(lambda: [parser.parse(p) for p in pdfs], rounds=1, iterations=1)
    benchmark.extra_info["seconds_per_page"] = benchmark.stats.stats.mean / len(pdfs)
    assert len(outputs) == 20 and all(o.text.strip() for o in outputs)


def test_bench_worker_round_trip(benchmark, bench_sample_dir: Path) -> None:
    pdfs = sorted((bench_sample_dir / "pdfs").glob("*.pdf"))
    with ParseRunner(Instant(), timeout=30) as runner:
        runner.run(pdfs[0])  # starts the worker
        results = benchmark(lambda: [runner.run(p) for p in pdfs])
    benchmark.extra_info["seconds_per_page"] = benchmark.stats.stats.mean / len(pdfs)
    assert all(r.outcome == "ok" for r in results)
    assert benchmark.stats.stats.mean / len(pdfs) < 0.05
