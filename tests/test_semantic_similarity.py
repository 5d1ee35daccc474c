"""The semantic score's cell comparisons give the same bits however they are grouped into calls.

Speed depends on grouping (a wrong value compared with every predicted cell in one call, rows
aligned on shared cells by a sparse product); the score must not: each entry depends on its
two texts only.
"""

from __future__ import annotations

import random

import numpy as np

from tablebench.metrics.tables.semantic_text import NULL, normalize, shared_cells, similarity_matrix

TEXTS = ["91.2", "91.20", "9 1.2", "1,234", "1234", "12.5 ± 0.3", "12.5 ± 0.4", "x = 50%, y = 75%",
         "x = 75%, y = 50%", "ResNet-50", "ResNet-5O", "BERT base", "bert-base", "0", "○", "O", "✓", "√",
         "—", "N/A", "Top-1 Acc.", "Top-1 acc", "2.5x", "2.5×", "1.2 × 10^{-3}", "1.2e-3", "", "mean", "std",
         "$\\alpha$", "α", "Ours (large)", "Ours (small)", "3", "3.0", "-3", "−3", "Params (M)", "12M"]


def _texts(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    return [normalize(rng.choice(TEXTS)) for _ in range(n)]


def test_similarity_matrix_is_the_same_bits_cell_by_cell_and_in_one_call() -> None:
    left, right = _texts(1, 60), _texts(2, 45)
    whole = similarity_matrix(left, right)
    single = np.array([[similarity_matrix([a], [b])[0, 0] for b in right] for a in left])
    rows = np.vstack([similarity_matrix([a], right) for a in left])
    assert whole.tobytes() == single.tobytes() == rows.tobytes()
    assert similarity_matrix([normalize("91.2")], [normalize("91.20")])[0, 0] == 1.0
    assert similarity_matrix([normalize("0")], [normalize("○")])[0, 0] == 1.0  # the same mark
    assert similarity_matrix([normalize("1.12")], [normalize("112")])[0, 0] == 0.0  # another number
    assert similarity_matrix([NULL], [normalize("N/A")])[0, 0] == 1.0


def test_shared_cells_counts_each_held_text_as_the_dense_count_does() -> None:
    rng = random.Random(3)
    g_body = [[rng.choice(["1", "2", "3", "a", "b b", "bb", NULL]) for _ in range(7)] for _ in range(9)]
    p_body = [[rng.choice(["1", "2", "4", "a", "bb", NULL]) for _ in range(7)] for _ in range(8)]
    expected = np.array([[sum(t.replace(" ", "") in {u.replace(" ", "") for u in p} for t in g) for p in p_body]
                         for g in g_body], dtype=float) / 7
    got = shared_cells(g_body, p_body)
    assert got.shape == (9, 8) and got.tobytes() == expected.tobytes()
