"""A span-grid bomb costs what a small table costs: cells whose spans are each within `MAX_SPAN`
but whose grid (rows x columns after spans) is huge are found and marked "not computed: table
too large" like a table of too many cells, and no step builds the grid.

The reads run in a child process under an address-space limit, so a grid that is materialised
fails as a MemoryError there instead of exhausting the machine."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from tablebench.core.table import MAX_GRID_SLOTS, MAX_SCORED_CELLS, Cell, Table, TableTooLarge

LIMIT = 1024 * 1024 * 1024  # bytes of address space for the child: a 20-million-slot grid needs 3 GB

_GT = ("\\begin{tabular}{lll}\nModel & Acc & F1 \\\\\nBERT & 81.2 & 79.4 \\\\\nGPT-2 & 77.0 & 75.3 \\\\\n"
       "RoBERTa & 84.9 & 83.1 \\\\\n\\end{tabular}")
_ROWS = "<tr><td>Model</td><td>Acc</td><td>F1</td></tr><tr><td>BERT</td><td>81.2</td><td>79.4</td></tr>" \
        "<tr><td>GPT-2</td><td>77.0</td><td>75.3</td></tr><tr><td>RoBERTa</td><td>84.9</td><td>83.1</td></tr>"
BOMB = "<p>Results.</p><table>" + _ROWS + "<tr>" + '<td rowspan="1000" colspan="1000">x</td>' * 20 + "</tr></table>"

_CHILD = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
from tablebench.cases import GroundTruthTable
from tablebench.core import kinds
from tablebench.core.metric_specs import specs_of
import tablebench.kinds.tables  # noqa: F401 - registers the kind
gt = GroundTruthTable(0, sys.argv[1])
kind = kinds.get("table")
found = kind.locate([gt], sys.stdin.read())[0]
scoring = kind.score(gt, found, specs_of("table"))
print(json.dumps({{"found": found.found, "scores": scoring.scores, "not_computed": scoring.not_computed,
                  "notes": scoring.notes}}))
"""


def test_a_span_grid_bomb_is_found_and_not_computed_within_1gb() -> None:
    proc = subprocess.run([sys.executable, "-c", _CHILD.format(limit=LIMIT), _GT], input=BOMB, capture_output=True,
                          text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout)
    assert out["found"]
    reasons = set(out["not_computed"].values())
    assert reasons == {f"not computed: table too large (grid of more than {MAX_SCORED_CELLS} slots)"}
    assert not any(k.startswith(("teds", "grits", "tlag", "semantic")) for k in out["scores"])  # absent, not 0


def test_the_grid_shape_is_computed_without_the_grid() -> None:
    bomb = Table([[Cell("x", rowspan=1000, colspan=1000) for _ in range(200)]])
    assert bomb.grid_shape(limit=10**9) == (1000, 200_000)  # 200 million slots: the layout would need 10+ GB
    with pytest.raises(TableTooLarge, match="more than"):
        bomb.grid_shape()
    with pytest.raises(TableTooLarge):
        bomb.layout()  # a ValueError: what a caller that only wants a prior (the locator's shape) catches
    assert issubclass(TableTooLarge, ValueError) and MAX_GRID_SLOTS >= 100 * MAX_SCORED_CELLS


def test_ragged_rows_alone_are_bounded_like_spans() -> None:
    ragged = Table([[Cell("x") for _ in range(1000)], *([Cell("y")] for _ in range(2000))])  # 3,000 cells
    with pytest.raises(TableTooLarge):
        ragged.layout()  # 2 million slots, 2,997,000 of them holes
    assert Table([[Cell("x") for _ in range(100)], *([Cell("y")] for _ in range(49))]).grid_shape() == (50, 100)


def test_the_grid_shape_is_the_layouts_shape_for_any_spans() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        rows = [[Cell(str(i), rowspan=rng.choice([1, 1, 1, 2, 3, 5]), colspan=rng.choice([1, 1, 2, 4]))
                 for i in range(rng.randint(0, 5))] for _ in range(rng.randint(0, 7))]
        table = Table(rows)
        assert table.grid_shape() == table.layout().shape == table.shape, table.to_html()
