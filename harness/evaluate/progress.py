"""Progress of a long computation (a meta-evaluation runs for minutes) on stderr, never stdout
(`--json` output stays clean).

A step reports `(stage, done, total)`. On a terminal one line is redrawn in place (at most every
`REDRAW` seconds) and cleared at the end; otherwise (CI logs, a pipe) a line is written when a
stage starts, at each quarter of it and when it ends: a few lines per stage, never one per item.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
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
