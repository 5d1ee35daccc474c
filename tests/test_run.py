"""evaluate_page on real pages: every outcome, the matched span, scores of exact extractions."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tablebench.cases import CaseSet, load_case_set
from tablebench.core.results import CELL_DIFF, OUTCOMES
from tablebench.evaluate.page import evaluate_page
from tablebench.parse.prefetch import ParsePool
from tests.conftest import shared_path

PAGES = ("002", "074")  # 2 + 3 tables, one of them complex
PY = sys.executable


def copy_pages(dest: Path, pages: tuple[str, ...] = PAGES) -> Path:
    """A two-page pdf-parse-bench folder copied from ../shared (skips without it)."""
    src = shared_path("data", "pdf-parse-bench-2026q1-tables-sample")
    for sub, ext in (("pdfs", "pdf"), ("ground_truth", "json")):
        (dest / sub).mkdir(parents=True, exist_ok=True)
        for page in pages:
            shutil.copy(src / sub / f"{page}.{ext}", dest / sub / f"{page}.{ext}")
    return dest


def markdown(grid: list[list[str]]) -> str:
    """A pipe table of a span-free grid, first row as header."""
    lines = ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in grid]
    lines.insert(1, "|" + "---|" * len(grid[0]))
    return "\n".join(lines)


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> CaseSet:
    return load_case_set(copy_pages(tmp_path_factory.mktemp("set") / "bench"))


@pytest.fixture(scope="module")
def pool() -> ParsePool:
    runners = ParsePool()
    yield runners
    runners.close()


def write_outputs(folder: Path, cases: CaseSet, skip: frozenset[tuple[str, int]] = frozenset()) -> Path:
    """Precomputed Markdown pages holding the exact tables: pipe tables where a table is plain
    (no spans, no backslashes the Markdown reader would unescape), HTML tables otherwise."""
    folder.mkdir(parents=True, exist_ok=True)
    for page in cases.pages:
        parts = []
        for t in page.tables:
            if (page.page_id, t.index) in skip:
                continue
            cells = t.table.cells()
            plain = all(c.rowspan == c.colspan == 1 and "\\" not in c.text for c in cells)
            body = markdown(t.table.text_grid(fill="")) if plain else t.table.to_html()
            parts.append(f"Prose before table {t.index}, unrelated words.\n\n{body}\n")
        (folder / f"{page.pdf.stem}.md").write_text("\n".join(parts), encoding="utf-8")
    return folder


def test_exact_extractions_score_full_marks_and_keep_the_literal_span(cases, tmp_path, pool):
    out = write_outputs(tmp_path / "out", cases)
    kinds = set()
    for page in cases.pages:
        text = (out / f"{page.pdf.stem}.md").read_text(encoding="utf-8")
        results = evaluate_page(page, f"dir:{out}", None, cache_dir=tmp_path / "cache", pool=pool)
        assert [r.index for r in results] == [t.index for t in page.tables]
        for r, gt in zip(results, page.tables):
            assert r.outcome == "ok", r.message
            assert (r.case_set, r.page, r.group, r.gt_latex) == (cases.name, page.page_id, gt.complexity, gt.latex)
            start, end = r.matched_span
            assert text[start:end] == r.matched_text
            kinds.add(r.matched_text[0])
            assert r.scores["teds"] == pytest.approx(1.0) and r.scores["grits_con"] == pytest.approx(1.0)
            assert r.scores["tlag"] == pytest.approx(1.0) and r.scores["semantic"] == pytest.approx(10.0)
            assert set(r.scores) >= {"teds_struct", "grits_top", "tlag_precision"}
            # evidence for the report, stored while scoring: an exact table's diff is counts only
            counts = r.evidence[CELL_DIFF]["counts"]
            assert counts["equal"] > 0 and counts["changed"] == counts["missing"] == counts["extra"] == 0
        # the page's whole output once, on its first result, so spans can be shown in it
        assert results[0].page_output == text and all(r.page_output is None for r in results[1:])
    assert kinds == {"|", "<"}, "both a pipe table and an HTML table should be located"


def test_a_table_left_out_is_missing_and_the_others_still_score(cases, tmp_path, pool):
    page = cases.pages[1]
    out = write_outputs(tmp_path / "out", cases, skip={(page.page_id, 1)})
    results = evaluate_page(page, f"dir:{out}", "teds", cache_dir=None, pool=pool)
    assert [r.outcome for r in results] == ["ok", "missing", "ok"]
    assert results[1].message.startswith("not found in parser output: ")
    assert results[1].scores == {} and results[1].matched_span is None
    assert [set(r.scores) for r in (results[0], results[2])] == [{"teds"}, {"teds"}]


def test_a_missing_table_keeps_its_best_candidate_for_the_report(cases, tmp_path, pool):
    page = cases.pages[1]
    out = write_outputs(tmp_path / "out", cases, skip={(page.page_id, 1)})
    file = out / f"{page.pdf.stem}.md"
    weak = "| Unrelated | Words |\n|---|---|\n| " + " | ".join(page.tables[1].table.text_grid(fill="")[-1][:2]) + " |"
    file.write_text(file.read_text(encoding="utf-8") + f"\n{weak}\n", encoding="utf-8")
    results = evaluate_page(page, f"dir:{out}", "teds", cache_dir=None, pool=pool)
    assert results[1].outcome == "missing", results[1].message
    best = results[1].best_candidate
    start, end = best["span"]
    assert file.read_text(encoding="utf-8")[start:end] == best["text"] and best["score"] == results[1].locate_score
    assert all(r.best_candidate is None for r in (results[0], results[2]))


def test_no_output_file_is_empty_for_every_table(cases, tmp_path, pool):
    (tmp_path / "none").mkdir()
    results = evaluate_page(cases.pages[1], f"dir:{tmp_path / 'none'}", "teds", cache_dir=None, pool=pool)
    assert {r.outcome for r in results} == {"empty"} and len(results) == 3
    assert all(r.message.startswith("empty: no 074{") for r in results)


@pytest.mark.parametrize("command, outcome, says", [
    ("sh -c 'echo boom >&2; exit 1' sh {pdf}", "parse_error", "exited with code 1: boom"),
    (f"{PY} -c 'import os,sys; sys.stdout.buffer.write(os.urandom(6000))' {{pdf}}", "parse_error", "looks binary"),
    ("sh -c 'sleep 30' sh {pdf}", "timeout", "no output within 1 s"),
])
def test_a_failing_parser_gives_its_outcome_to_every_table(cases, tmp_path, pool, command, outcome, says):
    results = evaluate_page(cases.pages[1], f"command:{command}", "teds", cache_dir=tmp_path, timeout=1, pool=pool)
    assert [r.outcome for r in results] == [outcome] * 3
    assert all(r.message.startswith(f"{outcome}: ") and says in r.message for r in results), results[0].message
    assert all(r.scores == {} and "\n" not in r.message for r in results)
    assert outcome in OUTCOMES


def test_a_real_parser_is_parsed_once_then_read_from_the_cache(cases, tmp_path, pool):
    page = cases.pages[0]
    first = evaluate_page(page, "pypdf", "teds", cache_dir=tmp_path, pool=pool)
    again = evaluate_page(page, "pypdf", "teds", cache_dir=tmp_path, pool=pool)
    assert {r.outcome for r in first} <= {"ok", "missing"}
    assert [r.parse_cached for r in first + again] == [False] * 2 + [True] * 2
    assert [r.scores for r in first] == [r.scores for r in again]
    assert first[0].parse_seconds > 0 and first[0].parse_seconds == again[0].parse_seconds
    assert len(list(tmp_path.rglob("*.json"))) == 1


def test_the_pool_reuses_one_runner_per_parser_setting(tmp_path):
    pool = ParsePool()
    try:
        assert pool.get("pypdf", tmp_path, 5) is pool.get("pypdf", tmp_path, 5.0)
        assert pool.get("pypdf", tmp_path, 5) is not pool.get("pypdf", tmp_path, 6)
    finally:
        pool.close()


def test_bad_input_gives_one_line_errors(cases, tmp_path, pool):
    with pytest.raises(ValueError, match="unknown metric"):
        evaluate_page(cases.pages[0], "pypdf", "teds,nope", cache_dir=tmp_path, pool=pool)
    with pytest.raises(ValueError, match="unknown parser"):
        evaluate_page(cases.pages[0], "nope", None, cache_dir=tmp_path, pool=pool)


def test_judge_scores_located_tables_and_gives_missing_ones_zero_without_a_call(cases, tmp_path, pool):
    from tests.llm_server import LLMServer, Reply

    page = cases.pages[1]
    out = write_outputs(tmp_path / "out", cases, skip={(page.page_id, 2)})
    verdict = json.dumps({"errors": ["a value moved"], "score": 7})
    with LLMServer([Reply(content=verdict)]) as server:
        results = evaluate_page(page, f"dir:{out}", "teds", cache_dir=tmp_path, judge="openai/tiny-judge",
                                judge_options={"api_base": server.api_base}, pool=pool)
        assert len(server.requests) == 2
        again = evaluate_page(page, f"dir:{out}", "teds", cache_dir=tmp_path, judge="openai/tiny-judge",
                              judge_options={"api_base": server.api_base}, pool=pool)
        assert len(server.requests) == 2, "judge answers are cached under the cache dir"
    assert [r.outcome for r in results] == ["ok", "ok", "missing"]
    assert [r.scores["judge"] for r in results] == [7.0, 7.0, 0.0]
    assert results[0].judge_errors == ["a value moved"]
    assert [r.judge_cached for r in again] == [True, True, None]


def test_a_failed_parse_scores_judge_zero_without_a_call(cases, tmp_path, pool):
    """Nothing to judge: like a missing table, 0 without a request (the endpoint does not exist)."""
    results = evaluate_page(cases.pages[0], "command:false {pdf}", "teds", cache_dir=tmp_path / "cache", pool=pool,
                            judge="openai/never-called", judge_options={"api_base": "http://127.0.0.1:9/v1"})
    assert {r.outcome for r in results} == {"parse_error"}
    assert all(r.scores == {"judge": 0.0} for r in results)


def break_table(folder: Path, page: str, index: int, latex: str = "}}}{{{") -> Path:
    """Replace one ground-truth table's LaTeX in a pdf-parse-bench folder (e.g. by one that reads as no table)."""
    path = folder / "ground_truth" / f"{page}.json"
    blocks = json.loads(path.read_text(encoding="utf-8"))
    tables = [b for b in blocks if b["type"] == "table"]
    tables[index]["data"] = latex
    path.write_text(json.dumps(blocks), encoding="utf-8")
    return folder


def test_unreadable_ground_truth_is_an_error_case_and_the_others_still_score(cases, tmp_path, pool):
    out = write_outputs(tmp_path / "out", cases)
    broken = load_case_set(break_table(copy_pages(tmp_path / "bench"), "074", 1))
    results = evaluate_page(broken.pages[1], f"dir:{out}", "teds,semantic", cache_dir=None, pool=pool, label="mine")
    assert [r.outcome for r in results] == ["ok", "error", "ok"]
    bad = results[1]
    assert bad.message.startswith("error: ground truth unreadable (NoTableError: ") and "\n" not in bad.message
    assert bad.scores == {} and bad.index == 1 and bad.gt_latex == "}}}{{{"
    assert [r.parser for r in results] == ["mine"] * 3 and results[0].spec == f"dir:{out}"
    assert results[0].scores["teds"] == pytest.approx(1.0) and results[2].scores["semantic"] == pytest.approx(10.0)
    assert "error" in OUTCOMES


def test_a_metric_that_raises_makes_an_error_case_not_a_crash(cases, tmp_path, pool, request):
    from tablebench.core.metric_specs import MetricSpec, register, unregister

    def boom(gt, pred):
        raise ZeroDivisionError("float division by zero\n  in a deep frame")

    register(MetricSpec("boom", "table", ("boom",), "boom", boom, default=False))
    request.addfinalizer(lambda: unregister("boom"))
    page = cases.pages[1]
    out = write_outputs(tmp_path / "out", cases, skip={(page.page_id, 2)})
    results = evaluate_page(page, f"dir:{out}", "teds,boom", cache_dir=None, pool=pool)
    assert [r.outcome for r in results] == ["error", "error", "missing"]
    assert results[0].message == "error: scoring failed (ZeroDivisionError: float division by zero in a deep frame)"
    assert results[0].scores == {} and results[0].pred_html is None


def test_a_page_whose_evaluation_raised_gives_every_table_an_error(cases):
    from tablebench.evaluate.page import page_error_results

    results = page_error_results(cases.pages[1], "command:x {pdf}", RuntimeError("bad\nthing"), label="x")
    assert [(r.outcome, r.index, r.parser, r.spec) for r in results] == [
        ("error", i, "x", "command:x {pdf}") for i in range(3)]
    assert results[0].message == "error: page failed (RuntimeError: bad thing)"


def test_semantic_errors_travel_with_the_result(cases, tmp_path, pool):
    page = cases.pages[1]
    out = write_outputs(tmp_path / "out", cases)
    path = out / "074.md"
    text = path.read_text(encoding="utf-8")
    assert text.count("1.42") == 1
    path.write_text(text.replace("1.42", "9.99"), encoding="utf-8")
    results = evaluate_page(page, f"dir:{out}", "semantic", cache_dir=None, pool=pool)
    changed = [r for r in results if r.errors]
    assert len(changed) == 1 and changed[0].scores["semantic"] < 10
    assert any("9.99" in e for e in changed[0].errors) and len(changed[0].errors) <= 5
    assert all(r.errors == [] for r in results if r is not changed[0])


def test_non_finite_or_negative_page_seconds_and_cost_count_zero(cases):
    """A parser's meta once carried 1e309 seconds into the report, which then crashed at session end."""
    from tablebench.core.kinds import get
    from tablebench.evaluate.page import _base_results
    from tablebench.parse.runner import ParseResult

    for seconds, cost in ((float("inf"), -2.0), (float("nan"), "x"), (None, float("-inf"))):
        parsed = ParseResult("ok", "", "", {"seconds": seconds, "cost": cost}, "p", "1", {}, "0" * 64)
        assert {(r.parse_seconds, r.cost) for r in _base_results(cases.pages[1], get("table"), "p", "p", parsed)} == {(0.0, 0.0)}
    parsed = ParseResult("ok", "", "", {"seconds": 1.5, "cost": 0.25}, "p", "1", {}, "0" * 64)
    assert {(r.parse_seconds, r.cost) for r in _base_results(cases.pages[1], get("table"), "p", "p", parsed)} == {(1.5, 0.25)}
