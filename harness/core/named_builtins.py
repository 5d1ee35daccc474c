"""The built-in plug-ins a lower layer serves and a higher one implements, named as text.

Every stage serves every item kind through `harness.core.kinds`, and every report reads a
metric's scale and headline from its `harness.core.metric_specs.MetricSpec`; but the built-in
kinds compose every stage (`harness.kinds`), and the scorers import numba and TeX
(`harness.metrics`). So both are named here as "module:attribute" and imported on first use
(`load`), which keeps an import of `core` free of every layer above it.

This is the one module of `core` that names a higher layer: `tests/test_layers.py` reads the
names in it as edges of the import graph and allows exactly these, with the reason above.
"""

from __future__ import annotations

import importlib
from typing import Any

KINDS = {"table": "harness.kinds.tables:KIND", "formula": "harness.kinds.formulas:KIND",
         "text": "harness.kinds.text:KIND"}

SCORERS = {
    "teds": "harness.metrics.tables.registry:score_teds",
    "teds_struct": "harness.metrics.tables.registry:score_teds_struct",
    "grits": "harness.metrics.tables.registry:score_grits",
    "tlag": "harness.metrics.tables.registry:score_tlag",
    "semantic": "harness.metrics.tables.registry:score_semantic",
    "formula_score": "harness.metrics.formulas.registry:score_formula_score",
    "token_edit": "harness.metrics.formulas.registry:score_token_edit",
    "glyph_f1": "harness.metrics.formulas.registry:score_glyph_f1",
    "text_fidelity": "harness.metrics.text.registry:score_text_fidelity",
    "reading_order": "harness.metrics.text.registry:score_reading_order",
    "text_coverage": "harness.metrics.text.registry:score_text_coverage",
}


def load(target: str) -> Any:
    """The object a "module:attribute" name (a built-in's above, or an entry point's value) names."""
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)
