"""The README's library example runs as written."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_library_example_of_the_architecture_section_runs() -> None:
    section = README.read_text(encoding="utf-8").split("## Architecture", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(blocks[0], "README.md", "exec"), {})  # noqa: S102 -- our own documentation
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("synth-v1/p001::t0[pypdf] ") and len(lines) >= 2
    assert lines[-1].startswith("{'teds': ") and "'semantic': " in lines[-1]


def test_every_path_the_readme_installs_from_exists() -> None:
    text = README.read_text(encoding="utf-8")
    paths = re.findall(r"pip install (\./\S+)", text)
    assert paths, "the README shows how to install the example parser package"
    for path in paths:
        assert (README.parent / path).is_dir(), path


def test_the_semantic_figures_are_what_their_script_last_wrote() -> None:
    """The README quotes the semantic score's agreement figures only from
    `python -m tests.benchmarks.semantic_figures` (docs/semantic-figures.json)."""
    import json

    from tests.benchmarks.readme_blocks import read_block
    from tests.benchmarks.semantic_figures import BLOCK, OUT, readme_block

    assert read_block(BLOCK) == readme_block(json.loads(OUT.read_text(encoding="utf-8")))


@pytest.mark.parametrize("name", ["leaderboard", "i18n"])
def test_the_leaderboards_are_what_their_script_last_wrote(name: str) -> None:
    """The README's leaderboards come only from `python -m tests.benchmarks.leaderboard_figures`
    (docs/NAME.md)."""
    from tests.benchmarks.leaderboard_figures import out_file
    from tests.benchmarks.readme_blocks import read_block

    block = read_block(name)
    assert block and block == out_file(name).read_text(encoding="utf-8").strip()
