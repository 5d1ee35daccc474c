"""At 80 or 100 columns, in a pipe, `tablebench compare` and the terminal leaderboard print every
number whole: the same numbers as at 300 columns, none cut with an ellipsis; labels fold at
spaces or after punctuation, never inside a word."""

from __future__ import annotations

import copy
import re
from collections import Counter
from pathlib import Path

import pytest
from rich.console import Console
from rich.table import Table

from tablebench.cli import main
from tablebench.report.whole import fit, label_lines
from tablebench.report.write import write_report
from tests.test_report_samples import sample_results

NUMBER = re.compile(r"\d")


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Run A and run B (every score a little lower), three parsers each, one with a long label."""
    root = tmp_path_factory.mktemp("whole")
    a = sample_results(n_pages=6)
    for r in a:
        if r.parser == "pdfplumber":
            r.parser = "command:python3+my_long_parser_name.py#1a2b3c4d"
    b = copy.deepcopy(a)
    for i, r in enumerate(b):
        r.scores = {k: max(0.0, v - 0.0137 * (i % 5)) for k, v in r.scores.items()}
    write_report(a, root / "a", {"case_set": "demo"})
    write_report(b, root / "b", {"case_set": "demo"})
    return root / "a", root / "b"


def _numbers(text: str) -> Counter:
    return Counter(token for token in text.split() if NUMBER.search(token))


def _printed(argv: list[str], columns: int, capsys, monkeypatch) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    capsys.readouterr()
    main(argv)
    return capsys.readouterr().out


@pytest.mark.parametrize("columns", [80, 100])
def test_compare_and_the_leaderboard_print_every_number_whole(two_runs, columns: int, capsys, monkeypatch):
    a, b = two_runs
    for argv in (["compare", f"{a}:pymupdf4llm", f"{b}:pymupdf4llm"], ["report", str(a)]):
        wide = _printed(argv, 300, capsys, monkeypatch)
        narrow = _printed(argv, columns, capsys, monkeypatch)
        assert narrow.strip() and "…" not in narrow, narrow
        assert _numbers(narrow) == _numbers(wide), f"{argv}: numbers cut or split at {columns} columns:\n{narrow}"
        tables = [line for line in narrow.splitlines() if not line.startswith("tablebench ")]  # printed lines
        assert max(len(line) for line in tables) <= columns, narrow


def test_a_label_folds_after_punctuation_and_never_inside_a_word():
    assert label_lines("command:python3+my_long_parser_name.py#1a2b3c4d", 20).splitlines() == [
        "command:python3+my_", "long_parser_name.py#", "1a2b3c4d"]
    assert label_lines("a b supercalifragilisticexpialidocious", 10).splitlines() == [
        "a b", "supercalifragilisticexpialidocious"]


def test_a_table_whose_words_cannot_fit_widens_rather_than_cuts():
    table = Table()
    for name in ("metric", "value"):
        table.add_column(name)
    table.add_row("teds_struct", "-0.0123456789..+0.0987654321")
    need = fit(table, 20)
    assert need > 20
    console = Console(width=need, record=True, color_system=None, file=None)
    with console.capture() as captured:
        console.print(table)
    assert "-0.0123456789..+0.0987654321" in captured.get() and "…" not in captured.get()
