"""tablebench.plugin (harness/plugin/).

pytest rewrites the asserts of every package of a distribution that registers a `pytest11`
plugin (here `tablebench`, the one import name the distribution installs), as if they were tests. Each
process of a run, the controller and every xdist worker, would then parse and rewrite the
harness's ~180 modules on import (0.6 s of CPU per process on a machine that keeps no bytecode).
They are library code whose asserts are internal invariants, so the plugin takes its own
packages off pytest's list as it loads, before any of them but this one is imported. Test files
and conftests are rewritten as always. If pytest's hook ever lacks the list, nothing changes.
"""

from __future__ import annotations

import sys

OWN_PACKAGES = ("tablebench",)


def keep_own_modules_unrewritten() -> None:
    """Unmark `OWN_PACKAGES` in pytest's assertion-rewriting import hook, if one is installed."""
    for finder in sys.meta_path:
        marked = getattr(finder, "_must_rewrite", None)
        cache = getattr(finder, "_marked_for_rewrite_cache", None)
        if isinstance(marked, set) and isinstance(cache, dict):
            marked.difference_update(OWN_PACKAGES)
            cache.clear()


keep_own_modules_unrewritten()
