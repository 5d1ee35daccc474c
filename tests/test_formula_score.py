"""Token edit similarity and the weighted offline formula score."""

from __future__ import annotations

import numpy as np
import pytest

from tablebench.metrics.formulas.edits import FEATURES
from tablebench.metrics.formulas.score import (
    WEIGHTS,
    Weights,
    edit_features,
    formula_score,
    score_from_features,
    token_class,
    token_edit_similarity,
)


def counts(gt: str, pred: str) -> dict[str, float]:
    c, _ = edit_features(gt, pred)
    return {name: v for name, v in zip(FEATURES, c) if v}


def test_token_edit_similarity_is_levenshtein_on_canonical_tokens() -> None:
    assert token_edit_similarity("$a+b$", r"\(a+b\)") == 1.0
    assert token_edit_similarity("a+b", "a-b") == pytest.approx(1 - 1 / 3)
    assert token_edit_similarity(r"x^{2}", "x") == pytest.approx(1 - 3 / 4)  # x ^{ 2 } -> x
    assert token_edit_similarity("", "") == 1.0
    assert token_edit_similarity("ab", "") == 0.0


@pytest.mark.parametrize(("gt", "pred", "expected"), [
    ("a+b", "a-b", {"operator": 1}),
    ("abc", "abd", {"rename": 1}),  # c read as d everywhere, and the formula has no d
    ("c+d=c", "d+d=c", {"content": 1}),  # read as a symbol the formula already has
    ("c+d=c", "e+d=c", {"content": 1}),  # read as e once, kept as c elsewhere
    ("x_{1}", "x_{7}", {"number": 1}),
    (r"\mu_{a}+\mu_{b}", "q_{a}+q_{b}", {"rename": 1, "repeat": 1}),
    (r"\rho_{a}+\rho_{b}", "p_{a}+p_{b}", {"style": 1, "repeat": 1}),  # the same letter, typeset alike
    (r"x^{2}", r"x_{2}", {"structure": 1}),
    (r"\hat{x}", r"\tilde{x}", {"accent": 1}),
    (r"\mathbb{N}_0", "N_0", {"style": 1}),
    ("(x)", "x", {"delimiter": 2}),
    ("a,b", "a;b", {"punctuation": 1}),
    (r"\begin{matrix}a&b\end{matrix}", r"\begin{matrix}a\\b\end{matrix}", {"layout": 1}),
    (r"\frac{a}{b}", r"a/b", {"structure": 3, "operator": 1}),
])
def test_edits_are_counted_by_what_they_touch(gt: str, pred: str, expected: dict) -> None:
    assert counts(gt, pred) == expected


def test_token_classes() -> None:
    assert [token_class(t) for t in ("7", "x", "α", "bb:R", "+", "≤", "→", "(", ",", "^{", "}", "\\hat{", "&")] == [
        0, 0, 0, 0, 1, 1, 1, 5, 6, 2, 2, 3, 7]


def test_same_meaning_scores_full_marks() -> None:
    gt = r"$${\frac {a}{b}}\,\leq \left(x_{i}\right)^{2}.$$"
    assert formula_score(gt, r"\[ \dfrac{a}{b} \le (x_i)^2 \]") == 10.0


def test_meaning_changes_cost_more_than_layout_noise() -> None:
    gt = r"E = m c^{2} + \frac{a}{b}"
    sign = formula_score(gt, r"E = m c^{2} - \frac{a}{b}")
    exponent = formula_score(gt, r"E = m c^{3} + \frac{a}{b}")
    punctuation = formula_score(gt, r"E = m c^{2} +, \frac{a}{b}")
    assert formula_score(gt, r"E = m c^{2} + \frac{a}{b};") == 10.0  # sentence punctuation after it
    bracket = formula_score(gt, r"E = (m c^{2}) + \frac{a}{b}")
    missing_term = formula_score(gt, r"E = m c^{2}")
    assert 10 > punctuation > sign
    assert bracket > exponent
    assert missing_term < exponent
    assert 0 <= missing_term


def test_more_errors_score_lower_and_garbage_near_zero() -> None:
    gt = r"\sum_{i=1}^{n} x_i^2 = \int_0^1 f(t)\,dt"
    one = formula_score(gt, r"\sum_{i=1}^{n} x_i^3 = \int_0^1 f(t)\,dt")
    two = formula_score(gt, r"\sum_{i=0}^{n} x_i^3 = \int_0^1 f(t)\,dt")
    assert 10 > one > two > formula_score(gt, r"\alpha\beta\gamma") >= 0
    assert formula_score(gt, "") < 1.0


def test_weights_are_positive_and_used() -> None:
    assert all(w > 0 for w in WEIGHTS.w) and 0 <= WEIGHTS.beta <= 1
    heavy = Weights(tuple(w * 3 for w in WEIGHTS.w), WEIGHTS.beta)
    assert formula_score("a+b", "a-b", heavy) < formula_score("a+b", "a-b")


def test_score_from_features_is_vectorised() -> None:
    c = np.array([[0.0] * len(FEATURES), [1.0] + [0.0] * (len(FEATURES) - 1)])
    s = score_from_features(c, np.array([4, 4]), Weights((1.0,) * len(FEATURES), 0.0))
    assert s[0] == 10.0 and s[1] == pytest.approx(10 * np.exp(-1))


def test_registry_scores_by_name_and_refuses_unknown_names() -> None:
    from tablebench.metrics import score

    out = score("$a+b$", r"\(a-b\)", kind="formula")
    assert set(out) == {"formula_score", "token_edit"}
    assert out["formula_score"] == formula_score("a+b", "a-b") and out["token_edit"] == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="unknown formula metric.*teds"):
        score("a", "a", ["teds"], kind="formula")


def test_unreadable_prediction_scores_zero_unreadable_truth_raises() -> None:
    from tablebench.tex.formula import FormulaError

    deep = "{" * 300 + "x" + "}" * 300
    assert formula_score("x", deep) == 0.0 and token_edit_similarity("x", deep) == 0.0
    with pytest.raises(FormulaError):
        formula_score(deep, "x")
