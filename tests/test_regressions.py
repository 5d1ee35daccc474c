"""A run against its baseline through the real plugin and `tablebench report merge`: the same
cases fail, the same gate, and every report file shows the regressions.

The parser corrupts every table of some pages (a `dir:` folder written from the ground truth,
tests/ci_cases.py); the baseline is the exact parser's run. Nothing here is mocked.
"""

from __future__ import annotations

import json
import re
import zlib
from pathlib import Path

import pytest

from tablebench.cli import main
from tablebench.report.html_data import expanded_html
from tests.ci_cases import case_set, write_pages
from tests.test_plugin_ci import args, warm_metrics  # noqa: F401  (fixture: score once in this process first)

pytest_plugins = ["pytester"]
PAGES = 12
_CELL = re.compile(r"(<t[dh][^>]*>)([^<]+)(</t[dh]>)")


def corrupt(page: str, index: int, html: str) -> str:
    """Every other cell of one table in three replaced by '#', chosen by a hash of (page, table): a bad parser."""
    if zlib.crc32(f"{page}/{index}".encode()) % 3:
        return html
    count = iter(range(10**6))
    return _CELL.sub(lambda m: m.group(1) + "#" + m.group(3) if next(count) % 2 else m.group(0), html)


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return case_set(tmp_path_factory.mktemp("cases") / "mini", PAGES)


@pytest.fixture(scope="module")
def outputs(cases: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("outputs")
    return {"exact": write_pages(root / "exact", cases), "corrupt": write_pages(root / "corrupt", cases, corrupt)}


@pytest.fixture(scope="module")
def baseline(cases: Path, outputs, tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("base")
    path = tmp / "base.json"
    assert main_pytest(cases, tmp, f"--parser=mine=dir:{outputs['exact']}", f"--save-baseline={path}",
                       f"--report-dir={tmp / 'r'}") == 0
    return path


def main_pytest(cases: Path, tmp: Path, *more: str) -> int:
    return int(pytest.main(args(cases, tmp, *more)))


def failed_ids(lines: list[str]) -> set[str]:
    return {m.group(1) for line in lines if (m := re.match(r"FAILED (\S+) - ", line))}


def test_sharded_and_merged_with_a_baseline_fails_the_same_cases_and_gate(
        pytester: pytest.Pytester, cases: Path, outputs, baseline: Path, tmp_path: Path, capsys):
    spec, gate = f"--parser=mine=dir:{outputs['corrupt']}", ["--gate=teds", f"--baseline={baseline}"]
    whole = pytester.runpytest_subprocess(*args(cases, tmp_path, spec, *gate, f"--report-dir={tmp_path / 'whole'}",
                                                "-n", "2", xdist=True))
    assert whole.ret == pytest.ExitCode.TESTS_FAILED
    expected = failed_ids(whole.stdout.lines)
    assert "tablebench::gate[teds]" in expected and len(expected) > 5, whole.stdout.str()
    for i in (1, 2, 3):
        pytester.runpytest(*args(cases, tmp_path, spec, *gate, f"--shard={i}/3", f"--report-dir={tmp_path / f's{i}'}"))
        assert (tmp_path / f"s{i}" / "results.json").is_file()
    capsys.readouterr()
    shards = [str(tmp_path / f"s{i}") for i in (2, 3, 1)]
    assert main(["report", "merge", *shards, "--out", str(tmp_path / "m"), *gate, "--list-failed"]) == 1
    out = capsys.readouterr().out
    merged = failed_ids(out.splitlines()) | ({"tablebench::gate[teds]"} if "gate FAILED" in out else set())
    assert merged == expected
    assert json.loads((tmp_path / "m" / "gate.json").read_text()) == \
        json.loads((tmp_path / "whole" / "gate.json").read_text()), "same gate rows, same bootstrap CIs"
    # without --gate the baseline alone still fails the regressed cases (it used to pass silently)
    assert main(["report", "merge", *shards, "--out", str(tmp_path / "m2"), f"--baseline={baseline}",
                 "--list-failed"]) == 1
    assert failed_ids(capsys.readouterr().out.splitlines()) == expected - {"tablebench::gate[teds]"}
    # --min-score is applied as pytest applies it
    assert main(["report", "merge", *shards, "--out", str(tmp_path / "m3"), "--min-score=teds=0.9",
                 "--list-failed"]) == 1
    floors = failed_ids(capsys.readouterr().out.splitlines())
    assert floors and floors <= expected


def test_per_table_verdicts_are_kept_in_results_json(pytester: pytest.Pytester, cases: Path, outputs,
                                                     baseline: Path, tmp_path: Path):
    run = pytester.runpytest(*args(cases, tmp_path, f"--parser=mine=dir:{outputs['corrupt']}",
                                   f"--baseline={baseline}", f"--report-dir={tmp_path / 'r'}"))
    results = json.loads((tmp_path / "r" / "results.json").read_text())["results"]
    changes = {r["case_set"] + "/" + r["page"] + f"::t{r['index']}[mine]": r["baseline_change"] for r in results}
    regressed = {k for k, c in changes.items() if c["verdict"] == "regressed"}
    assert regressed == failed_ids(run.stdout.lines)
    worst = min(changes.values(), key=lambda c: c["delta"])
    assert worst["metric"] == "teds" and worst["baseline"] == 1.0 and worst["delta"] == worst["now"] - 1.0
    assert {c["verdict"] for c in changes.values()} == {"regressed", "unchanged"}


def test_each_case_is_decided_once_in_a_run_and_once_more_only_by_a_merge_given_its_own_rules(
        pytester: pytest.Pytester, cases: Path, outputs, baseline: Path, tmp_path: Path, monkeypatch, capsys):
    """The verdict is decided where the result is made; the end of the run, the change against the
    baseline and every report read it there (`verdict_of`). A merge given its own baseline decides
    each case again, once: the shards were decided against other rules."""
    from tablebench.gating.rules import Gate

    decided: list[str] = []
    check = Gate.check

    def counted(self, result):
        decided.append(result.test_id)
        return check(self, result)

    monkeypatch.setattr(Gate, "check", counted)
    spec = f"--parser=mine=dir:{outputs['corrupt']}"
    run = pytester.runpytest(*args(cases, tmp_path, spec, f"--baseline={baseline}", "--gate=teds", "--min-score=teds=0.5",
                                   f"--report-dir={tmp_path / 'r'}"))
    ids = [r["case_set"] + "/" + r["page"] + f"::t{r['index']}[mine]"
           for r in json.loads((tmp_path / "r" / "results.json").read_text())["results"]]
    assert len(ids) > 10 and sorted(decided) == sorted(ids), run.stdout.str()
    decided.clear()
    capsys.readouterr()
    assert main(["report", "merge", str(tmp_path / "r"), "--out", str(tmp_path / "m")]) == 1
    assert decided == [], "a merge without rules of its own keeps every case's verdict"
    main(["report", "merge", str(tmp_path / "r"), "--out", str(tmp_path / "m2"), f"--baseline={baseline}"])
    assert sorted(decided) == sorted(ids)


def test_a_printed_failing_id_pasted_back_runs_exactly_that_case(pytester: pytest.Pytester, cases: Path, outputs,
                                                                 tmp_path: Path):
    spec = f"--parser=mine=dir:{outputs['corrupt']}", "--min-score=teds=0.9"
    first = pytester.runpytest_subprocess(*args(cases, tmp_path, *spec, f"--report-dir={tmp_path / 'r1'}"))
    printed = sorted(failed_ids(first.stdout.lines))
    assert len(printed) > 3, first.stdout.str()
    html = expanded_html((tmp_path / "r1" / "report.html").read_text())
    chosen = printed[len(printed) // 2]
    assert chosen in html.replace("&#x27;", "'"), "report.html shows the same id"
    again = pytester.runpytest_subprocess(*args(cases, tmp_path, *spec, chosen, "-v", f"--report-dir={tmp_path / 'r2'}",
                                                f"--junitxml={tmp_path / 'j.xml'}"))
    again.assert_outcomes(failed=1)
    assert failed_ids(again.stdout.lines) == {chosen}
    ran = [line for line in again.stdout.lines if " FAILED" in line or " PASSED" in line]
    assert len(ran) == 1 and ran[0].startswith(chosen), ran
    assert f'name="id" value="{chosen}"' in (tmp_path / "j.xml").read_text(), "junit carries the same id"
    # a page, or an id in the form older baselines and reports used, select as pytest selects a file
    page = chosen.split("::")[0]
    whole_page = pytester.runpytest_subprocess(*args(cases, tmp_path, *spec, page, f"--report-dir={tmp_path / 'r3'}"))
    assert sum(whole_page.parseoutcomes().get(k, 0) for k in ("passed", "failed")) == \
        sum(1 for r in json.loads((tmp_path / "r1" / "results.json").read_text())["results"]
            if f"{r['case_set']}/{r['page']}" == page)
    by_keyword = pytester.runpytest_subprocess(*args(cases, tmp_path, *spec, "-k", chosen.split("/", 1)[1],
                                                     f"--report-dir={tmp_path / 'r5'}"))
    by_keyword.assert_outcomes(failed=1)
    assert failed_ids(by_keyword.stdout.lines) == {chosen}
    old_form = chosen.replace("::", "/")
    aliased = pytester.runpytest_subprocess(*args(cases, tmp_path, *spec, old_form, f"--report-dir={tmp_path / 'r4'}"))
    aliased.assert_outcomes(failed=1)
    unknown = pytester.runpytest_subprocess(*args(cases, tmp_path, *spec, f"{page}::t99[mine]"))
    assert unknown.ret == pytest.ExitCode.USAGE_ERROR and "not found: " in unknown.stderr.str()


def test_every_report_shows_the_gate_and_the_most_regressed_cases_linked_to_their_cards(
        pytester: pytest.Pytester, cases: Path, outputs, baseline: Path, tmp_path: Path, capsys):
    import lxml.html

    report = tmp_path / "r"
    run = pytester.runpytest(*args(cases, tmp_path, f"--parser=mine=dir:{outputs['corrupt']}", "--gate=teds",
                                   f"--baseline={baseline}", f"--report-dir={report}"))
    assert run.ret == pytest.ExitCode.TESTS_FAILED
    # the 10 largest drops, computed here from the baseline file and the scores
    base = json.loads(baseline.read_text())["cases"]
    now = json.loads((report / "results.json").read_text())["results"]
    drops = sorted((r["scores"].get("teds", 0.0) if r["outcome"] == "ok" else 0.0)
                   - base[f"{r['case_set']}/{r['page']}::t{r['index']}[mine]"]["scores"]["teds"] for r in now)
    worst = [d for d in drops if d < -0.01][:10]
    assert len(worst) == 10

    md = (report / "leaderboard.md").read_text()
    section = md.split("## Regressions", 1)[1].split("\n## ", 1)[0]
    gate_row = (r"^\| teds \| mine \| 1\.000 \| 0\.\d{3} \| -0\.\d{3} \| -0\.\d{3}\.\.-0\.\d{3} "
                r"\| (&lt;)?0\.\d+ \| 59 \| \*\*REGRESSION\*\* \|$")
    assert re.search(gate_row, section, re.M), section
    links = re.findall(r"^\| \[(\S+)\]\(report\.html#(c-[\w.-]+)\) \| teds \| [\d.]+ \| [\d.]+ \| ([-+][\d.]+) \|",
                       section, re.M)
    assert [float(d) for _, _, d in links] == pytest.approx(worst, abs=1e-3)
    assert "- **gate**" not in md, "the gate is the section's table, not a line of facts"

    doc = lxml.html.document_fromstring(expanded_html((report / "report.html").read_text()))
    sections = {s.get("id"): s for s in doc.findall(".//section")}
    assert doc.find(".//h1").getnext() is sections["leaderboard"], "the answer first: the ranking"
    order = [s.get("id") for s in doc.findall(".//section")]
    assert order.index("leaderboard") < order.index("failed") < order.index("regressions")
    assert sections["leaderboard"].find(".//tr[@class='v-fail']") is not None, "the parser's gate failed"
    fail_row = sections["regressions"].find(".//tr[@class='v-fail']")
    assert fail_row is not None and fail_row[-1].text == "REGRESSION"
    cards = {a.get("id"): a for a in doc.iter("article")}
    moved = sections["regressions"].findall(".//table[@class='board moved']//a")
    assert [(a.text, a.get("href")[1:]) for a in moved] == [(i.replace("\\", ""), anchor) for i, anchor, _ in links]
    for a in moved:
        assert a.text in cards[a.get("href")[1:]].find(".//header").text_content()

    capsys.readouterr()
    assert main(["report", str(report)]) == 0
    out = capsys.readouterr().out
    assert "Regressions" in out and "REGRESSION" in out
    assert all(test_id.replace("\\", "") in out for test_id, _, _ in links)


def huge_cell(page: str, index: int, html: str) -> str:
    """The corrupt parser's table plus one 300,000-character cell: too large to score now."""
    return corrupt(page, index, html).replace("</table>", f"<tr><td>{'x' * 300_000}</td></tr></table>")


def test_a_table_scored_in_the_baseline_and_not_computed_now_is_a_regression(
        pytester: pytest.Pytester, cases: Path, baseline: Path, tmp_path: Path):
    outputs = write_pages(tmp_path / "huge", cases, huge_cell)
    run = pytester.runpytest(*args(cases, tmp_path, f"--parser=mine=dir:{outputs}", "--gate=teds",
                                   f"--baseline={baseline}", f"--report-dir={tmp_path / 'r'}"))
    assert run.ret == pytest.ExitCode.TESTS_FAILED
    results = json.loads((tmp_path / "r" / "results.json").read_text())["results"]
    assert results and all(r["outcome"] == "ok" and r["not_computed"] for r in results)
    ids = {f"{r['case_set']}/{r['page']}::t{r['index']}[mine]" for r in results}
    assert failed_ids(run.stdout.lines) == ids | {"tablebench::gate[teds]"}, "every table fails, never unchanged"
    assert "teds scored in the baseline, not computed: table too large" in run.stdout.str()
    changes = [r["baseline_change"] for r in results]
    assert {(c["verdict"], c["now"]) for c in changes} == {("regressed", 0.0)}
    gate = json.loads((tmp_path / "r" / "gate.json").read_text())[0]
    assert (gate["n"], gate["run_mean"], gate["verdict"]) == (len(results), 0.0, "regression"), "each counts 0"
