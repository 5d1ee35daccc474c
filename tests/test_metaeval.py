"""Meta-evaluation: loading the study format and correlating like scipy does."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

from tablebench.cli import main
from tablebench.evaluate.metaeval import correlate, meta_evaluate
from tablebench.evaluate.metaeval_tables import cross_validate, load_rated_pairs
from tablebench.metrics.tables.semantic_align import FEATURES


def _study_file(tmp_path, n=12):
    rng = np.random.default_rng(1)
    data = []
    for g in range(3):
        exts = []
        for i in range(n // 3):
            human = [int(x) for x in rng.integers(0, 11, size=3)]
            exts.append({"parser": f"p{i}", "extracted_table": f"| a | {g}{i} |\n|---|---|\n| 1 | 2 |",
                         "metrics": {"teds": float(np.mean(human)) / 10 + rng.normal(0, 0.05), "grits_con": None},
                         "llm_scores": [{"judge_model": "m/x", "score": int(np.mean(human)), "errors": []}],
                         "human_scores": human})
        exts.append({"parser": "empty", "extracted_table": "  ", "metrics": {"teds": 0.0},
                     "llm_scores": [], "human_scores": [0, 0, 0]})
        data.append({"gt_id": f"g{g}", "gt_table": "\\begin{tabular}{cc}a&b\\\\\\end{tabular}",
                     "complexity": "simple", "extractions": exts})
    path = tmp_path / "study.json"
    path.write_text(json.dumps(data))
    return path


def test_load_drops_empty_extractions_and_averages_humans(tmp_path):
    pairs = load_rated_pairs(_study_file(tmp_path))
    assert len(pairs) == 12
    assert all(p.parser != "empty" for p in pairs)
    assert "grits_con" not in pairs[0].stored  # null means not computed
    assert pairs[0].stored["judge:m/x"] == int(pairs[0].human)


def test_correlate_matches_scipy_and_ci_brackets_the_point():
    rng = np.random.default_rng(0)
    x = rng.random(50)
    y = x + rng.normal(0, 0.3, 50)
    r = correlate(x, y, n_boot=300)
    assert r["pearson"] == pytest.approx(stats.pearsonr(x, y).statistic, abs=1e-12)
    assert r["spearman"] == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
    assert r["kendall"] == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
    for name in ("pearson", "spearman", "kendall"):
        lo, hi = r["ci95"][name]
        assert lo <= r[name] <= hi
    assert r["n"] == 50


def test_correlate_rejects_too_short_series():
    with pytest.raises(ValueError):
        correlate([1, 2], [1, 2])


def test_stored_metric_correlations_equal_scipy_on_study_dev(metric_study_dev, tmp_path):
    from tests.conftest import shared_path

    pairs = load_rated_pairs(shared_path("data", "table-metric-study", "dev.json"))
    assert len(pairs) == 205
    results = meta_evaluate(pairs, n_boot=50)
    humans = [p.human for p in pairs]
    for name in ("teds", "grits_con", "judge:anthropic/claude-opus-4.6"):
        xs = [p.stored[name] for p in pairs]
        assert results[name]["pearson"] == pytest.approx(stats.pearsonr(xs, humans).statistic, abs=1e-12)
        assert results[name]["kendall"] == pytest.approx(stats.kendalltau(xs, humans).statistic, abs=1e-12)
    # the study's own headline numbers on dev, as the data holds them
    assert results["teds"]["pearson"] == pytest.approx(0.711, abs=1e-3)
    assert results["judge:anthropic/claude-opus-4.6"]["pearson"] > 0.9


def test_cli_json_output(tmp_path, capsys):
    assert main(["meta-eval", str(_study_file(tmp_path)), "--metrics", "", "--json", "--bootstrap", "20"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"teds", "judge:m/x"}
    assert set(out["teds"]) == {"pearson", "spearman", "kendall", "ci95", "n"}


def test_cli_bad_file_is_a_one_line_error(tmp_path, capsys):
    bad = tmp_path / "x.json"
    bad.write_text("{}")
    assert main(["meta-eval", str(bad), "--metrics", ""]) == 1
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize("content", ['[{"gt_table": 1}]', "[1, 2]", '[{"gt_table": "x", "extractions": "abc"}]',
                                     '[{"gt_table": "x", "extractions": [{"extracted_table": "| a |", '
                                     '"human_scores": ["high"]}]}]'])
def test_cli_valid_json_of_the_wrong_shape_is_a_one_line_error(tmp_path, capsys, content):
    bad = tmp_path / "x.json"
    bad.write_text(content)
    assert main(["meta-eval", str(bad), "--metrics", ""]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ("table-metric-study format" in err or "expected" in err)
    assert "Traceback" not in err


def _three_ground_truths() -> list[tuple[list[list[str]], str]]:
    """Three 4-row ground truths (Model, Acc, F1): each one's rows and its LaTeX."""
    out = []
    for g in range(3):
        rows = [[f"Net-{g}{r}", f"{10 * g + r}.{r}", f"{r + 1}.{g}5"] for r in range(4)]
        latex = "\\begin{tabular}{lcc}\nModel & Acc & F1 \\\\\n" + "".join(" & ".join(r) + " \\\\\n" for r in rows) \
            + "\\end{tabular}"
        out.append((rows, latex))
    return out


def _ratable_study(tmp_path, name="rated"):
    """Three ground truths, each with extractions losing 0..3 rows; humans rate by rows lost."""
    data = []
    for g, (rows, latex) in enumerate(_three_ground_truths()):
        exts = []
        for lost in range(4):
            md = "| Model | Acc | F1 |\n|---|---|---|\n" + "".join(f"| {' | '.join(r)} |\n" for r in rows[:4 - lost])
            exts.append({"parser": f"p{lost}", "extracted_table": md, "human_scores": [10 - 3 * lost] * 3})
        data.append({"gt_id": f"g{g}", "gt_table": latex, "complexity": "simple", "extractions": exts})
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data))
    return path


def test_cross_validation_holds_each_table_out_and_refits(tmp_path):
    result = cross_validate(load_rated_pairs(_ratable_study(tmp_path)), n_boot=20)
    assert [f["table"] for f in result["folds"]] == ["g0", "g1", "g2"]
    assert all(f["n"] == 4 and len(f["weights"]) == len(FEATURES) for f in result["folds"])
    assert result["cv"]["n"] == 12 and result["cv"]["pearson"] > 0.9  # lost rows order the ratings, held out too
    lo, hi = result["cv"]["ci95"]["pearson"]
    assert lo <= result["cv"]["pearson"] <= hi


def test_cli_cv_prints_the_held_out_numbers(tmp_path, capsys):
    assert main(["meta-eval", str(_ratable_study(tmp_path)), "--cv", "--bootstrap", "20"]) == 0
    out = capsys.readouterr().out
    assert "cross-validated (held-out units)" in out and "g2" in out
    assert main(["meta-eval", str(_ratable_study(tmp_path)), "--cv", "--bootstrap", "20", "--json"]) == 0
    assert set(json.loads(capsys.readouterr().out)) >= {"cv", "in_sample", "default", "folds", "complexity"}


def test_several_files_of_a_study_are_pooled_with_each_files_ground_truths_apart(tmp_path, capsys):
    files = [str(_ratable_study(tmp_path, name)) for name in ("dev", "dev2")]  # the same gt_ids in both
    pairs = load_rated_pairs(*files)
    pooled_ids = ["dev/g0", "dev/g1", "dev/g2", "dev2/g0", "dev2/g1", "dev2/g2"]
    assert len(pairs) == 24 and list(dict.fromkeys(p.gt_id for p in pairs)) == pooled_ids
    assert [p.gt_id for p in load_rated_pairs(files[0])][::4] == ["g0", "g1", "g2"]  # one file: ids as written
    assert main(["meta-eval", *files, "--cv", "--json", "--bootstrap", "20"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [f["table"] for f in result["folds"]] == pooled_ids and result["cv"]["n"] == 24
    assert set(result["splits"]) == {"dev", "dev2"} and result["splits"]["dev"]["n"] == 12  # held out, per file
    for part in (result["splits"]["dev"], result["complexity"]["simple"]):  # per split and per complexity, with CIs
        lo, hi = part["ci95"]["pearson"]
        assert lo <= part["pearson"] <= hi
    assert all(f["human_sd"] == pytest.approx(3.354, abs=1e-3) for f in result["folds"])  # ratings 10, 7, 4, 1
    assert main(["meta-eval", *files, "--cv", "--bootstrap", "20"]) == 0
    out = capsys.readouterr().out
    assert "held-out, dev2" in out and "weakest fold where human ratings vary" in out
    formulas = tmp_path / "formulas.json"  # another study's file cannot join the pool
    formulas.write_text(json.dumps([{"gt_formula": "$a$", "extracted_formula": "$a$", "human_study_scores": [5]}]))
    assert main(["meta-eval", *files, str(formulas), "--metrics", ""]) == 1
    assert "formulas.json: ground truth #1 is not in the table-metric-study format" in capsys.readouterr().err
    assert main(["meta-eval", files[0], files[0], "--metrics", ""]) == 1
    assert "distinct names" in capsys.readouterr().err
    assert main(["meta-eval", files[0], str(_study_file(tmp_path)), str(tmp_path / "x.json"), "--metrics", ""]) == 1
    assert "No such file" in capsys.readouterr().err


def test_the_fit_weighs_every_ground_truth_table_alike():
    from tablebench.metrics.tables.semantic_fit import fit_weights, table_weights

    assert table_weights(["a", "a", "a", "b"], 4).tolist() == pytest.approx([2 / 3, 2 / 3, 2 / 3, 2])
    assert table_weights(None, 3).tolist() == [1.0, 1.0, 1.0]
    # one feature; table "a" (9 pairs) wants it cheap, table "b" (1 pair) wants it dear
    from tablebench.metrics.tables.semantic import feature_row

    rows = [feature_row(np.eye(len(FEATURES))[1], False)] * 10  # the second feature only (of a grid read as written)
    human = np.array([9.0] * 9 + [2.0])
    groups = ["a"] * 9 + ["b"]
    per_pair = fit_weights(rows, human)[1]
    per_table = fit_weights(rows, human, groups=groups)[1]
    # per pair, "a" decides (close to -log 0.9); per table, both count: the cost lies between
    assert per_pair == pytest.approx(-np.log(0.83), abs=0.05)
    assert per_table > per_pair + 0.3


def test_the_semantic_score_is_correlated_by_default(tmp_path, capsys):
    assert main(["meta-eval", str(_ratable_study(tmp_path)), "--json", "--bootstrap", "20"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert {"ours:semantic", "ours:teds", "ours:grits", "ours:tlag"} <= set(result), sorted(result)
    assert result["ours:semantic"]["n"] == 12


def test_cv_reports_each_stored_judges_bias_per_complexity_beside_ours(tmp_path, capsys):
    """A judge's scale use per complexity (judge - human, on the same pairs) is printed beside our
    held-out bias: it tells a judge's slope over complexity from the score's."""
    path = _ratable_study(tmp_path)
    data = json.loads(path.read_text())
    for g, gt in enumerate(data):
        gt["complexity"] = "complex" if g == 2 else "simple"
        for ext in gt["extractions"]:
            human = ext["human_scores"][0]
            ext["llm_scores"] = [{"judge_model": "strict/judge", "score": human - (2 if g == 2 else 0.5)},
                                 {"judge_model": "kind/judge", "score": None}]
    path.write_text(json.dumps(data))
    result = cross_validate(load_rated_pairs(path), n_boot=20)
    assert result["complexity"]["simple"]["judges"] == {"judge:strict/judge": pytest.approx(-0.5)}
    assert result["complexity"]["complex"]["judges"] == {"judge:strict/judge": pytest.approx(-2.0)}
    assert main(["meta-eval", str(path), "--cv", "--bootstrap", "20"]) == 0
    out = capsys.readouterr().out
    assert "stored LLM judges' bias per complexity" in out
    assert any(line.split() == ["strict/judge", "-0.50", "-2.00"] for line in out.splitlines()), out


def _judged_study(tmp_path, name="judged"):
    """The judged-pairs layout: no human rating, one stored judge; lines of text lose rows."""
    data = []
    for g, (rows, latex) in enumerate(_three_ground_truths()):
        exts = []
        for lost in range(4):
            lines = "Model Acc F1\n" + "".join(" ".join(r) + "\n" for r in rows[:4 - lost])
            exts.append({"parser": "lines" if lost % 2 else "other", "extracted_table": lines, "human_scores": [],
                         "llm_scores": [{"judge_model": "judge:tuned", "score": 10 - 3 * lost, "errors": []}]})
        data.append({"gt_id": f"j{g}", "gt_table": latex, "complexity": "moderate", "extractions": exts})
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data))
    return path


def test_a_judged_file_is_read_against_its_stored_judge(tmp_path):
    pairs = load_rated_pairs(_judged_study(tmp_path))
    assert len(pairs) == 12 and {p.reference for p in pairs} == {"judge:judge:tuned"}
    assert [p.human for p in pairs[:4]] == [10.0, 7.0, 4.0, 1.0]
    assert all("judge:judge:tuned" not in p.stored for p in pairs)  # never correlated with itself
    # a rated file keeps its humans as the reference, and its judges as stored scores
    rated = load_rated_pairs(_study_file(tmp_path))
    assert {p.reference for p in rated} == {"human"} and "judge:m/x" in rated[0].stored


def test_cross_validation_over_rated_and_judged_files_reports_each_and_the_judged_cells(tmp_path, capsys):
    files = [str(_ratable_study(tmp_path)), str(_judged_study(tmp_path))]
    assert main(["meta-eval", *files, "--cv", "--json", "--bootstrap", "20"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["splits"]["judged"]["reference"] == "judge:judge:tuned"
    assert result["splits"]["rated"]["reference"] == "human"
    cells = {(c["parser"], c["complexity"]): c for c in result["cells"]}
    assert set(cells) == {("lines", "moderate"), ("other", "moderate")}  # judged pairs only
    assert cells["other", "moderate"]["n"] == 6 and cells["other", "moderate"]["reference_mean"] == pytest.approx(7.0)
    assert main(["meta-eval", *files, "--cv", "--bootstrap", "20"]) == 0
    text = capsys.readouterr().out
    assert "judged pairs per parser and complexity" in text and "vs judge:judge:tuned" in text


def test_ablation_cross_validates_the_score_without_each_reading_rule(tmp_path, capsys):
    from tablebench.metrics.tables.semantic import RULES

    files = [str(_ratable_study(tmp_path)), str(_judged_study(tmp_path))]
    assert main(["meta-eval", *files, "--ablation", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["without"] for r in rows] == ["(none)", *sorted(RULES)]
    assert all("rated" in r and "judged" in r for r in rows)
    lines = next(r for r in rows if r["without"] == "lines")
    assert lines["judged"] < rows[0]["judged"]  # one column of lines, unread: the judged lines lose their order
    assert not any("worst_cell" in r for r in rows)  # no parser x complexity cell of 10 tables here


def test_ablation_reports_the_judged_cell_furthest_from_the_judge(tmp_path):
    from tablebench.evaluate.metaeval_tables import ablation, ablation_report

    rows = ablation(load_rated_pairs(_ratable_study(tmp_path), _judged_study(tmp_path)), cell_min=6)
    assert all(isinstance(r["worst_cell"], float) and abs(r["worst_cell"]) < 10 for r in rows)
    report = ablation_report(rows).splitlines()
    assert report[2].split()[-2:] == ["worst", "cell"]
    assert report[3].split()[-1] == f"{rows[0]['worst_cell']:+.2f}"


def test_judged_pairs_are_held_out_by_page_and_rated_pairs_by_ground_truth(tmp_path) -> None:
    """Issue 43: a rule pays only if it pays on pages it was not fitted on, so the tables of one
    judged page form one fold (a parser reads a page's tables alike); a rated table is its own."""
    import json

    from tablebench.evaluate.metaeval import parser_agreement
    from tablebench.evaluate.metaeval_tables import load_rated_pairs

    gt = r"\begin{tabular}{ll} a & b \\ 1 & 2 \\ \end{tabular}"
    judged = [{"gt_id": f"p00{page}_t{t}", "page": f"p00{page}", "table": t, "complexity": "simple", "gt_table": gt,
               "extractions": [{"parser": name, "extracted_table": "| a | b |\n|---|---|\n| 1 | 2 |",
                                "llm_scores": [{"judge_model": "j", "score": 9}], "human_scores": []}
                               for name in ("x", "y")]} for page in (1, 2) for t in (0, 1)]
    rated = [{"gt_id": "T1", "gt_table": gt, "complexity": "simple",
              "extractions": [{"parser": "v", "extracted_table": "| a | b |", "human_scores": [7, 8]}]}]
    (tmp_path / "judged.json").write_text(json.dumps(judged))
    (tmp_path / "rated.json").write_text(json.dumps(rated))
    pairs = load_rated_pairs(tmp_path / "judged.json", tmp_path / "rated.json")
    assert sorted({p.unit for p in pairs}) == ["judged/p001", "judged/p002", "rated/T1"]
    assert {p.gt_id for p in pairs if p.unit == "judged/p001"} == {"judged/p001_t0", "judged/p001_t1"}
    import numpy as np

    agreement = parser_agreement(pairs, np.asarray([p.human - 0.5 for p in pairs]), n_boot=10, seed=0)
    assert set(agreement) == {"x", "y"} and agreement["x"]["diff"] == -0.5 and agreement["x"]["n"] == 4


def test_the_agreement_table_names_the_judge_when_a_stored_judge_is_the_reference(tmp_path, capsys):
    assert main(["meta-eval", str(_judged_study(tmp_path)), "--bootstrap", "20"]) == 0
    text = capsys.readouterr().out
    assert "Agreement with the judge (judge:judge:tuned)" in text and "human ratings" not in text
    assert main(["meta-eval", str(_ratable_study(tmp_path)), "--bootstrap", "20"]) == 0
    assert "Agreement with human ratings (" in capsys.readouterr().out
