"""Formula meta-evaluation: study loader, weight fitting, leave-one-formula-out CV."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tablebench.evaluate import metaeval_formulas as metaeval
from tablebench.evaluate.metaeval import Options, RatedPair, held_out_scores, meta_eval
from tablebench.evaluate.metaeval_formulas import (
    FORMULAS,
    feature_matrix,
    fit_weights,
    is_formula_study,
    load_formula_pairs,
)
from tablebench.metrics.formulas.edits import FEATURES
from tablebench.metrics.formulas.score import Weights, score_from_features
from tests.conftest import shared_path

ROW = {"gt_id": "g1", "gt_formula": "$a+b$", "extracted_formula": "$a-b$",
       "metrics": {"bleu_score": 0.5, "cdm_score": 0.9}, "llm_scores": [{"judge_model": "m", "score": 4}],
       "human_study_scores": [3, 4, 5]}


def test_loader_reads_the_study_format(tmp_path: Path) -> None:
    path = tmp_path / "dev.json"
    path.write_text(json.dumps([ROW, {**ROW, "gt_id": "g2", "human_study_scores": []}]))
    pairs = load_formula_pairs(path)
    assert len(pairs) == 1  # the unrated pair is left out
    p = pairs[0]
    assert (p.gt_id, p.gt, p.extraction, p.human) == ("g1", "$a+b$", "$a-b$", 4.0)
    assert p.stored == {"bleu_score": 0.5, "cdm_score": 0.9, "judge:m": 4.0}


def test_loader_refuses_other_formats_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "tables.json"
    path.write_text(json.dumps([{"gt_table": "x", "extractions": []}]))
    assert not is_formula_study(json.loads(path.read_text()))
    with pytest.raises(ValueError, match="not the formula study format"):
        load_formula_pairs(path)
    bad = tmp_path / "bad.json"
    bad.write_text("[{")
    with pytest.raises(ValueError, match="invalid JSON"):
        load_formula_pairs(bad)


def test_fit_recovers_the_weights_that_generated_the_ratings() -> None:
    rng = np.random.default_rng(1)
    counts = rng.poisson(0.6, size=(300, len(FEATURES))).astype(float)
    lengths = rng.integers(5, 80, size=300).astype(float)
    true = Weights((2.0, 3.0, 1.0, 1.5, 0.5, 0.5, 0.2, 1.0, 0.5, 0.3, 1.0), 0.5, 0.75, wrong=0.4)
    human = score_from_features(counts, lengths, true)
    fitted = fit_weights(counts, lengths, human)
    assert (fitted.beta, fitted.gamma) == (0.5, 0.75)
    pred = score_from_features(counts, lengths, fitted)
    assert np.abs(pred - human).mean() < 0.1 and np.abs(pred - human).max() < 0.8  # the ridge pulls rare weights
    assert np.allclose(fitted.w[:2], true.w[:2], rtol=0.15)
    assert fitted.wrong == pytest.approx(true.wrong, rel=0.25)  # what saying otherwise costs, at any length


def test_cv_fits_each_fold_without_its_ground_truth(monkeypatch: pytest.MonkeyPatch) -> None:
    pairs = [RatedPair(f"g{i % 4}", f"x^{i}+y", f"x^{i}-y" if i % 2 else f"x^{i}+y", float(5 + i % 2 * 3))
             for i in range(8)]
    seen: list[int] = []
    real_fit = metaeval.fit_weights

    def spy(counts, lengths, human):
        seen.append(len(human))
        return real_fit(counts, lengths, human)

    monkeypatch.setattr(metaeval, "fit_weights", spy)
    scores, _ = held_out_scores(pairs, FORMULAS.fit)
    assert seen == [6, 6, 6, 6]  # four folds (one per gt_id), each trained on the 6 other pairs
    assert scores.shape == (8,) and np.all((0 <= scores) & (scores <= 10))


def test_feature_matrix_shape() -> None:
    pairs = [RatedPair("g", "a+b", "a-b", 5.0), RatedPair("h", "x", "x", 10.0)]
    counts, lengths = feature_matrix(pairs)
    assert counts.shape == (2, len(FEATURES)) and list(lengths) == [3, 1]
    assert counts[1].sum() == 0 and counts[0, FEATURES.index("operator")] == 1


@pytest.mark.shared
def test_dev_split_cross_validated_pearson_reaches_the_best_judge_level() -> None:
    pairs = load_formula_pairs(shared_path("data", "formula-metric-study", "dev.json"))
    results = meta_eval(FORMULAS, pairs, Options(render=False, n_boot=200))
    assert len(pairs) == 106
    assert results["cdm_score"]["pearson"] == pytest.approx(0.261, abs=0.001)  # the study's README value
    assert results["cv:formula_score"]["pearson"] >= 0.80
    assert results["ours:formula_score"]["pearson"] >= results["cv:formula_score"]["pearson"] - 0.05
    assert results["ours:token_edit"]["pearson"] > results["levenshtein_similarity"]["pearson"]


def _both_splits() -> list[RatedPair]:
    study = ("data", "formula-metric-study")
    return load_formula_pairs(*(shared_path(*study, f"{split}.json") for split in ("dev", "dev2")))


@pytest.mark.shared
def test_dev_and_dev2_cross_validated_pearson_is_above_080() -> None:
    results = meta_eval(FORMULAS, _both_splits(), Options(render=False, n_boot=200))
    assert results["cv:formula_score"]["n"] == 175
    assert results["cv:formula_score"]["pearson"] >= 0.82
    # the same held-out scores, per file of the pool
    assert results["cv:formula_score (dev)"]["n"] == 106 and results["cv:formula_score (dev2)"]["n"] == 69
    # and per class of edits (issue 44): a formula that says otherwise scores as low as the ratings
    # say (their mean there is about 5, not the 0-3 of the examples that motivated the class), and
    # notation edits cost about what the raters charge
    classes = {name: results[f"cv:formula_score [{name}]"]
               for name in ("one meaning edit", "meaning edits only", "notation edits only", "mixed")}
    for r in classes.values():
        assert abs(r["mean"] - r["reference_mean"]) < 0.75, r
    assert classes["meaning edits only"]["mean"] < classes["notation edits only"]["mean"] - 2


@pytest.mark.shared
def test_shipped_weights_are_the_fit_on_both_splits() -> None:
    """Changing the tokens or the alignment means refitting WEIGHTS (see score.py for how)."""
    from tablebench.metrics.formulas.score import WEIGHTS

    pairs = _both_splits()
    counts, lengths = feature_matrix(pairs)
    fitted = fit_weights(counts, lengths, np.array([p.human for p in pairs]))
    assert (fitted.beta, fitted.gamma) == (WEIGHTS.beta, WEIGHTS.gamma)
    assert np.allclose(fitted.w, WEIGHTS.w, atol=0.002) and fitted.wrong == pytest.approx(WEIGHTS.wrong, abs=0.002)


def test_cli_meta_eval_picks_the_formula_track_from_the_file(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """`tablebench meta-eval FILE` on the formula study format reports ours, cross-validated ours
    and the stored metrics; the table-study reader would refuse this file."""
    from tablebench.cli import main

    rows = []
    for i in range(8):  # 4 ground-truth formulas, 2 extractions each: a good and a worse one
        gt = f"$x_{i} = a^{{2}} + b_{i}$"
        rows.append({"gt_id": f"g{i // 2}", "gt_formula": gt, "extracted_formula": gt if i % 2 else f"$x_{i} = a + c$",
                     "metrics": {"bleu_score": 0.5 + i / 20}, "llm_scores": [],
                     "human_study_scores": [10, 9, 10] if i % 2 else [3, 4, 2]})
    path = tmp_path / "formulas.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    assert main(["meta-eval", str(path), "--no-render", "--json", "--bootstrap", "50"]) == 0
    results = json.loads(capsys.readouterr().out)
    assert {"ours:formula_score", "ours:token_edit", "cv:formula_score", "bleu_score"} <= set(results)
    assert results["ours:formula_score"]["pearson"] > 0.8
    assert main(["meta-eval", str(path), "--judge", "m"]) == 1
    assert "not supported for the formula study" in capsys.readouterr().err
