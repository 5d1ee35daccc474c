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
