"""The collection tree of a benchmark: case set -> page -> one item per (parser, ground-truth item).

Item ids are `SET/PAGE::tN[LABEL]` for tables and `SET/PAGE::fN[LABEL]` for formulas (junit:
classname `SET.PAGE`, name `tN[LABEL]`, and the id as property `id`), so `-k`, `-m complex`,
`--lf` and xdist work on benchmark cases like on any test. The id is also every result's
`test_id` (report.html, baselines), and pytest takes it back as an argument: `SET/PAGE` is no
file, so `take_case_args` pulls such arguments out of the paths pytest would look for, and
`select_cases` keeps the items they name (as `file.py::test` would). An item's result travels
to the controller as plain data: its whole `ItemResult` as JSON on the call-phase report
(`RESULT_ATTR`, serialised by xdist with the report); junit gets the id, the outcome and the
scores as small properties.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

import pytest

from tablebench.cases import (
    VARIANTS,
    CaseSet,
    Page,
    language_marker,
    variant_marker,
)
from tablebench.core import kinds as item_kinds
from tablebench.core.results import ItemResult, current_id, item_name
from tablebench.gating.rules import Gate, keep_verdict
from tablebench.report.causes import REPRODUCE  # the line of a parser failure that reruns it in one process

RESULT_ATTR = "tablebench_result"  # the whole ItemResult as JSON, on the call-phase TestReport


class Bench(Protocol):
    """What the nodes use of the session (`tablebench.plugin.session.BenchSession`)."""

    cases: CaseSet
    specs: Mapping[str, str]  # label -> spec, in --parser order
    rules: Gate  # the per-case verdicts

    def result(self, label: str, page: Page, index: int, kind: str) -> ItemResult: ...


def register_page_markers(config: pytest.Config, cases: CaseSet) -> None:
    """Register the language marker (`lang_ru`, ...) of every language in the case set, and any
    variant beyond the built-in ones, so `--strict-markers` accepts what the items carry."""
    languages = sorted({p.language for p in cases.pages})
    for code in languages:
        config.addinivalue_line("markers", f"{language_marker(code)}: a benchmark item on a page in language {code} (tablebench)")
    for variant in sorted({p.variant for p in cases.pages} - set(VARIANTS)):
        config.addinivalue_line("markers", f"{variant_marker(variant)}: a benchmark item on a {variant} page (tablebench)")


def attach_result(item: pytest.Item, call: pytest.CallInfo, report: pytest.TestReport) -> pytest.TestReport:
    """Put an item's result on its call report: it travels with the report (xdist serialises
    report attributes), not as a junit property."""
    data = getattr(item, "result_json", None)
    if call.when == "call" and data is not None:
        setattr(report, RESULT_ATTR, data)
        item.result_json = None  # the report carries it now; pytest keeps every item to the end
    return report


def reported_result(report: pytest.TestReport) -> ItemResult | None:
    """The result a call report carries (None for any other report)."""
    data = getattr(report, RESULT_ATTR, None)
    return ItemResult.from_dict(json.loads(data), checked=False) if report.when == "call" and data else None


def take_case_args(config: pytest.Config, set_name: str) -> list[str]:
    """The command-line arguments that name cases of the set (`SET/PAGE[::tN[LABEL]]`, also in the
    older `SET/PAGE/tN[LABEL]` form), removed from `config.args`; a path that exists stays a path."""
    taken, kept = [], []
    for arg in config.args:
        path = arg.split("::", 1)[0]
        named = path == set_name or path.startswith(set_name + "/")
        if named and not (config.invocation_params.dir / path).exists():
            taken.append(current_id(arg))
        else:
            kept.append(arg)
    if taken:
        config.args = kept
    return taken


def select_cases(items: list[pytest.Item], ids: list[str], config: pytest.Config) -> None:
    """Keep the benchmark items an id names: the item itself, or every item under it (a page, or
    `SET/PAGE::tN` for every parser); the harness's own tests stay. An id that names nothing is
    a usage error, as a path that does not exist is."""
    def named(nodeid: str, prefix: str) -> bool:
        return nodeid == prefix or (nodeid.startswith(prefix) and nodeid[len(prefix)] in "/:[")

    unmatched = [i for i in ids if not any(named(item.nodeid, i) for item in items)]
    if unmatched:
        raise pytest.UsageError(f"not found: {', '.join(unmatched)} (no such benchmark case with these options; "
                                "ids are SET/PAGE::tN[LABEL], as a failing case prints)")
    keep, drop = [], []
    for item in items:
        (keep if not hasattr(item, "gt") or any(named(item.nodeid, i) for i in ids) else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


class CaseSetCollector(pytest.Collector):
    """The case set: yields one collector per page that has tables, in page order."""

    def __init__(self, *, bench: Bench, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bench = bench

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        return [PageCollector.from_parent(self, name=page.page_id, nodeid=f"{self.nodeid}/{page.page_id}",
                                          path=page.pdf, page=page)
                for page in self.bench.cases.pages if page.n_items]


class PageCollector(pytest.Collector):
    """One page: its items per parser, then per table, so each (parser, page) run is adjacent."""

    def __init__(self, *, page: Page, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.page = page

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        bench: Bench = self.parent.bench  # type: ignore[union-attr]
        items = [(kind, gt) for kind in item_kinds.names() for gt in self.page.items_of(kind)]
        return [TableItem.from_parent(self, name=f"{item_name(kind, gt.index)}[{label}]",
                                      nodeid=f"{self.nodeid}::{item_name(kind, gt.index)}[{label}]",
                                      bench=bench, page=self.page, label=label, gt=gt, kind=kind)
                for label in bench.specs for kind, gt in items]


class TableItem(pytest.Item):
    """One (parser, page, ground-truth item) case of any kind (`kind`: a table, a formula, ...):
    passes when found and above every threshold. Marked by the item's group (a table's
    complexity, a formula's inline / display) and by its page's variant and language."""

    def __init__(self, *, bench: Bench, page: Page, label: str, gt: Any, kind: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bench, self.page, self.label, self.gt, self.kind = bench, page, label, gt, kind
        self.result_json: str | None = None
        self.extra_keyword_matches.add(self.nodeid)  # `-k 'p001::t0'` (any part of the id) selects it
        if gt.group in item_kinds.get(kind).groups:
            self.add_marker(gt.group)
        self.add_marker(variant_marker(page.variant))
        self.add_marker(language_marker(page.language))

    def runtest(self) -> None:
        result = self.bench.result(self.label, self.page, self.gt.index, self.kind)
        self.config.hook.pytest_tablebench_result(item=self, result=result)  # a conftest may read or annotate it
        verdict = keep_verdict(result, self.bench.rules.check(result))  # decided here, once: every report reads it
        self.result_json = json.dumps(result.to_row(), ensure_ascii=False)
        self.user_properties += [("id", self.nodeid), ("outcome", result.outcome)]  # small: junit carries these
        self.user_properties.extend((name, value) for name, value in result.scores.items())
        if verdict.status == "known":
            pytest.xfail(verdict.message)
        if verdict.status == "fail":
            pytest.fail(verdict.message + self._parser_failure(result), pytrace=False)  # the reason, not our traceback

    def _parser_failure(self, result: ItemResult) -> str:
        """For a page its parser failed on: a line with the command that runs that parser on that
        page in one process (`tablebench parse`, where a debugger can stop), and under `--tb=long`
        the last frames of the parser's traceback. Lines after the first: pytest's one-line
        summaries show the reason alone."""
        if result.outcome != "parse_error":
            return ""
        spec = result.spec or self.bench.specs.get(self.label, self.label)
        text = f"\n{REPRODUCE}{shlex.quote(spec)} {shlex.quote(str(self.page.pdf))}"
        trace = result.parser_traceback
        if isinstance(trace, str) and trace and self.config.getoption("tbstyle", "auto") == "long":
            text += f"\n\nparser traceback (last frames):\n{trace}"
        return text

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.page.pdf, None, self.nodeid
