"""The benchmark's progress in pytest's output: 'tablebench: pages parsed 37/100 (37 %), 2 workers,
ETA 1 m 40 s'.

pytest prints a letter per test and a line per file; for a benchmark that is a line of dots per
page (100 lines for synth-v1) that says neither how many pages are left nor how long they take.
So, at pytest's default verbosity or -q, the benchmark's items print no letter (`status`), and
in the process where every report arrives (the xdist controller, under -n) the pages are counted
(`tablebench.evaluate.progress.PageProgress`) and said:

- on a terminal (pytest's terminal reporter writes to a tty, output captured): one line,
  rewritten in place with each page (`TerminalReporter.rewrite`) and ended when the last page
  is in or the run stops;
- anywhere else (a CI log, a pipe; -v or -s, where other lines come between): a line at each
  tenth of the pages (`write_line`), never a carriage return; without pytest's terminal
  (`-p no:terminal`) on stderr.

Only the letter goes, and only while the run goes on: pytest's last line, the short summary
(`-r`, which asks for the word again after the loop), junit and `--lf` count each case as before.
"""

from __future__ import annotations

import sys
from collections.abc import Hashable, Mapping
from typing import Any

import pytest

from tablebench.core.results import PARSE_FAILURES
from tablebench.evaluate.progress import PageProgress
from tablebench.plugin.ci import GATE_NODE
from tablebench.plugin.workers import worker_count

PREFIX = "tablebench: "


class ProgressLine:
    """The pages of a benchmark run said as they are done, in the process that reports them."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.progress: PageProgress | None = None
        self.pages: dict[str, Hashable] = {}  # the run's benchmark items: nodeid -> its (parser, page)
        self.running = False  # between the end of collection and `close`: letters are left out
        self.open = False  # a line is on the terminal, rewritten in place, not ended yet
        self.fspath: bool | None = None  # the terminal's `showfspath` before the run, given back at its end

    @property
    def terminal(self) -> Any:
        return self.config.pluginmanager.get_plugin("terminalreporter")

    def start(self, pages: Mapping[str, Hashable], alone: bool = True) -> None:
        """The run's benchmark items, once collected (here or by the first xdist worker); a
        worker says nothing (its reports go to the controller, which says them). `alone`: the
        run has no other tests, whose letters a line rewritten in place would write over."""
        if hasattr(self.config, "workerinput"):
            return
        tr = self.terminal
        live = (tr is not None and tr.isatty() and self._letters() and alone
                and self.config.getoption("capture", "fd") != "no")  # -s: a parser's prints would land inside it
        self.pages = dict(pages)
        self.progress = PageProgress(set(self.pages.values()), live=live, workers=worker_count(self.config))
        self.running = bool(self.pages)
        if self.running and tr is not None and self._letters():
            self.fspath, tr.showfspath = tr.showfspath, False  # no file name before each page's letters either

    def status(self, report: pytest.TestReport, status: Any) -> Any:
        """pytest's (category, letter, word) of a report: a benchmark item's (or a gate's) without
        its letter and word while the run goes on, where the terminal would print the letter."""
        hidden = report.nodeid in self.pages or report.nodeid.startswith(GATE_NODE)
        if self.running and hidden and self._letters() and isinstance(status, tuple) and len(status) == 3:
            return status[0], "", ""
        return status

    def add(self, nodeid: str, outcome: str) -> None:
        """An item's result arrived: its page is done (the first of its items to arrive says
        so); an `outcome` of `PARSE_FAILURES` says its parser failed on the page."""
        if self.progress is None or nodeid not in self.pages:
            return
        line = self.progress.add(self.pages[nodeid], outcome in PARSE_FAILURES)
        if line is not None:
            self._say(PREFIX + line)

    def close(self) -> None:
        """The run's loop is over (finished or stopped): the live line ends, letters come back."""
        self.running = False
        self._end_line()
        if self.fspath is not None:
            self.terminal.showfspath, self.fspath = self.fspath, None

    def _end_line(self) -> None:
        if self.open:
            self.terminal.write("\n", flush=True)
            self.open = False

    def _letters(self) -> bool:
        """pytest's terminal prints a letter per test (not a line per test: -v)."""
        return self.config.get_verbosity(getattr(pytest.Config, "VERBOSITY_TEST_CASES", None)) <= 0

    def _say(self, text: str) -> None:
        tr = self.terminal
        if tr is None:
            print(text, file=sys.stderr, flush=True)
        elif self.progress is not None and self.progress.live:
            tr.rewrite(text, erase=True)
            tr.flush()
            self.open = True
            if self.progress.finished:
                self._end_line()  # the last page's other items and the gates still print no letter
        else:
            tr.write_line(text)
