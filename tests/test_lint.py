"""No name used that was never defined, no import never used, no syntax error: pyflakes' rules (`F`)
and ruff's syntax errors (`E9`) over the library, the built-in parsers and the tests.

Why these and not style: they are the mistakes that hide a defect (a name misspelt in a branch no
test takes, a helper imported and never called because its call was lost in a merge). Selected
here, not by the project's configuration, so a ruff release that changes its default rules does
not change what this test asks.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def test_no_undefined_or_unused_name_and_no_syntax_error() -> None:
    if shutil.which("ruff") is None and subprocess.run([sys.executable, "-m", "ruff", "--version"],
                                                       capture_output=True).returncode != 0:
        pytest.skip("ruff is not installed (the test extra installs it)")
    found = subprocess.run([sys.executable, "-m", "ruff", "check", "--select", "F,E9", "--output-format", "concise",
                            "harness", "parsers", "tests", "conftest.py"], cwd=REPO, capture_output=True, text=True)
    assert found.returncode == 0, found.stdout + found.stderr
