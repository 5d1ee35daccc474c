"""Under -n, all tables of one (parser, page) go to one worker: the xdist scope of an item."""

from __future__ import annotations

import pytest

from tablebench.plugin.workers import page_scope


@pytest.mark.parametrize(("nodeid", "scope"), [
    ("synth-v1/p012::t3[pdfplumber]", "synth-v1/p012[pdfplumber]"),
    ("synth-v1/p012::t13[pdfplumber]", "synth-v1/p012[pdfplumber]"),
    ("bench/p001::t0[command:tool::t1[x] {pdf}]", "bench/p001[command:tool::t1[x] {pdf}]"),
    ("tests/test_a.py::TestB::test_c", "tests/test_a.py::TestB"),
    ("tests/test_a.py::test_c", "tests/test_a.py"),
])
def test_page_scope_groups_a_pages_tables_and_leaves_other_tests_as_xdist_does(nodeid, scope):
    assert page_scope(nodeid) == scope


def test_tables_of_one_page_and_parser_share_a_scope_and_parsers_do_not():
    scopes = {page_scope(f"s/p001::t{i}[{p}]") for i in range(5) for p in ("a", "b")}
    assert scopes == {"s/p001[a]", "s/p001[b]"}


def test_default_folders_stay_home_when_an_option_value_became_the_rootdir(tmp_path):
    """`--report-dir /elsewhere` with a space: pytest may take /elsewhere as the rootdir."""
    from types import SimpleNamespace

    from tablebench.plugin.session import home_dir

    repo, elsewhere = tmp_path / "repo", tmp_path / "elsewhere"
    sub = repo / "tests"
    sub.mkdir(parents=True)
    elsewhere.mkdir()

    def config(root, cwd):
        return SimpleNamespace(rootpath=root, invocation_params=SimpleNamespace(dir=cwd))

    assert home_dir(config(repo, repo)) == repo
    assert home_dir(config(repo, sub)) == repo
    assert home_dir(config(elsewhere, repo)) == repo
