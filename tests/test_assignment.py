"""The assignment solver the locator and the metrics share: scipy's compiled function, loaded
without the rest of scipy.optimize, giving exactly what the public import gives."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment as public

from tablebench.core import assignment


@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (4, 7), (9, 2), (25, 25)])
@pytest.mark.parametrize("maximize", [False, True])
def test_it_solves_exactly_as_the_public_function(shape: tuple[int, int], maximize: bool) -> None:
    rng = np.random.default_rng(sum(shape) + maximize)
    for ties in (False, True):  # integer costs: many optimal matchings, the same one must come back
        cost = rng.integers(0, 3, shape).astype(float) if ties else rng.random(shape)
        ours, theirs = assignment.linear_sum_assignment(cost, maximize=maximize), public(cost, maximize=maximize)
        assert [a.tolist() for a in ours] == [a.tolist() for a in theirs]


def test_it_loads_without_importing_scipy_optimize() -> None:
    code = ("import sys, numpy as np; from tablebench.core.assignment import linear_sum_assignment as f; "
            "print(f(np.eye(3)[::-1], maximize=True)[1].tolist(), 'scipy.optimize' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["[2,", "1,", "0]", "False"]


def test_without_the_extension_alone_it_falls_back_to_the_public_import(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> None:
        raise ImportError("layout changed")

    assignment._solver.cache_clear()
    monkeypatch.setattr(assignment, "_load_alone", missing)
    try:
        assert assignment._solver() is public
    finally:
        assignment._solver.cache_clear()
