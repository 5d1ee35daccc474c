"""Errors counted at the size the ratings cover, and charged with diminishing cost.

The semantic score charges wrong values, lost or invented rows and columns, values under
another row's or column's label, and emphasis a parser added, by their number: the weights say what one such error costs,
and they were fitted on rated tables of at most `RATED_FACTS` facts (body values). In a larger
table the same number of errors is a smaller part of what a reader checks: counted as they
are, 1 % of wrong values gave 1.8 at 200 rows and 0.002 at 1,000 rows (TEDS: 0.995 for both).
Beyond that size a count is charged as the same share of a table of the rated size would be,
so a rate of errors costs what it costs at the largest size the ratings measured. Within it
nothing changes.

Each kind's count n is then charged as log(1 + n): the first wrong value costs most, each further
one less (a reader's trust in a table is spent by the first few errors of a kind; ten wrong values
are not ten times one). A count inflated by one misreading of a table's structure (every value of
a shifted column counted wrong) then does not drown what the other features say; on the rated
pairs and the judged pairs, cross-validated agreement rose with it (dev 0.917 -> 0.937).
"""

from __future__ import annotations

import numpy as np

from tablebench.metrics.tables.semantic_align import FEATURES, Differences

# the largest ground-truth table of table-metric-study dev and dev2, in facts (tests/test_semantic_size.py
# checks it against the data when ../shared is there)
RATED_FACTS = 140
COUNTED = tuple(FEATURES.index(name) for name in ("values", "lines", "attached", "emphasis"))  # counts that grow with the body
CHARGED = tuple(FEATURES.index(name) for name in ("values", "lines", "headers", "attached", "emphasis"))  # counts, charged log(1 + n)


def at_rated_size(differences: Differences) -> Differences:
    """`differences` with its body counts scaled to `RATED_FACTS` facts when its table is larger,
    and every count charged as log(1 + n)."""
    features = differences.features.copy()
    if differences.n_gt > RATED_FACTS:
        features[list(COUNTED)] *= RATED_FACTS / differences.n_gt
    features[list(CHARGED)] = np.log1p(features[list(CHARGED)])
    return Differences(features, differences.causes, differences.f1, differences.recall, differences.precision,
                       differences.n_gt, differences.n_pred, differences.alignment)
