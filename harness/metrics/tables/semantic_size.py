"""Errors counted at the size the ratings cover.

The semantic score charges wrong values, lost or invented rows and columns, and values under
another row's or column's label by their number: the weights say what one such error costs,
and they were fitted on rated tables of at most `RATED_FACTS` facts (body values). In a larger
table the same number of errors is a smaller part of what a reader checks: counted as they
are, 1 % of wrong values gave 1.8 at 200 rows and 0.002 at 1,000 rows (TEDS: 0.995 for both).
Beyond that size a count is charged as the same share of a table of the rated size would be,
so a rate of errors costs what it costs at the largest size the ratings measured. Within it
nothing changes: every rated pair scores as before, and so does cross-validation.
"""

from __future__ import annotations

from harness.metrics.tables.semantic_align import FEATURES, Comparison

# the largest ground-truth table of table-metric-study dev and dev2, in facts (tests/test_semantic_size.py
# checks it against the data when ../shared is there)
RATED_FACTS = 140
COUNTED = tuple(FEATURES.index(name) for name in ("values", "lines", "attached"))  # counts that grow with the body


def at_rated_size(comparison: Comparison) -> Comparison:
    """`comparison` with its body counts scaled to `RATED_FACTS` facts when its table is larger."""
    if comparison.n_gt <= RATED_FACTS:
        return comparison
    features = comparison.features.copy()
    features[list(COUNTED)] *= RATED_FACTS / comparison.n_gt
    return Comparison(features, comparison.causes, comparison.f1, comparison.recall, comparison.precision,
                      comparison.n_gt, comparison.n_pred, comparison.alignment)
