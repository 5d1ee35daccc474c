"""`Evaluator`: the library's way to benchmark a parser on pages or a whole case set, without pytest."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from tablebench.cases import CaseSet, Page
from tablebench.core.results import ItemResult
from tablebench.evaluate.page import evaluate_page
from tablebench.parse.prefetch import ParsePool
from tablebench.parse.runner import DEFAULT_TIMEOUT


class Evaluator:
    """One parser's evaluation settings and its live worker processes.

    `evaluate(page)` gives one result per ground-truth item of the page (every kind);
    `run(case_set)` every page's. Use it as a context manager, or call `close()`, to stop the
    parser's worker process. Keyword options are those of `evaluate_page`.
    """

    def __init__(self, parser: str, metrics: Iterable[str] | str | None = None, *, cache_dir: Path | str | None = None,
                 timeout: float = DEFAULT_TIMEOUT, label: str | None = None, **options: Any) -> None:
        self.parser, self.metrics, self.cache_dir, self.timeout = parser, metrics, cache_dir, timeout
        self.label, self.options = label, options
        self._pool = ParsePool()

    def evaluate(self, page: Page) -> list[ItemResult]:
        return evaluate_page(page, self.parser, self.metrics, cache_dir=self.cache_dir, timeout=self.timeout,
                             pool=self._pool, label=self.label, **self.options)

    def iter_results(self, cases: CaseSet) -> Iterator[ItemResult]:
        for page in cases.pages:
            yield from self.evaluate(page)

    def run(self, cases: CaseSet) -> list[ItemResult]:
        return list(self.iter_results(cases))

    def close(self) -> None:
        self._pool.close()

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
