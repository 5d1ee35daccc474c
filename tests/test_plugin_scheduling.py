"""Under -n, all tables of one (parser, page) go to one worker: the xdist scope of an item."""

from __future__ import annotations

import pytest

from harness.plugin import page_scope


@pytest.mark.parametrize(("nodeid", "scope"), [
    ("synth-v1/p012/t3[pdfplumber]", "synth-v1/p012[pdfplumber]"),
    ("synth-v1/p012/t13[pdfplumber]", "synth-v1/p012[pdfplumber]"),
    ("bench/p001/t0[command:tool /t1[x] {pdf}]", "bench/p001[command:tool /t1[x] {pdf}]"),
    ("tests/test_a.py::TestB::test_c", "tests/test_a.py::TestB"),
    ("tests/test_a.py::test_c", "tests/test_a.py"),
])
def test_page_scope_groups_a_pages_tables_and_leaves_other_tests_as_xdist_does(nodeid, scope):
    assert page_scope(nodeid) == scope


def test_tables_of_one_page_and_parser_share_a_scope_and_parsers_do_not():
    scopes = {page_scope(f"s/p001/t{i}[{p}]") for i in range(5) for p in ("a", "b")}
    assert scopes == {"s/p001[a]", "s/p001[b]"}
