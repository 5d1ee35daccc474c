"""`./dev.sh` says, in one line and before installing anything, what it installs and roughly how
long that takes (`DEV_SH_DRY_RUN=1` stops after that line, so nothing is installed here)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _copy(tmp_path: Path) -> Path:
    for name in ("dev.sh", "pyproject.toml"):
        shutil.copy2(REPO / name, tmp_path / name)
    return tmp_path / "dev.sh"


def _dry(script: Path, *args: str, path: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "DEV_SH_DRY_RUN": "1"}
    if path is not None:
        env["PATH"] = path
    return subprocess.run(["bash", str(script), *args], capture_output=True, text=True, env=env, timeout=60,
                          check=False)


@pytest.mark.parametrize("command", [["bench", "--parser=pdfplumber", "--report-only"], ["speed"]])
def test_a_fresh_checkout_hears_what_is_installed_and_how_long(tmp_path: Path, command: list[str]) -> None:
    done = _dry(_copy(tmp_path), *command)
    assert done.returncode == 0 and done.stdout == "", done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("dev.sh: installing a Python venv in .venv/ with tablebench and its packages")
    assert "this takes a few minutes, once" in line
    assert not (tmp_path / ".venv").exists()  # the dry path installs nothing


def test_an_installed_venv_is_not_announced_again(tmp_path: Path) -> None:
    script = _copy(tmp_path)
    venv = tmp_path / ".venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "python").symlink_to(shutil.which("python3") or "/usr/bin/python3")
    digest = subprocess.run(["sha256sum", str(tmp_path / "pyproject.toml")], capture_output=True, text=True,
                            check=True).stdout
    (tmp_path / ".venv" / ".tablebench-installed").write_text(digest.split()[0] + "\n")
    done = _dry(script, "bench", "--parser=pdfplumber")
    assert done.returncode == 0 and done.stderr == "", done.stderr


def test_missing_system_packages_are_named_with_the_python_ones(tmp_path: Path) -> None:
    """Without TeX on PATH, `test` names the apt packages too (as root with apt-get), or says
    which tests will skip (otherwise) — still before anything is installed."""
    script = _copy(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "dirname", "sha256sum", "cut", "cat", "id", "grep", "apt-get"):
        if found := shutil.which(tool):
            (bin_dir / tool).symlink_to(found)
    done = _dry(script, "test", path=str(bin_dir))
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    if os.geteuid() == 0 and (bin_dir / "apt-get").exists():
        (line,) = lines
        assert line.startswith("dev.sh: installing TeX Live (with XeLaTeX and script fonts), poppler-utils, Chromium "
                               "and Tesseract (with language packs) from apt, and a Python venv in .venv/")
        assert "this takes several minutes, once" in line
    else:
        assert lines[0].endswith("missing and not root: tests needing them will skip")
        assert "this takes a few minutes" in lines[1]


def test_no_command_prints_the_usage_and_runs_nothing(tmp_path: Path) -> None:
    """A bare `./dev.sh` is someone finding out what it does: the usage, exit 2, no suite started."""
    env = {k: v for k, v in os.environ.items() if k != "DEV_SH_DRY_RUN"}
    done = subprocess.run(["bash", str(_copy(tmp_path))], capture_output=True, text=True, env=env, timeout=60,
                          check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("usage: ./dev.sh {test|bench|speed|setup} [pytest args]")
    assert "installing" not in done.stderr and not (tmp_path / ".venv").exists()


def test_the_benchmark_command_prints_the_benchmark_not_the_speed_plugins_banner(tmp_path: Path) -> None:
    """`./dev.sh bench` is the README's first command: what it prints is the benchmark's, without
    pytest-benchmark's banner (the speed benchmarks' plugin, installed in the development venv)."""
    if not (REPO / ".venv" / ".tablebench-installed").is_file():
        pytest.skip("needs the repository's installed .venv (./dev.sh setup)")
    done = subprocess.run(["bash", str(REPO / "dev.sh"), "bench", "--parser=pypdf", "--report-only", "-k", "p001",
                           "-p", "no:cacheprovider", f"--report-dir={tmp_path / 'r'}",
                           f"--parse-cache={tmp_path / 'cache'}"],
                          capture_output=True, text=True, timeout=600, check=False, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "tablebench leaderboard" in done.stdout and "passed" in done.stdout
    assert "benchmark:" not in done.stdout and "pytest-benchmark" not in done.stdout
