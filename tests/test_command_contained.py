"""A `command:` runs in a private temp folder (its working directory) on a copy of the PDF, so
what it writes beside the PDF or into its working directory never lands in the case set or the
folder the run started in; a `{placeholder}` it does not know is refused before anything runs."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from tablebench.cli import main
from tablebench.parse import resolve
from tests.ci_cases import SYNTH
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]

# writes beside its PDF (as `pdftotext -layout {pdf}` does) and into its working directory
LITTER = """import sys
from pathlib import Path

pdf = Path(sys.argv[1])
pdf.with_suffix(".txt").write_text("beside the PDF")
Path("written-here.txt").write_text("in the working directory")
Path("tools").mkdir(exist_ok=True)
print("| a | b |")
"""


def _listing(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")}


def test_a_command_without_out_writes_nothing_outside_its_temp_dir(pytester: pytest.Pytester, tmp_path: Path) -> None:
    cases = tmp_path / "synth-v1"
    shutil.copytree(SYNTH, cases)  # the committed set, copied: a failure here never dirties the repository
    before = _listing(cases)
    litter = tmp_path / "litter.py"
    litter.write_text(LITTER, encoding="utf-8")
    parsers = [f"--parser=litter=command:{sys.executable} {litter} {{pdf}}"]
    if shutil.which("pdftotext"):
        parsers.append("--parser=pdftotext=command:pdftotext -layout {pdf}")
    started_in = _listing(pytester.path)
    run = pytester.runpytest(*PLUGIN, f"--cases={cases}", f"--parse-cache={tmp_path / 'cache'}", "-p",
                             "no:cacheprovider", "-p", "no:benchmark", *parsers, "--metrics=teds", "--report-only",
                             f"--report-dir={tmp_path / 'report'}", "synth-v1/p001")
    assert run.ret == pytest.ExitCode.OK, run.stdout.str()[-2000:]
    assert _listing(cases) == before
    assert _listing(pytester.path) == started_in


def test_an_unknown_placeholder_is_refused_before_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys) -> None:
    with pytest.raises(ValueError, match=r"^command:cp \{pdf\} \{ouT\}: unknown placeholder \{ouT\} "
                                         r"\(known: \{pdf\}, \{out\}\)$"):
        resolve("command:cp {pdf} {ouT}")
    pdf = tmp_path / "a.pdf"
    shutil.copy(SYNTH / "001.pdf", pdf)
    monkeypatch.chdir(tmp_path)
    assert main(["parse", "command:cp {pdf} {ouT}", str(pdf)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "tablebench: error: command:cp {pdf} {ouT}: unknown placeholder {ouT} (known: {pdf}, {out})"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.pdf"]


def test_shell_variables_and_brace_groups_with_spaces_are_not_placeholders(tmp_path: Path) -> None:
    pdf = tmp_path / "a.pdf"
    shutil.copy(SYNTH / "001.pdf", pdf)
    out = resolve("command:sh -c 'echo \"${0##*/}\" | awk \"{ print }\"' {pdf}").parse(pdf)
    assert out.text == "a.pdf\n"


def test_paths_the_line_names_relative_to_the_run_still_work_from_the_temp_dir(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    (project / "tools").mkdir(parents=True)
    (project / "tools" / "p.py").write_text("import sys\nprint('| rel |', sys.argv[1].endswith('a.pdf'))\n")
    (project / "bin").mkdir()
    (project / "bin" / "py").symlink_to(sys.executable)
    pdf = tmp_path / "a.pdf"
    shutil.copy(SYNTH / "001.pdf", pdf)
    monkeypatch.chdir(project)
    direct = resolve("command:bin/py tools/p.py {pdf}")
    assert direct.argv[:2] == [str(project / "bin" / "py"), str(project / "tools" / "p.py")], "symlinks kept"
    lines = ("bin/py tools/p.py {pdf}", "sh -c 'bin/py tools/p.py \"$0\"' {pdf}", f"{sys.executable} ./tools/p.py {{pdf}}")
    for line in lines:
        assert resolve(f"command:{line}").parse(pdf).text == "| rel | True\n", line
