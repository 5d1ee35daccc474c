"""The semantic score's tables (rows in code, `metrics.tables.semantic_table`, rendered into
docs/semantic-score.md) are complete and true: every feature, reading rule, comparison rule and
tunable constant of the score is a row, every row names a test that exists, and the weights the
docs show are the shipped ones. (tests/test_readme.py holds each block to its rendering.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tablebench.core.score_table import render
from tablebench.metrics.tables.semantic import DEFAULT, RULES
from tablebench.metrics.tables.semantic_align import FEATURES
from tablebench.metrics.tables.semantic_read import READ_RULES
from tablebench.metrics.tables.semantic_table import (
    BEHAVIOUR_ROWS,
    COMPARISON_RULE_ROWS,
    CONSTANT_ROWS,
    FEATURE_ROWS,
    READING_RULE_ROWS,
)
from tests.benchmarks.readme_blocks import read_block
from tests.test_score_tables import numbers_of

REPO = Path(__file__).resolve().parents[1]
DOC = (REPO / "docs" / "semantic-score.md").read_text(encoding="utf-8")
ROWS = [[c.strip() for c in line.strip().strip("|").split("|")] for line in DOC.splitlines()
        if line.startswith("|") and not set(line) <= set("|- ")]
TESTS = re.compile(r"`(tests/[\w/]+\.py)::(test_\w+)`")


def _row(first: str) -> list[str]:
    found = [r for r in ROWS if r[0].strip("`") == first]
    assert found, f"no row for {first} in docs/semantic-score.md"
    return found[0]


def test_every_named_test_exists() -> None:
    named = TESTS.findall(DOC)
    assert len(named) >= 20
    for path, name in named:
        text = (REPO / path).read_text(encoding="utf-8")
        assert re.search(rf"^def {name}\(", text, re.M), f"{path}::{name} does not exist"


def test_every_row_names_a_test() -> None:
    for row in ROWS[1:]:
        if row[0] in ("feature", "rule", "behaviour", "constant"):
            continue  # a table's head
        assert TESTS.search(row[-1]), f"row {row[0]} names no test"
    for row in (*FEATURE_ROWS, *READING_RULE_ROWS, *COMPARISON_RULE_ROWS, *BEHAVIOUR_ROWS, *CONSTANT_ROWS):
        assert TESTS.fullmatch(f"`{row.test}`"), f"row {row.name or row.meaning!r} names no test: {row.test!r}"


def test_the_feature_rows_are_the_features_in_their_order() -> None:
    """One row a feature, in `FEATURES`' order (the order of `Params.vector` and of the docs)."""
    assert tuple(row.name for row in FEATURE_ROWS) == FEATURES


def test_the_rule_rows_are_the_rules_of_the_score_each_once() -> None:
    """The reading rules' rows are `READ_RULES`, the comparison rules' the rest of `semantic.RULES`:
    a rule added to the code without its row, or a row left behind by a rule removed, fails here."""
    reading = [row.name for row in READING_RULE_ROWS]
    comparison = [row.name for row in COMPARISON_RULE_ROWS]
    assert sorted(reading) == sorted(READ_RULES) and sorted(comparison) == sorted(RULES - READ_RULES)


@pytest.mark.parametrize("name", FEATURES)
def test_every_feature_is_a_row_with_its_shipped_weights(name: str) -> None:
    row = _row(name)
    k = FEATURES.index(name)
    assert float(row[2]) == pytest.approx(DEFAULT.weights[k]) and float(row[3]) == pytest.approx(DEFAULT.lines_weights[k])
    assert float(row[4]) == pytest.approx(DEFAULT.lines_presence[k])


@pytest.mark.parametrize("rule", sorted(RULES))
def test_every_reading_rule_is_a_row(rule: str) -> None:
    _row(rule)


def _constants() -> list[str]:
    """Every module-level number of the score's modules (`module.NAME`; private ones too; a name
    computed from another, `SAME_VALUE = 1 - SAME_VALUE_GAP`, is its row's)."""
    paths = sorted((REPO / "harness" / "metrics" / "tables").glob("semantic*.py"))
    return [f"{path.stem}.{name}" for path in paths for name in sorted(numbers_of(path))]

def test_every_number_of_the_score_is_a_row() -> None:
    constants = _constants()
    assert "semantic_align.FULL_COMPARISON" in constants and "semantic_size.RATED_FACTS" in constants
    for constant in [*constants, "semantic.DEFAULT.key_weight", "semantic.DEFAULT.midpoint"]:
        _row(constant)
    rows = {f"{row.module.rsplit('.', 1)[-1]}.{row.name}" for row in CONSTANT_ROWS}
    assert set(constants) <= rows  # every number of the score is a row in code


def test_the_constants_table_is_rendered_from_the_rows_in_code() -> None:
    assert read_block("score-table-semantic") == render(CONSTANT_ROWS)


# How a constant outside the weights may be chosen: fitted inside the cross-validation, or a bound
# that is not a judgement of what an error costs (speed, display, float tolerance, a log's floor,
# the fit's own procedure, a size measured on the rated tables).
CHOSEN = ("fitted in CV", "speed bound", "display bound", "float tolerance", "bound on", "fit procedure", "measured")


def test_no_constant_that_changes_a_score_is_set_by_hand() -> None:
    """Issue 43's rule: every constant that changes a score is fitted inside the cross-validation
    or is a bound of one of the kinds above; a rule's threshold chosen by eye (`midpoint rule`) is not."""
    rows = [r for r in ROWS if r[0].startswith("`") and len(r) == 5 and r[0] != "constant"]
    constants = [r for r in rows if "." in r[0] and not r[0].startswith("`semantic_fit.fit")]
    assert len(constants) >= 12
    for row in constants:
        assert row[3].startswith(CHOSEN), f"{row[0]} is chosen by hand: {row[3]!r}"


def test_params_take_their_weights_by_feature_name() -> None:
    """`per_feature`: a weight is named by its feature, so a list one short cannot shift every weight
    after it onto its neighbour's feature."""
    from tablebench.metrics.tables.semantic import per_feature

    named = dict(zip(FEATURES, DEFAULT.lines_weights))
    assert per_feature(**named) == DEFAULT.lines_weights
    del named["spacing"]
    with pytest.raises(ValueError, match="a weight for each of share, values"):
        per_feature(**named)


def test_every_feature_rule_and_constant_row_has_one_mutant_of_its_own() -> None:
    """The semantic mutation run makes its row mutants from the rows (a row added is a mutant added):
    a feature's weights set to 0 in every part of `Params.vector`, a rule taken out of `semantic.RULES`."""
    from tests.benchmarks.semantic_mutations import ROW_MUTATIONS

    by_name = {m.name: m for m in ROW_MUTATIONS}
    assert len(by_name) == len(ROW_MUTATIONS) == len(FEATURE_ROWS) + len(READING_RULE_ROWS) + len(
        COMPARISON_RULE_ROWS) + len(CONSTANT_ROWS)
    for k, row in enumerate(FEATURE_ROWS):
        new = by_name[f"{row.name}_weight"].new
        assert new.count(f"0.0 if i == {k} else w") == 3
        assert all(f"self.{part}" in new for part in ("weights", "lines_weights", "lines_presence"))
    for row in (*READING_RULE_ROWS, *COMPARISON_RULE_ROWS):
        assert by_name[f"no_{row.name}"].new.rstrip().endswith(f") - {{{row.name!r}}}")
