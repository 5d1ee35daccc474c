"""The built-in plug-ins a lower layer serves and a higher one implements, named as text.

Every stage serves every item kind through `tablebench.core.kinds`, and every report reads a
metric's scale and headline from its `tablebench.core.metric_specs.MetricSpec`; but the built-in
kinds compose every stage (`tablebench.kinds`), and the scorers import numba and TeX
(`tablebench.metrics`). So both are named here as "module:attribute" and imported on first use
(`load`), which keeps an import of `core` free of every layer above it.

This is the one module of `core` that names a higher layer: `tests/test_layers.py` reads the
names in it as edges of the import graph and allows exactly these, with the reason above.
"""

from __future__ import annotations

import importlib
from typing import Any

KINDS = {"table": "tablebench.kinds.tables:KIND", "formula": "tablebench.kinds.formulas:KIND",
         "text": "tablebench.kinds.text:KIND"}

SCORERS = {
    "teds": "tablebench.metrics.tables.registry:score_teds",
    "teds_struct": "tablebench.metrics.tables.registry:score_teds_struct",
    "grits": "tablebench.metrics.tables.registry:score_grits",
    "tlag": "tablebench.metrics.tables.registry:score_tlag",
    "semantic": "tablebench.metrics.tables.registry:score_semantic",
    "formula_score": "tablebench.metrics.formulas.registry:score_formula_score",
    "token_edit": "tablebench.metrics.formulas.registry:score_token_edit",
    "glyph_f1": "tablebench.metrics.formulas.registry:score_glyph_f1",
    "text_fidelity": "tablebench.metrics.text.registry:score_text_fidelity",
    "reading_order": "tablebench.metrics.text.registry:score_reading_order",
    "text_coverage": "tablebench.metrics.text.registry:score_text_coverage",
}


def load(target: str) -> Any:
    """The object a "module:attribute" name (a built-in's above, or an entry point's value) names."""
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)
