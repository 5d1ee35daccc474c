"""The plugin's own modules are imported as plain library code, not rewritten as tests are."""

from __future__ import annotations

import sys

import pytest
from _pytest.assertion.rewrite import AssertionRewritingHook

import tablebench.core.table
import tablebench.metrics.tables.semantic
import tablebench.plugin.hooks


def test_harness_modules_are_not_assert_rewritten_but_test_files_are(request: pytest.FixtureRequest) -> None:
    if request.config.getoption("assertmode") != "rewrite":
        pytest.skip("run with --assert=plain: nothing is rewritten")
    assert isinstance(sys.modules[__name__].__loader__, AssertionRewritingHook)
    for module in (tablebench.core.table, tablebench.metrics.tables.semantic, tablebench.plugin.hooks):
        assert not isinstance(module.__loader__, AssertionRewritingHook), module.__name__


def test_a_worker_s_session_imports_no_report_renderer() -> None:
    """The report files are the controller's: an xdist worker starting its session does not
    import the renderers (report.html, Markdown, crops) or rich, which every worker paid for."""
    import subprocess

    code = ("import sys, tablebench.plugin.hooks, tablebench.plugin.session, tablebench.plugin.ci; "
            "print(' '.join(m for m in sys.modules if m.startswith(('tablebench.report.html', 'tablebench.report.write', "
            "'tablebench.report.markdown', 'tablebench.report.crops', 'rich', 'tablebench.plugin.summary'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == []
