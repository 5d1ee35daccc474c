"""How much of the judge's score its own error list explains, per parser: what a reading can hope for.

The judged pairs (`../shared/data/judged-pairs`) carry, beside each score, the errors the judge
listed. A ridge regression over the words of that list (unigrams and bigrams within each error,
tf-idf, plus the number of errors) predicts the score, cross-validated by page (ten folds, a page's pairs
held out together; the ridge's strength chosen inside each fold by an inner split of the training
pages). Its Pearson per parser says how far the judge's score follows what the judge itself says
is wrong. A score that reads only the extraction and the ground truth sees at best what those
errors name, so where this figure is low (the judge scoring beyond its stated reasons, or its
reasons too terse to rank by) the semantic score cannot be expected to pass it by much: it is the
yardstick for the per-parser figures of `semantic_figures`, not a score.

    python -m tests.benchmarks.judge_reasons [--shared ../shared]   # ~30 s
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
ALPHAS = (0.3, 1.0, 3.0)  # ridge strengths tried inside each fold
OUTER_FOLDS = 10  # folds of whole pages
INNER_FOLDS = 5
_WORD = re.compile(r"\w\w+")


def terms(errors: Sequence[str]) -> Counter:
    """The words and word pairs of an error list (pairs within one error, not across two), and
    nothing else: what the judge said, not how much of it."""
    out: Counter = Counter()
    for error in errors:
        words = _WORD.findall(error.lower())
        out.update(words)
        out.update(f"{a} {b}" for a, b in zip(words, words[1:]))
    return out


def design(docs: Sequence[Counter], vocabulary: dict[str, int], idf: np.ndarray, n_errors: np.ndarray) -> np.ndarray:
    """tf-idf rows (1 + log tf, unit length) over `vocabulary`, then the number of errors and its square."""
    x = np.zeros((len(docs), len(vocabulary) + 2))
    for i, doc in enumerate(docs):
        for term, count in doc.items():
            j = vocabulary.get(term)
            if j is not None:
                x[i, j] = (1.0 + math.log(count)) * idf[j]
        norm = np.linalg.norm(x[i, :len(vocabulary)])
        if norm > 0:
            x[i, :len(vocabulary)] /= norm
    x[:, -2] = n_errors
    x[:, -1] = n_errors ** 2
    return x


def fit_predict(docs: Sequence[Counter], n_errors: np.ndarray, y: np.ndarray, train: np.ndarray,
                test: np.ndarray, alpha: float) -> np.ndarray:
    """Ridge (with intercept) fitted on `train`, predicting `test`: terms seen in two training
    documents form the vocabulary, as the held-out pairs must not shape it."""
    df: Counter = Counter(term for i in np.flatnonzero(train) for term in docs[i])
    vocabulary = {term: j for j, term in enumerate(sorted(t for t, n in df.items() if n >= 2))}
    n = int(train.sum())
    idf = np.array([math.log((1 + n) / (1 + df[t])) + 1.0 for t in vocabulary])
    x = design([docs[i] for i in np.flatnonzero(train)], vocabulary, idf, n_errors[train])
    mean_x, mean_y = x.mean(axis=0), y[train].mean()
    xc = x - mean_x
    dual = np.linalg.solve(xc @ xc.T + alpha * np.eye(n), y[train] - mean_y)  # n x n: fewer pairs than terms
    w = xc.T @ dual
    xt = design([docs[i] for i in np.flatnonzero(test)], vocabulary, idf, n_errors[test])
    return (xt - mean_x) @ w + mean_y


def _folds(groups: np.ndarray, k: int) -> list[np.ndarray]:
    """Masks of `k` folds, whole groups each, assigned in sorted order (deterministic)."""
    names = sorted(set(groups.tolist()))
    return [np.isin(groups, names[i::k]) for i in range(min(k, len(names)))]


def cross_validated(docs: Sequence[Counter], n_errors: np.ndarray, y: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Every pair's prediction with its group held out (`OUTER_FOLDS` folds of whole groups); the
    ridge strength chosen on the other groups by an inner cross-validation."""
    pred = np.zeros(len(y))
    for test in _folds(groups, OUTER_FOLDS):
        train = ~test
        errors = []
        for alpha in ALPHAS:
            inner = np.zeros(len(y))
            for held in _folds(np.where(train, groups, ""), INNER_FOLDS):
                held = held & train
                inner[held] = fit_predict(docs, n_errors, y, train & ~held, held, alpha)
            errors.append(float(np.mean((inner[train] - y[train]) ** 2)))
        pred[test] = fit_predict(docs, n_errors, y, train, test, ALPHAS[int(np.argmin(errors))])
    return pred


def load(files: Sequence[Path]) -> tuple[list[Counter], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per judged pair with a score and an extraction: its error terms, number of errors, score,
    page (file and page: the unit held out) and parser."""
    docs, n_errors, y, pages, parsers = [], [], [], [], []
    for path in files:
        for table in json.loads(Path(path).read_text(encoding="utf-8")):
            for ext in table["extractions"]:
                judged = [j for j in ext.get("llm_scores") or [] if j.get("score") is not None]
                if not (ext.get("extracted_table") or "").strip() or not judged:
                    continue
                errors = [str(e) for e in judged[0].get("errors") or []]
                docs.append(terms(errors))
                n_errors.append(len(errors))
                y.append(float(judged[0]["score"]))
                pages.append(f"{Path(path).stem}/{table.get('page', table.get('gt_id'))}")
                parsers.append(ext["parser"])
    return docs, np.array(n_errors, float), np.array(y), np.array(pages, dtype=object), np.array(parsers, dtype=object)


def figures(files: Sequence[Path]) -> dict:
    """Pearson of the cross-validated prediction against the judge's score, pooled and per parser."""
    docs, n_errors, y, pages, parsers = load(files)
    pred = cross_validated(docs, n_errors, y, pages)
    out = {"pooled": round(float(np.corrcoef(pred, y)[0, 1]), 3), "n": len(y), "parsers": {}}
    for name in sorted(set(parsers.tolist())):
        m = parsers == name
        out["parsers"][name] = round(float(np.corrcoef(pred[m], y[m])[0, 1]), 3)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default=str(REPO.parent / "shared"))
    args = parser.parse_args(argv)
    folder = Path(args.shared) / "data" / "judged-pairs"
    f = figures([folder / "pdf-parse-bench-20-pages.json", folder / "pdf-parse-bench-40-pages-dev2.json"])
    print(json.dumps(f, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
