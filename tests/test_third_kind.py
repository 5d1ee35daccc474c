"""A third item kind (tests/kinds/keywords.py) runs through the library by adding its module only; the
built-in text kind runs through the same stages (baseline, gate, shards and merge, compare, report)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablebench.cases import load_case_set
from tablebench.evaluate.page import evaluate_page
from tablebench.parse.prefetch import ParsePool
from tablebench.report.html_data import expanded_html
from tablebench.report.write import write_report
from tests.kinds import keywords
from tests.test_run import copy_pages, write_outputs
from tests.test_text_perturbations import hyphenated

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
    from tablebench.core.kinds import get, register

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
    from tablebench.cli import main

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
    from tablebench.core.results import ItemResult
    from tablebench.report.aggregate import boards

    chart = ItemResult("p", "s", "p001", 0, "simple", "ok", kind="chart")
    with pytest.raises(ValueError, match="unknown item kind.*'chart'.*install the package"):
        boards([chart])


# -- the built-in text kind through the same stages, on committed pages ---------------------------
TEXT_PAGES = [f"p{i:03d}" for i in range(1, 9)]  # p001 two columns ... p008 one column (synth-v1)
SELECT = " or ".join(TEXT_PAGES)


def _across(blocks: list[str]) -> str:
    """The prose as a two-column page read straight across its columns, line by line."""
    import textwrap

    words = " ".join(blocks).split()
    half = len(words) // 2
    left, right = (textwrap.wrap(" ".join(w), 40) for w in (words[:half], words[half:]))
    rows = max(len(left), len(right))
    left, right = left + [""] * (rows - len(left)), right + [""] * (rows - len(right))
    return "\n".join(f"{a:<42}{b}".rstrip() for a, b in zip(left, right, strict=True))


def text_outputs(folder: Path, damage: bool) -> Path:
    """One Markdown output per page of TEXT_PAGES: the page's prose exactly; with `damage`, p001 read
    across its two columns, p002 hyphenated at every line end, and every other page without its
    longest paragraph (p003 also ending in a marked-up footer, which the card must escape)."""
    pages = load_case_set("synth-v1", kinds="text", only=set(TEXT_PAGES)).pages
    folder.mkdir(parents=True)
    for page in pages:
        blocks = list(page.items_of("text")[0].blocks)
        if not damage:
            text = "\n\n".join(blocks)
        elif page.page_id == "p001":
            text = _across(blocks)
        elif page.page_id == "p002":
            text = hyphenated(blocks)
        else:
            longest = max(range(len(blocks)), key=lambda k: len(blocks[k]))
            text = "\n\n".join(blocks[:longest] + blocks[longest + 1:])
            if page.page_id == "p003":
                text += "\n\nFooter <script>alert('x')</script> & more"
        (folder / f"{page.pdf.stem}.md").write_text(text, encoding="utf-8")
    return folder


def _text_run(pytester: pytest.Pytester, tmp_path: Path, outputs: Path, report: str, *more: str) -> pytest.RunResult:
    from tests.test_plugin import PLUGIN

    return pytester.runpytest(*PLUGIN, "--cases=synth-v1", "--kinds=text", f"--parser=mine=dir:{outputs}",
                              "-k", SELECT, f"--report-dir={tmp_path / report}", "-rf", "-p", "no:cacheprovider",
                              *more)


def _scores(run_dir: Path) -> dict[str, dict]:
    data = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    return {r["page"]: r for r in data["results"]}


def test_the_text_kind_runs_through_baseline_gate_shards_merge_compare_and_report(
        pytester: pytest.Pytester, tmp_path: Path) -> None:
    from tablebench.cli import main

    good, bad = text_outputs(tmp_path / "good", damage=False), text_outputs(tmp_path / "bad", damage=True)
    base = tmp_path / "base.json"
    first = _text_run(pytester, tmp_path, good, "good", f"--save-baseline={base}", "--report-only")
    assert first.ret == 0
    full = _scores(tmp_path / "good")
    assert sorted(full) == TEXT_PAGES and all(r["outcome"] == "ok" for r in full.values())
    assert all(r["scores"]["text_fidelity"] == r["scores"]["reading_order"] == 1.0 for r in full.values())
    assert json.loads(base.read_text(encoding="utf-8"))["cases"], "the baseline holds the text items"

    # shards: each runs a share of the pages; merged, they are the unsharded run
    for shard in ("1/2", "2/2"):
        share = _text_run(pytester, tmp_path, good, shard.replace("/", "of"), f"--shard={shard}", "--report-only")
        assert share.ret == 0
    shares = [set(_scores(tmp_path / s)) for s in ("1of2", "2of2")]
    assert all(shares) and not shares[0] & shares[1]
    assert main(["report", "merge", str(tmp_path / "1of2"), str(tmp_path / "2of2"), "--out", str(tmp_path / "m")]) == 0
    merged = _scores(tmp_path / "m")
    assert {p: (r["id"], r["outcome"], r["scores"]) for p, r in merged.items()} == \
        {p: (r["id"], r["outcome"], r["scores"]) for p, r in full.items()}
    assert (tmp_path / "m" / "leaderboard.md").read_text(encoding="utf-8").count("text_fidelity") == \
        (tmp_path / "good" / "leaderboard.md").read_text(encoding="utf-8").count("text_fidelity") > 0

    # crafted damage, each moving its own metric: order for the columns read across, fidelity and
    # recall for a dropped paragraph, nothing for hyphenated line ends
    gated = _text_run(pytester, tmp_path, bad, "bad", f"--baseline={base}", "--min-score=text_fidelity=0.9",
                      "--gate=text_fidelity", "--gate=reading_order",
                      "--gate=reading_order:two_column")
    out = gated.stdout.str()
    assert gated.ret == pytest.ExitCode.TESTS_FAILED
    now = {p: r["scores"] for p, r in _scores(tmp_path / "bad").items()}
    assert now["p001"]["reading_order"] < 0.7 and now["p001"]["text_fidelity"] > 0.97
    assert now["p002"]["text_fidelity"] > 0.995 and now["p002"]["reading_order"] == 1.0
    for p in TEXT_PAGES[2:]:
        assert now[p]["text_fidelity"] < 0.9 and now[p]["text_recall"] < 0.9 and now[p]["reading_order"] == 1.0
    failed = {ln.split()[1] for ln in out.splitlines() if ln.startswith("FAILED")}
    assert failed == {f"synth-v1/{p}::x0[mine]" for p in TEXT_PAGES if p != "p002"} | {
        "tablebench::gate[text_fidelity]"}
    verdicts = json.dumps([r["verdict"] for r in _scores(tmp_path / "bad").values()], ensure_ascii=False)
    assert "text_fidelity 0.49 < min 0.90" in verdicts and "¶4 missing: 'Mission idea" in verdicts
    assert "reading_order 0.53 < baseline 1.00" in verdicts and "read out of order: '" in verdicts
    assert "mine: text_fidelity … < min 0.90" in out and "mine: reading_order 0.53 < baseline 1.00" in out, \
        "each cause in the terminal, the numbers its cases share"
    assert "REGRESSION: text_fidelity [mine]: 1.000 -> 0.744" in out
    assert "no change: reading_order [mine]: 1.000 -> 0.941" in out, "one page out of order: not significant"
    assert "no change: reading_order:two_column [mine]: 1.000 -> 0.905" in out, "a layout is a subset"
    assert "gate FAILED: 1 of 3 gated comparisons regressed" in out

    # merge of the damaged run takes the same gating options and reaches the same verdict
    for shard in ("1/2", "2/2"):
        _text_run(pytester, tmp_path, bad, "bad" + shard.replace("/", "of"), f"--shard={shard}", "--report-only")
    assert main(["report", "merge", str(tmp_path / "bad1of2"), str(tmp_path / "bad2of2"), "--out",
                 str(tmp_path / "bad-m"), f"--baseline={base}", "--gate=text_fidelity"]) == 1

    # compare: both runs' text means side by side, and the pages that moved most
    compared, cards = tmp_path / "compare.md", tmp_path / "compare.html"
    assert main(["compare", str(tmp_path / "good"), str(tmp_path / "bad"), "--markdown", str(compared),
                 "--html", str(cards)]) == 0
    table = compared.read_text(encoding="utf-8")
    assert "| text\\_fidelity | 1.000 | 0.744 | -0.256 |" in table and "| reading\\_order | 1.000 | 0.941 |" in table
    assert "synth-v1/p008::x0](compare.html#" in table and "| 1.000 → 0.488 (-0.512) |" in table
    footer = '<ins class="t-invented" title="not in the ground truth">Footer alert(&#x27;x&#x27;) &amp; more</ins>'
    side_by_side = cards.read_text(encoding="utf-8")
    assert 'class="prose"' in side_by_side and "t-missing" in side_by_side and footer in side_by_side
    assert "<script>alert(" not in side_by_side

    # the report: a text card per page (missing words struck, text out of order marked), escaped
    html = expanded_html((tmp_path / "bad" / "report.html").read_text(encoding="utf-8"))
    assert html.count('<div class="prose">') >= 2 * len(TEXT_PAGES) and footer in html
    assert "t-missing" in html and "t-order" in html and "<script>alert(" not in html
