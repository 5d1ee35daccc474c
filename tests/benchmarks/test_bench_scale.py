"""The scale benchmark (`tests.benchmarks.scale`) at $TABLEBENCH_SCALE_PAGES replicated pages
(default 20), serial and with `-n 2`: one round, as its runs are whole pytest sessions.
Run: TABLEBENCH_SCALE_PAGES=100 python -m pytest -p no:xdist --benchmark-only --benchmark-enable \\
     tests/benchmarks/test_bench_scale.py -s
"""

from __future__ import annotations

import os

from tests.benchmarks.scale import measure, table


def test_bench_scale(benchmark) -> None:
    pages = int(os.environ.get("TABLEBENCH_SCALE_PAGES", "20"))
    row = benchmark.pedantic(measure, args=(pages,), rounds=1, iterations=1)
    print("\n" + table([row]))
    benchmark.extra_info.update(row)
    serial, parallel = row["n0"]["scores"], row["n2"]["scores"]
    assert serial["n"] == parallel["n"] == row["tables"]
    assert serial["outcomes"] == {"ok": row["tables"]}  # the perfect parser: nothing lost
    assert serial["sha256"] == parallel["sha256"]  # the same results whatever the workers
