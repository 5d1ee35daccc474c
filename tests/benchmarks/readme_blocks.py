"""The README's generated blocks: text between `<!-- NAME -->` and `<!-- /NAME -->` that a script
writes (tests/benchmarks/semantic_figures.py, leaderboard_figures.py) and tests/test_readme.py
reads back, so both sides agree on where a block is."""

from __future__ import annotations

from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name} -->", f"<!-- /{name} -->"


def read_block(name: str, readme: Path = README) -> str:
    """The block's text, stripped."""
    start, end = markers(name)
    return readme.read_text(encoding="utf-8").split(start, 1)[1].split(end, 1)[0].strip()


def write_block(name: str, text: str, readme: Path = README) -> None:
    """Replace the block's text with `text`, leaving the rest of the README as it is."""
    start, end = markers(name)
    content = readme.read_text(encoding="utf-8")
    head, rest = content.split(start, 1)
    _, tail = rest.split(end, 1)
    readme.write_text(f"{head}{start}\n{text}\n{end}{tail}", encoding="utf-8")
