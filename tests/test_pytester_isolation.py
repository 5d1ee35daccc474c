"""A pytester test must not leave the process unable to find installed distributions.

pytester puts back sys.path and sys.meta_path when its test ends, but not what an import patched
elsewhere. importlib_metadata (which litellm imports) deletes the standard library's
`PathFinder.find_distributions` and appends its own finder to sys.meta_path; first imported
during a pytester test, its finder is dropped at teardown and the process finds no distribution
at all: every later test in that worker sees no entry point, so no built-in parser ("unknown
parser 'pypdf'" in whichever test the scheduler put after the judge test). tests/conftest.py
imports it before the first pytester test, so it is part of what pytester restores.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

PROBE = '''
pytest_plugins = ["pytester"]


def test_a_pytester_test_first_imports_importlib_metadata(pytester):
    import importlib_metadata  # noqa: F401 - as the judge test's first import of litellm does


def test_the_built_in_parsers_are_still_found_after_it():
    from tablebench.parse.registry import builtin_parsers

    assert "pypdf" in builtin_parsers()
'''


@pytest.mark.skipif(importlib.util.find_spec("importlib_metadata") is None,
                    reason="importlib_metadata is not installed (litellm brings it: pip install -e '.[all]')")
def test_importing_importlib_metadata_in_a_pytester_test_keeps_the_entry_points(tmp_path: Path) -> None:
    (tmp_path / "test_probe.py").write_text(PROBE, encoding="utf-8")
    # a fresh process, where importlib_metadata is not imported yet, with this suite's conftest as a plugin
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider",
                          "-p", "no:xdist", "-q", "test_probe.py"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and "2 passed" in run.stdout, run.stdout[-3000:] + run.stderr[-2000:]
