"""`--max-page-failures=N`: the pages a parser failed on, counted as their results arrive, and the
one line that says why the run stops when N of them did.

Why: a parser that cannot start (its `prepare()` cannot import its model, its program is not
installed, its server is down) fails every page alike, and a run goes on through every page to
say so. pytest's `--maxfail` counts failed tests, low scores among them, and one page is as many
tests as it has items; this counts pages whose parser failed on them (it raised, hung or wrote
nothing: `PARSE_FAILURES`), each page once, whatever its cases' verdicts (a known failure
against a baseline, `--report-only`): a parser that parses but scores low never stops a run.

The line names the cause as the failure summary groups the cases (`tablebench.report.causes`):
'stopped after 5 pages failed alike (--max-page-failures=5): tb-broken: parse_error: prepare()
raised ModuleNotFoundError: …'; when the pages failed for several causes, the cause of most pages.
"""

from __future__ import annotations

from tablebench.core.results import PARSE_FAILURES, ItemResult
from tablebench.report.causes import causes


class PageFailures:
    """Pages whose parser failed on them, each counted once, against `limit` (0: never stops)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.pages: dict[tuple[str, str, str], ItemResult] = {}  # (parser, case set, page) -> its first result

    def add(self, result: ItemResult) -> bool:
        """Count `result`'s page if its parser failed on it: True when it is the page that
        reaches the limit (once; pages after it are counted, and say nothing)."""
        if not self.limit or result.outcome not in PARSE_FAILURES:
            return False
        key = (result.parser, result.case_set, result.page)
        if key in self.pages:
            return False
        self.pages[key] = result
        return len(self.pages) == self.limit

    def reason(self) -> str:
        """'stopped after N pages failed alike (--max-page-failures=N): PARSER: REASON'."""
        found = causes(list(self.pages.values()), failed=lambda _: True)
        if not found:
            return ""
        n, top = len(self.pages), found[0]
        said = f"{top.parser}: {top.reason}"
        option = f"--max-page-failures={self.limit}"
        if len(found) == 1:
            return f"stopped after {n} pages failed alike ({option}): {said}"
        return (f"stopped after {n} pages failed to parse ({option}), for {len(found)} causes; "
                f"of most pages ({len(top.pages)}): {said}")
