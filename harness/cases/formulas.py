"""Formulas as ground truth: a page record's formulas, each LaTeX and inline or display (the group
results are marked and ranked by), read by the formula kind (`tablebench.kinds.formulas`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tablebench.cases.pdfbench import formulas_of

FORMULA_KINDS = ("inline", "display")  # what a formula item is marked and grouped by


@dataclass(frozen=True)
class GroundTruthFormula:
    """One ground-truth formula: its LaTeX as the ground truth writes it, and inline / display."""

    index: int  # 0-based position among the page's formulas
    latex: str
    kind: str  # "inline" | "display"
    source: str = ""

    @property
    def group(self) -> str:
        """What results group and mark a formula by (the leaderboard's inline / display columns)."""
        return self.kind


def read_formulas_of(record: object, blocks: list[dict], gt_path: Path) -> list[GroundTruthFormula]:
    """The page's formulas: its `formulas` list when the record has one, else its formula blocks
    (pdf-parse-bench `inline-formula` / `display-formula`, read by `tablebench.cases.pdfbench`)."""
    listed = record.get("formulas") if isinstance(record, dict) else None
    if listed is None:
        pairs = formulas_of(blocks, gt_path)
    else:
        if not isinstance(listed, list):
            raise ValueError(f"{gt_path}: 'formulas' must be a list of {{\"latex\": ..., \"kind\": ...}}")
        pairs = []
        for n, entry in enumerate(listed):
            latex = entry.get("latex") if isinstance(entry, dict) else None
            kind = entry.get("kind") if isinstance(entry, dict) else None
            if not isinstance(latex, str) or not latex.strip() or kind not in FORMULA_KINDS:
                raise ValueError(f"{gt_path}: formula {n} needs a non-empty 'latex' and a 'kind' of "
                                 f"{' / '.join(FORMULA_KINDS)}")
            pairs.append((latex, kind))
    return [GroundTruthFormula(index=i, latex=latex, kind=kind, source=f"{gt_path.stem}#f{i}")
            for i, (latex, kind) in enumerate(pairs)]
