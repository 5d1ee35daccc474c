"""Registers the tablebench pytest plugin for a source checkout.

An installed package loads the plugin through its `pytest11` entry point (name `tablebench`);
registering the module a second time would be an error, so this only imports it when that
entry point did not (not installed, autoload disabled) and nobody blocked it (`-p no:tablebench`).
"""

from __future__ import annotations

import pytest


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    if pluginmanager.get_plugin("tablebench") is None and not pluginmanager.is_blocked("tablebench"):
        pluginmanager.import_plugin("tablebench.plugin.hooks")
