"""What a reader of lines of text cannot recover, and text that is not the table's: the
comparison's `unlabelled` feature and its rule for a grid rebuilt from lines
(`semantic_align.ALIGN_RULES`). A rule's test fails when the rule is removed (the ablation removes
each in turn). The contents are invented; the shapes are those parsers write."""

from __future__ import annotations

import numpy as np

from tablebench.core.table import Table
from tablebench.metrics.tables.semantic import DEFAULT, RULES, combine, read_and_count, semantic_details
from tablebench.metrics.tables.semantic_align import FEATURES
from tablebench.readers.text import read_lines as lines_of


def features(gt: Table, text: str, without: str | None = None) -> dict[str, float]:
    read = read_and_count(gt, lines_of(text), rules=RULES - {without} if without else RULES)
    assert read.undelimited
    return {name: float(v) for name, v in zip(FEATURES, read.differences.features) if v}


RECALL = Table.from_rows([["Model", "Training set", "Recall at 5", "Recall at 10"],
                          ["Falcon", "None", "41.7", "39.2"], ["Falcon", "Web crawl", "45.3", "42.6"],
                          ["Heron", "None", "63.1", "57.9"], ["Heron", "Web crawl", "66.4", "60.8"]], header_rows=1)
RECALL_BODY = "Falcon None 41.7 39.2\nFalcon Web crawl 45.3 42.6\nHeron None 63.1 57.9\nHeron Web crawl 66.4 60.8"


def test_header_labels_dropped_from_lines_leave_every_value_unlabelled() -> None:
    """No header line at all: no reader can tell which column holds what, however the lines are read."""
    with_header = semantic_details(RECALL, lines_of("Model Training set Recall at 5 Recall at 10\n" + RECALL_BODY))
    without = semantic_details(RECALL, lines_of(RECALL_BODY))
    assert without.features["unlabelled"] == 1.0 and with_header.features["unlabelled"] == 0.0
    assert without.errors[0].startswith("header labels of 2 of 2 value columns missing above the rows")
    assert without.score < with_header.score - 2.0
    # and the missing labels themselves cost (not only the header misreadings that come with them):
    # at least a tenth of what the same reading would score with its labels found
    row = read_and_count(RECALL, lines_of(RECALL_BODY)).row
    row[len(FEATURES) + FEATURES.index("unlabelled")] = 0.0  # the lines half: `Params.lines_weights`
    assert without.score < 0.9 * combine(row, DEFAULT.vector)
    # a label that happens to be a value in some row names nothing
    numbers = Table.from_rows([["n", "1", "2"], ["1", "1", "1"], ["2", "1", "2"], ["3", "1", "3"]], header_rows=1)
    assert features(numbers, "1 1 1\n2 1 2\n3 1 3")["unlabelled"] == 1.0


SPEED = Table.from_rows([["Method", "Speed", "Memory"], ["Alpha", "1.2", "30"], ["Beta", "2.4", "28"],
                         ["Gamma", "3.1", "25"], ["Delta", "0.9", "33"]], header_rows=1)


def test_prose_in_a_rows_place_is_a_row_lost_and_a_text_invented() -> None:
    text = "Method Speed Memory\nAlpha 1.2 30\nBeta 2.4 28\nMuseum visits were counted twice.\nDelta 0.9 33"
    result = semantic_details(SPEED, lines_of(text))
    assert result.errors[0] == "row 'Gamma' missing; in its place row 'Museum visits were counted twice.'"
    assert result.counts["lines"] == 2.0
    assert "lines" not in features(SPEED, text, without="foreign_text")
    # prose between the rows, none lost: named as what it is
    inserted = semantic_details(SPEED, lines_of(
        "Method Speed Memory\nAlpha 1.2 30\nBeta 2.4 28\nWeather said rain all week\nGamma 3.1 25\nDelta 0.9 33"))
    assert inserted.errors[0] == "text not in the table: 'Weather said rain all week'"


def test_a_piece_of_a_row_on_a_line_of_its_own_is_not_an_invented_row() -> None:
    """`large` wrapped from `Alpha net large`: the table's own words, charged as the label's loss."""
    gt = Table.from_rows([["Method", "Speed", "Memory"], ["Alpha net large", "1.2", "30"], ["Beta", "2.4", "28"],
                          ["Gamma", "3.1", "25"]], header_rows=1)
    text = "Method Speed Memory\nAlpha net 1.2 30\nlarge\nBeta 2.4 28\nGamma 3.1 25"
    assert "lines" not in features(gt, text) and features(gt, text)["values"] > 0
    assert features(gt, text, without="foreign_text")["lines"] > 0


def test_a_grid_without_its_header_is_charged_as_unattributed_not_unlabelled() -> None:
    """A grid shows where every cell is: a header it lacks is charged as unattributed values
    (`unlabelled` is for lines of text); with no foreign row, `foreign_text` changes nothing."""
    grid = Table.from_rows([["Falcon", "None", "41.7", "39.2"], ["Heron", "None", "63.1", "57.9"]])
    gt = Table.from_rows([["Model", "Training set", "Recall at 5", "Recall at 10"],
                          ["Falcon", "None", "41.7", "39.2"], ["Heron", "None", "63.1", "57.9"]], header_rows=1)
    read = read_and_count(gt, grid)
    assert not read.undelimited
    assert read.differences.features[FEATURES.index("unlabelled")] == 0.0
    assert read.differences.features[FEATURES.index("unattributed")] > 0.5
    assert np.all(read_and_count(gt, grid, rules=RULES - {"foreign_text"}).row == read.row)


def test_a_value_repeated_in_every_row_is_the_tables_text_however_the_lines_split() -> None:
    """`Oak` and `fits spec` stand in every row: needed once (`absent`), but written in each row
    they are the table's text each time, even where the reading of the lines splits the
    multi-word cells otherwise than the table (`invented` stays 0)."""
    gt = Table.from_rows([["Part", "Wood", "Check"], ["Lid", "Pine", "warped"], ["Leg 1", "Oak", "fits spec"],
                          ["Leg 2", "Oak", "fits spec"], ["Leg 3", "Oak", "fits spec"],
                          ["Leg 4/5", "Oak", "fits spec"]], header_rows=1)
    text = "Part Wood Check\nLid Pine warped\nLeg 1 Oak fits spec\nLeg 2 Oak fits spec\nLeg 3 Oak fits spec\n" \
           "Leg 4/5 Oak fits spec"
    assert "invented" not in features(gt, text) and "absent" not in features(gt, text)
    # text that is not the table's still is
    assert features(gt, text + "\nStool Oak fits spec")["invented"] > 0


def _two_level(groups: list[tuple[str, int]], labels: list[str], rows: list[list[str]]) -> str:
    top = "".join(f"<th colspan={n}>{t}</th>" for t, n in groups)
    return (f"<table><tr>{top}</tr><tr>{''.join(f'<th>{t}</th>' for t in labels)}</tr>"
            + "".join("<tr>" + "".join(f"<td>{x}</td>" for x in r) + "</tr>" for r in rows) + "</table>")


def test_in_lines_a_fault_costs_for_being_there_whatever_its_amount() -> None:
    """A group label the lines only imply (written on a line of its own above the labels) costs as
    much over two of seven columns as over six: a reader notices the flattening once and works it
    out (`Params.lines_presence`), and it does cost (the judge names it every time)."""
    rows = [["Alpha", "1.2", "3.4", "5.6", "7.8", "2.2", "4.1"], ["Beta", "2.2", "1.4", "5.1", "6.8", "3.2", "4.4"],
            ["Gamma", "0.2", "3.9", "5.0", "7.1", "1.2", "4.9"]]
    body = "\n".join(" ".join(r) for r in rows)
    narrow = _two_level([("", 1), ("Recall", 2), ("Depth", 1), ("Width", 1), ("Loss", 1), ("Gain", 1)],
                        ["Model", "Train", "Test", "", "", "", ""], rows)
    wide = _two_level([("", 1), ("Recall", 6)], ["Model", "Train", "Test", "Dev", "Val", "Eval", "Hold"], rows)
    two = semantic_details(narrow, lines_of("Recall\nModel Train Test Depth Width Loss Gain\n" + body))
    six = semantic_details(wide, lines_of("Recall\nModel Train Test Dev Val Eval Hold\n" + body))
    assert two.errors[0].startswith("spans only implied by the lines' order: 2 of 7 columns")
    assert six.errors[0].startswith("spans only implied by the lines' order: 6 of 7 columns")
    assert abs(two.score - six.score) < 0.3 and max(two.score, six.score) < 9.0
