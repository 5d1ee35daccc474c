"""The pytest plugin: benchmark cases as test items, scores as properties, the leaderboard at the end.

Only hooks live here, and each hands its work to one object: the `BenchSession` of the run
(`tablebench.plugin.session`), made from the checked options (`tablebench.plugin.options`) when
pytest configures. The work behind it is `tablebench.evaluate` (parse -> locate -> score),
`tablebench.gating` (pass/fail rules, baselines) and `tablebench.report` (aggregation, files).

Without `--parser` the plugin collects nothing and the harness's own tests run as usual.
With it, the case set becomes a collector added to the session's collection (the idiomatic
way to test things that are not Python files), one item per (page, parser, table), so
`-k`, `-m complex`, `--lf` and xdist work on benchmark cases like on any test. Item ids are
`SET/PAGE::tN[LABEL]` for tables and `SET/PAGE::fN[LABEL]` for formulas (marked `inline` /
`display`; junit: classname `SET.PAGE`, name `tN[LABEL]`): one item type with a kind. Every item
is also marked by its page's variant (`digital`, `scan`, `photo`) and language (`lang_en`,
`lang_ru`, ...; `lang_unknown` where the ground truth names none). With `--parser` and
no path arguments only the benchmark is collected.

Across processes only plain data travels: each item's report carries its `ItemResult` as a
JSON attribute (`tablebench.plugin.nodes.RESULT_ATTR`, serialised by xdist with the report), from
which the controller builds the leaderboard and the report; junit gets the outcome and the
scores as small properties. A conftest takes part through the `pytest_tablebench_*` hooks
(`tablebench.plugin.hookspecs`).
"""

from __future__ import annotations

import sys
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import pytest

from tablebench.cases import VARIANTS, variant_marker
from tablebench.core import kinds as item_kinds
from tablebench.core.options import renamed_lines, split_specs
from tablebench.plugin import heap, hookspecs
from tablebench.plugin.nodes import attach_result
from tablebench.plugin.options import DESTS, add_options, run_options
from tablebench.plugin.workers import page_scheduler

if TYPE_CHECKING:
    from tablebench.plugin.session import BenchSession

PLUGIN_NAME = "tablebench-session"


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # an old option name, said once (not by every xdist worker)
        for line in renamed_lines(config.option):
            print(line, file=sys.stderr)
    for variant in VARIANTS:
        config.addinivalue_line("markers", f"{variant_marker(variant)}: a benchmark item on a {variant} page (tablebench)")
    if not split_specs(config.getoption(DESTS["parsers"])):
        return  # no benchmark: its options are not even read
    for kind in item_kinds.all_kinds():  # only for a benchmark run: the kinds import their stages
        for group in kind.groups:
            config.addinivalue_line("markers", f"{group}: a benchmark {kind.name} of {kind.group_title} {group} (tablebench)")
    # imported here: the session loads the metrics (numba), which a run without --parser never needs
    from tablebench.plugin.session import BenchSession

    heap.pause()  # until the case set is read and collected (`settle`)

    try:
        session = BenchSession(config, run_options(config))
    except ValueError as exc:
        heap.settle()
        raise pytest.UsageError(str(exc)) from None
    if config.args_source != pytest.Config.ArgsSource.ARGS or (session.case_args and not config.args):
        config.args = []  # `pytest --parser=X` (or only case ids) is the benchmark, not the repo's tests too
        if getattr(config.option, "tbstyle", None) == "auto":
            config.option.tbstyle = "no"  # one short-summary line per failing table, not a block each
    config.pluginmanager.register(TablebenchPlugin(session), PLUGIN_NAME)


class TablebenchPlugin:
    """The hooks of a benchmark run, registered when `--parser` is given; each delegates in one line."""

    def __init__(self, session: BenchSession) -> None:
        self.session = session

    def pytest_report_header(self) -> list[str]:
        return self.session.header_lines()

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(self, collector: pytest.Collector) -> Generator[None, Any, Any]:
        return self.session.add_case_set(collector, (yield))

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        self.session.select(items)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.session.remember_order(session.items)
        heap.settle()  # the collected cases live until the end

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if session.config.pluginmanager.has_plugin("dsession"):
            heap.settle()  # an xdist controller collects nothing: its start-up heap is what lives

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self) -> None:
        self.session.release()
        heap.freeze_for_exit()

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        return page_scheduler(config, log)

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str, report: pytest.TestReport, sched: Any) -> None:
        self.session.crashed(crashitem, report, sched)

    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        self.session.before_item(item)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> Generator[None, Any, Any]:
        return attach_result(item, call, (yield))

    @pytest.hookimpl(wrapper=True)
    def pytest_report_teststatus(self, report: pytest.TestReport) -> Generator[None, Any, Any]:
        return self.session.progress.status(report, (yield))

    @pytest.hookimpl(trylast=True)  # after every other plugin read the report: `record` drops the result's JSON
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.session.record(report)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, Any, Any]:
        return (yield from self.session.test_loop(session))

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self.session.collected(ids)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.session.finish(session, exitstatus)

    @pytest.hookimpl(specname="pytest_terminal_summary")
    def pytest_terminal_summary_hold(self, terminalreporter: Any) -> None:
        """Between pytest's failure sections and its short summary (pytest's own hook wraps this one;
        pytest registers only methods named `pytest_*`, so the name, and `specname` the hook)."""
        self.session.hold_case_lines(terminalreporter)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> Generator[None, None, None]:
        """The leaderboard, the failures by cause, then the gate's verdict, last: after pytest's
        failure sections and short summary."""
        yield
        self.session.write_summary(terminalreporter)
