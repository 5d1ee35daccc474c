"""`tablebench meta-eval` says how far it got on stderr (a formula study ran a minute in silence)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tablebench.cli import main
from tablebench.evaluate.progress import StderrProgress


def _study(path: Path, n: int = 40) -> Path:
    rows = []
    for i in range(n):  # n/2 ground-truth formulas, a good and a worse extraction each
        gt = f"$x_{i} = a^{{2}} + b_{i}$"
        rows.append({"gt_id": f"g{i // 2}", "gt_formula": gt, "extracted_formula": gt if i % 2 else f"$x_{i} = a + c$",
                     "metrics": {"bleu_score": 0.5 + i / (2 * n)}, "llm_scores": [],
                     "human_study_scores": [10, 9, 10] if i % 2 else [3, 4, 2]})
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


def test_formula_meta_eval_reports_each_stage_in_a_few_lines_on_stderr(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture) -> None:
    path = _study(tmp_path / "formulas.json", 42)
    assert main(["meta-eval", str(path), "--no-render", "--json", "--bootstrap", "20"]) == 0
    out, err = capsys.readouterr()
    assert "ours:formula_score" in json.loads(out), "stdout stays the JSON alone"
    lines = err.splitlines()
    for stage, total, shown in (("scoring ours:formula_score", 42, (0, 10, 20, 30, 40, 42)),
                                ("scoring ours:token_edit", 42, (0, 10, 20, 30, 40, 42)),
                                ("cross-validation folds", 21, (0, 5, 10, 15, 20, 21))):
        said = [line for line in lines if line.startswith(f"meta-eval: {stage} ")]
        assert said == [f"meta-eval: {stage} {n}/{total}" for n in shown]  # at each quarter, not one per pair
    assert any(line.startswith("meta-eval: correlating (bootstrap) ") for line in lines)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_one_line_is_redrawn_then_cleared() -> None:
    stream = _Terminal()
    progress = StderrProgress("meta-eval", stream)
    for i in range(101):
        progress("scoring ours:x", i, 100)
    progress.close()
    text = stream.getvalue()
    assert "\n" not in text and text.count("\r") < 10
    assert "meta-eval: scoring ours:x 100/100" in text and text.endswith("\r")
