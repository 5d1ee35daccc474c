"""tablebench.parse.registry and tablebench.parsers.layout: spec strings, entry points, tables put back in text."""

from __future__ import annotations

from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from tablebench.parse import ParseOutput, ParserError, builtin_parsers, resolve
from tablebench.parse.command import CommandParser
from tablebench.parse.directory import DirParser
from tablebench.parse.protocol import require
from tablebench.parse.registry import ENTRY_POINT_GROUP, split_options
from tablebench.parse.vlm import VlmParser
from tablebench.readers.html import read_html
from tablebench.parsers.layout import Block, compose, rows_to_html, rows_to_markdown


class ThirdParty:
    """What a plugin package would register under `tablebench.parsers`."""

    def __init__(self, flavour: str = "plain") -> None:
        self.name, self.version, self.config = "thirdparty", "0.3", {"flavour": flavour}

    def parse(self, pdf_path: Path) -> ParseOutput:
        return ParseOutput(f"{self.config['flavour']} {Path(pdf_path).name}", {"seconds": 0.0, "cost": 0.0})


class NotAParser:
    name = "nope"


def _ep(name: str, target: str) -> EntryPoint:
    return EntryPoint(name=name, value=f"{__name__}:{target}", group=ENTRY_POINT_GROUP)


@pytest.mark.parametrize("name", sorted(builtin_parsers()))
def test_builtin_names_resolve_with_versions_and_config(name: str) -> None:
    parser = resolve(name)
    assert parser.name == name and "+a" in parser.version and "missing" not in parser.version
    assert isinstance(parser.config, dict)


def test_options_reach_the_parser_and_its_cache_config() -> None:
    parser = resolve("pdfplumber?tables=markdown&strategy=text")
    assert parser.config == {"tables": "markdown", "strategy": "text"}
    assert resolve("camelot?flavor=stream").config == {"tables": "html", "flavor": "stream"}


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("", "empty parser spec"),
        ("nosuch", rf"unknown parser 'nosuch'; known: {', '.join(sorted(builtin_parsers()))}, (.+, )?command:CLI"),
        ("pdfplumber?colour=red", r"parser 'pdfplumber': bad options \['colour'\]"),
        ("pdfplumber?tables=latex", r"tables='latex' is not one of html, markdown"),
        ("pdfplumber?tables=html&tables=markdown", "repeats option 'tables'"),
        ("command:cat /etc/hostname", r"needs a \{pdf\} placeholder"),
        ("command:cat '{pdf}", "cannot split the command line"),
        ("dir:/no/such/folder", "is not a folder"),
        ("vlm:", "vlm: needs a litellm model"),
        ("vlm:openai/x?dpi=high", r"dpi='high' must be a positive integer"),
    ],
)
def test_bad_specs_fail_with_one_line(spec: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        resolve(spec)


def test_generic_specs_keep_everything_after_the_colon(tmp_path: Path) -> None:
    command = resolve("command:tool --flag=a?b {pdf} -o {out}")
    assert isinstance(command, CommandParser) and command.config == {"command": "tool --flag=a?b {pdf} -o {out}"}
    folder = resolve(f"dir:{tmp_path}")
    assert isinstance(folder, DirParser) and folder.config == {"dir": str(tmp_path.resolve())}
    vlm = resolve("vlm:openai/gpt-4o-mini?dpi=100&concurrency=2")
    assert isinstance(vlm, VlmParser) and vlm.name == "vlm:openai/gpt-4o-mini"
    assert (vlm.dpi, vlm.concurrency, vlm.config["model"]) == (100, 2, "openai/gpt-4o-mini")


def test_entry_point_parsers_resolve_with_options() -> None:
    eps = [_ep("thirdparty", "ThirdParty")]
    parser = resolve("thirdparty?flavour=spicy", eps=eps)
    assert parser.config == {"flavour": "spicy"}
    assert parser.parse(Path("p1.pdf")).text == "spicy p1.pdf"
    with pytest.raises(ValueError, match=rf"known: {', '.join(sorted(builtin_parsers()))}, thirdparty, command:CLI"):
        resolve("other", eps=eps)


def test_entry_point_that_is_not_a_parser_is_rejected() -> None:
    with pytest.raises(ValueError, match="parser 'nope' lacks version, parse: not a tablebench parser"):
        resolve("nope", eps=[_ep("nope", "NotAParser")])


def test_builtins_win_over_an_entry_point_of_the_same_name() -> None:
    assert type(resolve("pypdf", eps=[_ep("pypdf", "ThirdParty")])).__name__ == "PypdfParser"


def test_missing_optional_dependency_names_the_extra() -> None:
    with pytest.raises(ParserError, match=r"^tablebench_nothing is not installed: pip install 'tablebench\[llm\]'"):
        require("tablebench_nothing", "llm")


def test_split_options() -> None:
    assert split_options("name") == ("name", {})
    assert split_options("name?a=1&b=") == ("name", {"a": "1", "b": ""})


# -- layout: tables written back into page text ------------------------------------------
def test_rows_to_markdown_pads_ragged_rows_and_escapes_pipes() -> None:
    rows = [["a", "b|c", None], ["1", float("nan")], ["x\ny", "2", "3"]]
    assert rows_to_markdown(rows) == "| a | b\\|c |  |\n|---|---|---|\n| 1 |  |  |\n| x y | 2 | 3 |"


def test_rows_to_html_reads_back() -> None:
    html = rows_to_html([["<b>", "a & b"], [None, "2"]])
    assert html == "<table><tr><td>&lt;b&gt;</td><td>a &amp; b</td></tr><tr><td></td><td>2</td></tr></table>"
    assert [[c.text for c in row] for row in read_html(html)[0].rows] == [["<b>", "a & b"], ["", "2"]]


def test_compose_orders_top_down_and_sets_tables_apart() -> None:
    blocks = [Block(50, 0, "<table/>", True), Block(10, 0, "first"), Block(20, 0, "second"),
              Block(90, 0, "last"), Block(70, 0, "   ")]
    assert compose(blocks) == "first\nsecond\n\n<table/>\n\nlast\n"


def test_a_module_class_spec_builds_that_class_with_its_options(tmp_path, monkeypatch) -> None:
    (tmp_path / "my_tb_parser.py").write_text(
        "class Mine:\n"
        "    name, version = 'mine', '1'\n"
        "    def __init__(self, mode='a'):\n"
        "        self.config = {'mode': mode}\n"
        "    def parse(self, pdf_path):\n"
        "        raise NotImplementedError\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    parser = resolve("my_tb_parser:Mine?mode=b")
    assert parser.name == "mine" and parser.config == {"mode": "b"}
    with pytest.raises(ValueError, match=r"parser 'my_tb_parser:Nope': my_tb_parser has no Nope"):
        resolve("my_tb_parser:Nope")
    with pytest.raises(ValueError, match=r"cannot import no_such_module_x"):
        resolve("no_such_module_x:Mine")
