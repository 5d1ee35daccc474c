"""The documented third-party parser package (examples/parser-package) installs and runs.

README's "Write your own parser" shows these files; this test installs them the way a user
would (pip, offline: a local folder, no build isolation, no dependencies fetched) into a
private target folder, then benchmarks one page of synth-v1 with `--parser=tb-plaintext`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "parser-package"


def test_example_parser_package_installs_and_benchmarks_a_page(tmp_path: Path) -> None:
    source = shutil.copytree(EXAMPLE, tmp_path / "src")  # building writes build/ beside the sources
    site = tmp_path / "site"
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-build-isolation", "--no-deps",
         "--target", str(site), str(source)],
        capture_output=True, text=True, timeout=300,
    )
    assert pip.returncode == 0, pip.stderr[-2000:]
    entry_points = next(site.glob("tb_plaintext-*.dist-info")) / "entry_points.txt"
    assert "tb-plaintext = tb_plaintext:PlainTextParser" in entry_points.read_text()

    run = tmp_path / "run"
    run.mkdir()
    cache = tmp_path / "cache"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(REPO)]))
    bench = subprocess.run(
        [sys.executable, "-m", "pytest", "--parser=tb-plaintext?mode=layout", f"--cases={REPO / 'cases' / 'synth-v1'}",
         "-k", "p001", f"--parse-cache={cache}", f"--report-dir={tmp_path / 'report'}", "-p", "no:xdist",
         "-p", "no:cacheprovider", "-q"],
        cwd=run, env=env, capture_output=True, text=True, timeout=300,
    )
    assert bench.returncode in (0, 1), bench.stdout[-3000:] + bench.stderr[-2000:]  # 1: a table not found
    assert "tablebench leaderboard" in bench.stdout and "tb-plaintext?mode=layout" in bench.stdout
    (entry,) = [json.loads(p.read_text()) for p in cache.rglob("*.json")]
    assert (entry["parser"], entry["version"], entry["config"], entry["outcome"]) == (
        "tb-plaintext", "0.1.0", {"mode": "layout"}, "ok")
    assert len(entry["text"]) > 200 and entry["meta"]["format"] == "text"


def test_readme_shows_the_example_files_verbatim() -> None:
    """README's "Write your own parser" shows these very files, so the documented example is the tested one."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "## Write your own parser" in readme
    for path in (EXAMPLE / "pyproject.toml", EXAMPLE / "tb_plaintext" / "__init__.py"):
        assert path.read_text(encoding="utf-8").strip() in readme, f"README differs from {path.relative_to(REPO)}"
