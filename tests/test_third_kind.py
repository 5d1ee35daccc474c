"""A third item kind (tests/kinds/keywords.py) runs through the library by adding its module only."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.cases import load_case_set
from harness.evaluate.page import evaluate_page
from harness.parse.prefetch import ParsePool
from harness.report.html_data import expanded_html
from harness.report.write import write_report
from tests.kinds import keywords
from tests.test_run import copy_pages, write_outputs

WORDS = ["Lorem", "Ipsum", "Zebra"]  # found as written, found as "ipsum", not in the output


@pytest.fixture()
def keyword_kind() -> Iterator[None]:
    keywords.install()
    yield
    keywords.uninstall()


def keyword_cases(dest: Path) -> Path:
    """Two sample pages, the first with three keyword blocks added."""
    root = copy_pages(dest)
    gt = sorted((root / "ground_truth").glob("*.json"))[0]
    blocks = json.loads(gt.read_text(encoding="utf-8"))
    gt.write_text(json.dumps(blocks + [{"type": "keyword", "data": w} for w in WORDS]), encoding="utf-8")
    return root


def keyword_outputs(folder: Path, cases) -> Path:
    """Perfect table outputs, the first page also saying "Lorem ipsum"."""
    out = write_outputs(folder, cases)
    first = out / f"{cases.pages[0].pdf.stem}.md"
    first.write_text(first.read_text(encoding="utf-8") + "\nLorem ipsum dolor sit amet.\n", encoding="utf-8")
    return out


def test_a_registered_kind_is_read_located_scored_and_reported(keyword_kind, tmp_path: Path) -> None:
    cases = load_case_set(keyword_cases(tmp_path / "kw"))
    assert cases.kinds == ["table", "keyword"] and cases.count("keyword") == 3
    out = keyword_outputs(tmp_path / "out", cases)
    pool = ParsePool()
    try:
        results = [r for page in cases.pages for r in evaluate_page(page, f"dir:{out}", None, cache_dir=None, pool=pool)]
    finally:
        pool.close()
    words = [r for r in results if r.kind == "keyword"]
    page = f"{cases.name}/{cases.pages[0].page_id}"
    assert [r.test_id for r in words] == [f"{page}::k{i}[dir:{out}]" for i in range(3)]
    assert [r.outcome for r in words] == ["ok", "ok", "missing"]
    assert words[0].scores == {"keyword_match": 1.0} and 0 < words[1].scores["keyword_match"] < 1
    assert words[1].errors == ["'Ipsum' written as 'ipsum'"] and words[1].matched_text == "ipsum"
    assert words[2].message == "not found in parser output: the word is not in the output"
    assert all(r.outcome == "ok" and r.scores["teds"] == 1.0 for r in results if r.kind == "table")

    paths = write_report(results, tmp_path / "report")
    data = json.loads(paths["json"].read_text(encoding="utf-8"))
    board = data["keyword_leaderboard"]
    assert board["kind"] == "keyword" and board["primary"] == "keyword_match"
    assert board["rows"][0]["overall"]["found"] == 2 and board["rows"][0]["overall"]["total"] == 3
    markdown = paths["markdown"].read_text(encoding="utf-8")
    assert "## Keywords" in markdown and "### Every keyword metric" in markdown and "### Keyword outcomes" in markdown
    html = expanded_html(paths["html"].read_text(encoding="utf-8"))
    assert "Keyword leaderboard" in html and "written as" in html and "k2[dir:" in html


def test_an_unknown_kind_or_a_taken_prefix_is_a_one_line_error(keyword_kind) -> None:
    from harness.core.kinds import get, register

    with pytest.raises(ValueError, match="unknown item kind 'chart'; known: table, formula, text, keyword"):
        get("chart")
    clash = keywords.KeywordKind()
    clash.name = "keyword2"
    with pytest.raises(ValueError, match="share the id prefix 'k'"):
        register(clash)

    class Other(keywords.KeywordKind):
        prefix = "q"

    with pytest.raises(ValueError, match="item kind 'keyword' is registered twice"):
        register(Other())
    again = keywords.KeywordKind()  # its module imported anew (an in-process pytest run ended): replaces
    assert register(again) is again and get("keyword") is again


# -- through pytest, shards, merge, the gate and the report -------------------------------------
pytest_plugins = ["pytester"]


def _run(pytester: pytest.Pytester, cases: Path, tmp_path: Path, *more: str) -> pytest.RunResult:
    from tests.test_plugin import PLUGIN

    return pytester.runpytest(*PLUGIN, f"--cases={cases}", f"--parse-cache={tmp_path / 'cache'}", "-rf",
                              "-p", "no:cacheprovider", "--no-verify", *more)


def test_a_registered_kind_runs_through_the_plugin_shards_merge_gate_and_report(
        keyword_kind, pytester: pytest.Pytester, tmp_path: Path) -> None:
    from harness.cli import main

    pytester.makeconftest("from tests.kinds import keywords\nkeywords.install()\n")
    root = keyword_cases(tmp_path / "kw")
    cases = load_case_set(root)
    good = keyword_outputs(tmp_path / "good", cases)
    listed = _run(pytester, root, tmp_path, f"--parser=mine=dir:{good}", "--collect-only", "-q", "-m", "word")
    page = f"kw/{cases.pages[0].page_id}"
    assert [ln for ln in listed.stdout.lines if ln.startswith("kw/")] == [f"{page}::k{i}[mine]" for i in range(3)]

    base = tmp_path / "base.json"
    first = _run(pytester, root, tmp_path, f"--parser=mine=dir:{good}", f"--report-dir={tmp_path / 'full'}",
                 f"--save-baseline={base}", "--report-only")
    assert first.ret == 0
    full = json.loads((tmp_path / "full" / "results.json").read_text(encoding="utf-8"))
    assert [r["outcome"] for r in full["results"] if r["kind"] == "keyword"] == ["ok", "ok", "missing"]
    assert "keywords" in first.stdout.str() and full["keyword_leaderboard"]["primary"] == "keyword_match"

    for shard in ("1/2", "2/2"):
        _run(pytester, root, tmp_path, f"--parser=mine=dir:{good}", f"--shard={shard}", "--report-only",
             f"--report-dir={tmp_path / shard.replace('/', 'of')}")
    assert main(["report", "merge", str(tmp_path / "1of2"), str(tmp_path / "2of2"), "--out", str(tmp_path / "m")]) == 0
    merged = json.loads((tmp_path / "m" / "results.json").read_text(encoding="utf-8"))
    assert [(r["kind"], r["page"], r["index"], r["outcome"]) for r in merged["results"]] == \
        [(r["kind"], r["page"], r["index"], r["outcome"]) for r in full["results"]]
    assert "## Keywords" in (tmp_path / "m" / "leaderboard.md").read_text(encoding="utf-8")

    worse = keyword_outputs(tmp_path / "worse", cases)
    first_page = worse / f"{cases.pages[0].pdf.stem}.md"
    first_page.write_text(first_page.read_text(encoding="utf-8").replace("Lorem ipsum", "Lorum ipsum"), encoding="utf-8")
    gated = _run(pytester, root, tmp_path, f"--parser=mine=dir:{worse}", f"--baseline={base}",
                 "--min-score=keyword_match=0.5", "--gate=keyword_match", f"--report-dir={tmp_path / 'worse-run'}")
    out = gated.stdout.str()
    assert gated.ret == pytest.ExitCode.TESTS_FAILED
    assert "keyword_match [mine]: 0.950 -> 0.450" in out and "keyword_match:word [mine]" in out
    assert f"{page}::k0[mine]" in out and "not found" in out
    assert all(f"{page}::t" not in ln for ln in out.splitlines() if ln.startswith("FAILED"))
    report = (tmp_path / "worse-run" / "report.html").read_text(encoding="utf-8")
    assert "Keyword leaderboard" in report


def test_results_of_an_unregistered_kind_are_an_error_not_dropped() -> None:
    from harness.core.results import ItemResult
    from harness.report.aggregate import boards

    chart = ItemResult("p", "s", "p001", 0, "simple", "ok", kind="chart")
    with pytest.raises(ValueError, match="unknown item kind.*'chart'.*install the package"):
        boards([chart])
