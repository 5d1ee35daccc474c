"""A page's prose as ground truth: its `"type": "text"` blocks in reading order, one item per page,
grouped by the page's layout (one or two columns), read by the text kind (`tablebench.kinds.text`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

LAYOUTS = ("one_column", "two_column")  # the groups: what `layout.columns` 1 / 2 is called


@dataclass(frozen=True)
class GroundTruthText:
    """A page's prose: its text blocks in reading order."""

    blocks: tuple[str, ...]
    group: str  # the page's layout (`LAYOUTS`), "unknown" when the record says none
    index: int = 0  # one text item per page
    page_span: tuple[int, int] = (1, 1)  # the first and last PDF page it is on: a document's prose is on all

    @property
    def latex(self) -> str:
        """The prose as the ground truth has it, blocks apart by a blank line (what a judge or a card shows)."""
        return "\n\n".join(self.blocks)


def read_text_of(record: object, blocks: list[dict], gt_path: Path) -> list[GroundTruthText]:
    """The page's text item ([] for a page without prose); a one-line error for a text block without text."""
    texts = []
    for i, block in enumerate(blocks):
        if block.get("type") != "text":
            continue
        if not isinstance(block.get("data"), str):
            raise ValueError(f"{gt_path}: text block {i} has no text in 'data'")  # noqa: TRY004
        if block["data"].strip():
            texts.append(block["data"])
    if not texts:
        return []
    layout = record.get("layout") if isinstance(record, dict) else None
    columns = layout.get("columns") if isinstance(layout, dict) else None
    group = LAYOUTS[columns - 1] if columns in (1, 2) else "unknown"
    count = record.get("pages", 1) if isinstance(record, dict) else 1
    last = count if type(count) is int and count >= 1 else 1  # the case set refuses any other count
    return [GroundTruthText(tuple(texts), group, page_span=(1, last))]
