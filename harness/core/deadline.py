"""A time budget for work done in this process on text a parser wrote (locating its items).

Parsing runs in a worker process that is killed at `--parse-timeout`; locating runs here, on
that process's output, so a degenerate output could hold the run for hours. The budget is a
SIGALRM deadline: it interrupts Python code and the regex engine alike. It is armed only where
that is safe (POSIX, the main thread, no other interval timer armed, e.g. pytest-timeout's);
elsewhere the work runs unbounded, as before.
"""

from __future__ import annotations

import math
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

MAX_BUDGET = 1e7  # seconds (~4 months): beyond this a budget is no budget (setitimer overflows)


class BudgetExceeded(BaseException):
    """The work ran past its budget. Not an `Exception`: the readers' own fault handlers must not
    read it as garbage input and carry on."""


def _armable(seconds: float) -> bool:
    return (hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
            and math.isfinite(seconds) and 0 < seconds <= MAX_BUDGET
            and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0))


@contextmanager
def time_budget(seconds: float, what: str) -> Iterator[None]:
    """Run the block for at most `seconds`, else raise `BudgetExceeded` ("`what` took longer than ...")."""
    if not _armable(seconds):
        yield
        return

    def on_alarm(signum: int, frame: object) -> None:
        raise BudgetExceeded(f"{what} took longer than {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
