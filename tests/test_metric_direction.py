"""A lower-is-better metric a user registers is ranked, gated and thresholded the right way up.

Why: `MetricSpec.higher_is_better` was declared and never read, so an edit distance ranked the
parser with more edits first, a run that got worse (larger distances) passed the gate as an
improvement, and `--min-score` on it failed the exact parser and passed the one with edits. Here a
conftest registers a character edit distance (0 = the table's text as in the ground truth, 1 =
nothing alike) through `pytest_tablebench_add_metrics`, and the real plugin runs `dir:` parsers on
synth-v1 pages: `exact` holds every table as it is, `shifted` one character changed per table.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tablebench.core.metric_specs import MetricSpec, direction, register
from tests.ci_cases import case_set, shift_one_char, write_pages
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]
METRIC = "char_edit"
CONFTEST = textwrap.dedent(f"""\
    from rapidfuzz.distance import Levenshtein

    from tablebench.core.metric_specs import MetricSpec, Scored


    def text(table):
        return " ".join(cell.text for cell in table.cells())


    def char_edit(gt, pred):
        return Scored({{"{METRIC}": Levenshtein.normalized_distance(text(gt), text(pred))}})


    def pytest_tablebench_add_metrics(config):
        return [MetricSpec("{METRIC}", "table", ("{METRIC}",), "{METRIC}", char_edit, higher_is_better=False,
                           default=False)]
""")


@pytest.fixture(scope="module", autouse=True)
def warm_metrics() -> None:
    """Score once in this process first: pytester drops modules a run imported, numba cannot reload."""
    from tablebench.core.table import Table
    from tablebench.metrics import score

    table = Table.from_rows([["a", "b"], ["1", "2"]], header_rows=1)
    score(table, table, ["teds"])


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Three synth-v1 pages (enough tables for the gate's permutation test) and two `dir:` parsers."""
    root = tmp_path_factory.mktemp("direction")
    cases = case_set(root / "mini", 3)
    return {"cases": cases, "exact": write_pages(root / "exact", cases),
            "shifted": write_pages(root / "shifted", cases, shift_one_char)}


def run(pytester: pytest.Pytester, bench: dict[str, Path], report: Path, *more: str) -> pytest.RunResult:
    """One real benchmark run scoring the edit distance; the metric is registered for the run only."""
    from tablebench.core.metric_specs import all_specs, unregister

    pytester.makeconftest(CONFTEST)
    try:
        return pytester.runpytest(*PLUGIN, f"--cases={bench['cases']}", f"--metrics={METRIC}", "-p", "no:cacheprovider",
                                  "-p", "no:xdist", f"--parse-cache={report.parent / 'cache'}",
                                  f"--report-dir={report}", "-rf", *more)
    finally:
        if METRIC in {s.name for s in all_specs()}:
            unregister(METRIC)


def results_json(report: Path) -> dict:
    return json.loads((report / "results.json").read_text(encoding="utf-8"))


def test_the_leaderboard_ranks_the_smaller_distance_first(pytester: pytest.Pytester, bench, tmp_path: Path):
    result = run(pytester, bench, tmp_path / "r", f"--parser=a_shifted=dir:{bench['shifted']}",
                 f"--parser=b_exact=dir:{bench['exact']}")
    assert result.ret == 0, result.stdout.str()
    board = results_json(tmp_path / "r")["leaderboard"]
    assert board["primary"] == METRIC
    rows = {row["parser"]: row for row in board["rows"]}
    exact, shifted = (rows[p]["overall"]["metrics"][METRIC] for p in ("b_exact", "a_shifted"))
    assert exact["include_missing"] == 0.0 < shifted["include_missing"]
    assert [row["parser"] for row in board["rows"]] == ["b_exact", "a_shifted"], "the smaller distance ranks first"
    assert exact["perfect_rate"] == 1.0 and shifted["perfect_rate"] == 0.0, "perfect is a distance of 0"


def test_larger_distances_than_the_baseline_are_a_regression(pytester: pytest.Pytester, bench, tmp_path: Path):
    base = tmp_path / "base.json"
    saved = run(pytester, bench, tmp_path / "r0", f"--parser=mine=dir:{bench['exact']}", f"--save-baseline={base}")
    assert saved.ret == 0, saved.stdout.str()
    gate = [f"--baseline={base}", f"--gate={METRIC}", "--gate-min-effect=0.0001", "--baseline-tolerance=0"]
    worse = run(pytester, bench, tmp_path / "r1", f"--parser=mine=dir:{bench['shifted']}", *gate)
    [row] = [c for c in json.loads((tmp_path / "r1" / "gate.json").read_text()) if c["gating"]]
    assert row["diff"] > 0 and row["verdict"] == "regression" and row["failed"], row
    assert worse.ret == pytest.ExitCode.TESTS_FAILED and "gate FAILED" in worse.stdout.str()
    changes = [r["baseline_change"] for r in results_json(tmp_path / "r1")["results"]]
    assert changes and {c["verdict"] for c in changes} == {"regressed"}, changes
    failed = [ln for ln in worse.stdout.lines if ln.startswith("FAILED ") and "::t" in ln]  # the cases
    assert len(failed) == len(changes) and all(f"{METRIC} " in ln and " > baseline " in ln for ln in failed), failed[:2]

    shifted_base = tmp_path / "shifted.json"
    run(pytester, bench, tmp_path / "r2", f"--parser=mine=dir:{bench['shifted']}", f"--save-baseline={shifted_base}")
    better = run(pytester, bench, tmp_path / "r3", f"--parser=mine=dir:{bench['exact']}",
                 f"--baseline={shifted_base}", *gate[1:])
    assert better.ret == 0, better.stdout.str()
    [row] = [c for c in json.loads((tmp_path / "r3" / "gate.json").read_text()) if c["gating"]]
    assert row["diff"] < 0 and row["verdict"] == "improvement", row


def test_min_score_is_a_ceiling_for_a_lower_is_better_metric(pytester: pytest.Pytester, bench, tmp_path: Path):
    result = run(pytester, bench, tmp_path / "r", f"--parser=exact=dir:{bench['exact']}",
                 f"--parser=shifted=dir:{bench['shifted']}", f"--min-score={METRIC}=0.001")
    verdicts = {(r["parser"], r["verdict"]["status"]) for r in results_json(tmp_path / "r")["results"]}
    assert verdicts == {("exact", "pass"), ("shifted", "fail")}, verdicts
    failed = [ln for ln in result.stdout.lines if ln.startswith("FAILED ")]
    assert failed and all("[shifted]" in ln and f"{METRIC} " in ln and " > max 0.0" in ln for ln in failed), failed


def test_a_lower_is_better_metric_needs_a_range_and_a_kind():
    """A case it could not score counts its worst value, the scale: without one it cannot be gated."""
    with pytest.raises(ValueError, match="lower is better, so it needs one kind and a finite scale"):
        register(MetricSpec("unbounded", "table", ("unbounded",), "unbounded", None, scale=float("inf"),
                            higher_is_better=False))
    with pytest.raises(ValueError, match="got kind '\\*'"):
        register(MetricSpec("everywhere", "*", ("everywhere",), "everywhere", None, higher_is_better=False))
    assert (direction("teds").worst, direction("semantic").best, direction("no_such_score").sign) == (0.0, 10.0, 1)


def test_compare_lists_larger_distances_as_worse(pytester: pytest.Pytester, bench, tmp_path: Path):
    """`tablebench compare` sorted and split cases by the raw change B - A: a run whose distances grew
    was listed as better in every case. The metric is registered as a plug-in's is, for the compare too."""
    from tablebench.core.metric_specs import unregister
    from tablebench.report.compare import compare_runs
    from tablebench.report.compare_render import moved

    for name, parser in (("exact", bench["exact"]), ("shifted", bench["shifted"])):
        assert run(pytester, bench, tmp_path / name, f"--parser=mine=dir:{parser}").ret == 0
    register(MetricSpec(METRIC, "table", (METRIC,), METRIC, None, higher_is_better=False, default=False))
    try:
        [report] = compare_runs([str(tmp_path / "exact"), str(tmp_path / "shifted")], metrics=METRIC)
        worse, better = moved(report)
        assert worse and not better, "every case of the shifted run has a larger distance: worse"
        assert all(c.deltas[METRIC] > 0 and c.gain(METRIC) < 0 for c in worse)
    finally:
        unregister(METRIC)


def test_meta_eval_correlates_a_lower_is_better_metric_the_right_way_up():
    """A distance that agrees with the ratings correlated at about -1 and ranked last among the scorers."""
    from rapidfuzz.distance import Levenshtein

    from tablebench.core.metric_specs import Scored, unregister
    from tablebench.evaluate.metaeval import RatedPair, meta_evaluate
    from tablebench.evaluate.metaeval_tables import recomputed_scorers

    def char_edit(gt, pred):
        text = [" ".join(c.text for c in t.cells()) for t in (gt, pred)]
        return Scored({METRIC: Levenshtein.normalized_distance(*text)})

    gt = r"\begin{tabular}{ll} Name & Score \\ Alpha & 41.7 \\ Beta & 45.3 \\ \end{tabular}"
    outputs = {"| Name | Score |\n|---|---|\n| Alpha | 41.7 |\n| Beta | 45.3 |": 10.0,
               "| Name | Score |\n|---|---|\n| Alpha | 41.2 |\n| Beta | 45.3 |": 7.0,
               "| Name | Score |\n|---|---|\n| Alfa | 11.2 |\n| Bet | 5.3 |": 3.0,
               "| Nm | Sc |\n|---|---|\n| x | 1 |\n| y | 2 |": 0.0}
    pairs = [RatedPair(f"t{k}", gt, out, human) for k, (out, human) in enumerate(outputs.items())]
    register(MetricSpec(METRIC, "table", (METRIC,), METRIC, char_edit, higher_is_better=False, default=False))
    try:
        result = meta_evaluate(pairs, recomputed_scorers([METRIC]), n_boot=20)[f"ours:{METRIC}"]
    finally:
        unregister(METRIC)
    assert result["spearman"] == 1.0 and result["pearson"] > 0.8, result  # was -1.0 and -0.9


def test_a_metric_that_runs_a_program_is_refused_without_it(monkeypatch, tmp_path: Path):
    """`MetricSpec.requires` was declared and never read: `--metrics=glyph_f1` without pdflatex scored every
    formula as not computed, one error at a time. Now the selection refuses it, on one line."""
    from tablebench.evaluate.selection import metric_selection

    assert metric_selection("glyph_f1", ["formula"])["formula"] == ["glyph_f1"]  # TeX Live is installed here
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no program at all
    with pytest.raises(ValueError, match=r"^metric glyph_f1 runs pdflatex, which is not on PATH") as refused:
        metric_selection("glyph_f1", ["formula"])
    assert "\n" not in str(refused.value)
    assert metric_selection("semantic", ["table"])["table"] == ["semantic"]  # needs nothing: still chosen
