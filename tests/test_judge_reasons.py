"""The yardstick of the per-parser figures: how much of a judge's score its own error list explains
(`tests/benchmarks/judge_reasons.py`). Invented error lists: a score the words decide is predicted
on held-out pages; a score the words do not decide is not."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from tests.benchmarks.judge_reasons import cross_validated, figures, terms

FAULTS = {"rows missing from the table": -4.0, "header flattened into one line": -2.0,
          "bold formatting lost (minor)": -0.5, "subscripts flattened": -1.0}


def _pairs(seed: int, scored_by_words: bool) -> list[dict]:
    rng = np.random.default_rng(seed)
    tables = []
    for page in range(24):
        extractions = []
        for parser in ("alpha", "beta"):
            errors = [e for e in FAULTS if rng.random() < 0.4]
            score = 10 + sum(FAULTS[e] for e in errors) if scored_by_words else float(rng.integers(2, 11))
            extractions.append({"parser": parser, "extracted_table": "a b\n1 2",
                                "llm_scores": [{"score": score, "errors": errors}]})
        tables.append({"page": f"p{page:03d}", "gt_id": f"p{page:03d}_t0", "extractions": extractions})
    return tables


def test_terms_are_the_words_and_word_pairs_within_each_error() -> None:
    t = terms(["Rows missing", "header flattened"])
    assert t["rows missing"] == 1 and t["rows"] == 1 and "missing header" not in t


def test_a_score_the_words_decide_is_predicted_on_held_out_pages(tmp_path: Path) -> None:
    path = tmp_path / "judged.json"
    path.write_text(json.dumps(_pairs(0, scored_by_words=True)))
    f = figures([path])
    assert f["n"] == 48 and f["pooled"] > 0.9 and set(f["parsers"]) == {"alpha", "beta"}


def test_a_score_the_words_do_not_decide_is_not() -> None:
    rng = np.random.default_rng(1)
    lists = [[e for e in FAULTS if rng.random() < 0.4] for _ in range(60)]
    y = rng.integers(2, 11, size=60).astype(float)
    pred = cross_validated([terms(errors) for errors in lists], np.array([len(e) for e in lists], float), y,
                           np.array([f"p{k // 2}" for k in range(60)], dtype=object))
    assert np.corrcoef(pred, y)[0, 1] < 0.5
