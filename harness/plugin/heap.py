"""Keep the garbage collector off the run's long-lived heap.

A benchmark process holds a large heap that lives until exit: the imported modules, the case
set, the collected items (every case). CPython's full collections traverse all of it again
and again while it is built (at 44,100 items, 13 full collections during a worker's collection)
and while the metrics churn small objects, and once more when the interpreter finalises:
about 10 % of a 100-page run's wall clock. So the collector pauses while the case set is read
and collected, and what exists then is moved to the permanent generation (`gc.freeze()`), which
the collector skips; objects there are still freed by reference counting, only cycles among
them wait for the process to end.
"""

from __future__ import annotations

import gc


def pause() -> None:
    """Before the case set is read and collected: everything made until `settle` lives for the run."""
    gc.disable()


def settle() -> None:
    """After start-up and collection: freeze what exists, collect as usual from here on."""
    gc.freeze()
    gc.enable()


def freeze_for_exit() -> None:
    """At the end of the run: the interpreter's last collection need not traverse the heap (and
    a run that never finished collecting leaves the collector on, as in an in-process test run)."""
    gc.freeze()
    gc.enable()
