"""`--repeat=K`: parse each page K times, score each, and report per-table means and spread.

Why: a stochastic parser (a VLM at temperature > 0, a sampling OCR) gives a different output
on every call, so one run's per-table score is one draw. K draws per table give the mean
(what the gate compares, with less noise) and the standard deviation (what the report shows).

Repetition r of a parser is the same parser with `repetition: r` added to its cache config
(`repeated`), so the parse cache keeps K separate answers per page and a rerun reuses all
of them; repetition 0 is the plain parser, so its entries are shared with runs without
`--repeat`. Nothing in `tablebench.parse.runner` or `tablebench.evaluate.page` had to change for this.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from copy import deepcopy
from typing import Any

from tablebench.core.options import MAX_REPEAT, positive_int
from tablebench.core.results import ItemResult


def combine(runs: Sequence[Sequence[ItemResult]]) -> list[ItemResult]:
    """One ItemResult per table from K repetitions (each a page's results in table order).

    Scores are means over all K repetitions, a repetition where the table was not found
    counting 0 (as the leaderboard's include-missing mean does); the outcome is "ok" when
    any repetition found the table, and the matched text is that repetition's. Per-table
    spread goes to `ItemResult.repeat`: outcomes, every score and the standard deviation.
    """
    if len(runs) == 1:
        return list(runs[0])
    if len({len(r) for r in runs}) != 1:
        raise ValueError(f"repetitions disagree on the number of tables: {[len(r) for r in runs]}")
    out = []
    for reps in zip(*runs):
        k = len(reps)
        chosen = next((r for r in reps if r.outcome == "ok"), reps[0])
        result = deepcopy(chosen)
        names = sorted({m for r in reps if r.outcome == "ok" for m in r.scores})
        values = {m: [_value(r, m) for r in reps] for m in names}
        result.scores = {m: math.fsum(v) / k for m, v in values.items()}
        found = sum(r.outcome == "ok" for r in reps)
        result.parse_seconds = math.fsum(r.parse_seconds for r in reps) / k
        result.cost = math.fsum(r.cost for r in reps)
        result.repeat = {
            "k": k,
            "outcomes": [r.outcome for r in reps],
            "scores": values,
            "sd": {m: statistics.stdev(v) for m, v in values.items()},
        }
        if found and found < k:
            note = f"found in {found} of {k} repeats"
            result.message = f"{result.message}; {note}" if result.message else note
        out.append(result)
    return out


def _value(result: ItemResult, metric: str) -> float:
    value = result.scores.get(metric) if result.outcome == "ok" else None
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else 0.0


def evaluate_repeated(page: Any, spec: str, metrics: Any, *, repeat: int = 1, pool: Any = None,
                      **options: Any) -> list[ItemResult]:
    """`tablebench.evaluate.page.evaluate_page` `repeat` times (repetition r parsed by `pool.view(r)`), combined.

    `pool` is a `tablebench.parse.prefetch.ParsePool` (one is made, and closed, when not given);
    `options` go to `evaluate_page` unchanged.
    """
    from tablebench.evaluate.page import evaluate_page
    from tablebench.parse.prefetch import ParsePool

    if not isinstance(repeat, int) or isinstance(repeat, bool):
        raise ValueError(f"--repeat must be a positive integer, got {repeat!r}")
    positive_int("--repeat", repeat, upper=MAX_REPEAT)
    own = pool is None
    pool = ParsePool() if own else pool
    try:
        return combine([evaluate_page(page, spec, metrics, pool=pool.view(r), **options) for r in range(repeat)])
    finally:
        if own:
            pool.close()
