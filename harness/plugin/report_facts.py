"""One copy, not three, of what the test reports of a case repeat, in the process that keeps them.

Why: pytest's terminal reporter keeps every report of a session to its end: three per case
(setup, call, teardown), each with its own copy of the item's keywords, and the call and
teardown reports each with a copy of its user properties (the id, the outcome and every
score, for junit). At ~9.7 KB per case that was most of what the controller's memory grew by
per table. Once every other plugin has read a report (`pytest_runtest_logreport`, trylast),
its keywords and properties are replaced by an equal object shared with the case's earlier
reports, the property names and the id shared across cases: the same values, one copy.
"""

from __future__ import annotations

import sys
from typing import Any

_PLAIN = (str, int, float, bool, type(None))


class SharedFacts:
    """The keywords and user properties of each case whose reports are still arriving."""

    def __init__(self) -> None:
        self._open: dict[str, tuple[Any, Any]] = {}  # nodeid -> (keywords, user properties) of its last report

    def share(self, report: Any) -> None:
        """Make `report`'s keywords and user properties the objects its case's earlier report
        holds when they are equal; forget the case at its teardown report."""
        nodeid = getattr(report, "nodeid", None)
        when = getattr(report, "when", None)
        if not isinstance(nodeid, str) or when not in ("setup", "call", "teardown"):
            return
        props = report.user_properties
        plain = isinstance(props, list) and all(isinstance(p, (list, tuple)) and len(p) == 2
                                                and type(p[1]) in _PLAIN for p in props)
        if plain:  # what junit and our items write; anything else (a user's array) is left as it is
            props = [(sys.intern(k) if type(k) is str else k, nodeid if v == nodeid else v) for k, v in props]
        kept = self._open.pop(nodeid, None)
        if kept is not None:
            if kept[0] == report.keywords:
                report.keywords = kept[0]
            if plain and kept[1] == props:
                props = kept[1]
        report.user_properties = props
        if when != "teardown":
            self._open[nodeid] = (report.keywords, props if plain else None)
