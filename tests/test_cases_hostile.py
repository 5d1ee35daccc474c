"""A case set's files are checked before anything reads them: a page JSON (or the manifest) that is
a symlink to /dev/zero, a FIFO or a huge file is a one-line usage error, never a hang or gigabytes
read into memory, with the manifest check (`--no-verify` too) and without.

Each run is a subprocess pytest run under an address-space limit and a timeout, so a read of
/dev/zero fails as a MemoryError there and a FIFO as a timeout, instead of taking the machine."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tablebench.cases.manifest import MAX_CASE_FILE_BYTES
from tablebench.generate.importer import import_bench
from tests.ci_cases import case_set
from tests.test_plugin import PLUGIN

LIMIT = 1024 * 1024 * 1024  # bytes of address space for the run: far above what 2 pages need


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


@pytest.fixture
def ours(tmp_path: Path) -> Path:
    """A two-page tablebench case set with its manifest."""
    folder = tmp_path / "ours"
    import_bench(case_set(tmp_path / "src", 2), folder)
    return folder


def _collect(cases: Path, *more: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", *PLUGIN, f"--cases={cases}", "--parser=pypdf",
                           "--collect-only", "-q", "-p", "no:cacheprovider", *more],
                          cwd=cases.parent, capture_output=True, text=True, timeout=120, preexec_fn=_limited,
                          check=False)


def _replace(path: Path, how: str) -> None:
    path.unlink()
    if how == "dev-zero":
        path.symlink_to("/dev/zero")
    elif how == "fifo":
        os.mkfifo(path)
    else:  # a regular file past the bound (sparse: no disk used)
        with open(path, "wb") as handle:
            handle.truncate(MAX_CASE_FILE_BYTES + 1)


@pytest.mark.parametrize("how", ["dev-zero", "fifo", "huge"])
@pytest.mark.parametrize("name", ["002.json", "manifest.json"])
def test_a_hostile_case_file_is_refused_in_one_line_before_it_is_read(ours: Path, how: str, name: str):
    _replace(ours / name, how)
    for more in ([], ["--no-verify"]):
        run = _collect(ours, *more)
        assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.stdout[-2000:] + run.stderr[-2000:]
        error = [line for line in run.stderr.splitlines() if line.startswith("ERROR:")]
        why = "not a regular file" if how != "huge" else f"larger than {MAX_CASE_FILE_BYTES} bytes"
        assert len(error) == 1 and f"{name}: {why}" in error[0], run.stderr[-2000:]
        assert "Traceback" not in run.stderr


def test_an_intact_set_still_collects(ours: Path):
    run = _collect(ours)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
