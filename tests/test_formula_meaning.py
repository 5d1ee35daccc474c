"""The formula score reads what an edit means: numbers, renames, repeats, notation that typesets alike."""

from __future__ import annotations

import re

import pytest

from tablebench.metrics.formulas.score import explained, formula_score
from tablebench.tex.formula import canonical_tokens
from tablebench.tex.formula_symbols import STACKED, typeset_symbol
from tablebench.tex.runner import have_pdflatex


def test_mhchem_charges_are_superscripts() -> None:
    assert canonical_tokens(r"\ce{As^3+}") == canonical_tokens(r"\mathrm{As}^{3+}")
    assert canonical_tokens(r"\ce{SO4^2-}") == canonical_tokens(r"\mathrm{SO}_{4}^{2-}")
    salt = r"\mathrm{Na}^{+}+\mathrm{Cl}^{-}\to\mathrm{NaCl}"
    assert canonical_tokens(r"\ce{Na+ + Cl- -> NaCl}") == canonical_tokens(salt)
    reaction = r"\ce{2Fe^3+ + Sn^2+ -> 2Fe^2+ + Sn^4+}"
    products = r"\longrightarrow 2\mathrm{Fe}^{2+}+\mathrm{Sn}^{4+}"
    assert formula_score(reaction, r"2\mathrm{Fe}^{3+}+\mathrm{Sn}^{2+}" + products) == 10.0
    assert formula_score(reaction, r"2\mathrm{Fe}^{3}+\mathrm{Sn}^{2+}" + products) < 10.0


@pytest.mark.parametrize("spelling", [r"\varnothing", "∅", r"\emptyset"])
def test_empty_set_spellings_read_alike(spelling: str) -> None:
    assert formula_score(r"A\cap B=\varnothing", f"A\\cap B={spelling}") == 10.0


@pytest.mark.parametrize("spelling", [r"\rightleftarrows", r"\overrightarrow{\leftarrow}",
                                      r"\overset{\rightarrow}{\leftarrow}", r"\underset{\leftarrow}{\to}", "⇄"])
def test_stacked_arrows_read_as_the_pair_symbol(spelling: str) -> None:
    assert canonical_tokens(f"A {spelling} B") == ("A", "⇄", "B")


def test_stacked_pairs_come_from_unicode_names() -> None:
    assert STACKED[("→", "←")] == "⇄" and STACKED[("←", "→")] == "⇆" and STACKED[("→", "→")] == "⇉"
    assert canonical_tokens(r"\overrightarrow{AB}") == ("\\vec{", "A", "B", "}")  # a vector, not a pair


def test_extensible_arrows_carry_their_labels() -> None:
    assert canonical_tokens(r"A \xrightarrow[T]{k} B") == canonical_tokens(
        r"A \overset{k}{\underset{T}{\rightarrow}} B")


def test_a_number_changed_costs_more_than_a_letter_renamed() -> None:
    gt = r"y=\frac{2}{5}\rho+\frac{1}{3}"
    assert formula_score(gt, r"y=\frac{2}{9}\rho+\frac{1}{3}") < formula_score(gt, r"y=\frac{2}{5}p+\frac{1}{3}")


def test_a_symbol_read_as_another_one_in_use_costs_more_than_a_rename() -> None:
    """In a formula of the rated study's median length (20 ground-truth tokens, here 22); in one of
    ten tokens a rename at two places costs about what one collision does (the rename's cost is
    divided by the length, saying otherwise is not)."""
    gt = r"E=\frac{m r^{2}}{b}+b\,r\,(1-x)^{2}"
    collision = formula_score(gt, r"E=\frac{m r^{2}}{r}+b\,r\,(1-x)^{2}")  # b read as the r the formula already has
    split = formula_score(gt, r"E=\frac{m r^{2}}{q}+b\,r\,(1-x)^{2}")  # b read as q once, kept elsewhere
    rename = formula_score(gt, r"E=\frac{m r^{2}}{q}+q\,r\,(1-x)^{2}")  # b read as q everywhere
    assert collision < rename and split < rename


def test_a_repeated_substitution_costs_less_than_two_different_ones() -> None:
    same = formula_score(r"x_{i}+y_{i}=1", r"x_{j}+y_{j}=1")
    different = formula_score(r"x_{i}+y_{k}=1", r"x_{j}+y_{l}=1")
    assert 10.0 > same > different


def test_many_slips_on_an_intact_formula_stay_readable() -> None:
    gt = r"F(x)=\sum_{k=0}^{n}\binom{n}{k}a_{k}x^{k}(1-x)^{n-k}+\int_{0}^{1}g(t)\,dt"
    slips = formula_score(gt, r"F(x)=\sum_{k=0}^{n}\binom{n}{k}a_{k}x^{k}(1-x)^{n-k}+\int_{0}^{1}q(t)\,dz")
    mangled = formula_score(gt, r"F x = sum k 0 n n k a k x k 1 x n k int 0 1 g t dt")
    assert slips > 2 * mangled


NOTE = re.compile(r"^(.*) read as (.*?)( throughout| \(.*\))*$")


@pytest.mark.parametrize(("gt", "pred"), [
    (r"\frac{2}{5}", r"\frac{2}{9}"), (r"\mu_{e}+\mu_{B}", r"\rho_{e}+\mu_{B}"), (r"\mathbb{R}^{n}", "R^{n}"),
    (r"\nu+\nu^{2}", "v+v^{2}"), (r"\hat{x}", r"\tilde{x}"), (r"x^{2}", "x_{2}"),
    (r"\underline{Y}+\underline{G}", "Y+G"),
])
def test_notes_name_what_differs(gt: str, pred: str) -> None:
    score, notes = explained(gt, pred)
    assert score < 10.0 and notes
    for note in notes:
        m = NOTE.match(note)
        if m:
            assert m.group(1) != m.group(2), note  # never "X read as X"
    assert explained("a+b", "a+b") == (10.0, [])


def test_notes_count_a_repeated_substitution_once() -> None:
    _, notes = explained(r"\nu+\nu^{2}=\nu", "v+v^{2}=v")
    assert notes == ["'ν' read as 'v' throughout (the same letter) (3x)"]


def test_a_letter_read_as_the_same_letter_written_another_way_is_a_letter_style() -> None:
    """A Greek letter read throughout as the Latin letter it is typeset like (`ρ` as `p`), or as
    its variant form (`ϑ` as `θ`), is the same symbol to a reader: charged as a letter style, not
    as a rename into another letter, and never as a formula that says otherwise."""
    from tablebench.metrics.formulas.edits import FEATURES
    from tablebench.metrics.formulas.score import edit_features

    gt = r"c=\sqrt{\frac{\kappa}{\rho}}+\rho\,v"
    same = formula_score(gt, r"c=\sqrt{\frac{\kappa}{p}}+p\,v")
    other = formula_score(gt, r"c=\sqrt{\frac{\kappa}{q}}+q\,v")
    assert same >= 7.0 and same > other + 1.0
    counts, _ = edit_features(r"\vartheta+\sin\vartheta", r"\theta+\sin\theta")
    assert counts[FEATURES.index("style")] == 1 and counts[FEATURES.index("rename")] == 0
    assert counts[[FEATURES.index(f) for f in ("content", "number", "operator", "structure")]].sum() == 0


def test_a_look_alike_that_merges_two_symbols_still_says_otherwise() -> None:
    """`ν` read as the `v` the formula already has makes two symbols one: what it says has changed,
    however alike the glyphs are; and case tells letters apart (`Φ` read as `φ` is a rename)."""
    from tablebench.metrics.formulas.score import edit_features, says_otherwise

    assert says_otherwise(edit_features(r"u=\nu\,t+v", r"u=v\,t+v")[0]) == 1.0
    assert says_otherwise(edit_features(r"u=\nu\,t+w", r"u=v\,t+w")[0]) == 0.0
    assert formula_score(r"u=\nu\,t+v", r"u=v\,t+v") < formula_score(r"u=\nu\,t+w", r"u=v\,t+w") - 1.0
    _, notes = explained(r"\Phi+1", r"\phi+1")
    assert notes == ["'Φ' read as 'ϕ' throughout"]


@pytest.mark.skipif(not have_pdflatex(), reason="pdflatex is not installed")
def test_an_unknown_command_reads_as_what_tex_typesets() -> None:
    assert typeset_symbol("mho") == "℧"
    assert formula_score(r"\mho+1", "℧+1") == 10.0
    assert typeset_symbol("notacommandatall") is None


def test_without_tex_an_unknown_command_is_kept_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    typeset_symbol.cache_clear()
    try:
        assert typeset_symbol("mho") is None
    finally:
        typeset_symbol.cache_clear()


def test_typesetting_unknown_commands_is_bounded_per_formula(monkeypatch) -> None:
    from tablebench.metrics.formulas import score as formula_score_module

    asked: list[str] = []
    monkeypatch.setattr(formula_score_module, "typeset_symbol", lambda name: asked.append(name) or None)
    formula_score_module.encode.cache_clear()
    names = [f"\\inventedname{chr(97 + k)}" for k in range(20)]
    formula_score_module.encode(" + ".join(names))
    assert asked == [n[1:] for n in names[:4]]  # `MAX_TEX_LOOKUPS`: four, whatever the formula holds
    formula_score_module.encode.cache_clear()


def test_a_formula_that_says_otherwise_costs_at_any_length() -> None:
    """One digit changed makes another formula whether the formula is short or long (issue 44):
    the cost of saying otherwise (`Weights.wrong`) is not divided by the formula's length, and a
    notation edit (a consistent rename, a delimiter) is not such an edit."""
    from tablebench.metrics.formulas.score import WEIGHTS, Weights, formula_score, says_otherwise, edit_features

    long_gt = r"\frac{\log 5}{\log 3} + \sum_{k=1}^{n} a_k b_k \approx 1.46"
    long_pred = long_gt.replace(r"\log 5", r"\log 1")
    counts, _ = edit_features(long_gt, long_pred)
    assert says_otherwise(counts) == 1.0
    without = Weights(WEIGHTS.w, WEIGHTS.beta, WEIGHTS.gamma, wrong=0.0)
    assert formula_score(long_gt, long_pred) < formula_score(long_gt, long_pred, without) - 0.5
    renamed = r"\frac{\log 5}{\log 3} + \sum_{j=1}^{n} a_j b_j \approx 1.46"
    assert says_otherwise(edit_features(long_gt, renamed)[0]) == 0.0
