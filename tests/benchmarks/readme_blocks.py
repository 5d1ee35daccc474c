"""The generated blocks of the README and docs/: text between `<!-- NAME -->` and `<!-- /NAME -->`
that a figures script writes (tests/benchmarks/*_figures.py) and tests/test_readme.py reads back,
so both sides agree on where a block is.

`BLOCKS` names every block and the one file that holds it; a script writes a block by name and
never needs to know which file that is, and moving a block to another page is one line here.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"

# block name -> the file (relative to the repository root) that holds it, and the script that writes it
BLOCKS: dict[str, tuple[str, str]] = {
    "leaderboard": ("README.md", "tests.benchmarks.leaderboard_figures"),
    "i18n": ("docs/case-sets.md", "tests.benchmarks.leaderboard_figures"),
    "semantic-summary": ("README.md", "tests.benchmarks.semantic_figures"),
    "semantic-figures": ("docs/metrics.md", "tests.benchmarks.semantic_figures"),
    "formula-summary": ("README.md", "tests.benchmarks.formula_figures"),
    "formula-agreement": ("docs/metrics.md", "tests.benchmarks.formula_figures"),
    "formula-runs": ("docs/formulas.md", "tests.benchmarks.formula_figures"),
    "speed": ("docs/performance.md", "tests.benchmarks.speed_figures"),
    "documents": ("docs/documents.md", "tests.benchmarks.document_figures"),
    "score-table-semantic": ("docs/semantic-score.md", "tests.benchmarks.score_tables"),
    "score-table-semantic-features": ("docs/semantic-score.md", "tests.benchmarks.score_tables"),
    "score-table-semantic-reading": ("docs/semantic-score.md", "tests.benchmarks.score_tables"),
    "score-table-semantic-comparison": ("docs/semantic-score.md", "tests.benchmarks.score_tables"),
    "score-table-semantic-behaviour": ("docs/semantic-score.md", "tests.benchmarks.score_tables"),
    "score-table-text": ("docs/text.md", "tests.benchmarks.score_tables"),
    "score-table-formula": ("docs/metrics.md", "tests.benchmarks.score_tables"),
}
_MARKER = re.compile(r"<!-- (/?)([a-z0-9-]+) -->")


def target(name: str) -> Path:
    """The file that holds block `name`."""
    return REPO / BLOCKS[name][0]


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name} -->", f"<!-- /{name} -->"


def markers_in(text: str) -> list[tuple[str, bool]]:
    """Every block marker of `text` in order: (name, True for an opening marker)."""
    return [(m.group(2), not m.group(1)) for m in _MARKER.finditer(text)]


def read_block(name: str, file: Path | None = None) -> str:
    """The block's text, stripped."""
    start, end = markers(name)
    text = (file or target(name)).read_text(encoding="utf-8")
    if text.count(start) != 1 or text.count(end) != 1:
        raise ValueError(f"{file or target(name)}: block {name!r} must open and close exactly once")
    return text.split(start, 1)[1].split(end, 1)[0].strip()


def write_block(name: str, text: str, file: Path | None = None) -> None:
    """Replace the block's text with `text`, leaving the rest of its file as it is."""
    path = file or target(name)
    start, end = markers(name)
    content = path.read_text(encoding="utf-8")
    head, rest = content.split(start, 1)
    _, tail = rest.split(end, 1)
    path.write_text(f"{head}{start}\n{text}\n{end}{tail}", encoding="utf-8")
