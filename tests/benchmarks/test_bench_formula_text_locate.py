"""Locating formulas in decorated plain text (the pymupdf4llm style): the reader-token path.

Twenty inline formulas written as Markdown/HTML-decorated Unicode between prose lines; no math
delimiters, so every formula goes through `reader.reader_tokens` and the exact token match.
Run: python -m pytest -p no:xdist --benchmark-only --benchmark-enable tests/benchmarks/test_bench_formula_text_locate.py
"""

from __future__ import annotations

from tablebench.locate.formulas import locate_formulas
from tablebench.readers.formula_text import gt_tokens

PAIRS = [(r"$\xi_{%d}^{2}$", "_ξ_<sub>%d</sub><sup>2</sup>"), (r"$\bar{n} + %d$", "_n_ ¯ + %d"),
         (r"$\mathbb{N}^{%d}$", "N<sup>%d</sup>"), (r"$k \mapsto e^{-%d k}$", "_k_ ↦ _e_<sup>−%d_k_</sup>")]


def test_bench_formula_text_locate(benchmark) -> None:
    gt = [latex % i for i in range(5) for latex, _ in PAIRS]
    text = "\n".join(f"Some words before {plain % i} and after, a log line." for i in range(5) for _, plain in PAIRS)

    def run() -> list:
        gt_tokens.cache_clear()
        return locate_formulas(gt, text)

    located = benchmark(run)
    assert all(r.found and r.score == 1.0 for r in located)
