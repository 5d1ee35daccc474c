"""The README's library example runs as written."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

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
