"""`tablebench compare`: real runs of different parsers side by side, checked against numbers
computed here from the results.json files with numpy / scipy (not with the harness's statistics).

The runs are subprocess pytest runs on slices of the committed synth-v1 (`tests.ci_cases`):
A = one exact `dir:` parser on 2 pages (one table dropped); B = a noisy parser (another table
dropped) and a shifted
parser in one run on 3 pages (so B has cases A lacks, and needs RUN:LABEL).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from tablebench.cli import main
from tablebench.core.results import ItemResult
from tablebench.report.compare import compare_runs
from tablebench.report.compare_html import compare_html
from tablebench.report.write import write_report
from tests.ci_cases import case_set, noisy, shift_one_char, write_pages
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]
METRICS = "teds,semantic"


def exact_but_one(page: str, index: int, html: str) -> str:
    """The exact parser, which loses one table B finds (a case A did not find)."""
    return "" if (page, index) == ("p002", 3) else html


def noisy_dropping_one(page: str, index: int, html: str) -> str:
    """The noisy parser, which also loses the second table of the first page (a case B did not find)."""
    return "" if (page, index) == ("p001", 1) else noisy(7)(page, index, html)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(run A's report folder, run B's report folder), each made by a real pytest run."""
    import subprocess
    import sys

    root = tmp_path_factory.mktemp("compare")
    small = case_set(root / "a" / "mini", 2)
    large = case_set(root / "b" / "mini", 3)
    exact = write_pages(root / "exact", small, exact_but_one)
    bad = write_pages(root / "noisy", large, noisy_dropping_one)
    shifted = write_pages(root / "shifted", large, shift_one_char)
    out = []
    for name, cases, parsers in (("A", small, [f"--parser=exact=dir:{exact}"]),
                                 ("B", large, [f"--parser=noisy=dir:{bad}", f"--parser=shifted=dir:{shifted}"])):
        report = root / f"run{name}"
        proc = subprocess.run([sys.executable, "-m", "pytest", *PLUGIN, f"--cases={cases}", *parsers,
                               f"--metrics={METRICS}", "-p", "no:cacheprovider", "-p", "no:xdist", "-q",
                               f"--report-dir={report}", f"--parse-cache={root / 'cache'}", "--report-only"],
                              capture_output=True, text=True, timeout=300, check=False, cwd=root)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        out.append(report)
    return out[0], out[1]


def values(report: Path, parser: str, metric: str) -> dict[tuple, float]:
    """(set, page, table) -> the metric, 0 for a case not found, read straight from results.json (in run order)."""
    data = json.loads((report / "results.json").read_text(encoding="utf-8"))
    return {(r["case_set"], r["page"], r["index"]): (r["scores"][metric] if r["outcome"] == "ok" else 0.0)
            for r in data["results"] if r["parser"] == parser}


@pytest.mark.parametrize("metric", ["teds", "semantic"])
def test_deltas_and_paired_p_match_an_independent_computation(runs, metric):
    a_dir, b_dir = runs
    [report] = compare_runs([str(a_dir), f"{b_dir}:noisy"])
    a, b = values(a_dir, "exact", metric), values(b_dir, "noisy", metric)
    shared = [k for k in b if k in a]  # B's run order, as the gate pairs
    d = np.array([b[k] - a[k] for k in shared])
    assert len(shared) == 12 and d[shared.index(("mini", "p001", 1))] == -a[("mini", "p001", 1)] < 0
    assert d[shared.index(("mini", "p002", 3))] == b[("mini", "p002", 3)] > 0, "a case A lost counts 0 in A"
    ours = {c.item: c.deltas[metric] for c in report.cases}
    assert ours == pytest.approx({f"{s}/{p}::t{t}": float(x) for (s, p, t), x in zip(shared, d)}, abs=1e-12)
    first = [c.deltas[report.metrics[0]] for c in report.cases]
    assert first == sorted(first), "most worse first on the first metric"
    [row] = [c for c in report.comparisons if c.metric == metric]
    assert row.n == 12 and row.diff == pytest.approx(d.mean(), abs=1e-12)
    assert (row.base_mean, row.run_mean) == pytest.approx((np.mean([a[k] for k in shared]),
                                                           np.mean([b[k] for k in shared])))
    # 2^12 sign patterns: scipy enumerates them all (exact), as the gate's test does
    expect = stats.permutation_test((d,), np.mean, permutation_type="samples", alternative="less",
                                    n_resamples=9999).pvalue
    rise = stats.permutation_test((d,), np.mean, permutation_type="samples", alternative="greater",
                                  n_resamples=9999).pvalue
    assert (row.p_drop, row.p_rise) == pytest.approx((expect, rise), rel=1e-9)
    assert 0 < expect < 1 and row.ci_low <= row.diff <= row.ci_high
    assert row.verdict == ("regression" if expect < 0.05 and d.mean() < -0.01 * (10 if metric == "semantic" else 1)
                           else "no change")
    assert report.only_a == [] and sorted(report.only_b) == [f"mini/p003::t{i}" for i in range(5)]


def test_the_command_writes_terminal_markdown_and_html(runs, tmp_path: Path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    a_dir, b_dir = runs
    assert main(["compare", str(a_dir), str(b_dir)]) == 1
    err = capsys.readouterr().err
    assert "holds 2 parsers (noisy, shifted); choose one as" in err and err.count("\n") == 1
    md, page = tmp_path / "out" / "compare.md", tmp_path / "out" / "compare.html"
    assert main(["compare", str(a_dir), f"{b_dir}:noisy", f"{b_dir / 'results.json'}:shifted",
                 "--markdown", str(md), "--html", str(page)]) == 0
    out = capsys.readouterr().out
    assert "compare A vs B" in out and "compare A vs C" in out and "12 shared cases; 0 only in A, 5 only in B" in out
    assert "12 shared cases; 0 only in A, 5 only in C" in out and "worse in C" in out
    assert "worse in B" in out and "mini/p001::t1" in out and "ok → missing" in out
    text = md.read_text(encoding="utf-8")
    assert "| metric | mean A | mean B | delta B-A | CI | p | n shared | verdict |" in text
    assert "| metric | mean A | mean C | delta C-A | CI | p | n shared | verdict |" in text
    assert "&gt;" not in text and "| 10.00 → 0.00 (-10.00) | 1.000 → 0.000 (-1.000) | ok → missing |" in text
    assert "](compare.html#cmp-mini-p001-t1-" in text
    html = page.read_text(encoding="utf-8")
    assert html.count('<article class="case"') == 12 and "Content-Security-Policy" in html and "<script" not in html
    assert html.count("<h4>") == 12 * 4, "ground truth, A, B and C in every card"
    assert main(["compare", str(a_dir), f"{b_dir}:noisy", "--html", str(page), "--cards", "3"]) == 0
    html = page.read_text(encoding="utf-8")
    cards = re.findall(r'<article class="case" id="cmp-mini-(p00\d-t\d)-', html)
    assert len(cards) == 3 and cards[0] == "p001-t1", "the lost table first, then the two that moved most"
    assert html.count('<a href="#cmp-') == 3, "a link from the case table to each card, none to a card left out"
    assert "cards for the 3 cases that moved most, of 12 shared" in html
    assert main(["compare", str(a_dir), f"{b_dir}:noisy", "--top", "-1"]) == 1
    capsys.readouterr()
    assert main(["compare", str(a_dir), f"{b_dir}:noisy", "--html", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert "--html" in captured.err and captured.out == "", "refused before any output"


def test_every_text_is_escaped_and_label_or_run_errors_are_one_line(tmp_path: Path, capsys):
    evil = "<script>alert(1)</script>"
    meta = {"case_set": evil, "parser_versions": {evil: evil}}
    base = {"case_set": evil, "page": "p001", "index": 0, "group": evil,
            "gt_html": f"<table><tr><td>{evil}</td></tr></table>"}
    write_report([ItemResult(parser=evil, outcome="ok", scores={"teds": 1.0}, **base)], tmp_path / "a", meta)
    write_report([ItemResult(parser="b", outcome="missing", message=evil, matched_text=evil, **base)],
                 tmp_path / "b", {**meta, "parser_versions": {"b": "1"}})
    reports = compare_runs([str(tmp_path / "a"), str(tmp_path / "b")])
    assert [c.deltas["teds"] for c in reports[0].cases] == [-1.0]
    html = compare_html(reports)
    assert "<script" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert main(["compare", str(tmp_path / "a"), f"{tmp_path / 'b'}:nobody"]) == 1
    assert "no parser 'nobody' in this run (it has b)" in capsys.readouterr().err
    assert main(["compare", str(tmp_path / "a")]) == 1
    assert "at least two runs" in capsys.readouterr().err


def test_a_label_or_a_run_path_holding_colons_is_split_where_a_run_is_and_an_ambiguous_one_is_refused(
        tmp_path: Path, capsys):
    """RUN:LABEL splits at the ':' whose left part is a run (a results.json, or a folder holding one):
    labels such as `vlm:gpt-x` and folders such as `x:vlm` keep their colons. When two splits name
    runs, the one whose run has that parser is meant; when both do, a one-line error says so."""
    from tests.test_report_samples import sample_results

    results = sample_results(n_pages=4)  # parsers pymupdf4llm, pdfplumber, vlm:gpt-x
    for name in ("run", "x:vlm", "y", "y:vlm"):
        write_report(results, tmp_path / name, {"case_set": "s"})
    gpt = [r for r in results if r.parser == "vlm:gpt-x"]
    for arg, label in ((f"{tmp_path / 'run'}:vlm:gpt-x", "vlm:gpt-x"),
                       (f"{tmp_path / 'x:vlm'}:pdfplumber", "pdfplumber"),
                       (f"{tmp_path / 'x:vlm'}:vlm:gpt-x", "vlm:gpt-x"),
                       (f"{tmp_path / 'run' / 'results.json'}:vlm:gpt-x", "vlm:gpt-x")):
        reports = compare_runs([f"{tmp_path / 'run'}:pdfplumber", arg])
        assert reports[0].b.label == label and len(reports[0].cases) == len(gpt), arg
    # `y` holds vlm:gpt-x, `y:vlm` holds no parser `gpt-x`: only one reading names a parser of its run
    assert compare_runs([f"{tmp_path / 'run'}:pdfplumber", f"{tmp_path / 'y'}:vlm:gpt-x"])[0].b.arg.endswith("y:vlm:gpt-x")
    for r in results:
        if r.parser == "pdfplumber":
            r.parser = "gpt-x"  # now `y:vlm` has a parser gpt-x too: two runs, each with its parser
    write_report(results, tmp_path / "y:vlm", {"case_set": "s"})
    assert main(["compare", f"{tmp_path / 'run'}:pdfplumber", f"{tmp_path / 'y'}:vlm:gpt-x"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ambiguous" in err and f"run {tmp_path / 'y'} with parser 'vlm:gpt-x'" in err
    assert f"run {tmp_path / 'y:vlm'} with parser 'gpt-x'" in err and "results.json" in err
    assert main(["compare", f"{tmp_path / 'run'}:pdfplumber", f"{tmp_path / 'y' / 'results.json'}:vlm:gpt-x"]) == 0
    capsys.readouterr()
    assert main(["compare", f"{tmp_path / 'run'}:pdfplumber", f"{tmp_path / 'nowhere'}:vlm:gpt-x"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such run" in err
