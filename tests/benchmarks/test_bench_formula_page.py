"""Formula half of a page's evaluation: locate every formula of a page and score it, cold caches.

The page with the most formulas of the pdf-parse-bench formula sample, its output holding every
ground-truth formula (what a good parser's page costs the harness after the parse).
Run: python -m pytest -p no:xdist --benchmark-only --benchmark-enable tests/benchmarks/test_bench_formula_page.py
"""

from __future__ import annotations

from tablebench.cases import load_case_set
from tablebench.core.kinds import get
from tablebench.core.metric_specs import defaults_of
from tablebench.evaluate.page import _base_results, _Steps
from tablebench.locate.formulas import content_key
from tablebench.metrics.formulas.score import encode
from tablebench.parse.runner import ParseResult
from tablebench.tex.formula import canonical_tokens
from tests.conftest import shared_path


def test_bench_formula_page(benchmark) -> None:
    cases = load_case_set(shared_path("data", "pdf-parse-bench-2026q1-formulas-sample"))
    page = max(cases.pages, key=lambda p: len(p.formulas))
    text = "\n\nSome words between.\n\n".join(f.latex for f in page.formulas)
    parsed = ParseResult(outcome="ok", text=text, message="", meta={}, parser="x", version="1", config={},
                         pdf_sha256="")

    def run() -> list:
        for cache in (canonical_tokens, encode, content_key):
            cache.cache_clear()
        kind = get("formula")
        results = _base_results(page, kind, "dir:x", "x", parsed)
        _Steps(text, "offline", None, None, {}, None).run(kind, page.formulas, results, defaults_of("formula"))
        return results

    results = benchmark(run)
    benchmark.extra_info["formulas"] = len(page.formulas)
    assert all(r.scores.get("formula_score") == 10.0 for r in results)
