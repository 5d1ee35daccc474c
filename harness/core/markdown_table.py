"""A Markdown table's lines: the one writer of `| a | b |` rows with a `|---|` rule under the head.

The score tables' docs blocks (`core.score_table`), `tablebench compare`'s Markdown and the
report's regressions section write their tables with it; cells are given as they are to stand
(escaping a cell is its caller's: `report.markdown.md_text`). The leaderboard's own tables align
their numbers right and keep their own writer (`report.markdown`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def markdown_table(head: Sequence[str], body: Iterable[Sequence[str]]) -> str:
    """A Markdown table: the head, the line under it, one line per row of cells (as given)."""
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return "\n".join(lines + ["| " + " | ".join(cells) + " |" for cells in body])
