"""Progress of a long computation, said as it goes: the stages of a meta-evaluation (minutes)
and the pages of a benchmark run (minutes to hours).

`StderrProgress`: a step reports `(stage, done, total)` on stderr, never stdout (`--json` output
stays clean). On a terminal one line is redrawn in place (at most every `REDRAW` seconds) and
cleared at the end; otherwise (CI logs, a pipe) a line is written when a stage starts, at each
quarter of it and when it ends: a few lines per stage, never one per item.

`PageProgress`: what the pytest plugin says of a benchmark run's pages (it writes the lines
through pytest's terminal): on a terminal a line per page, redrawn in place; otherwise a line
at each tenth of the run.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Hashable, Iterable
from typing import TextIO

Progress = Callable[[str, int, int], None]  # (stage, done, total)
REDRAW = 0.2  # seconds between redraws on a terminal
STEPS = 4  # lines per stage when not a terminal (at each quarter)


def no_progress(stage: str, done: int, total: int) -> None:
    """The default: say nothing."""


class StderrProgress:
    """`Progress` written to `stream` (stderr) as `label: stage done/total`."""

    def __init__(self, label: str, stream: TextIO | None = None) -> None:
        self.label, self.stream = label, stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.last, self.width, self.next_step, self.stage = 0.0, 0, 0, ""

    def __call__(self, stage: str, done: int, total: int) -> None:
        text = f"{self.label}: {stage} {done}/{total}"
        if self.tty:
            now = time.monotonic()
            if done < total and now - self.last < REDRAW:
                return
            self.last = now
            self.stream.write("\r" + text.ljust(self.width))
            self.width = len(text)
        else:
            if done == 0 or stage != self.stage:
                self.next_step, self.stage = 0, stage
            if done < self.next_step and done < total:
                return
            self.stream.write(text + "\n")
            self.next_step = done + max(1, total // STEPS)
        self.stream.flush()

    def close(self) -> None:
        """Clear the terminal's progress line (the report follows it)."""
        if self.tty and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0


LOG_STEPS = 10  # lines of a benchmark run's progress when not a terminal (at each tenth of its pages)


def duration(seconds: float) -> str:
    """'40 s', '1 m 40 s', '2 h 05 m': what a person reads at a glance (no fractions)."""
    whole = max(0, round(seconds))
    if whole < 1:
        return "< 1 s"
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} m {whole % 60:02d} s"
    return f"{whole // 3600} h {whole // 60 % 60:02d} m"


class PageProgress:
    """How far a benchmark run is, in pages: 'pages parsed 37/100 (37 %), 2 workers, ETA 1 m 40 s'.

    A page counts once per parser, when its first result arrives: a page is parsed, located and
    scored whole when its first item runs, and its other items only read what that left. So pages
    are a run's units of work, and the ETA is the time so far over the pages done, times the
    pages left. `live` (a terminal, where one line is redrawn in place): every page is worth a
    line. Otherwise (a log) only a page that crosses a tenth of the run is (`LOG_STEPS`): at most
    ten lines however many pages the run has, the last at 100 %.
    """

    def __init__(self, pages: Iterable[Hashable], *, live: bool, workers: int = 0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.pages, self.live, self.workers, self.clock = frozenset(pages), live, workers, clock
        self.started = clock()
        self.done: set[Hashable] = set()
        self.failed = 0  # pages whose parser failed on them
        self.step = 0  # the last tenth said (log)

    @property
    def total(self) -> int:
        return len(self.pages)

    @property
    def finished(self) -> bool:
        return bool(self.pages) and len(self.done) == self.total

    def add(self, page: Hashable, failed: bool = False) -> str | None:
        """A result of `page` arrived: the line to show now, or None (not a new page of the run,
        or, in a log, not a new tenth)."""
        if page not in self.pages or page in self.done:
            return None
        self.done.add(page)
        self.failed += failed
        if self.live:
            return self.line()
        step = len(self.done) * LOG_STEPS // self.total
        if step <= self.step:
            return None
        self.step = step
        return self.line()

    def line(self) -> str:
        done, total = len(self.done), self.total
        parts = [f"pages parsed {done}/{total} ({100 * done // max(1, total)} %)"]
        if self.failed:
            parts.append(f"{self.failed} failed to parse")
        if self.workers:
            parts.append(f"{self.workers} worker{'s' if self.workers != 1 else ''}")
        elapsed = self.clock() - self.started
        if self.finished:
            parts.append(f"in {duration(elapsed)}")
        elif done:
            parts.append(f"ETA {duration(elapsed / done * (total - done))}")
        return ", ".join(parts)
