"""A parser's identity covers every file of its own it can run (issue 46, finding 1).

Before: the parse cache keyed a `module:Class` parser by its class's module (and the modules of
the same top-level package it imported) and a `command:` by the files its line names. A parser
project whose `my_parser.py` imports a sibling `mylib.py` was served its old outputs after
`mylib.py` regressed, and the gate passed with the same cache. Now the folder trees of its code
are keyed too; a tree too big to key is not cached across runs, and the header says so.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tablebench.parse import fingerprint
from tablebench.parse.command import CommandParser
from tablebench.parse.fingerprint import parser_identity
from tablebench.parse.registry import resolve
from tests.ci_cases import case_set

REPO = Path(__file__).resolve().parents[1]
PARSER = '''import mylib


class MyParser:
    name = "mine"
    version = "1"

    def parse(self, pdf_path):
        return mylib.text_of(pdf_path)
'''
LIB = '''from pypdf import PdfReader


def text_of(pdf_path):
    lines = "\\n".join(p.extract_text() or "" for p in PdfReader(str(pdf_path)).pages).splitlines()
    return "\\n".join(lines[:{keep}])
'''


def _project(folder: Path, keep: str = "len(lines)") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "my_parser.py").write_text(PARSER, encoding="utf-8")
    (folder / "mylib.py").write_text(LIB.format(keep=keep), encoding="utf-8")
    return folder


def _fresh(monkeypatch: pytest.MonkeyPatch, folder: Path, module: str):
    """`module` imported anew from `folder` (as a new run imports it)."""
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    for name in ("my_parser", "mylib", module):
        sys.modules.pop(name, None)
    return importlib.import_module(module)


def test_a_module_the_class_imports_from_beside_it_changes_the_identity(tmp_path: Path, monkeypatch) -> None:
    project = _project(tmp_path / "project")
    before = parser_identity(_fresh(monkeypatch, project, "my_parser").MyParser())
    assert before.stamp and str(project) in before.covers
    (project / "mylib.py").write_text(LIB.format(keep="3"), encoding="utf-8")
    after = parser_identity(_fresh(monkeypatch, project, "my_parser").MyParser())
    assert after.stamp and after.stamp != before.stamp
    (project / "unused_sibling.py").write_text("X = 1\n", encoding="utf-8")  # not imported, but runnable code
    assert parser_identity(_fresh(monkeypatch, project, "my_parser").MyParser()).stamp != after.stamp


def test_a_package_parser_is_keyed_by_its_package_folder(tmp_path: Path, monkeypatch) -> None:
    pkg = tmp_path / "src" / "acme"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "parser.py").write_text("class P:\n    name, version = 'p', '1'\n    def parse(self, pdf):\n"
                                   "        from acme import lazily\n        return lazily.go(pdf)\n", encoding="utf-8")
    (pkg / "lazily.py").write_text("def go(pdf):\n    return 'x'\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    for name in ("acme", "acme.parser", "acme.lazily"):
        sys.modules.pop(name, None)
    before = parser_identity(importlib.import_module("acme.parser").P())
    (pkg / "lazily.py").write_text("def go(pdf):\n    return 'y'\n", encoding="utf-8")  # imported only in parse()
    assert parser_identity(importlib.import_module("acme.parser").P()).stamp != before.stamp
    for name in ("acme", "acme.parser", "acme.lazily"):
        sys.modules.pop(name, None)


def test_a_module_a_command_imports_changes_its_key(tmp_path: Path) -> None:
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "run.py").write_text("import helper\nimport sys\nprint(helper.read(sys.argv[1]))\n", encoding="utf-8")
    (tools / "helper.py").write_text("def read(p):\n    return 'a'\n", encoding="utf-8")
    line = f"{sys.executable} {tools / 'run.py'} {{pdf}}"
    before = CommandParser(line)
    (tools / "helper.py").write_text("def read(p):\n    return 'b'\n", encoding="utf-8")
    after = CommandParser(line)
    assert before.code_identity.stamp and after.code_identity.stamp != before.code_identity.stamp
    assert after.version != before.version


def test_a_tree_too_big_to_key_is_not_cached_and_a_declared_version_is(tmp_path: Path, monkeypatch) -> None:
    project = _project(tmp_path / "project")
    monkeypatch.setattr(fingerprint, "TREE_FILES", 1)
    parser = _fresh(monkeypatch, project, "my_parser").MyParser()
    identity = parser_identity(parser)
    assert identity.stamp is None and "holds more than 1 code files" in identity.covers
    declared = resolve("my_parser:MyParser?version=7")
    assert declared.version == "7" and parser_identity(declared).stamp == "declared:7"
    with pytest.raises(ValueError, match="bad options"):
        resolve("my_parser:MyParser?colour=red")


def test_a_folder_of_data_beside_the_code_is_not_walked_past_its_bound(tmp_path: Path, monkeypatch) -> None:
    """A parser's folder holding many files that are no code (images, outputs) is walked over at most
    `TREE_ENTRIES` entries: past it the identity is not established (and the header says why)."""
    project = _project(tmp_path / "project")
    (project / "data").mkdir()
    for i in range(60):
        (project / "data" / f"{i}.png").write_bytes(b"")
    monkeypatch.setattr(fingerprint, "TREE_ENTRIES", 50)
    identity = parser_identity(_fresh(monkeypatch, project, "my_parser").MyParser())
    assert identity.stamp is None and "holds more than 50 files and folders" in identity.covers


def test_a_parser_without_an_identity_is_parsed_again_in_every_run(tmp_path: Path, monkeypatch) -> None:
    from tablebench.parse.runner import parse_pdf

    project = _project(tmp_path / "project")
    (pdf,) = case_set(tmp_path / "cases", 1).joinpath("pdfs").glob("*.pdf")
    parser = _fresh(monkeypatch, project, "my_parser").MyParser()
    assert parse_pdf(parser, pdf, tmp_path / "cache", timeout=60).outcome == "ok"
    assert parse_pdf(parser, pdf, tmp_path / "cache", timeout=60).cached  # keyed by its code: cached
    monkeypatch.setattr(fingerprint, "TREE_FILES", 1)  # now its folder is too big to key
    first = parse_pdf(parser, pdf, tmp_path / "cache", timeout=60)
    second = parse_pdf(parser, pdf, tmp_path / "cache", timeout=60)
    assert first.outcome == second.outcome == "ok" and not first.cached and not second.cached
    namespace: dict = {"__name__": "tb_made_in_memory"}
    exec("class P:\n    name, version = 'mem', '1'\n    def parse(self, pdf):\n        return 'a'\n", namespace)
    assert "has no source file" in parser_identity(namespace["P"]()).covers


def _pytest(project: Path, *args: str) -> subprocess.CompletedProcess:
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(project)}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", *args],
                          cwd=project, env=env, capture_output=True, text=True, timeout=600, check=False)


@pytest.mark.parametrize("spec", ["mine=my_parser:MyParser",
                                  f"mine=command:{sys.executable} my_parser_cli.py {{pdf}}"])
def test_an_edited_helper_regresses_and_the_gate_fails_with_the_same_cache(tmp_path: Path, spec: str) -> None:
    """Finding 1 as reported: save a baseline, make the sibling module worse, rerun with the same
    parse cache and `--baseline --gate=semantic`: exit 1, nothing served from the cache."""
    project = _project(tmp_path / "project")
    (project / "my_parser_cli.py").write_text("import sys\nfrom my_parser import MyParser\n"
                                              "print(MyParser().parse(sys.argv[1]))\n", encoding="utf-8")
    cases = case_set(tmp_path / "cases", 3)
    common = (f"--parser={spec}", f"--cases={cases}", "--parse-cache=cache")
    saved = _pytest(project, *common, "--report-only", "--save-baseline=base.json")
    assert saved.returncode == 0, saved.stdout[-3000:]
    (project / "mylib.py").write_text(LIB.format(keep="len(lines) // 4"), encoding="utf-8")
    rerun = _pytest(project, *common, "--baseline=base.json", "--gate=semantic", "--baseline-per-table=off")
    assert rerun.returncode == 1, rerun.stdout[-3000:]
    assert "gate FAILED" in rerun.stdout, rerun.stdout[-3000:]
    results = json.loads((project / "reports" / "latest" / "results.json").read_text(encoding="utf-8"))
    assert not any(r.get("parse_cached") for r in results["results"])
