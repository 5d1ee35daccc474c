"""A page's language and variant: read from its ground truth, carried into results and `-m` markers,
and a perfect parser (the ground truth written back through `dir:`) scoring full marks on
generated pages of both TeX engines and on their scanned twin.

Generates two real pages (Greek with pdflatex, Hindi with xelatex: ~5 s here) and scans one.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tablebench.cases import VARIANTS, language_marker, load_case_set, variant_marker
from tablebench.cli import main
from tablebench.evaluate.page import evaluate_page
from tablebench.generate.languages import missing_setup
from tablebench.generate.variants import VARIANTS as DEGRADED
from tablebench.parse.prefetch import ParsePool
from tablebench.report.aggregate import leaderboard
from tablebench.report.markdown import render_markdown
from tests.test_plugin import PLUGIN
from tests.test_run import write_outputs

pytest_plugins = ["pytester"]

NEEDS = missing_setup(("el", "hi"))


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(a 2-page set: el on pdflatex, hi on xelatex; the scan twin of its first page)."""
    if NEEDS or shutil.which("pdftoppm") is None:
        pytest.skip(f"multilingual TeX setup or poppler missing: {'; '.join(NEEDS) or 'pdftoppm'} (./dev.sh setup)")
    root = tmp_path_factory.mktemp("attrs")
    assert main(["generate", "--pages", "2", "--languages", "el,hi", "--seed", "5", "--out", str(root / "i18n")]) == 0
    assert main(["cases", "variant", str(root / "i18n"), "--variant", "scan", "--pages", "1",
                 "--out", str(root / "scan")]) == 0
    return root / "i18n", root / "scan"


@pytest.fixture(scope="module")
def pool() -> ParsePool:
    runners = ParsePool()
    yield runners
    runners.close()


def test_variant_names_agree_with_the_generator() -> None:
    assert VARIANTS == ("digital", *DEGRADED)


def test_pages_say_their_language_and_variant(generated) -> None:
    digital, scan = (load_case_set(p) for p in generated)
    assert [(p.language, p.variant) for p in digital.pages] == [("el", "digital"), ("hi", "digital")]
    assert [p.layout["engine"] for p in digital.pages] == ["pdflatex", "xelatex"]
    assert [(p.language, p.variant) for p in scan.pages] == [("el", "scan")]


def test_language_defaults_and_a_bad_variant_record(tmp_path) -> None:
    """No language in the ground truth (pdf-parse-bench folders) reads as "unknown"; a variant
    record without a name is one clear error naming the file."""
    (tmp_path / "pdfs").mkdir()
    (tmp_path / "ground_truth").mkdir()
    (tmp_path / "pdfs" / "001.pdf").write_bytes(b"%PDF-1.4\n")
    gt = tmp_path / "ground_truth" / "001.json"
    gt.write_text(json.dumps([{"type": "table", "data": "\\begin{tabular}{l}a\\end{tabular}"}]), encoding="utf-8")
    [page] = load_case_set(tmp_path).pages
    assert (page.language, page.variant) == ("unknown", "digital")
    gt.write_text(json.dumps({"blocks": [], "variant": {"dpi": 150}}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"001\.json: 'variant' must be an object with a 'name'"):
        load_case_set(tmp_path)


def test_marker_names() -> None:
    assert [language_marker(c) for c in ("ru", "zh", "pt-BR", "unknown")] == ["lang_ru", "lang_zh", "lang_pt_br",
                                                                             "lang_unknown"]
    assert [variant_marker(v) for v in VARIANTS] == ["digital", "scan", "photo"]


def test_perfect_parser_scores_full_marks_on_every_language_engine_and_variant(generated, tmp_path, pool) -> None:
    results = []
    for root in generated:
        cases = load_case_set(root)
        out = write_outputs(tmp_path / root.name, cases)
        for page in cases.pages:
            results += evaluate_page(page, f"dir:{out}", None, cache_dir=tmp_path / "cache", pool=pool,
                                     label="perfect")
    assert {(r.language, r.variant) for r in results} == {("el", "digital"), ("hi", "digital"), ("el", "scan")}
    for r in results:
        assert r.outcome == "ok", r.message
        assert r.scores["semantic"] == pytest.approx(10.0) and r.scores["teds"] == pytest.approx(1.0), r.test_id
    board = leaderboard(results)
    assert (board.languages, board.variants) == (["el", "hi"], ["digital", "scan"])
    [row] = board.rows
    for group in [*row.by_language.values(), *row.by_variant.values()]:
        assert group.found == group.total > 0
        assert group.metrics["semantic"].include_missing == pytest.approx(10.0)
        assert group.metrics["teds"].perfect_rate == 1.0
    md = render_markdown(board)
    assert "## By language" in md and "## By variant" in md


def test_markers_select_by_language_and_variant_under_strict_markers(generated, pytester) -> None:
    """`-m lang_hi`, `-m digital`, `-m scan` pick the right items; --strict-markers accepts them all."""
    digital, scan = generated
    cases = load_case_set(digital)
    hi_tables = [f"p{p.pdf.stem}" for p in cases.pages if p.language == "hi" for _ in p.tables]

    def collected(root: Path, expr: str) -> list[str]:
        result = pytester.runpytest(*PLUGIN, f"--parser=dir:{pytester.path}", f"--cases={root}",
                                    "--strict-markers", "-m", expr, "--co", "-q", "-p", "no:cacheprovider")
        assert result.ret == 0, result.stdout.str()
        return [line for line in result.stdout.lines if "::t" in line]

    hi = collected(digital, "lang_hi")
    assert len(hi) == len(hi_tables) > 0 and all("/p002::" in line for line in hi)
    assert len(collected(digital, "digital")) == sum(len(p.tables) for p in cases.pages)
    assert len(collected(scan, "scan and lang_el")) == len(load_case_set(scan).pages[0].tables)
    assert pytester.runpytest(*PLUGIN, f"--parser=dir:{pytester.path}", f"--cases={digital}",
                              "--strict-markers", "-m", "scan", "--co", "-q").ret == 5  # nothing is a scan
