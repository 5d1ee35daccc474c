"""Why the perturbation suite judges a format that cannot write spans by `LOSSY_FLOOR`, not `FLOOR`.

Markdown and aligned text write a spanned group label once over blank cells. If readers did
not mind, that would be an invariance (score >= 9.5). The rated pairs say they do: the pairs
of the table-metric-study whose only fault the semantic score names is a group label written
once were rated below 9.5 on average, and never below `LOSSY_FLOOR`. This test keeps the
floor honest: it fails if the floor rises above what raters gave, or if the ratings stop
supporting a separate floor.
"""

from __future__ import annotations

import statistics

import pytest

from tablebench.evaluate.metaeval_tables import _read_pair, load_rated_pairs
from tablebench.metrics.tables.semantic import semantic_details
from tests.conftest import shared_path
from tests.perturb.suite import FLOOR, LOSSY_FLOOR


def _written_once_only(errors: list[str]) -> bool:
    return bool(errors) and all(e.startswith("group header") and " written once over blank cells" in e for e in errors)


@pytest.mark.shared
def test_raters_charge_a_label_written_once_but_never_below_the_lossy_floor() -> None:
    study = shared_path("data", "table-metric-study")
    pairs = load_rated_pairs(study / "dev.json", study / "dev2.json")
    ratings = []
    for pair in pairs:
        gt, pred = _read_pair(pair.gt, pair.extraction)
        if pred is not None and _written_once_only(semantic_details(gt, pred).errors):
            ratings.append(pair.human)
    assert len(ratings) >= 10, f"only {len(ratings)} rated pairs show a label written once and nothing else"
    assert min(ratings) >= LOSSY_FLOOR, f"raters gave {min(ratings):.2f} < LOSSY_FLOOR {LOSSY_FLOOR}"
    assert statistics.fmean(ratings) < FLOOR, "raters do not charge a label written once: make it an invariance"
