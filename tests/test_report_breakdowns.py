"""Per-language and per-variant groups: arithmetic, when they show, and every rendering of them."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from tablebench.core.results import ItemResult
from tablebench.gating.aggregate import gate_pairs
from tablebench.report.aggregate import boards, leaderboard
from tablebench.report.html import render_html
from tablebench.report.html_data import expanded_html
from tablebench.report.markdown import render_markdown
from tablebench.report.terminal import breakdown_tables, leaderboard_group
from tests.test_report_samples import sample_results

LANGS = ["en", "ru", "el", "zh", "ja", "ar", "hi", "de", "fr", "es"]


def _r(parser: str, page: str, language: str, variant: str, outcome: str = "ok", **scores: float) -> ItemResult:
    return ItemResult(parser=parser, case_set="s", page=page, index=0, group="simple", outcome=outcome,
                       scores=scores, language=language, variant=variant)


# A: ru found twice (semantic 10, 6), zh missing once; digital p1 p2, scan p3
RUN = [
    _r("A", "p1", "ru", "digital", semantic=10.0, teds=1.0),
    _r("A", "p2", "ru", "scan", semantic=6.0, teds=0.5),
    _r("A", "p3", "zh", "scan", "missing"),
]


def _text(renderable, width: int) -> str:
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.export_text()


def _spread(results: list[ItemResult]) -> list[ItemResult]:
    """Sample results spread over ten languages (by page) and two variants (odd pages scanned)."""
    for r in results:
        n = int(r.page[1:])
        r.language, r.variant = LANGS[n % len(LANGS)], "scan" if n % 2 else "digital"
    return results


def test_groups_per_language_and_variant_match_hand_computation() -> None:
    board = leaderboard(RUN)
    assert (board.languages, board.variants, board.breakdowns) == (["ru", "zh"], ["digital", "scan"],
                                                                    ["language", "variant"])
    [row] = board.rows
    ru, zh = row.by_language["ru"], row.by_language["zh"]
    assert (ru.total, ru.found, zh.total, zh.found) == (2, 2, 1, 0)
    assert ru.metrics["semantic"].include_missing == pytest.approx(8.0)
    assert zh.metrics["semantic"].include_missing == 0.0 and zh.metrics["semantic"].exclude_missing is None
    scan = row.by_variant["scan"]
    assert (scan.total, scan.found) == (2, 1) and scan.metrics["teds"].include_missing == pytest.approx(0.25)
    assert row.by_variant["digital"].metrics["teds"].perfect_rate == 1.0
    data = json.loads(json.dumps(board.to_dict(), allow_nan=False))
    assert data["languages"] == ["ru", "zh"] and data["rows"][0]["by_variant"]["scan"]["coverage"] == 0.5


def test_one_language_and_one_variant_add_nothing() -> None:
    """A single-language born-digital run: no groups, no sections, the renderings as before."""
    results = sample_results(n_pages=4)
    for r in results:
        r.language, r.variant = "en", "digital"
    board = leaderboard(results)
    assert (board.languages, board.variants, board.breakdowns) == ([], [], [])
    assert all(not row.by_language and not row.by_variant for row in board.rows)
    assert "by language" not in _text(leaderboard_group(board), 120)
    md = render_markdown(board)
    assert "By language" not in md and "By variant" not in md
    page = render_html(board, results, csp=False)
    assert "By language" not in page and 'data-filter="language"' not in page
    legacy = ItemResult.from_dict({k: v for k, v in results[0].to_dict().items() if k not in ("language", "variant")})
    assert (legacy.language, legacy.variant) == ("unknown", "digital")  # results.json from before still reads


def test_terminal_breakdowns_fit_80_columns_and_split_many_languages() -> None:
    board = leaderboard(_spread(sample_results(n_pages=10)))
    assert len(board.languages) == 10 and board.variants == ["digital", "scan"]
    tables = breakdown_tables(board, "language", width=80)
    assert len(tables) == 2  # ten languages do not fit one 80-column table
    text = _text(leaderboard_group(board, title=""), width=80)
    assert max(len(line.rstrip()) for line in text.splitlines()) <= 80
    flat = text.split()
    for word in ["by", "language", "(1/2)", "(2/2)", "variant", "digital", "scan", *LANGS]:
        assert word in flat, word
    row = board.rows[0]  # the first block of rows
    variant_part = text[text.index("by variant"):]
    found = next(line for line in variant_part.splitlines() if line.startswith("  found"))
    assert found.split()[1:] == [f"{100 * row.by_variant[v].coverage:.1f}%" for v in ("digital", "scan")]


def test_markdown_and_html_show_every_language_and_variant() -> None:
    results = _spread(sample_results(n_pages=10))
    board = leaderboard(results)
    md = render_markdown(board)
    assert "## By language" in md and "## By variant" in md
    header = next(line for line in md.splitlines() if line.startswith("| parser |  | all | en |"))
    assert header.split(" | ")[3:] == [*board.languages[:-1], board.languages[-1] + " |"]
    row = board.rows[0]
    stats = row.by_language["zh"].metrics[board.primary]
    assert f"{stats.include_missing:.2f} ({stats.exclude_missing:.2f})" in md
    page = render_html(board, results, csp=False)
    assert "<h2>By language</h2>" in page and "<h2>By variant</h2>" in page
    assert 'data-filter="language"' in page
    assert 'data-language="zh"' in expanded_html(page) and 'data-variant="scan"' in expanded_html(page)


def test_formula_track_has_its_own_breakdowns() -> None:
    formulas = [ItemResult("A", "s", f"p{i}", 0, "inline", "ok", scores={"formula_score": 10.0}, kind="formula",
                            language=lang, variant="digital") for i, lang in enumerate(["ar", "hi"])]
    tracks = boards(RUN + formulas)
    assert tracks["formula"].languages == ["ar", "hi"] and tracks["formula"].variants == []
    assert "### Formulas by language" in render_markdown(tracks["table"], more=[tracks["formula"]])


def test_gate_breaks_down_by_the_result_fields() -> None:
    """The aggregate gate selects `language=` / `variant=` on the same fields the leaderboard groups by."""
    pairs = gate_pairs(RUN, lambda r: {"semantic": 5.0})
    assert [(p.attrs["language"], p.attrs["variant"]) for p in pairs] == [("ru", "digital"), ("ru", "scan"),
                                                                           ("zh", "scan")]
