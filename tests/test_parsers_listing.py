"""`tablebench parsers` lists every installed parser with where it comes from and its options;
a spec with an unknown `?option` names the valid ones."""

from __future__ import annotations

from importlib.metadata import EntryPoint

import pytest

from tablebench.cli import main
from tablebench.parse.listing import installed_parsers, parsers_text
from tablebench.parse.registry import builtin_parsers, resolve


def test_the_command_lists_each_installed_parser_its_source_and_options(capsys):
    assert main(["parsers"]) == 0
    out = capsys.readouterr().out
    for name, ep in builtin_parsers().items():
        assert f"\n{name}  tablebench " in out and f"({ep.value})" in out
    block = out.split("\npdfplumber  ", 1)[1].split("\n")
    assert block[1] == "  options: tables=html, strategy=lines"
    assert "vlm:MODEL" in out and "dpi=150" in out and "command:CLI" in out and "dir:FOLDER" in out


def test_a_third_party_parser_is_listed_and_one_that_cannot_load_says_why():
    eps = [EntryPoint("echoer", "tests.test_parse:Echo", "tablebench.parsers"),
           EntryPoint("broken", "no_such_module_xyz:Parser", "tablebench.parsers")]
    rows = {row.name: row for row in installed_parsers(eps)}
    assert rows["echoer"].options == {"text": "hello | world", "log": "", "version": "1", "mode": "a"}
    assert rows["echoer"].source.endswith("(tests.test_parse:Echo)")
    assert rows["broken"].note.startswith("cannot be loaded: ModuleNotFoundError")
    assert "  cannot be loaded: ModuleNotFoundError" in parsers_text(rows.values())


@pytest.mark.parametrize(("spec", "valid"), [("pdfplumber?colour=red", "tables, strategy"),
                                             ("vlm:openai/x?dpii=3", "dpi, concurrency, retries, timeout")])
def test_an_unknown_option_names_the_valid_ones(spec: str, valid: str):
    with pytest.raises(ValueError, match=r"bad options \['(colour|dpii)'\]: valid options are " + valid) as info:
        resolve(spec)
    assert "\n" not in str(info.value)
