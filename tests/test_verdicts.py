"""Every artefact says which cases failed and why: the verdict pytest gave each case, decided once.

A run with `--min-score` through the real plugin (a `dir:` parser that corrupts some tables,
tests/ci_cases.py): results.json keeps each case's verdict, and report.html, leaderboard.md,
`tablebench report`, `tablebench report merge` (`--list-failed`) and its junit XML list exactly
the cases pytest failed, each with its reasons, after their causes. Nothing here is mocked.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tablebench.cli import main
from tablebench.core.results import ItemResult
from tablebench.gating.rules import Gate, Verdict, keep_verdict, verdict_of
from tablebench.report.html_data import expanded_html
from tablebench.report.regressions import card_anchor
from tests.test_plugin_ci import args, warm_metrics  # noqa: F401  (fixture: score once in this process first)
from tests.test_regressions import cases, corrupt, failed_ids, outputs  # noqa: F401  (fixtures)

pytest_plugins = ["pytester"]
FLOOR = "--min-score=teds=0.9"


def _result(outcome: str = "ok", teds: float = 0.5) -> ItemResult:
    return ItemResult("p", "s", "p001", 0, "simple", outcome, message="", scores={"teds": teds})


def test_a_verdict_kept_on_a_result_reads_back_and_garbage_reads_as_none():
    r = _result()
    verdict = keep_verdict(r, Gate({"teds": 0.9}).check(r))
    assert r.verdict == {"passed": False, "status": "fail", "reasons": ["teds 0.50 < min 0.90"]}
    assert verdict_of(ItemResult.from_dict(json.loads(json.dumps(r.to_dict())))) == verdict
    assert verdict_of(_result()) is None
    for junk in ("fail", {"status": "maybe"}, {"passed": False}):
        r.verdict = junk
        assert verdict_of(r) is None
    assert Verdict("known", ["x"]).passed and not Verdict("fail").passed


def test_a_failure_names_the_headline_metric_first_and_keeps_the_locator_s_note():
    """What the terminal's failure lines show (cut at the terminal's width, or at 300 characters
    in the failed list): the kind's ranking metric first, whatever order the floors and the
    baseline name metrics in, then the others, then what the locator noticed, then the errors."""
    from tablebench.gating.baseline import Baseline, Entry

    r = ItemResult("p", "s", "p001", 0, "simple", "ok", message="found as 2 fragments",
                   scores={"teds": 0.5, "grits_con": 0.5, "tlag_precision": 0.2, "semantic": 5.0},
                   errors=["value 1.42 under (Mass, kg) read as 9.99"])
    floors = Gate({"tlag_precision": 0.9, "teds": 0.99, "grits_con": 0.99, "semantic": 9.9}).check(r)
    assert [reason.split()[0] for reason in floors.reasons] == [
        "semantic", "teds", "grits_con", "tlag_precision", "locator:", "semantic"]
    assert floors.reasons[-2:] == ["locator: found as 2 fragments",
                                   "semantic errors: value 1.42 under (Mass, kg) read as 9.99"]
    base = Baseline(Path("base.json"), "tablebench", {r.test_id: Entry("ok", {"grits_con": 0.9, "semantic": 9.0})})
    mixed = Gate({"teds": 0.99}, baseline=base, tolerance=0.01).check(r)
    assert mixed.reasons[:3] == ["semantic 5.00 < baseline 9.00 - 0.1", "teds 0.50 < min 0.99",
                                 "grits_con 0.50 < baseline 0.90 - 0.01"]
    quiet = ItemResult("p", "s", "p001", 0, "simple", "ok", scores={"teds": 0.5})
    assert Gate({"teds": 0.9}).check(quiet).reasons == ["teds 0.50 < min 0.90"], "no note: nothing added"


@pytest.fixture(scope="module")
def run(cases: Path, outputs, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, set[str]]:  # noqa: F811
    """One run with a floor: its report folder and the ids pytest failed (from pytest's own junit XML)."""
    tmp = tmp_path_factory.mktemp("verdicts")
    out, junit = tmp / "r", tmp / "pytest.xml"
    code = pytest.main(args(cases, tmp, f"--parser=mine=dir:{outputs['corrupt']}", FLOOR, f"--report-dir={out}",
                            f"--junitxml={junit}"))
    assert code == pytest.ExitCode.TESTS_FAILED
    ids = _failed_in(junit)
    assert len(ids) > 3
    return out, ids


def _failed_in(junit: Path) -> set[str]:
    return {c.find("properties/property[@name='id']").get("value") for c in ET.parse(junit).iter("testcase")
            if c.find("failure") is not None}


def test_results_json_keeps_the_verdict_pytest_gave_every_case(run):
    out, ids = run
    results = json.loads((out / "results.json").read_text())["results"]
    verdicts = {ItemResult.from_dict(r).test_id: r["verdict"] for r in results}
    assert {i for i, v in verdicts.items() if not v["passed"]} == ids
    assert all(v["reasons"] and "< min 0.90" in v["reasons"][0] for i, v in verdicts.items() if i in ids)
    assert all(v == {"passed": True, "status": "pass", "reasons": []} for i, v in verdicts.items() if i not in ids)


def test_leaderboard_and_report_html_list_every_failed_case_with_its_reasons(run):
    out, ids = run
    md = (out / "leaderboard.md").read_text()
    causes = md.split("## Failures by cause: ", 1)[1].split("\n## ", 1)[0]
    assert causes.startswith(f"{len(ids)} of ") and "| mine | " in causes and "&lt; min 0.90" in causes
    section = causes.split("<details><summary>Every failed case (", 1)[1].split("</details>", 1)[0]
    assert section.startswith(f"{len(ids)})")
    for test_id in ids:
        shown = test_id.replace("[", "\\[").replace("]", "\\]")
        line = next(ln for ln in section.splitlines() if f"[{shown}](report.html#{card_anchor(test_id)})" in ln)
        assert "&lt; min 0.90" in line  # escaped: GitHub renders it as <
    page = (out / "report.html").read_text()
    assert all(f'href="#{card_anchor(i)}"' in page.split('<section id="failed">', 1)[1] for i in ids)
    import lxml.html

    dom = lxml.html.document_fromstring(expanded_html(page))
    for card in dom.xpath("//article[@class='case']"):
        failed = card.get("id") in {card_anchor(i) for i in ids}
        assert (card.get("data-verdict") == "failed") == failed
        badge = card.xpath(".//header/span[contains(@class, 'verdict-fail')]")
        assert bool(badge) == failed
        if failed:
            assert "< min 0.90" in card.xpath(".//div[contains(@class, 'verdict')]")[0].text_content()


def test_tablebench_report_prints_the_causes_and_every_failed_case_when_asked(run, capsys):
    out, ids = run
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    text = capsys.readouterr().out
    assert f"tablebench failures by cause ({len(ids)} of " in text
    assert not failed_ids(text.splitlines()), "grouped by cause unless asked for every case"
    assert main(["report", str(out), "--list-failed"]) == 0
    assert failed_ids(capsys.readouterr().out.splitlines()) == ids


def test_a_merge_carries_the_shards_verdicts_and_writes_junit(run, cases: Path, outputs, tmp_path: Path,  # noqa: F811
                                                             capsys):
    out, ids = run
    shards = []
    for i in (1, 2):
        folder = tmp_path / f"s{i}"
        pytest.main(args(cases, tmp_path, f"--parser=mine=dir:{outputs['corrupt']}", FLOOR, f"--shard={i}/2",
                         f"--report-dir={folder}"))
        shards.append(str(folder))
    capsys.readouterr()
    junit = tmp_path / "merged.xml"
    assert main(["report", "merge", *shards, "--out", str(tmp_path / "m"), f"--junitxml={junit}", "--list-failed"]) == 1
    text = capsys.readouterr().out
    assert failed_ids(text.splitlines()) == ids, "no floor given to the merge: the shards' verdicts stand"
    assert f"tablebench failures by cause ({len(ids)} of " in text
    assert f"## Failures by cause: {len(ids)} of " in (tmp_path / "m" / "leaderboard.md").read_text()
    cases_xml = list(ET.parse(junit).iter("testcase"))
    assert _failed_in(junit) == ids and len(cases_xml) == len(json.loads((out / "results.json").read_text())["results"])
    assert all("< min 0.90" in c.find("failure").get("message") for c in cases_xml if c.find("failure") is not None)


def test_a_case_failed_by_a_floor_gets_its_page_crop_like_a_lost_one():
    from tablebench.report.crops import chosen, key_of

    found = [ItemResult("p", "s", f"p{i:03d}", 0, "simple", "ok", scores={"teds": 0.9 - i / 100}) for i in range(30)]
    floor = found[0]  # the best score, far from the worst few: chosen only for its verdict
    keep_verdict(floor, Gate({"teds": 0.95}).check(floor))
    for r in found[1:]:
        keep_verdict(r, Verdict("pass"))
    picked = chosen(found, "teds", worst=3)
    assert key_of(floor) in picked and picked.index(key_of(floor)) == 0
