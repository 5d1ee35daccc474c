"""leaderboard.md: well-formed GitHub tables with the aggregated numbers, untrusted names escaped."""

from __future__ import annotations

import re

from tablebench.report.aggregate import leaderboard
from tablebench.report.markdown import md_text, render_markdown
from tests.test_report_aggregate import A, B
from tests.test_report_samples import sample_results

_CELL_SPLIT = re.compile(r"(?<!\\)\|")


def _tables(text: str) -> list[list[list[str]]]:
    tables, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            current.append([c.strip() for c in _CELL_SPLIT.split(line)[1:-1]])
        elif current:
            tables.append(current)
            current = []
    return tables


def test_md_text_escapes_markdown_and_html() -> None:
    assert md_text("a|b") == "a\\|b"
    assert md_text("<script>x</script>") == "&lt;script&gt;x&lt;/script&gt;"
    assert md_text("dir:/x/my_parser\nnext") == "dir:/x/my\\_parser next"
    assert md_text("[link](javascript:x)") == "\\[link\\](javascript:x)"


def test_hand_computed_numbers_appear_in_rank_order() -> None:
    text = render_markdown(leaderboard(A + B), {"case_set": "s", "parsers": ["A", "B"]})
    assert "- **parsers**: A, B" in text
    board = _tables(text)[0]
    assert board[0][:4] == ["#", "parser", "found", "semantic (0-10)"]
    assert board[2][:4] == ["1", "B", "3/4 (75.0%)", "**5.00 (6.67)**"]
    assert board[3][:5] == ["2", "A", "2/4 (50.0%)", "**4.00 (8.00)**", "0.375 (0.750)"]
    assert board[3][-4:] == ["25.0%", "8.00", "3.00 s", "$0.0300"]  # perfect, median, s/page, cost
    outcomes = _tables(text)[-1]
    assert outcomes[0] == ["parser", "tables", "pages", "ok", "missing", "parse error", "timeout", "empty", "error"]
    assert outcomes[3] == ["A", "4", "3", "2", "1", "1", "0", "0", "0"]


def test_every_table_is_rectangular_even_with_hostile_names() -> None:
    text = render_markdown(leaderboard(sample_results(n_pages=3, payloads=True)), {"command": "a | b <c>"})
    tables = _tables(text)
    assert len(tables) == 5  # the leaderboard, the verdict counts, every metric, by complexity, outcomes
    for table in tables:
        assert len({len(row) for row in table}) == 1
        assert set(table[1]) <= {"---", "---:"}
    assert "<" not in text and "pdfplumber&lt;/script&gt;&lt;b&gt;x" in text


def test_no_results() -> None:
    assert "No results." in render_markdown(leaderboard([]))


def test_dict_meta_values_read_as_pairs() -> None:
    text = render_markdown(leaderboard(A), {"parser_specs": {"mine": "dir:/x"}, "min_scores": {"teds": 0.8}})
    assert "- **parser\\_specs**: mine = dir:/x" in text and "- **min\\_scores**: teds = 0.8" in text
