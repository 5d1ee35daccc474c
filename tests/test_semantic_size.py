"""Errors counted at the size the ratings cover (`tablebench.metrics.tables.semantic_size`)."""

from __future__ import annotations

import json
import math
import random

import pytest

from tablebench.core.table import Table
from tablebench.metrics.tables.semantic import DEFAULT, read_and_count, read_truth, semantic
from tablebench.metrics.tables.semantic_align import FEATURES, count_differences
from tablebench.metrics.tables.semantic_read import read_prediction
from tablebench.metrics.tables.semantic_size import RATED_FACTS, at_rated_size
from tablebench.readers.latex import read_latex
from tests.conftest import shared_path

HEAD = ["name", "a", "b", "c", "d", "e"]


def _tables(rows: int, wrong_share: float, seed: int = 3) -> tuple[Table, Table]:
    rng = random.Random(seed)
    body = [[f"item {i}"] + [f"{rng.randint(0, 999)}.{rng.randint(0, 9)}" for _ in range(5)] for i in range(rows)]
    bad = [row[:] for row in body]
    for k in rng.sample(range(rows), max(1, round(rows * 5 * wrong_share))):
        bad[k][2] = "999.9"
    return Table.from_rows([HEAD, *body], header_rows=1), Table.from_rows([HEAD, *bad], header_rows=1)


def test_the_same_share_of_wrong_values_costs_the_same_beyond_the_rated_size() -> None:
    scores = [semantic(*_tables(rows, 0.01)) for rows in (100, 400, 1000)]  # 500 to 5,000 facts
    assert min(scores) > 7.0 and max(scores) - min(scores) < 0.3, scores


def test_more_wrong_values_still_cost_more_in_a_large_table() -> None:
    s1, s2, s5 = (semantic(*_tables(1000, share)) for share in (0.01, 0.02, 0.05))
    assert 10 > s1 > s2 > s5


def test_within_the_rated_size_counts_are_charged_as_they_are_and_beyond_it_they_scale_first() -> None:
    """Every count is charged log(1 + n); beyond the rated size the body counts scale to it first."""
    g, p = _tables(10, 0.05)
    gv, _ = read_truth(g)
    raw = count_differences(gv, read_prediction(p).view, 0, DEFAULT.key_weight, midpoint=DEFAULT.midpoint)
    assert raw.n_gt <= RATED_FACTS
    charged = at_rated_size(raw)
    for name in FEATURES:
        k = FEATURES.index(name)
        expected = math.log1p(raw.features[k]) if name in ("values", "lines", "headers", "attached", "emphasis") \
            else raw.features[k]
        assert charged.features[k] == pytest.approx(expected), name
    raw.features[:] = 3.0
    raw.n_gt = 4 * RATED_FACTS
    scaled = dict(zip(FEATURES, at_rated_size(raw).features.tolist()))
    assert scaled == pytest.approx({name: math.log1p(0.75) if name in ("values", "lines", "attached", "emphasis")
                                    else math.log1p(3.0) if name == "headers" else 3.0 for name in FEATURES})


@pytest.mark.shared
def test_the_rated_size_is_the_largest_rated_ground_truth_table() -> None:
    facts = []
    for split in ("dev", "dev2"):
        for t in json.loads(shared_path("data", "table-metric-study", f"{split}.json").read_text(encoding="utf-8")):
            g = read_latex(t["gt_table"])[0]
            facts.append(read_and_count(g, g).differences.n_gt)
    assert max(facts) == RATED_FACTS
