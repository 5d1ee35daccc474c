"""`--max-page-failures=N` in a pytest session: the run stops as `--maxfail` stops it, with one
line that names the cause.

Where the reports arrive (the xdist controller under -n, else the one process), each page a
parser failed on is counted (`tablebench.report.page_failures`). At the Nth, the session is
told to stop: `session.shouldfail`, what `--maxfail` sets (pytest's loop stops after the item
that reported it, pytest prints the line between `!` rules and the run exits 1), and under
xdist the controller's own stop (`tablebench.plugin.workers.stop_controller`: the workers
finish the items already sent to them, then stop). xdist's controller then ends its loop with
its own `Interrupted` (a KeyboardInterrupt: the exit code of Ctrl-C, 2, and a second line saying
it); `around_loop` raises the `Failed` it stands for instead, so a stopped run ends alike with
and without -n: one line, exit 1. The run is INCOMPLETE, this line its reason
(the gate and `--save-baseline` refuse it, as they refuse any run stopped early).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from tablebench.core.results import ItemResult
from tablebench.plugin.workers import stop_controller
from tablebench.report.page_failures import PageFailures


class PageStop:
    """Stops the session once `limit` pages failed to parse (0: never)."""

    def __init__(self, config: pytest.Config, limit: int) -> None:
        self.config = config
        self.failures = PageFailures(limit)
        self.session: pytest.Session | None = None  # set when the loop starts
        self.reason = ""  # why the run stopped, once it did

    def add(self, result: ItemResult) -> None:
        """A result arrived (in the process where every report arrives)."""
        if self.failures.add(result) and self.session is not None:
            self.reason = self.failures.reason()
            self.session.shouldfail = self.reason
            stop_controller(self.config, self.reason)

    def around_loop(self, session: pytest.Session, loop: Generator[None, Any, Any]) -> Generator[None, Any, Any]:
        """The body of a `pytest_runtestloop` wrapper around `loop` (another such body)."""
        self.session = session
        try:
            return (yield from loop)
        except KeyboardInterrupt as exc:  # xdist's own `Interrupted` (pytest's is another class)
            if self.reason and str(exc) == self.reason:  # xdist's controller, stopped by `add`
                raise session.Failed(self.reason) from None
            raise
