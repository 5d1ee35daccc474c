"""Keep the garbage collector off the run's long-lived heap.

A benchmark process holds a large heap that lives until exit: the imported modules, the
collected items (every case of the case set), the case set's ground truth. CPython's full
collections traverse all of it again and again while the metrics churn small objects, and
once more when the interpreter finalises: about 10 % of a 100-page run's wall clock, more
as the case set grows. `gc.freeze()` moves what exists at that moment to the permanent
generation, which the collector skips; objects frozen there are still freed by reference
counting, only cycles among them would wait for the process to end.
"""

from __future__ import annotations

import gc


def freeze_long_lived() -> None:
    """After start-up or collection: what exists now lives for the whole run."""
    gc.collect(1)  # young cyclic garbage goes now, not into the permanent generation
    gc.freeze()


def freeze_for_exit() -> None:
    """At the end of the run: the interpreter's last collection need not traverse the heap."""
    gc.freeze()
