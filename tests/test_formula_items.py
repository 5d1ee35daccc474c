"""Formulas as benchmark items beside tables: loading, evaluate_page, gating, reports, judge."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from tablebench.cases import GroundTruthFormula, load_case_set
from tablebench.core.results import ItemResult
from tablebench.evaluate.page import evaluate_page, page_error_results
from tablebench.evaluate.selection import metric_names, metric_selection
from tablebench.gating.rules import Gate, floors_for
from tablebench.generate.importer import import_bench
from tablebench.parse.prefetch import ParsePool
from tablebench.report.aggregate import boards
from tablebench.report.html_data import expanded_html
from tablebench.report.markdown import render_markdown
from tablebench.report.terminal import tracks_group
from tablebench.report.results_file import read_results
from tablebench.report.write import write_report
from tests.conftest import shared_path
from tests.test_run import copy_pages, write_outputs

FORMULA_PAGES = ("004", "011", "017")


def formula_sample() -> Path:
    return shared_path("data", "pdf-parse-bench-2026q1-formulas-sample")


def copy_formula_pages(dest: Path, pages: tuple[str, ...] = FORMULA_PAGES) -> Path:
    """A few pages of the pdf-parse-bench formula sample (skips without ../shared)."""
    src = formula_sample()
    for sub, ext in (("pdfs", "pdf"), ("ground_truth", "json")):
        (dest / sub).mkdir(parents=True, exist_ok=True)
        for page in pages:
            shutil.copy(src / sub / f"{page}.{ext}", dest / sub / f"{page}.{ext}")
    return dest


def write_perfect(folder: Path, cases, drop: frozenset[tuple[str, int]] = frozenset()) -> Path:
    """Outputs holding every ground-truth formula exactly as the ground truth writes it (and the
    tables as `write_outputs` writes them), prose between; `drop` leaves (page, formula) out."""
    if any(p.tables for p in cases.pages):
        write_outputs(folder, cases)
    folder.mkdir(parents=True, exist_ok=True)
    for page in cases.pages:
        path = folder / f"{page.pdf.stem}.md"
        parts = [path.read_text(encoding="utf-8")] if path.exists() else []
        parts += [f"Some words before.\n\n{f.latex}\n" for f in page.formulas if (page.page_id, f.index) not in drop]
        path.write_text("\n".join(parts), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def pool() -> ParsePool:
    runners = ParsePool()
    yield runners
    runners.close()


@pytest.fixture(scope="module")
def fcases(tmp_path_factory: pytest.TempPathFactory):
    return load_case_set(copy_formula_pages(tmp_path_factory.mktemp("fset") / "fbench"))


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory):
    """Page 002 of the table sample with two formulas added to its ground truth: one page, both kinds."""
    root = copy_pages(tmp_path_factory.mktemp("mset") / "mixed", pages=("002",))
    gt = root / "ground_truth" / "002.json"
    blocks = json.loads(gt.read_text(encoding="utf-8"))
    blocks += [{"type": "inline-formula", "data": r"$\alpha_{i}^{2}$"},
               {"type": "display-formula", "data": r"$$\int_{0}^{1} f(x)\,dx = \frac{a+b}{2}$$"}]
    gt.write_text(json.dumps(blocks), encoding="utf-8")
    return load_case_set(root)


# -- case loading ---------------------------------------------------------------------------------
def test_the_formula_sample_loads_every_formula_with_its_kind() -> None:
    cases = load_case_set(formula_sample())
    blocks = [b for gt in sorted((formula_sample() / "ground_truth").glob("*.json"))
              for b in json.loads(gt.read_text(encoding="utf-8"))]
    formulas = [f for p in cases.pages for f in p.formulas]
    assert cases.n_tables == 0 and cases.n_formulas == len(formulas) == 402
    assert [f.latex for f in formulas] == [b["data"] for b in blocks if b["type"].endswith("-formula")]
    assert sum(f.kind == "inline" for f in formulas) == 262 and sum(f.kind == "display" for f in formulas) == 140
    assert all([f.index for f in p.formulas] == list(range(len(p.formulas))) for p in cases.pages)


def _tablebench_set(root: Path, record: object) -> Path:
    root.mkdir(parents=True)
    (root / "manifest.json").write_text("{}", encoding="utf-8")
    (root / "001.pdf").write_bytes(b"%PDF-1.4\n")
    (root / "001.json").write_text(json.dumps(record), encoding="utf-8")
    return root


def test_generated_pages_give_formulas_from_blocks_or_a_formulas_list(tmp_path: Path) -> None:
    blocks = {"blocks": [{"type": "text", "data": "x"},
                         {"type": "inline-formula", "data": "$a^2$", "latex": "$a^2$", "kind": "inline"},
                         {"type": "display-formula", "data": "$$b$$", "kind": "display"}]}
    page = load_case_set(_tablebench_set(tmp_path / "a", blocks)).pages[0]
    assert page.formulas == [GroundTruthFormula(0, "$a^2$", "inline", "001#f0"),
                             GroundTruthFormula(1, "$$b$$", "display", "001#f1")]
    listed = {"blocks": [], "formulas": [{"latex": r"\frac{1}{2}", "kind": "display"}]}
    page = load_case_set(_tablebench_set(tmp_path / "b", listed)).pages[0]
    assert [(f.latex, f.kind, f.group) for f in page.formulas] == [(r"\frac{1}{2}", "display", "display")]
    assert page.n_items == 1


@pytest.mark.parametrize("formulas", [[{"latex": "x", "kind": "block"}], [{"latex": " ", "kind": "inline"}],
                                      "x", [["x", "inline"]]])
def test_a_bad_formulas_list_is_one_clear_error(tmp_path: Path, formulas: object) -> None:
    root = _tablebench_set(tmp_path / "s", {"blocks": [], "formulas": formulas})
    with pytest.raises(ValueError, match=r"001\.json: .*formula") as info:
        load_case_set(root)
    assert "\n" not in str(info.value)


def test_import_keeps_formulas_and_their_kinds(tmp_path: Path) -> None:
    src = copy_formula_pages(tmp_path / "src", pages=("004",))
    manifest = import_bench(src, tmp_path / "out")
    before, after = load_case_set(src), load_case_set(tmp_path / "out")
    assert [(f.latex, f.kind) for f in after.pages[0].formulas] == [(f.latex, f.kind) for f in before.pages[0].formulas]
    kinds = [f.kind for f in before.pages[0].formulas]
    assert manifest["formulas"] == {k: kinds.count(k) for k in sorted(set(kinds))}
    record = json.loads((tmp_path / "out" / "004.json").read_text(encoding="utf-8"))
    assert {b["kind"] for b in record["blocks"] if b["type"].endswith("-formula")} == set(kinds)


# -- metrics selection -------------------------------------------------------------------------------
def test_metrics_split_by_kind_with_defaults_for_a_kind_not_named() -> None:
    from tablebench.core.metric_specs import defaults_of

    text = defaults_of("text")  # every registered kind is in the selection, the opt-in text kind too
    assert text == ["text_fidelity", "reading_order", "text_coverage"]
    assert metric_selection(None) == {"table": defaults_of("table"), "formula": ["formula_score", "token_edit"],
                                      "text": text}
    assert metric_selection("teds") == {"table": ["teds"], "formula": ["formula_score", "token_edit"], "text": text}
    assert metric_selection("teds,glyph_f1") == {"table": ["teds"], "formula": ["glyph_f1"], "text": text}
    assert metric_selection("reading_order")["text"] == ["reading_order"]
    assert metric_names("token_edit", ["formula"]) == ["token_edit"]
    assert metric_names("teds,token_edit", ["table"]) == ["teds"]
    with pytest.raises(ValueError, match="unknown metric.*bleu.*formulas formula_score"):
        metric_selection("teds,bleu")


# -- evaluate_page --------------------------------------------------------------------------------
def test_a_perfect_parser_scores_full_marks_on_every_formula(fcases, tmp_path: Path, pool: ParsePool) -> None:
    out = write_perfect(tmp_path / "out", fcases)
    results = [r for page in fcases.pages
               for r in evaluate_page(page, f"dir:{out}", None, cache_dir=tmp_path / "c", pool=pool)]
    assert len(results) == fcases.n_formulas > 40
    assert {r.kind for r in results} == {"formula"} and {r.outcome for r in results} == {"ok"}
    assert all(r.scores == {"formula_score": 10.0, "token_edit": 1.0} for r in results)
    assert all(r.matched_text == r.gt_latex for r in results)
    assert {r.group for r in results} == {"inline", "display"}


def test_a_missing_formula_is_missing_and_counts_zero(fcases, tmp_path: Path, pool: ParsePool) -> None:
    page = fcases.pages[0]
    out = write_perfect(tmp_path / "out", fcases, drop=frozenset({(page.page_id, 1)}))
    results = evaluate_page(page, f"dir:{out}", "token_edit", cache_dir=None, pool=pool, label="p")
    assert results[1].outcome == "missing" and results[1].scores == {}
    assert results[1].test_id == f"fbench/{page.page_id}::f1[p]"
    assert all(r.outcome == "ok" and r.scores == {"token_edit": 1.0} for i, r in enumerate(results) if i != 1)
    board = boards(results)["formula"]
    stats = board.rows[0].overall.metrics["token_edit"]
    n = len(results)
    assert stats.include_missing == pytest.approx((n - 1) / n) and stats.exclude_missing == 1.0


def test_one_parse_scores_tables_and_formulas_each_with_their_metrics(mixed, tmp_path: Path, pool: ParsePool) -> None:
    page = mixed.pages[0]
    out = write_perfect(tmp_path / "out", mixed)
    results = evaluate_page(page, f"dir:{out}", "teds", cache_dir=None, pool=pool)
    assert [(r.kind, r.index) for r in results] == [("table", 0), ("table", 1), ("formula", 0), ("formula", 1)]
    assert [set(r.scores) for r in results] == [{"teds"}, {"teds"}, *[{"formula_score", "token_edit"}] * 2]
    assert all(r.outcome == "ok" for r in results)
    assert [r.group for r in results[2:]] == ["inline", "display"]
    failed = page_error_results(page, "dir:x", RuntimeError("boom"))
    assert [(r.kind, r.outcome) for r in failed] == [("table", "error")] * 2 + [("formula", "error")] * 2


def test_a_failed_parse_fails_every_formula_too(mixed, tmp_path: Path, pool: ParsePool) -> None:
    (tmp_path / "nothing").mkdir()  # no output file for the page: outcome "empty"
    results = evaluate_page(mixed.pages[0], f"dir:{tmp_path / 'nothing'}", None, cache_dir=None, pool=pool)
    assert [(r.kind, r.outcome) for r in results] == [("table", "empty")] * 2 + [("formula", "empty")] * 2


# -- gating ------------------------------------------------------------------------------------------
def test_min_score_floors_apply_to_their_own_kind() -> None:
    floors = {"teds": 0.9, "formula_score": 8.0, "judge": 5.0}
    assert floors_for(floors, "table") == {"teds": 0.9, "judge": 5.0}
    assert floors_for(floors, "formula") == {"formula_score": 8.0, "judge": 5.0}
    gate = Gate({"teds": 0.9, "formula_score": 8.0})
    table = ItemResult("p", "s", "p001", 0, "simple", "ok", scores={"teds": 0.95})
    formula = ItemResult("p", "s", "p001", 0, "inline", "ok", scores={"formula_score": 7.0}, kind="formula")
    assert gate.check(table).status == "pass"
    assert gate.check(formula).status == "fail" and "formula_score" in gate.check(formula).message


# -- reports -----------------------------------------------------------------------------------------
def _results() -> list[ItemResult]:
    def r(kind: str, index: int, level: str, outcome: str, scores: dict) -> ItemResult:
        return ItemResult("pp", "set", "p001", index, level, outcome, scores=scores, kind=kind,
                           gt_latex="$x<y$" if kind == "formula" else "", matched_text="x<y</pre><script>")
    return [r("table", 0, "simple", "ok", {"teds": 0.5}),
            r("formula", 0, "inline", "ok", {"formula_score": 10.0, "token_edit": 1.0}),
            r("formula", 1, "display", "ok", {"formula_score": 4.0, "token_edit": 0.5}),
            r("formula", 2, "display", "missing", {})]


def test_both_tracks_get_their_own_leaderboard_in_every_file(tmp_path: Path) -> None:
    paths = write_report(_results(), tmp_path, {"case_set": "set"})
    data = json.loads(paths["json"].read_text(encoding="utf-8"))
    assert data["leaderboard"]["kind"] == "table" and data["leaderboard"]["primary"] == "teds"
    fboard = data["formula_leaderboard"]
    assert fboard["kind"] == "formula" and fboard["primary"] == "formula_score"
    assert fboard["groups"] == ["inline", "display"]
    row = fboard["rows"][0]
    assert row["overall"]["total"] == 3 and row["overall"]["found"] == 2
    assert row["overall"]["metrics"]["formula_score"]["include_missing"] == pytest.approx(14 / 3)
    assert row["overall"]["metrics"]["formula_score"]["perfect_rate"] == pytest.approx(1 / 3)
    assert row["by_group"]["display"]["metrics"]["token_edit"]["include_missing"] == pytest.approx(0.25)
    md = paths["markdown"].read_text(encoding="utf-8")
    assert "## Formulas" in md and "### Inline / display" in md and "| parser |  | all | inline | display |" in md
    assert "mean with missing formulas as 0" in md
    html = expanded_html(paths["html"].read_text(encoding="utf-8"))
    assert "<h2>Formula leaderboard</h2>" in html and "<h2>Formulas: inline / display</h2>" in html
    assert "set/p001::f1[pp]" in html and "1 tables + 3 formulas" in html
    assert "&lt;/pre&gt;&lt;script&gt;" in html and "x<y</pre><script>" not in html
    _, back = read_results(paths["json"])
    assert [r.kind for r in back] == ["table", "formula", "formula", "formula"]


def test_a_formula_only_run_ranks_formulas_first_and_terminal_shows_both_tracks(tmp_path: Path) -> None:
    results = _results()
    md = render_markdown(boards(results[1:])["formula"], {})
    assert "formula_score (0-10)" in md and "## Inline / display" in md and "| parser | formulas |" in md
    console = Console(width=120, record=True, color_system=None)
    console.print(tracks_group(boards(results)))
    text = console.export_text()
    assert text.index("tables") < text.index("formulas") < text.index("inline / display")
    assert "formula_score (0-10)" in text and "2/3 (66.7%)" in text


def test_results_from_before_formulas_read_as_tables() -> None:
    old = ItemResult("p", "s", "p001", 2, "simple", "ok").to_dict()
    del old["kind"]
    result = ItemResult.from_dict(old)
    assert result.kind == "table" and result.test_id == "s/p001::t2[p]"


# -- judge -------------------------------------------------------------------------------------------
def test_formula_judge_prompt_through_a_real_server(tmp_path: Path) -> None:
    from tablebench.core import llm
    from tablebench.metrics.judge import FORMULA_PROMPT_VERSION, PROMPT_VERSION, judge_formula
    from tests.llm_server import LLMServer, Reply

    verdict = json.dumps({"errors": ["the exponent 2 reads 3"], "score": 6})
    with LLMServer([Reply(content=verdict)]) as server:
        llm.litellm_module()
        result = judge_formula(r"$\alpha^{2}$", "α³", "openai/tiny-judge", kind="inline",
                               api_base=server.api_base, cache_dir=tmp_path)
        again = judge_formula(r"$\alpha^{2}$", "α³", "openai/tiny-judge", kind="inline",
                              api_base=server.api_base, cache_dir=tmp_path)
        empty = judge_formula(r"$\alpha^{2}$", "  ", "openai/tiny-judge", api_base=server.api_base)
        assert len(server.requests) == 1, "cached answer; an empty extraction is 0 without a call"
        system, user = server.bodies()[0]["messages"]
    assert (result.score, result.errors, again.cached) == (6.0, ["the exponent 2 reads 3"], True)
    assert empty.score == 0.0
    assert "mathematical formula" in system["content"] and "inline, inside a sentence" in system["content"]
    assert "Semantic equivalence" in system["content"] and "cell-to-header" not in system["content"]
    assert r"$\alpha^{2}$" in user["content"] and "α³" in user["content"]
    assert FORMULA_PROMPT_VERSION != PROMPT_VERSION
    with pytest.raises(ValueError, match="unknown formula kind"):
        judge_formula("$x$", "x", "openai/tiny-judge", kind="block")


def test_judge_scores_found_formulas_and_gives_missing_ones_zero(fcases, tmp_path: Path, pool: ParsePool) -> None:
    from tablebench.core import llm
    from tests.llm_server import LLMServer, Reply

    page = fcases.pages[0]
    out = write_perfect(tmp_path / "out", fcases, drop=frozenset({(page.page_id, 0)}))
    with LLMServer([Reply(content=json.dumps({"errors": [], "score": 9}))]) as server:
        llm.litellm_module()
        results = evaluate_page(page, f"dir:{out}", None, cache_dir=tmp_path / "c", pool=pool,
                                judge="openai/tiny-judge", judge_options={"api_base": server.api_base})
        prompts = [b["messages"][0]["content"] for b in server.bodies()]
    assert len(prompts) == len(results) - 1
    assert all("mathematical formula" in p for p in prompts)
    assert results[0].outcome == "missing" and results[0].scores == {"judge": 0.0}
    assert all(r.scores["judge"] == 9.0 for r in results[1:])


# -- LLM locator -------------------------------------------------------------------------------------
def test_llm_locator_finds_formulas_by_quoted_spans_refound_literally(fcases, tmp_path: Path,
                                                                      pool: ParsePool) -> None:
    """The model quotes formula 0 exactly and invents formula 1's span: 0 is found where the output
    has it, 1 is missing (no match can be fabricated); the others have no span and are missing."""
    from tablebench.core import llm
    from tablebench.locate.llm_formulas import PROMPT_VERSION, SYSTEM_PROMPT
    from tests.llm_server import LLMServer, Reply

    page = fcases.pages[0]
    out = write_perfect(tmp_path / "out", fcases)
    text = (out / f"{page.pdf.stem}.md").read_text(encoding="utf-8")
    answer = {"formulas": [{"index": 0, "span": page.formulas[0].latex},
                           {"index": 1, "span": "$$ q = \\mathrm{invented}(z_{9}) + 1234 $$"}]}
    with LLMServer([Reply(content=json.dumps(answer))]) as server:
        llm.litellm_module()
        results = evaluate_page(page, f"dir:{out}", "token_edit", cache_dir=tmp_path / "c", pool=pool,
                                locator="llm", locator_model="openai/tiny-locator",
                                judge_options={"api_base": server.api_base})
        bodies = server.bodies()
    assert len(bodies) == 1 and bodies[0]["messages"][0]["content"] == SYSTEM_PROMPT
    assert f'kind="{page.formulas[0].kind}"' in bodies[0]["messages"][1]["content"]
    assert PROMPT_VERSION.startswith("locate-formula")
    first = results[0]
    assert first.outcome == "ok" and first.scores == {"token_edit": 1.0}
    assert text[first.matched_span[0]:first.matched_span[1]] == page.formulas[0].latex
    assert "LLM locator: span quoted exactly" in first.message
    assert results[1].outcome == "missing" and "not in the output" in results[1].message
    assert all(r.outcome == "missing" and "no span" in r.message for r in results[2:])


def test_llm_locator_unreachable_falls_back_to_the_offline_locator(fcases, tmp_path: Path, pool: ParsePool) -> None:
    from tablebench.locate.llm_formulas import locate_formulas_llm

    page = fcases.pages[0]
    text = write_perfect(tmp_path / "out", fcases).joinpath(f"{page.pdf.stem}.md").read_text(encoding="utf-8")
    located, notes = locate_formulas_llm([(f.latex, f.kind) for f in page.formulas], text, "openai/nowhere",
                                         api_base="http://127.0.0.1:9/v1", retries=0, timeout=5)
    assert all(loc.found for loc in located) and all("offline locator used" in n for n in notes)


# -- typeset formulas in report.html -----------------------------------------------------------------
def test_formulas_are_typeset_as_allowlisted_mathml_only() -> None:
    from tablebench.report.formula_html import formula_mathml, sanitise_mathml

    inline = formula_mathml(r"$\frac{a}{b}<\alpha_{i}$", display=False)
    assert inline is not None and inline.startswith('<math display="inline">') and "<mfrac>" in inline
    assert "&lt;" in inline and "<\\" not in inline
    assert formula_mathml(r"$$\begin{aligned}a&=b\\c&=d\end{aligned}$$", display=True).count("<mi>&amp;") == 0
    assert "<mtable>" in formula_mathml(r"\begin{pmatrix}a&b\\c&d\end{pmatrix}", display=True)
    hostile = ('<math><mi onclick="x" mathvariant="bold">a</mi><script>alert(1)</script>'
               '<foreignObject><img src=x onerror=y></foreignObject><mtext>&lt;b&gt;</mtext></math>')
    clean = sanitise_mathml(hostile)
    assert clean == '<math><mi mathvariant="bold">a</mi>alert(1)<mtext>&lt;b&gt;</mtext></math>'
    assert sanitise_mathml("<math><mrow><mi>x</math>") == "<math><mrow><mi>x</mi></mrow></math>"


def test_the_drilldown_shows_both_formulas_typeset_and_as_source(tmp_path: Path) -> None:
    results = _results()
    results[1].gt_latex, results[1].matched_text = r"$\frac{1}{2}$", r"\(\frac{1}{2}\)"
    html = expanded_html(write_report(results, tmp_path)["html"].read_text(encoding="utf-8"))
    case = html[html.index("set/p001::f0[pp]"):html.index("set/p001::f1[pp]")]
    assert case.count('<div class="rendered formula"><math display="inline">') == 2
    assert case.count("<mfrac>") == 2 and r"<pre>\(\frac{1}{2}\)</pre>" in case


def test_inline_display_sections_show_the_perfect_share_per_kind(tmp_path: Path) -> None:
    results = _results()
    paths = write_report(results, tmp_path)
    md = paths["markdown"].read_text(encoding="utf-8")
    assert "|  | perfect formula\\_score | 33.3% | 100.0% | 0.0% |" in md
    assert "perfect teds" not in md.split("## Formulas")[0].split("## By complexity")[1], "tables: unchanged"
    html = paths["html"].read_text(encoding="utf-8")
    assert '<td class="name">perfect formula_score</td><td>33.3%</td><td>100.0%</td><td>0.0%</td>' in html
    console = Console(width=120, record=True, color_system=None)
    console.print(tracks_group(boards(results)))
    line = next(ln for ln in console.export_text().splitlines() if ln.strip().startswith("perfect"))
    assert line.split()[1:] == ["33.3%", "100.0%", "0.0%"]
