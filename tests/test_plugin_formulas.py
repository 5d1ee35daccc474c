"""The real plugin on a page with tables and formulas: ids, markers, gating, baseline, report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablebench.cases import load_case_set
from tablebench.plugin.workers import page_scope
from tests.test_formula_items import write_perfect
from tests.test_plugin import PLUGIN, junit
from tests.test_run import copy_pages

pytest_plugins = ["pytester"]


@pytest.fixture(scope="module", autouse=True)
def warm_metrics() -> None:
    """Every metric once in this process before in-process pytester runs (see tests/test_plugin.py)."""
    from tablebench.core.table import Table
    from tablebench.metrics import score

    table = Table.from_rows([["a", "b"], ["1", "2"]], header_rows=1)
    score(table, table)
    score("$x^2$", "$x^2$", kind="formula")


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Pages 002 and 074 of the table sample, page 002 with an inline and a display formula added."""
    root = copy_pages(tmp_path_factory.mktemp("cases") / "mix")
    gt = root / "ground_truth" / "002.json"
    blocks = json.loads(gt.read_text(encoding="utf-8"))
    blocks += [{"type": "inline-formula", "data": r"$\alpha_{i}^{2}$"},
               {"type": "display-formula", "data": r"$$\sum_{k=1}^{n} k = \frac{n(n+1)}{2}$$"}]
    gt.write_text(json.dumps(blocks), encoding="utf-8")
    return root


def args(cases: Path, cache: Path, *more: str) -> list[str]:
    return [*PLUGIN, f"--cases={cases}", f"--parse-cache={cache}", "-rf", "-p", "no:cacheprovider", *more]


def test_formula_ids_share_the_page_scope_of_its_tables() -> None:
    assert page_scope("set/p002::f1[mine]") == page_scope("set/p002::t0[mine]") == "set/p002[mine]"


def test_formula_items_are_collected_after_the_tables_and_marked_by_kind(pytester: pytest.Pytester, mixed: Path,
                                                                          tmp_path: Path) -> None:
    result = pytester.runpytest(*args(mixed, tmp_path, "--parser=pypdf", "--collect-only", "-q"))
    listed = [ln for ln in result.stdout.lines if ln.startswith("mix/p002")]
    assert listed == ["mix/p002::t0[pypdf]", "mix/p002::t1[pypdf]", "mix/p002::f0[pypdf]", "mix/p002::f1[pypdf]"]
    display = pytester.runpytest(*args(mixed, tmp_path, "--parser=pypdf", "--collect-only", "-q", "-m", "display"))
    assert [ln for ln in display.stdout.lines if ln.startswith("mix/")] == ["mix/p002::f1[pypdf]"]
    inline = pytester.runpytest(*args(mixed, tmp_path, "--parser=pypdf", "--collect-only", "-q", "-m", "inline"))
    assert [ln for ln in inline.stdout.lines if ln.startswith("mix/")] == ["mix/p002::f0[pypdf]"]


def test_perfect_outputs_pass_floors_and_a_lost_formula_fails_against_the_baseline(
        pytester: pytest.Pytester, mixed: Path, tmp_path: Path) -> None:
    cases = load_case_set(mixed)
    good = write_perfect(tmp_path / "good", cases)
    spec = f"mine=dir:{good}"
    floors = ("--metrics=teds", "--min-score=teds=0.9", "--min-score=formula_score=9.5")
    first = pytester.runpytest(*args(mixed, tmp_path / "c", f"--parser={spec}", *floors,
                                     f"--junitxml={tmp_path / 'a.xml'}", f"--report-dir={tmp_path / 'ra'}",
                                     f"--save-baseline={tmp_path / 'base.json'}"))
    first.assert_outcomes(passed=cases.n_tables + cases.n_formulas)
    cases_a = junit(tmp_path / "a.xml")
    assert cases_a["mix/p002::f1[mine]"]["props"] == {"id": "mix/p002::f1[mine]", "outcome": "ok",
                                                      "formula_score": "10.0", "token_edit": "1.0"}
    baseline = json.loads((tmp_path / "base.json").read_text(encoding="utf-8"))
    assert "mix/p002::f0[mine]" in json.dumps(baseline)
    data = json.loads((tmp_path / "ra" / "results.json").read_text(encoding="utf-8"))
    assert data["meta"]["formulas"] == 2 and data["meta"]["metrics"] == ["teds", "formula_score", "token_edit"]
    assert data["formula_leaderboard"]["rows"][0]["overall"]["found"] == 2
    assert "formulas" in first.stdout.str() and "inline / display" in first.stdout.str()

    lost = write_perfect(tmp_path / "lost", cases, drop=frozenset({("p002", 1)}))
    second = pytester.runpytest(*args(mixed, tmp_path / "c", f"--parser=mine=dir:{lost}", *floors,
                                      f"--baseline={tmp_path / 'base.json'}"))
    second.assert_outcomes(passed=cases.n_tables + 1, failed=1)
    assert any("mix/p002::f1[mine]" in ln and "not found" in ln for ln in second.stdout.lines)


def test_shards_split_formula_pages_and_together_cover_every_formula(pytester: pytest.Pytester, tmp_path: Path) -> None:
    from tests.test_formula_items import copy_formula_pages

    cases = copy_formula_pages(tmp_path / "fb")
    seen = []
    for shard in ("1/2", "2/2"):
        result = pytester.runpytest(*args(cases, tmp_path / "c", "--parser=pypdf", "--collect-only", "-q",
                                          f"--shard={shard}"))
        seen.append([ln for ln in result.stdout.lines if ln.startswith("fb/")])
    assert all(seen) and not set(seen[0]) & set(seen[1])
    assert len(seen[0]) + len(seen[1]) == load_case_set(cases).n_formulas


def test_the_case_set_fingerprint_covers_formulas(tmp_path: Path) -> None:
    from dataclasses import replace

    from tablebench.cases.shard import fingerprint
    from tests.test_formula_items import copy_formula_pages

    page = load_case_set(copy_formula_pages(tmp_path / "fb", pages=("004",))).pages[0]
    changed = replace(page, items={**page.items, "formula": [replace(page.formulas[0], latex="$changed$"), *page.formulas[1:]]})
    assert fingerprint([page]) != fingerprint([changed])
    import hashlib

    from tablebench.core.files import sha256_file

    bare = replace(page, items={**page.items, "formula": []})  # a page without formulas keeps the digest it had before formulas
    old = hashlib.sha256(json.dumps([bare.page_id, sha256_file(bare.pdf), []]).encode()).hexdigest()[:16]
    assert fingerprint([bare]) == old != fingerprint([page])


def test_formula_renders_are_cached_in_the_parse_cache_not_the_working_folder(pytester: pytest.Pytester,
                                                                                mixed: Path, tmp_path: Path) -> None:
    from tablebench.tex.runner import have_pdflatex

    if not have_pdflatex():
        pytest.skip("pdflatex is not installed (apt install texlive-latex-extra)")
    cache = tmp_path / "cache"
    out = write_perfect(tmp_path / "out", load_case_set(mixed))
    result = pytester.runpytest_subprocess(*args(mixed, cache, f"--parser=dir:{out}", "--metrics=glyph_f1,teds",
                                                 f"--report-dir={tmp_path / 'r'}"))
    assert result.ret == 0, result.stdout.str()
    assert any((cache / "formula-render").rglob("*.json")), "renders cached under --parse-cache"
    assert not (pytester.path / ".tablebench-cache").exists(), "nothing written into the working folder"
