"""The rich leaderboard the plugin prints: numbers, order, literal names, and a sane width."""

from __future__ import annotations

import io

from rich.console import Console

from tablebench.core.results import ItemResult
from tablebench.report import fmt
from tablebench.report.aggregate import leaderboard
from tablebench.report.terminal import (
    group_table,
    leaderboard_group,
    leaderboard_table,
)
from tests.test_report_aggregate import A, B
from tests.test_report_samples import sample_results


def _text(renderable, width: int = 140) -> str:
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.export_text()


def test_leaderboard_shows_hand_computed_numbers_in_rank_order() -> None:
    text = _text(leaderboard_table(leaderboard(A + B)))
    b_line = next(line for line in text.splitlines() if " B " in line)
    a_line = next(line for line in text.splitlines() if " A " in line)
    assert text.index(b_line) < text.index(a_line)
    assert "5.00 (6.67)" in b_line and "4.00 (8.00)" in a_line
    # found, primary, perfect, s/page, cost, missing, failed (parse error + timeout + empty + error)
    assert a_line.split()[2:] == ["2/4", "4.00", "(8.00)", "25.0%", "3.00", "s", "$0.0300", "1", "1"]
    assert "errors: B: timeout 1; A: parse error 1" in " ".join(text.split())


def test_complexity_table_has_every_level_and_metric() -> None:
    text = _text(group_table(leaderboard(A + B)))
    header = next(line for line in text.splitlines() if "simple" in line)
    assert header.split() == ["all", "simple", "moderate", "complex"]
    assert "0.500 (1.000)" in text  # A's teds on simple tables: (1.0 + 0) / 2, found only 1.0
    assert "semantic (0-10)" in text and "tlag" not in text
    assert [line.split()[0] for line in text.splitlines() if line.strip() in ("A", "B")] == ["B", "A"]


def _words_intact(text: str, words: list[str]) -> None:
    flat = text.split()
    for word in words:
        assert word in flat, f"{word!r} broken or missing at this width"


def test_headers_and_numbers_stay_whole_at_80_columns() -> None:
    """At 80 columns no header breaks mid-word (was: 'missin g'), numbers keep their digits,
    and long parser labels fold inside their own column."""
    results = sample_results(n_pages=4)
    long = "command:python3+my_long_parser_name.py#1a2b3c4d"
    for r in results:
        if r.parser == "pdfplumber":
            r.parser = long
        if r.page == "p003":
            r.group = "unknown"  # a fifth group: all, simple, moderate, complex, unknown
    board = leaderboard(results)
    text = _text(leaderboard_group(board, title=""), width=80)
    assert max(len(line.rstrip()) for line in text.splitlines()) <= 80
    _words_intact(text, ["found", "perfect", "s/page", "cost", "missing", "errors", "semantic", "(0-10)",
                         "all", "simple", "moderate", "complex", "unknown", "teds_struct", "grits_con",
                         "pymupdf4llm", "vlm:gpt-x"])
    row = next(r for r in board.rows if r.parser == "pymupdf4llm")
    for number in (f"{row.found}/{row.total}", fmt.usd(row.cost), fmt.seconds(row.seconds_per_page).split()[0]):
        assert number in text.split(), number
    assert any(line.startswith(" 3 command:python3+") for line in text.splitlines()), "a long label folds"
    assert "failed" not in text.split(), "parse errors are not called 'failed' beside pytest's 'N failed'"


def test_names_are_literal_not_rich_markup() -> None:
    rs = [ItemResult("[red]x[/red]", "s", "p1", 0, "simple", "ok", scores={"teds": 0.5})]
    assert "[red]x[/red]" in _text(leaderboard_group(leaderboard(rs)))


def test_fits_in_100_columns_and_handles_no_results() -> None:
    text = _text(leaderboard_table(leaderboard(sample_results(n_pages=4))), width=100)
    assert max(len(line.rstrip()) for line in text.splitlines()) <= 100
    assert "pymupdf4llm" in text and "vlm:gpt-x" in text
    assert "no results" in _text(leaderboard_group(leaderboard([])))


def test_a_run_where_no_table_got_a_score_still_renders() -> None:
    """Every page failed to parse (e.g. a model server down): no metric has a value, the
    leaderboard still shows the parser with 0 found instead of crashing the session end."""
    rs = [ItemResult("vlm:x", "s", f"p{i}", 0, "simple", "parse_error", message="parse_error: refused")
          for i in range(3)]
    text = _text(leaderboard_group(leaderboard(rs)))
    assert "vlm:x" in text and "0/3" in text


def test_meta_eval_rows_of_a_class_keep_their_bracketed_name() -> None:
    """`cv:formula_score [one meaning edit]`: rich read the bracket as a markup tag and printed the
    row as `cv:formula_score`, four rows alike with no class named."""
    from tablebench.report.terminal import meta_eval_table

    row = {"pearson": 0.66, "spearman": 0.63, "kendall": 0.44, "n": 41, "ci95": {"pearson": (0.42, 0.82)},
           "mean": 3.48, "reference_mean": 3.80}
    text = _text(meta_eval_table({"cv:formula_score [one meaning edit]": row, "cv:formula_score [mixed]": row}))
    assert "cv:formula_score [one meaning edit]" in text and "cv:formula_score [mixed]" in text
