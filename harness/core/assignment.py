"""Optimal one-to-one assignment (the linear sum assignment problem), for the locator and the metrics.

The solver is scipy's own C function, `scipy.optimize.linear_sum_assignment`. Importing it the
public way first imports all of `scipy.optimize` (linprog, minimize, their docstrings parsed):
about 0.26 s of every benchmark process's start, for a function that lives alone in one
extension module, `scipy.optimize._lsap`. So that module is loaded by itself from scipy's
install, and the public import is the fallback whenever that layout is not there (another scipy
version, a frozen build). Either way it is the same compiled function, so the same assignment.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

_MODULE = "scipy.optimize._lsap"


@cache
def _solver() -> Callable[..., tuple[np.ndarray, np.ndarray]]:
    try:
        return _load_alone()
    except Exception:  # noqa: BLE001 - any surprise in scipy's layout: the public, slower import
        from scipy.optimize import linear_sum_assignment

        return linear_sum_assignment


def _load_alone() -> Callable[..., tuple[np.ndarray, np.ndarray]]:
    """`scipy.optimize._lsap` without its package's `__init__` (only `scipy` itself is imported)."""
    import scipy

    folder = Path(scipy.__path__[0]) / "optimize"
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = folder / f"_lsap{suffix}"
        if path.is_file():
            loader = importlib.machinery.ExtensionFileLoader(_MODULE, str(path))
            spec = importlib.util.spec_from_file_location(_MODULE, path, loader=loader)
            assert spec is not None
            module = importlib.util.module_from_spec(spec)
            loader.exec_module(module)
            return module.linear_sum_assignment
    raise ImportError(f"no {_MODULE} extension in {folder}")


def linear_sum_assignment(cost: Any, maximize: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of a minimum (or maximum) weight matching of `cost`, as scipy returns them."""
    return _solver()(cost, maximize=maximize)
