"""The opt-in mutation checks still fit the code: every mutation applies, and no mutant is run here.

`python -m tests.benchmarks.mutations` and `python -m tests.benchmarks.semantic_mutations` take
minutes; this keeps them from rotting in between. A mutation whose text the code no longer holds
(or holds twice) would stop a run, and one that leaves its module uncompilable would be a
worthless kill.
"""

from __future__ import annotations

import pytest

from tablebench.metrics.formulas.table import ROWS as FORMULA_ROWS
from tablebench.metrics.text.table import ROWS as TEXT_ROWS
from tests.benchmarks import mutations, semantic_mutations
from tests.benchmarks.mutants import ROOT, Mutation, mutated, occurrences, row_mutations

EVERY = [*mutations.MUTATIONS, *semantic_mutations.MUTATIONS, *semantic_mutations.ROW_MUTATIONS]


@pytest.mark.parametrize("mutation", EVERY, ids=[m.name for m in EVERY])
def test_every_mutation_applies_once_and_its_module_still_compiles(mutation: Mutation) -> None:
    assert occurrences(mutation) == 1, f"{mutation.old!r} must be in {mutation.path} exactly once"
    text = mutated(mutation)
    assert text != (ROOT / mutation.path).read_text(encoding="utf-8")
    compile(text, mutation.path, "exec")


def test_mutation_names_are_unique_and_every_area_runs_existing_test_files() -> None:
    names = [m.name for m in EVERY]
    assert len(names) == len(set(names))
    assert set(mutations.AREAS) == {"gate", "locator", "reference", "table", "text", "formula"}
    for name, area in mutations.AREAS.items():
        # a score table's area has one per row: every row of its table
        tables = (row_mutations(TEXT_ROWS), row_mutations(FORMULA_ROWS))
        assert 8 <= len(area.mutations) <= 10 or area.mutations in tables
        assert [t for t in area.tests if not (ROOT / t.split("::")[0]).is_file()] == []


def test_a_mutation_whose_text_is_gone_or_ambiguous_is_refused() -> None:
    gone = Mutation("gone", "constant", "harness/core/table.py", "MAX_SPAN = 999999", "MAX_SPAN = 1")
    twice = Mutation("twice", "constant", "harness/core/table.py", "rowspan", "colspan")
    with pytest.raises(SystemExit, match="gone: 'MAX_SPAN = 999999' is not in harness/core/table.py"):
        mutated(gone)
    with pytest.raises(SystemExit, match=r"twice: 'rowspan' is \d+ times in harness/core/table.py"):
        mutated(twice)
