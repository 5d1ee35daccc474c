"""The formula score's constants as rows (`core.score_table`): docs/formulas.md renders them,
tests/test_score_tables.py holds every module-level number of the score's modules to a row, and the
mutation run (`python -m tests.benchmarks.mutations --area formula`) changes each in turn."""

from __future__ import annotations

from tablebench.core.score_table import ScoreRow

_S, _E, _G = (f"tablebench.metrics.formulas.{m}" for m in ("score", "edits", "glyph_match"))
_FIT = "tests/test_formula_metaeval.py::test_shipped_weights_are_the_fit_on_both_splits"
_FITTED = "fitted on dev and dev2 by `metaeval_formulas.fit_weights`, re-chosen in every fold of `meta-eval --cv`"
_GLYPH = "tests/test_formula_glyph_match.py::"

ROWS = (
    ScoreRow(_S, "WEIGHTS.w", "what one edit of each class costs (`edits.FEATURES` order)", _FITTED, _FIT,
             "(1.0,) * 11", "    w"),
    ScoreRow(_S, "WEIGHTS.beta", "length exponent: edits are charged per (ground-truth tokens)^beta", _FITTED, _FIT,
             "5.0", "    beta"),
    ScoreRow(_S, "WEIGHTS.gamma", "concavity: the penalty is raised to gamma (the first edits cost most)", _FITTED,
             _FIT, "0.1", "    gamma"),
    ScoreRow(_S, "WEIGHTS.wrong", "what a formula that says otherwise (a meaning edit) costs, whatever its length",
             _FITTED, _FIT, "5.0", "    wrong"),
    ScoreRow(_S, "MAX_TEX_LOOKUPS", "distinct unknown commands of one formula typeset by TeX to read their glyph",
             "speed bound: each may cost a pdflatex run on a cold cache",
             "tests/test_formula_meaning.py::test_typesetting_unknown_commands_is_bounded_per_formula", "1"),
    ScoreRow(_E, "STYLE_COST", "the alignment's cost of the same symbol in another letter style",
             "a priori, below any other substitution; the shipped weights are the fit on the counts these costs make",
             _FIT, "5.0"),
    ScoreRow(_E, "ACROSS_COST", "the alignment's cost of a substitution across token classes (within one: 1)",
             "a priori, between a substitution within a class and a delete plus an insert (2)",
             _FIT, "0.1"),
    ScoreRow(_E, "MARKER_COST", "the alignment's cost of a structure marker read as content",
             "a priori, above a delete plus an insert: never chosen",
             _FIT, "0.5"),
    ScoreRow(_G, "DX", "how far apart across the formula (share of its width) two glyphs may match",
             "a priori tolerance of the rendered comparison",
             _GLYPH + "test_glyph_f1_matches_by_character_and_position", "1.0"),
    ScoreRow(_G, "DY", "how far apart up or down (in `EM` units) two glyphs may match",
             "a priori tolerance of the rendered comparison",
             _GLYPH + "test_a_glyph_moved_up_or_down_by_more_than_half_an_em_does_not_match", "5.0"),
    ScoreRow(_G, "EM", "the height unit of `DY`, in points (the render's font size)", "the render's font size",
             _GLYPH + "test_glyph_f1_matches_by_character_and_position", "1.0"),
    ScoreRow(_G, "_NO", "the cost of a glyph pair that may not match (never chosen while an allowed pair is left)",
             "bound: far above any allowed pair's cost", _GLYPH + "test_glyph_f1_is_one_to_one", "0.0"),
)
