"""A pdf-parse-bench folder read as plain data: its (PDF, ground truth) pairs and the formulas of each page.

The folder holds `pdfs/NNN.pdf` and `ground_truth/NNN.json`, each page an ordered list of
blocks `{"type": "text" | "inline-formula" | "display-formula", "data": "$..$" / "$$..$$"}`.
Here every page becomes its PDF path and its formulas in page order, each with its exact
LaTeX (delimiters kept, as the ground truth has them) and its kind ("inline" / "display").
Case-set plumbing (ids, markers, manifest) is the caller's; this module only reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tablebench.core.files import read_json

FORMAT = "pdf-parse-bench"
KINDS = {"inline-formula": "inline", "display-formula": "display"}


def bench_pairs(src: Path) -> list[tuple[Path, Path]]:
    """(pdf, ground truth) pairs of a pdf-parse-bench folder; one-line errors for anything else."""
    gt_dir, pdf_dir = src / "ground_truth", src / "pdfs"
    if not src.is_dir():
        raise ValueError(f"{src} is not a folder")
    if not gt_dir.is_dir() or not pdf_dir.is_dir():
        raise ValueError(f"{src} is not a pdf-parse-bench folder: expected pdfs/ and ground_truth/")
    pairs = [(pdf_dir / f"{gt.stem}.pdf", gt) for gt in sorted(gt_dir.glob("*.json"))]
    if not pairs:
        raise ValueError(f"{gt_dir}: no ground-truth JSON files")
    for pdf, gt in pairs:
        if not pdf.is_file():
            raise ValueError(f"{gt}: its PDF {pdf.name} is missing from {pdf_dir}")
        if not gt.stem.isdigit():
            raise ValueError(f"{gt}: page files must be numbered (NNN.json)")
    return pairs


@dataclass(frozen=True, slots=True)
class FormulaPage:
    """One page: its id (the file stem), its PDF, and its (latex, kind) formulas in order."""

    page: str
    pdf: Path
    formulas: tuple[tuple[str, str], ...]


def page_formulas(gt_path: Path | str) -> tuple[tuple[str, str], ...]:
    """(latex, kind) of every formula block of one ground-truth file; one-line errors otherwise."""
    gt_path = Path(gt_path)
    blocks = read_json(gt_path)
    if isinstance(blocks, dict):
        blocks = blocks.get("blocks")
    return formulas_of(blocks, gt_path)


def formulas_of(blocks: object, gt_path: Path | str) -> tuple[tuple[str, str], ...]:
    """(latex, kind) of every formula block of an already-read block list (`gt_path` names it
    in errors); a generated block's own `kind` wins over the one its type implies."""
    if not isinstance(blocks, list):
        raise ValueError(f"{gt_path}: expected a list of blocks")
    out = []
    for n, block in enumerate(blocks):
        if not isinstance(block, dict) or "type" not in block:
            raise ValueError(f"{gt_path}: block {n} has no 'type'")
        kind = KINDS.get(block["type"])
        if kind is None:
            continue
        latex = block.get("data")
        if not isinstance(latex, str) or not latex.strip():
            raise ValueError(f"{gt_path}: {block['type']} block {n} without LaTeX in 'data'")
        out.append((latex, block.get("kind") if block.get("kind") in KINDS.values() else kind))
    return tuple(out)


def formula_pages(src: Path | str) -> list[FormulaPage]:
    """Every page of a pdf-parse-bench formula folder, in page order, with its formulas."""
    return [FormulaPage(gt.stem, pdf, page_formulas(gt)) for pdf, gt in bench_pairs(Path(src))]
