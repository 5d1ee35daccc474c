"""The text kind through the real stages: case sets, a real parser on a committed PDF, the card, and
the plugin with `--kinds` (pytester, as the other plugin tests)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablebench.cases import load_case_set
from tablebench.core import kinds as item_kinds
from tablebench.core.results import TEXT_DIFF, ItemResult
from tablebench.evaluate.page import evaluate_page
from tablebench.metrics.text.details import text_diff
from tablebench.parse.prefetch import ParsePool
from tablebench.report.html_data import expanded_html
from tablebench.report.text_card import text_sides
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]
TEXT_SCORES = {"text_fidelity", "reading_order", "text_recall", "text_precision"}


def test_text_is_opt_in_and_read_as_one_item_per_page_grouped_by_layout() -> None:
    default = load_case_set("synth-v1", only={"p001", "p004"})
    assert default.kinds == ["table"] and default.count("text") == 0
    cases = load_case_set("synth-v1", only={"p001", "p004"}, kinds="text,table")
    assert cases.kinds == ["table", "text"] and cases.count("text") == 2
    first, fourth = (p.items_of("text")[0] for p in cases.pages)
    assert (first.group, fourth.group) == ("two_column", "one_column")
    record = json.loads((cases.root / "001.json").read_text(encoding="utf-8"))
    assert list(first.blocks) == [b["data"] for b in record["blocks"] if b["type"] == "text"]
    assert all("\\begin" not in b for b in first.blocks), "table text is not prose"
    with pytest.raises(ValueError, match="unknown item kind\\(s\\) prose; known: table, formula, text"):
        item_kinds.chosen("prose")


def test_a_real_parser_on_a_real_page_is_located_scored_and_explained(tmp_path: Path) -> None:
    page = load_case_set("synth-v1", only={"p001"}, kinds="text").pages[0]
    pool = ParsePool()
    try:
        [result] = evaluate_page(page, "pypdf", None, cache_dir=tmp_path, pool=pool)
    finally:
        pool.close()
    assert result.test_id == "synth-v1/p001::x0[pypdf]" and result.outcome == "ok" and result.kind == "text"
    assert set(result.scores) == TEXT_SCORES and all(0.0 <= v <= 1.0 for v in result.scores.values())
    # pypdf writes the tables as lines of prose: invented text, so precision and fidelity fall, recall not
    assert result.scores["text_recall"] > 0.95 and result.scores["text_precision"] < 0.8
    assert any(note.startswith("invented: ") for note in result.errors)
    output = result.page_output
    assert result.matched_text == output[result.matched_span[0]:result.matched_span[1]]
    assert result.evidence[TEXT_DIFF]["counts"]["gt_chars"] > 1000


def test_the_card_marks_each_difference_and_escapes_every_text() -> None:
    gt = ["first <script>alert(1)</script> block here", "second block is dropped entirely", "third & last block"]
    out = "first <script>alert(1)</script> block here\n\nthird & last block\n\nthird & last block\n\nPAGE <b>9</b>"
    diff = text_diff(gt, out)
    result = ItemResult(parser="p", case_set="s", page="p001", index=0, group="one_column", outcome="ok",
                        gt_latex="\n\n".join(gt), matched_text=out, kind="text", evidence={TEXT_DIFF: diff})
    gt_html, pred_html = text_sides(result)
    assert "<script>" not in gt_html + pred_html and "&lt;script&gt;" in gt_html
    assert '<del class="t-missing" title="not in the output">second block is dropped entirely</del>' in gt_html
    assert '<ins class="t-dup" title="a repeat of this block">third &amp; last block</ins>' in pred_html
    assert '<ins class="t-invented" title="not in the ground truth">PAGE 9</ins>' in pred_html
    missing = ItemResult(parser="p", case_set="s", page="p001", index=0, group="x", outcome="missing",
                         gt_latex="a <i>b</i>\n\nc", kind="text")
    gt_html, pred_html = text_sides(missing)
    assert gt_html == '<div class="prose"><p>a &lt;i&gt;b&lt;/i&gt;</p><p>c</p></div>'
    assert "nothing matched" in pred_html


def _run(pytester: pytest.Pytester, tmp_path: Path, *more: str) -> pytest.RunResult:
    return pytester.runpytest(*PLUGIN, "--cases=synth-v1", f"--parse-cache={tmp_path / 'cache'}",
                              "-p", "no:cacheprovider", *more)


def test_kinds_selects_text_and_the_leaderboard_and_results_report_it(pytester: pytest.Pytester,
                                                                     tmp_path: Path) -> None:
    listed = _run(pytester, tmp_path, "--parser=pypdf", "--collect-only", "-q", "-k", "p001")
    ids = [ln for ln in listed.stdout.lines if ln.startswith("synth-v1/")]
    assert ids and all(ln.startswith("synth-v1/p001::t") for ln in ids), "tables stay the default"
    both = _run(pytester, tmp_path, "--parser=pypdf", "--kinds=table,text", "--collect-only", "-q", "-k", "p001")
    assert "synth-v1/p001::x0[pypdf]" in both.stdout.lines and "synth-v1/p001::t0[pypdf]" in both.stdout.lines
    layout = _run(pytester, tmp_path, "--parser=pypdf", "--kinds=text", "--collect-only", "-q", "-m", "one_column")
    ids = [ln for ln in layout.stdout.lines if ln.startswith("synth-v1/")]
    assert "synth-v1/p004::x0[pypdf]" in ids and "synth-v1/p001::x0[pypdf]" not in ids

    report = tmp_path / "report"
    run = _run(pytester, tmp_path, "--parser=pymupdf4llm,pypdf", "--kinds=text", "-k", "p001 or p004",
               "--report-only", f"--report-dir={report}")
    assert run.ret == 0
    text = run.stdout.str()
    assert "text pages" in text and "text_fidelity" in text and "reading_order" in text
    data = json.loads((report / "results.json").read_text(encoding="utf-8"))
    rows = {r["id"]: r for r in data["results"]}
    assert set(rows) == {f"synth-v1/p00{p}::x0[{parser}]" for p in (1, 4) for parser in ("pymupdf4llm", "pypdf")}
    for row in rows.values():
        assert set(row["scores"]) == TEXT_SCORES and row["group"] in ("one_column", "two_column")
    # pymupdf4llm keeps its tables apart from the prose, pypdf writes them into it
    assert rows["synth-v1/p001::x0[pymupdf4llm]"]["scores"]["text_fidelity"] > 0.95
    assert rows["synth-v1/p001::x0[pypdf]"]["scores"]["text_fidelity"] < 0.8
    html = expanded_html((report / "report.html").read_text(encoding="utf-8"))
    assert 'class="prose"' in html and "t-invented" in html
    bad = _run(pytester, tmp_path, "--parser=pypdf", "--kinds=prose", "--collect-only")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    assert "unknown item kind(s) prose; known: table, formula, text" in bad.stderr.str()


# -- the judge ---------------------------------------------------------------------------------------
def test_the_text_judge_prompt_through_a_real_server(tmp_path: Path) -> None:
    from tablebench.core import llm
    from tablebench.metrics.judge import PROMPT_VERSION, TEXT_PROMPT_VERSION, judge_text
    from tests.llm_server import LLMServer, Reply

    blocks = ["First paragraph of the page.", "Second paragraph, left column.", "Third, right column."]
    across = "First paragraph of the page.\nSecond paragraph, Third, right\nleft column. column."
    verdict = json.dumps({"errors": ["paragraphs 2 and 3 are read across the columns"], "score": 4})
    with LLMServer([Reply(content=verdict), Reply(content='{"score": 9}')]) as server:
        llm.litellm_module()
        result = judge_text(blocks, across, "openai/tiny-judge", api_base=server.api_base, cache_dir=tmp_path)
        again = judge_text(blocks, across, "openai/tiny-judge", api_base=server.api_base, cache_dir=tmp_path)
        empty = judge_text(blocks, " \n", "openai/tiny-judge", api_base=server.api_base)
        assert len(server.requests) == 1, "cached answer; an empty extraction is 0 without a call"
        naive = judge_text(blocks, across, "openai/tiny-judge", variant="naive", api_base=server.api_base)
        (system, user), naive_system = server.bodies()[0]["messages"], server.bodies()[1]["messages"][0]
    assert (result.score, again.cached) == (4.0, True)
    assert result.errors == ["paragraphs 2 and 3 are read across the columns"]
    assert (empty.score, naive.score) == (0.0, 9.0)
    assert "text extraction" in system["content"] and "Reading order" in system["content"]
    assert "two-column page read straight across" in system["content"] and "cell-to-header" not in system["content"]
    assert "\n\n".join(blocks) in user["content"] and across in user["content"]
    assert "Reading order" not in naive_system["content"] and "content and order" in naive_system["content"]
    assert TEXT_PROMPT_VERSION != PROMPT_VERSION
    with pytest.raises(ValueError, match="needs the page's text blocks"):
        judge_text("a string, not blocks", "x", "openai/tiny-judge")


def test_judge_scores_each_found_page_and_gives_a_page_without_prose_zero(tmp_path: Path) -> None:
    from tablebench.core import llm
    from tests.llm_server import LLMServer, Reply

    cases = load_case_set("synth-v1", only={"p001", "p004"}, kinds="text")
    out = tmp_path / "out"
    out.mkdir()
    first, fourth = cases.pages
    (out / f"{first.pdf.stem}.md").write_text("\n\n".join(first.items_of("text")[0].blocks), encoding="utf-8")
    (out / f"{fourth.pdf.stem}.md").write_text("| a | b |\n|---|---|\n| 1 | 2 |\n", encoding="utf-8")
    pool = ParsePool()
    try:
        with LLMServer([Reply(content=json.dumps({"errors": [], "score": 9}))]) as server:
            llm.litellm_module()
            results = [r for page in cases.pages for r in
                       evaluate_page(page, f"dir:{out}", None, cache_dir=tmp_path / "c", pool=pool,
                                     judge="openai/tiny-judge", judge_options={"api_base": server.api_base})]
            prompts = [b["messages"] for b in server.bodies()]
    finally:
        pool.close()
    assert [(r.page, r.outcome) for r in results] == [("p001", "ok"), ("p004", "missing")]
    assert len(prompts) == 1 and "text extraction" in prompts[0][0]["content"]
    assert first.items_of("text")[0].blocks[0] in prompts[0][1]["content"]
    assert results[0].scores["judge"] == 9.0 and results[1].scores == {"judge": 0.0}


def test_the_llm_locator_finds_text_as_the_offline_one_without_asking_a_model() -> None:
    page = load_case_set("synth-v1", only={"p001"}, kinds="text").pages[0]
    gts = page.items_of("text")
    output = "\n\n".join(gts[0].blocks[::-1])  # every block, the columns' order reversed
    kind = item_kinds.get("text")
    offline = kind.locate(gts, output)
    # a closed port: any request would fail
    by_llm = kind.locate_llm(gts, output, "openai/none", cache_dir=None, api_base="http://127.0.0.1:9/v1", timeout=1)
    assert [(f.found, f.spans, f.score) for f in by_llm] == [(f.found, f.spans, f.score) for f in offline]
    assert by_llm[0].found


def test_formulas_found_in_a_text_layer_output_are_theirs_not_invented_prose(tmp_path: Path) -> None:
    """pypdf writes a page's inline formulas as Unicode inside its sentences (`p(n | d)`): the
    formula items found there own that text, and the prose is charged for what is left. Without a
    formula item (`--kinds=text`) the same text is invented prose, as a reader of prose alone sees it."""
    from tablebench.metrics.text.alignment import align_text
    from tablebench.metrics.text.scores import counts, precision_of

    pool = ParsePool()
    try:
        for name in ("p001", "p008"):
            page = load_case_set("formulas-v1", only={name}, kinds="formula,text").pages[0]
            results = evaluate_page(page, "pypdf", None, cache_dir=tmp_path, pool=pool)
            [text] = [r for r in results if r.kind == "text"]
            found = [r for r in results if r.kind == "formula" and r.outcome == "ok"]
            assert found, "pypdf's formulas are found as text"
            alone = counts(align_text(page.items_of("text")[0].blocks, text.page_output or results[0].page_output))
            assert text.scores["text_precision"] > precision_of(alone) + 0.02
            assert text.scores["text_recall"] >= 0.98, "no prose word is taken for a formula's"
            prose_only = load_case_set("formulas-v1", only={name}, kinds="text").pages[0]
            [same] = evaluate_page(prose_only, "pypdf", None, cache_dir=tmp_path, pool=pool)
            assert same.scores["text_precision"] == pytest.approx(precision_of(alone))
    finally:
        pool.close()


def test_unclaimed_text_keeps_the_outputs_offsets_and_lines() -> None:
    from tablebench.evaluate.page import unclaimed

    output = "We set $x$ here.\n$$\na = b\n$$\nThen more."
    left = unclaimed(output, [(7, 10), (17, 28)])
    assert len(left) == len(output) and left.count("\n") == output.count("\n")
    assert left.split() == ["We", "set", "here.", "Then", "more."]
    assert unclaimed(output, []) is output
