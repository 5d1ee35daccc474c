"""Each option declared once, as a row, and every runner built from the rows: `pytest --help` and each
`tablebench` subcommand's --help show a row's names, default and help alike; no module adds an
option but the generator (`tablebench.core.option_table`); one gate policy builder for the pytest
session and `tablebench report merge`."""

from __future__ import annotations

import argparse
import dataclasses
import re
from pathlib import Path

import pytest

from tablebench.cli import OWN, _checked, _merge_parser, _variant_options, build_parser
from tablebench.core.option_table import PYTEST, Option
from tablebench.core.options import RunOptions
from tablebench.gating.decide import gate_policy
from tablebench.gating.options import MERGE, OPTIONS, read_options
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]
ROOT = Path(__file__).resolve().parents[1]
TABLES = (OPTIONS, OWN, _variant_options())
ROWS = [row for table in TABLES for row in table]


def _runner_parsers() -> dict[str, argparse.ArgumentParser]:
    """{runner: its argparse parser}: `tablebench`, every subcommand (nested ones as "cases info"), `report merge`."""
    out = {"tablebench": build_parser(), MERGE: _merge_parser()}
    stack = [("", out["tablebench"])]
    while stack:
        name, parser = stack.pop()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, child in action.choices.items():
                    out[f"{name} {sub}".strip()] = child
                    stack.append((f"{name} {sub}".strip(), child))
    return out


def _squeezed(text: str) -> str:
    """Without whitespace: --help wraps lines (and breaks words at hyphens) at the terminal's width."""
    return re.sub(r"\s+", "", text)


def _shown_help(row: Option) -> str:
    """The row's help as --help prints it: argparse fills %(default)s and unescapes %%."""
    return (row.help_text() or "").replace("%(default)s", str(row.default)).replace("%%", "%")


def test_every_row_is_in_the_help_of_each_runner_it_names_with_its_default_and_help(pytester: pytest.Pytester):
    parsers = _runner_parsers()
    runners = {runner for row in ROWS for runner in row.runners}
    assert {PYTEST, MERGE, "meta-eval", "compare", "report", "parse"} <= runners
    assert runners - {PYTEST} <= set(parsers), "a row names a runner that does not exist"
    helps = {runner: _squeezed(p.format_help()) for runner, p in parsers.items()}
    helps[PYTEST] = _squeezed(pytester.runpytest(*PLUGIN, "--help").stdout.str())
    config = pytester.parseconfig(*PLUGIN)
    for row in ROWS:
        for runner in row.runners:
            for flag in [row.metavar] if row.positional and row.metavar else row.flags:  # a positional: its metavar
                assert _squeezed(flag) in helps[runner], f"{runner} --help does not show {flag}"
            if row.help is not None:
                assert _squeezed(_shown_help(row)) in helps[runner], f"{runner} --help: {row.flags[0]}'s help differs"
            if row.action == "version":
                continue
            if row.positional:
                continue  # a positional is required: no default to show
            default = (config.getoption(row.dest_for(runner)) if runner == PYTEST else
                       next(a.default for a in parsers[runner]._actions if row.flags[0] in a.option_strings))
            assert default == row.default, (runner, row.flags, default)
    pytest_rows = [row for row in OPTIONS if PYTEST in row.runners]
    assert len(pytest_rows) == len(OPTIONS) > 30, "every run option is a pytest option"


def test_a_runner_takes_a_name_once_and_every_field_a_row_sets_is_read_and_checked():
    for runner in {r for row in ROWS for r in row.runners}:
        names = [name for row in ROWS if runner in row.runners for name in row.flags]
        assert len(names) == len(set(names)), (runner, sorted(names))
    fields = [f.name for f in dataclasses.fields(RunOptions)]
    plugin = [row.field for row in OPTIONS if PYTEST in row.runners]
    assert sorted(plugin) == sorted(fields), "one pytest option per RunOptions field"
    assert {row.field for row in ROWS if row.field} <= set(fields)
    for row in OPTIONS:
        typed = (not row.default) if row.negated else row.default
        assert read_options({row.field: typed}) == RunOptions(), f"{row.flags[0]}'s default is not RunOptions'"


def test_no_module_adds_an_option_but_the_generator():
    """An option added anywhere else is an option declared twice (or not in the table at all)."""
    sources = [*(ROOT / "harness").glob("**/*.py"), *(ROOT / "parsers").glob("**/*.py"), ROOT / "conftest.py"]
    adding = re.compile(r"\.(addoption|add_argument)\(")
    found = [f"{path.relative_to(ROOT)}:{n}" for path in sources if path.is_file()
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if adding.search(line)]
    assert not found, found
    generator = (ROOT / "harness" / "core" / "option_table.py").read_text(encoding="utf-8")
    assert '"addoption"' in generator and ".add_argument" in generator
    dests = {f'"{row.dest}"' for row in OPTIONS if row.dest}
    table = ROOT / "harness" / "gating" / "options.py"
    spelled = [f"{path.relative_to(ROOT)}: {dest}" for path in sources if path.is_file() and path != table
               for dest in dests if dest in path.read_text(encoding="utf-8")]
    assert not spelled, "a pytest dest is the table's: read it from `tablebench.plugin.options.DESTS`"


def _gate_calls() -> dict[str, list[str]]:
    """{module path: the calls that make a gate policy}: `GatePolicy(...)` or the builder `gate_policy(...)`."""
    out = {}
    for path in (ROOT / "harness").glob("**/*.py"):
        calls = re.findall(r"\b(GatePolicy|gate_policy)\(", path.read_text(encoding="utf-8"))
        if calls:
            out[str(path.relative_to(ROOT / "harness"))] = calls
    return out


def test_one_gate_policy_builder_for_the_session_and_the_merge(pytester: pytest.Pytester):
    calls = _gate_calls()
    made_here = [m for m, made in calls.items() if "GatePolicy" in made]
    assert made_here == ["gating/decide.py"], "only the builder makes one"
    assert sorted(m for m, made in calls.items() if "gate_policy" in made and m != "gating/decide.py") == [
        "plugin/session.py", "report/merge_command.py"]
    given = ["--gate=teds:complex", "--baseline=b.json", "--gate-alpha=0.1", "--gate-min-effect=0.02",
             "--min-score=teds=0.5", "--baseline-per-table=off", "--baseline-tolerance=teds=2%", "--allow-incomplete"]
    from tablebench.plugin.options import run_options

    session = run_options(pytester.parseconfig(*PLUGIN, *given))
    merge = _checked(_merge_parser().parse_args(["run", "--out", "m", *given]), MERGE)
    assert gate_policy(session, None, ["p"]) == gate_policy(merge, None, ["p"])
    policy = gate_policy(merge, None, ["p"])
    assert (policy.alpha, policy.min_effect, policy.allow_incomplete) == (0.1, 0.02, True)
    assert policy.rules is not None and not policy.rules.per_table
