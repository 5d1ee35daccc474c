"""What the plugin asks of pytest-xdist: a scheduler that keeps a page on one worker, and the
worker's queue for the parse look-ahead. pytest-xdist is optional, so it is imported only here
and only when it runs the session.

The scheduler uses xdist's public extension point: a subclass of `xdist.scheduler.
LoadScopeScheduling` overriding `_split_scope`, as xdist's own `loadfile` and `loadgroup`
schedulers do, and `remove_node`: when a worker is lost (killed, out of memory), the page it was
running is not sent to another worker (it would likely kill that one too): its unfinished items
are handed to `pytest_handlecrashitem` as lost (`PageScheduling.lost`), and only the other pages
the worker held go back to the queue. xdist's own `remove_node` re-queues every unit the worker
held, finished ones too, and sends a finished unit as an empty batch that no worker ever answers:
the run hung. `_reschedule` waits for a replacement worker's collection (xdist's own scheduler
raised KeyError when a second worker was lost meanwhile). The queue has no public way in: `worker_queue` is the one function that reads
a worker's internals, and says clearly when they moved. Of the controller, the functions below read
its `dsession` plugin (how many workers it started, its `shouldstop`, its node manager), each doing
nothing where that is absent.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

import pytest

_ITEM_ID = re.compile(r"^(?P<page>[^[]*)::[a-z]+\d+\[(?P<label>.*)\]$", re.DOTALL)  # an item of any kind


def page_scope(nodeid: str) -> str:
    """'synth-v1/p012::t3[pdfplumber]' -> 'synth-v1/p012[pdfplumber]'; other ids as xdist scopes them."""
    m = _ITEM_ID.match(nodeid)
    return f"{m['page']}[{m['label']}]" if m else nodeid.rsplit("::", 1)[0]


Workload = dict[str, dict[str, bool]]  # scope -> {nodeid: completed}, as xdist's LoadScopeScheduling keeps it


def split_lost_work(workload: Workload) -> tuple[str | None, list[str], Workload]:
    """A lost worker's workload -> (the item it was running, the other unfinished items of that
    item's page, the units to run elsewhere). Items run in the order they were assigned, so the
    first unfinished item is the one the worker died on; (None, [], {}) when nothing was left."""
    crashed_scope = next((scope for scope, unit in workload.items() if not all(unit.values())), None)
    if crashed_scope is None:
        return None, [], {}
    pending = [nodeid for nodeid, done in workload[crashed_scope].items() if not done]
    requeue = {scope: unit for scope, unit in workload.items()
               if scope != crashed_scope and not all(unit.values())}
    return pending[0], pending[1:], requeue


def page_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under `-n`, send all items of one (parser, page) to one worker; None for a `--dist` other
    than the default `load` (the user's choice stands).

    With xdist's `load` scheduling two workers would take tables of the same page at once and
    one would wait on the other's parse; grouping by page keeps both busy.
    """
    if config.getoption("dist", "load") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class PageScheduling(LoadScopeScheduling):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.lost: dict[str, list[str]] = {}  # crash item -> the other unfinished items of its page

        def _split_scope(self, nodeid: str) -> str:
            return page_scope(nodeid)

        def mark_test_complete(self, node: Any, item_index: int, duration: float = 0) -> None:
            """xdist keeps every scope a worker was ever given and counts a worker's pending tests
            over all of them after each test: quadratic in the pages of a run (at 2,000 pages most
            of the controller's CPU). A page whose tests are all done is forgotten instead."""
            super().mark_test_complete(node, item_index, duration)
            work = self.assigned_work.get(node, {})
            scope = self._split_scope(self.registered_collections[node][item_index])
            if scope in work and all(work[scope].values()):
                del work[scope]

        def _reschedule(self, node: Any) -> None:
            """Work only for a worker whose collection arrived. xdist's own `schedule` and
            `remove_node` give work to every worker it added, and a replacement for a lost worker
            is added when it is ready, before it collected: when a second worker is lost (or a
            second replacement is still collecting), `registered_collections[node]` raised
            KeyError, an INTERNALERROR that ended the run (pytest-xdist 3.8's own bug). A worker
            skipped here gets its work when its collection arrives (xdist calls `schedule` then)."""
            if node in self.registered_collections:
                super()._reschedule(node)

        def remove_node(self, node: Any) -> str | None:
            crashed, lost, requeue = split_lost_work(self.assigned_work.pop(node))
            if crashed is None:
                return None
            self.lost[crashed] = lost
            self.workqueue.update(requeue)
            for other in self.assigned_work:
                self._reschedule(other)
            return crashed

    return PageScheduling(config, log)


class XdistChanged(RuntimeError):
    """pytest-xdist no longer keeps a worker's queue where `worker_queue` reads it."""


def worker_queue(config: pytest.Config) -> list[int] | None:
    """The item indices queued on this xdist worker, in run order; None when not a worker.

    xdist offers no public view of a worker's queue (its hooks name only the next item). Its
    worker registers one unnamed plugin (`WorkerInteractor` in `xdist/remote.py`, run as
    source on the worker, so the class cannot be imported to compare with) whose `torun` is a
    queue with a `lock()` context that yields the deque of indices, as of pytest-xdist 3.x.
    That plugin is found by the attribute, not by class name. Raises `XdistChanged` when
    no plugin has it or it cannot be read.
    """
    if not hasattr(config, "workerinput"):
        return None
    queues = [q for q in (getattr(p, "torun", None) for p in config.pluginmanager.get_plugins())
              if callable(getattr(q, "lock", None))]
    if len(queues) != 1:
        raise XdistChanged(f"pytest-xdist: found {len(queues)} worker queues (a plugin's `torun` with `lock()`), "
                           "expected 1; the parse look-ahead falls back to collection order")
    try:
        with queues[0].lock() as queue:
            return [i for i in queue if isinstance(i, int)]
    except Exception as exc:  # noqa: BLE001 -- any failure here means the structure changed
        raise XdistChanged(f"pytest-xdist: the worker queue cannot be read ({type(exc).__name__}: {exc}); "
                           "the parse look-ahead falls back to collection order") from None


def stop_workers(config: pytest.Config) -> Callable[[], None]:
    """Under xdist, in the controller at the session's end: start shutting the workers down now,
    in a thread, and return the function that waits for it (a no-op elsewhere).

    Why: the workers have finished their items when the session ends, but xdist stops them only
    after every `pytest_sessionfinish` ran, so their exit (the interpreter's teardown of numba,
    scipy and the rest, ~0.3-0.6 s) came after the report files were written, on the wall clock.
    Started first, it overlaps the controller writing them. xdist's own teardown, later, finds
    nothing left to stop. Reads xdist's `dsession` plugin's `nodemanager`; without it (another
    xdist), nothing is started and the workers stop as before."""
    manager = getattr(config.pluginmanager.getplugin("dsession"), "nodemanager", None)
    teardown = getattr(manager, "teardown_nodes", None)
    if not callable(teardown):
        return lambda: None
    thread = threading.Thread(target=teardown, name="tablebench-stop-workers", daemon=True)
    thread.start()
    return thread.join


def worker_count(config: pytest.Config) -> int:
    """In an xdist controller, how many workers run the items (`-n 2`, `--tx 2*popen`, as xdist
    expanded them: its `dsession` plugin's `nodemanager.specs`); 0 elsewhere."""
    specs = getattr(getattr(config.pluginmanager.getplugin("dsession"), "nodemanager", None), "specs", None)
    return len(specs) if isinstance(specs, list) else 0


def stop_controller(config: pytest.Config, reason: str) -> None:
    """In an xdist controller: end the run as xdist's own `--maxfail` does, by its `dsession`
    plugin's `shouldstop` (the controller loop reads that, not `session.shouldstop`): the workers
    are told to shut down, finish the items already sent to them, and the loop raises
    `Interrupted(reason)`. Nothing where there is no such controller (no xdist, or a worker)."""
    dsession = config.pluginmanager.getplugin("dsession")
    if dsession is not None and hasattr(dsession, "shouldstop") and not dsession.shouldstop:
        dsession.shouldstop = reason
