"""A case's three test reports share what they repeat (`tablebench.plugin.report_facts`): pytest's
terminal keeps every report to the end of the session, in the controller."""

from __future__ import annotations

import pytest

from tablebench.plugin.report_facts import SharedFacts
from tests.ci_cases import bench_args, case_set, write_pages
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]


def _report(nodeid: str, when: str, props: list) -> pytest.TestReport:
    return pytest.TestReport(nodeid=nodeid, location=("f", 1, nodeid), keywords={"t0[p]": 1, "complex": 1},
                             outcome="passed", longrepr=None, when=when, user_properties=props)


def test_a_case_s_reports_share_one_copy_of_their_keywords_and_properties() -> None:
    facts = SharedFacts()
    nodeid = "".join(["set/p001::t0", "[p]"])
    props = lambda: [["id", "".join(["set/p001::t0", "[p]"])], ["outcome", "ok"], ["teds", 0.5]]  # noqa: E731
    reports = [_report(nodeid, "setup", []), _report(nodeid, "call", props()), _report(nodeid, "teardown", props())]
    for r in reports:
        facts.share(r)
    setup, call, teardown = reports
    assert setup.keywords is call.keywords is teardown.keywords == {"t0[p]": 1, "complex": 1}
    assert call.user_properties is teardown.user_properties
    assert call.user_properties == [("id", nodeid), ("outcome", "ok"), ("teds", 0.5)]
    assert call.user_properties[0][1] is nodeid and setup.user_properties == []
    assert not facts._open  # the case is forgotten at its teardown


def test_properties_that_are_not_plain_values_are_left_as_they_are() -> None:
    class Odd:
        def __eq__(self, other: object) -> bool:
            raise AssertionError("never compared")

    facts = SharedFacts()
    odd = [("x", Odd())]
    report = _report("a::b", "call", odd)
    facts.share(report)
    facts.share(_report("a::b", "teardown", [("x", Odd())]))
    assert report.user_properties[0] is odd[0]  # untouched, never compared


CONFTEST = """
def pytest_terminal_summary(terminalreporter):
    reports = {}
    for rs in terminalreporter.stats.values():
        for r in rs:
            if getattr(r, "when", None):
                reports.setdefault(r.nodeid, {})[r.when] = r
    shared = sum(1 for rs in reports.values() if len(rs) == 3 and rs["setup"].keywords is rs["call"].keywords
                 is rs["teardown"].keywords and rs["call"].user_properties is rs["teardown"].user_properties)
    print(f"cases whose reports share their facts: {shared} of {len(reports)}")
"""


def test_under_xdist_the_controller_keeps_one_copy_and_junit_keeps_every_property(pytester: pytest.Pytester,
                                                                                   tmp_path) -> None:
    from xml.etree import ElementTree

    cases = case_set(tmp_path / "mini", 2)
    exact = write_pages(tmp_path / "exact", cases)
    pytester.makeconftest(CONFTEST)
    xml = tmp_path / "junit.xml"
    run = pytester.runpytest_subprocess(*PLUGIN, *bench_args(cases, tmp_path, f"mine=dir:{exact}"), "-n", "2",
                                        f"--junitxml={xml}", "-s")
    assert run.ret == 0, run.stdout.str() + run.stderr.str()
    run.stdout.fnmatch_lines(["*cases whose reports share their facts: 12 of 12*"])
    cases_xml = ElementTree.parse(xml).getroot().iter("testcase")
    props = [{p.get("name") for p in case.iter("property")} for case in cases_xml]
    assert len(props) == 12 and all(p == {"id", "outcome", "teds"} for p in props)
