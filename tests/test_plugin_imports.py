"""The plugin's own modules are imported as plain library code, not rewritten as tests are."""

from __future__ import annotations

import sys

import pytest
from _pytest.assertion.rewrite import AssertionRewritingHook

import harness.core.table
import harness.metrics.tables.semantic
import harness.plugin.hooks


def test_harness_modules_are_not_assert_rewritten_but_test_files_are(request: pytest.FixtureRequest) -> None:
    if request.config.getoption("assertmode") != "rewrite":
        pytest.skip("run with --assert=plain: nothing is rewritten")
    assert isinstance(sys.modules[__name__].__loader__, AssertionRewritingHook)
    for module in (harness.core.table, harness.metrics.tables.semantic, harness.plugin.hooks):
        assert not isinstance(module.__loader__, AssertionRewritingHook), module.__name__


def test_a_worker_s_session_imports_no_report_renderer() -> None:
    """The report files are the controller's: an xdist worker starting its session does not
    import the renderers (report.html, Markdown, crops) or rich, which every worker paid for."""
    import subprocess

    code = ("import sys, harness.plugin.hooks, harness.plugin.session, harness.plugin.ci; "
            "print(' '.join(m for m in sys.modules if m.startswith(('harness.report.html', 'harness.report.write', "
            "'harness.report.markdown', 'harness.report.crops', 'rich', 'harness.plugin.summary'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == []
