"""A huge table costs bounded time and memory: above `MAX_SCORED_CELLS` the pairwise metrics are
marked "not computed" with the reason, never scored 0; below it they are scored as always."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tablebench.core import kinds
from tablebench.core.kinds import Located
from tablebench.core.metric_specs import specs_of
from tablebench.core.table import MAX_SCORED_CELLS, Table
from tablebench.metrics.score import score_pair

LIMIT = 2 * 1024 * 1024 * 1024  # bytes of address space: the acceptance bound for a 5,000 x 5 table

_CHILD = """
import json, resource
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
from tablebench.cases import GroundTruthTable
from tablebench.core import kinds
from tablebench.core.kinds import Located
from tablebench.core.metric_specs import specs_of
from tablebench.core.table import Table
import tablebench.kinds.tables  # noqa: F401 - registers the kind

rows = [[f"r{{r}}c{{c}}" for c in range(5)] for r in range(5000)]
latex = "\\\\begin{{tabular}}{{lllll}}\\n" + "\\n".join(" & ".join(row) + " \\\\\\\\" for row in rows) + "\\n\\\\end{{tabular}}"
gt = GroundTruthTable(0, latex)
pred = Table.from_rows(rows)
scoring = kinds.get("table").score(gt, Located(0, pred, (0, 1), "", 1.0), specs_of("table"))
print(json.dumps({{"scores": scoring.scores, "not_computed": scoring.not_computed, "notes": scoring.notes}}))
"""


def test_a_5000_by_5_table_is_marked_not_computed_within_2gb() -> None:
    proc = subprocess.run([sys.executable, "-c", _CHILD.format(limit=LIMIT)], capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout)
    assert len(out["not_computed"]) == len([s for s in specs_of("table") if s.default])
    assert all(v == f"not computed: table too large (25000 cells > {MAX_SCORED_CELLS})"
               for v in out["not_computed"].values())
    assert not any(k.startswith(("teds", "grits", "tlag", "semantic")) for k in out["scores"])  # absent, not 0
    assert "not computed" in out["notes"][0]


def test_a_table_at_the_limit_is_scored_as_before() -> None:
    import tablebench.kinds.tables  # noqa: F401 - registers the kind
    from tablebench.cases import GroundTruthTable

    rows = [[f"r{r}c{c}" for c in range(5)] for r in range(40)]
    latex = "\\begin{tabular}{lllll}\n" + "\n".join(" & ".join(row) + " \\\\" for row in rows) + "\n\\end{tabular}"
    pred = Table.from_rows([row if r % 7 else row[::-1] for r, row in enumerate(rows)])
    gt = GroundTruthTable(0, latex)
    scoring = kinds.get("table").score(gt, Located(0, pred, (0, 1), "", 1.0), specs_of("table"))
    assert scoring.scores == score_pair(gt.table, pred, specs_of("table"))[0]
    assert not scoring.not_computed and list(scoring.evidence) == ["cell_diff"]  # the cell diff only


def test_a_prediction_of_two_huge_cells_is_marked_not_computed() -> None:
    import tablebench.kinds.tables  # noqa: F401 - registers the kind
    from tablebench.cases import GroundTruthTable
    from tablebench.core.table import MAX_SCORED_CHARS
    from tablebench.readers import read_tables

    rows = [[f"r{r}", str(r)] for r in range(2000)]
    latex = "\\begin{tabular}{ll}\n" + "\n".join(" & ".join(row) + " \\\\" for row in rows) + "\n\\end{tabular}"
    n = 50_000  # a page's worth of lines written into two cells
    pred = read_tables("| A | B |\n|---|---|\n| " + "<br>".join(f"r{i}" for i in range(n)) + " | "
                       + "<br>".join(str(i) for i in range(n)) + " |")[0]
    scoring = kinds.get("table").score(GroundTruthTable(0, latex), Located(0, pred, (0, 1), "", 1.0),
                                       specs_of("table"))
    assert set(scoring.not_computed.values()) == {
        f"not computed: table too large ({sum(len(c.text) for c in pred.cells())} characters > {MAX_SCORED_CHARS})"}


def test_scoring_that_outlasts_the_parse_timeout_is_that_tables_timeout(tmp_path: Path) -> None:
    import time as _time

    from tablebench.cases import load_case_set
    from tablebench.core.metric_specs import MetricSpec, Scored, register, unregister
    from tablebench.evaluate.page import evaluate_page
    from tests.ci_cases import case_set, write_pages

    def slow(gt: object, pred: object) -> Scored:  # a user's metric that never ends on some pair
        _time.sleep(600)
        return Scored({"slowmetric": 1.0})

    (page,) = load_case_set(case_set(tmp_path / "set", 1)).pages
    out = write_pages(tmp_path / "out", tmp_path / "set")
    register(MetricSpec("slowmetric", "table", ("slowmetric",), "slowmetric", slow, default=False))
    try:
        results = evaluate_page(page, f"dir:{out}", ["teds", "slowmetric"], cache_dir=None, timeout=1.0)
    finally:
        unregister("slowmetric")
    assert results and {r.outcome for r in results} == {"timeout"}, [r.message for r in results]
    assert all(r.message == "timeout: scoring tables took longer than 1 s" for r in results)
