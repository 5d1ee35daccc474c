"""Formula metric speed: token edit similarity and the formula score, cold (parse included).

The parse and encode caches are cleared inside the timed call, so each round pays for
tokenising both formulas, as a fresh pair in a benchmark run does.
Run: python -m pytest -p no:xdist --benchmark-only --benchmark-enable tests/benchmarks/test_bench_formula.py
"""

from __future__ import annotations

import pytest

from tablebench.core.files import read_json
from tablebench.metrics.formulas.score import encode, formula_score, token_edit_similarity
from tablebench.tex.formula import canonical_tokens
from tests.conftest import shared_path

SHORT = (r"$\operatorname {E} (X)=\mathrm {e} ^{\mu +{\frac {\sigma ^{2}}{2}}}$",
         r"$\mathrm{E}(X)=\mathrm{e}^{\mu+\frac{\pi^{2}}{2}}$")
ROW = r"\cos\theta_{n} & -\sin\theta_{n}\cos\alpha_{n} & \sin\theta_{n}\sin\alpha_{n} & a_{n}\cos\theta_{n}"
LONG = ("$$T=\\begin{pmatrix}" + "\\\\".join([ROW] * 8) + "\\end{pmatrix}$$",
        "$$T=\\left(\\begin{array}{cccc}" + "\\\\".join([ROW.replace("alpha", "a")] * 8) + "\\end{array}\\right)$$")


def _cold(metric, gt: str, pred: str) -> float:
    canonical_tokens.cache_clear()
    encode.cache_clear()
    return metric(gt, pred)


@pytest.mark.parametrize("metric", [token_edit_similarity, formula_score], ids=["token_edit", "formula_score"])
@pytest.mark.parametrize("pair", [SHORT, LONG], ids=["short", "matrix-8x4"])
def test_bench_formula_pair(benchmark, metric, pair) -> None:
    metric(*pair)  # compile numba and import outside the timing
    value = benchmark(_cold, metric, *pair)
    benchmark.extra_info["gt_tokens"] = len(canonical_tokens(pair[0]))
    assert 0 < value < (1.0 if metric is token_edit_similarity else 10.0)


@pytest.mark.shared
def test_bench_formula_score_dev_split(benchmark) -> None:
    rows = read_json(shared_path("data", "formula-metric-study", "dev.json"))
    pairs = [(r["gt_formula"], r["extracted_formula"]) for r in rows]
    formula_score(*pairs[0])

    def all_pairs() -> list[float]:
        canonical_tokens.cache_clear()
        encode.cache_clear()
        return [formula_score(gt, pred) for gt, pred in pairs]

    scores = benchmark(all_pairs)
    benchmark.extra_info["pairs"] = len(pairs)
    assert len(scores) == 106
