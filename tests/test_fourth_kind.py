"""A fourth item kind (tests/kinds/seals.py) is new files and one registration: no module of the
package names it, and it is read, located, scored, cropped, gated by its own groups (under its own
group name) and counted in a run's facts as a built-in kind is."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablebench.cases import load_case_set
from tablebench.cases.regions import Region
from tablebench.core.options import GateSpec, parse_gate
from tablebench.evaluate.page import evaluate_page
from tablebench.gating.aggregate import evaluate, gate_pairs
from tablebench.parse.prefetch import ParsePool
from tablebench.report.aggregate import boards, run_counts
from tablebench.report.crops import pictures
from tablebench.report.html_data import expanded_html
from tests.kinds import seals
from tests.test_layers import ROOT
from tests.test_run import copy_pages, write_outputs

SEALS = [{"type": "seal", "data": "APPROVED", "ink": "red", "bbox": [72, 60, 250, 110]},
         {"type": "seal", "data": "VOID", "ink": "red", "bbox": [300, 60, 420, 110]},
         {"type": "seal", "data": "PAID", "ink": "blue", "bbox": [72, 700, 200, 750]}]
pytest_plugins = ["pytester"]


@pytest.fixture()
def seal_kind() -> Iterator[None]:
    seals.install()
    yield
    seals.uninstall()


def seal_cases(dest: Path) -> Path:
    """Two sample pages, the first stamped with `SEALS`."""
    root = copy_pages(dest)
    gt = sorted((root / "ground_truth").glob("*.json"))[0]
    gt.write_text(json.dumps(json.loads(gt.read_text(encoding="utf-8")) + SEALS), encoding="utf-8")
    return root


def seal_outputs(folder: Path, cases, said: str) -> Path:
    """Perfect table outputs, the first page also saying `said`."""
    out = write_outputs(folder, cases)
    first = out / f"{cases.pages[0].pdf.stem}.md"
    first.write_text(first.read_text(encoding="utf-8") + f"\n{said}\n", encoding="utf-8")
    return out


def test_no_module_of_the_package_names_the_fourth_kind() -> None:
    """What "no edit to a shared module" comes to: the kind's name is in none of the package's sources."""
    named = [p for folder in ("harness", "parsers") for p in (ROOT / folder).glob("**/*.py")
             if "seal" in p.read_text(encoding="utf-8").lower()]
    assert not named and seals.KIND.metrics == (seals.METRIC,)


def test_the_fourth_kind_is_read_located_scored_cropped_gated_and_counted(seal_kind, tmp_path: Path) -> None:
    root = seal_cases(tmp_path / "stamped")
    cases = load_case_set(root)
    page = cases.pages[0]
    assert cases.kinds == ["table", "seal"] and cases.n_seals == 3 and [s.latex for s in page.seals] == \
        ["APPROVED", "VOID", "PAID"]
    assert page.regions_of(page.seals[2]) == (Region(1, (72.0, 700.0, 200.0, 750.0)),)
    out = seal_outputs(tmp_path / "out", cases, "APPROVED, then void.")
    pool = ParsePool()
    try:
        results = [r for p in cases.pages for r in evaluate_page(p, f"dir:{out}", None, cache_dir=None, pool=pool)]
    finally:
        pool.close()
    stamped = [r for r in results if r.kind == "seal"]
    assert [(r.outcome, r.scores.get("seal_match"), r.group) for r in stamped] == \
        [("ok", 1.0, "red"), ("ok", 0.5, "red"), ("missing", None, "blue")]

    assert run_counts(results)["seals"] == 3  # meta: each kind's count under its title

    pairs = gate_pairs(results, lambda r: {"seal_match": 1.0} if r.kind == "seal" else {"teds": 1.0})
    assert {p.attrs["ink"] for p in pairs if p.kind == "seal"} == {"red", "blue"}  # its own group name
    assert not any("complexity" in p.attrs for p in pairs if p.kind == "seal")
    rows = evaluate(pairs, [GateSpec("seal_match"), GateSpec("teds")])
    tables = {t.group for p in cases.pages for t in p.tables}
    assert [(r.subset, r.n) for r in rows if r.metric == "seal_match"] == [(None, 3), ("red", 2), ("blue", 1)]
    assert {r.subset for r in rows if r.metric == "teds"} == {None, *tables}  # each metric, its own kind's groups
    assert [r.n for r in evaluate(pairs, [parse_gate("seal_match:ink=red")])] == [2]

    if shutil.which("pdftoppm") is None:
        pytest.skip("no pdftoppm (apt-get install -y poppler-utils): crops need it")
    crops, thumbs = pictures(results, {"case_set_path": str(root)}, list(boards(results).values()))
    assert sorted(crops) == [("seal", cases.name, page.page_id, i) for i in range(3)] and not thumbs
    assert all(len(c) == 1 and c[0].page == 1 and c[0].webp[:4] == b"RIFF" for c in crops.values())


def _run(pytester: pytest.Pytester, cases: Path, tmp_path: Path, *more: str) -> pytest.RunResult:
    from tests.test_plugin import PLUGIN

    return pytester.runpytest(*PLUGIN, f"--cases={cases}", f"--parse-cache={tmp_path / 'cache'}", "-p",
                              "no:cacheprovider", "--no-verify", *more)


def test_the_fourth_kind_runs_through_pytest_and_merge_with_its_counts_crops_card_and_gate(
        seal_kind, pytester: pytest.Pytester, tmp_path: Path) -> None:
    pytester.makeconftest("from tests.kinds import seals\nseals.install()\n")
    root = seal_cases(tmp_path / "stamped")
    cases = load_case_set(root)
    good = seal_outputs(tmp_path / "good", cases, "APPROVED, VOID, PAID.")
    base = tmp_path / "base.json"
    first = _run(pytester, root, tmp_path, f"--parser=mine=dir:{good}", f"--report-dir={tmp_path / 'good-run'}",
                 f"--save-baseline={base}", "--report-only", "--report-crops=folder")
    assert first.ret == 0
    run = tmp_path / "good-run"
    meta = json.loads((run / "results.json").read_text(encoding="utf-8"))["meta"]
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    assert meta["seals"] == summary["seals"] == 3 and meta["tables"] == summary["tables"] > 0
    report = expanded_html((run / "report.html").read_text(encoding="utf-8"))
    assert 'class="seal seal-red"' in report, "its card, drawn by the renderer it names"
    if shutil.which("pdftoppm") is not None:
        crops = sorted(p.name for p in (run / "crops").glob("*/*.webp"))
        assert crops == [f"{cases.pages[0].page_id}-s{i}.webp" for i in range(3)], crops

    from tablebench.cli import main

    for shard in ("1/2", "2/2"):  # the seals' page in one shard: merged, its count is the run's
        _run(pytester, root, tmp_path, f"--parser=mine=dir:{good}", f"--shard={shard}", "--report-only",
             f"--report-dir={tmp_path / shard.replace('/', 'of')}")
    assert main(["report", "merge", str(tmp_path / "1of2"), str(tmp_path / "2of2"), "--out", str(tmp_path / "m")]) == 0
    assert json.loads((tmp_path / "m" / "results.json").read_text(encoding="utf-8"))["meta"]["seals"] == 3

    worse = seal_outputs(tmp_path / "worse", cases, "approved, PAID.")
    gated = _run(pytester, root, tmp_path, f"--parser=mine=dir:{worse}", f"--baseline={base}",
                 "--gate=seal_match", "--gate=seal_match:ink=blue", f"--report-dir={tmp_path / 'worse-run'}")
    rows = json.loads((tmp_path / "worse-run" / "results.json").read_text(encoding="utf-8"))["gate"]
    assert [(r["subset"], r["gating"], r["n"]) for r in rows] == \
        [(None, True, 3), ("red", False, 2), ("blue", False, 1), ("ink=blue", True, 1)]
    assert "seal_match:red [mine]" in gated.stdout.str()
