"""tablebench as a parser project gets it: a wheel installed into a fresh venv, run in a folder of its own.

The wheel is built from this checkout, installed with its `[parsers]` extra into a virtual
environment outside the repository, and used in a throwaway parser project that has a package
named `parsers` (like this repository's folder), its own unit test and a parser class of its own.
Every command runs with that project as the working folder and no PYTHONPATH, so nothing can be
found through the repository's source tree (each run checks where `tablebench` was imported from).
The GitHub Actions workflow of docs/ (`docs/ci.md`) is parsed and its commands run there too.

The venv costs about a minute (pip's own cache keeps later builds shorter); the runs select a few
pages (`-k`) of the installed default set.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
WORKFLOW = REPO / "docs" / "tablebench-workflow.yml"
CI_DOC = REPO / "docs" / "ci.md"
PAGES = "p001 or p002 or p004"  # the benchmark runs of the workflow: pages of both shards of 2 (p004 is in 1/2)

MINE = '''"""A parser of the project's own: pypdf's text, optionally with its last half of lines dropped."""
from pypdf import PdfReader

from parsers.helpers import keep_share


class MyParser:
    name = "mine"
    version = "1"

    def parse(self, pdf_path):
        text = "\\n".join(page.extract_text() or "" for page in PdfReader(str(pdf_path)).pages)
        return keep_share(text)
'''
HELPERS = '''def keep_share(text):
    return text
'''
UNIT_TEST = '''from parsers.helpers import keep_share


def test_keep_share_keeps_text():
    assert keep_share("a\\nb") == "a\\nb"
'''


def _packages_in_tree() -> set[str]:
    """The import packages the repository's folders make, as pyproject.toml maps them."""
    found = {"tablebench", "tablebench.parsers", "tablebench.casesets"}
    found |= {"tablebench." + ".".join(p.parent.relative_to(REPO / "harness").parts)
              for p in (REPO / "harness").rglob("__init__.py") if p.parent != REPO / "harness"}
    return found


def test_pyproject_lists_every_package_folder_under_the_one_import_name() -> None:
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert set(setuptools["packages"]) == _packages_in_tree()
    assert setuptools["package-dir"] == {"tablebench": "harness", "tablebench.parsers": "parsers",
                                         "tablebench.casesets": "cases"}


def test_the_workflow_and_its_doc_agree() -> None:
    """Every job of the workflow is named in docs/ci.md, and the doc links the file."""
    flow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    doc = CI_DOC.read_text(encoding="utf-8")
    assert "(tablebench-workflow.yml)" in doc
    assert all(f"**{job}**" in doc for job in flow["jobs"])
    assert "docs/ci.md" in (REPO / "README.md").read_text(encoding="utf-8")


# ---------------------------------------------------------------- the installed wheel, used as a user does


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A wheel of this checkout, installed with `[parsers]` into a fresh venv; a project folder beside it."""
    root = tmp_path_factory.mktemp("installed")
    source = root / "source"  # built from a copy: a build writes build/ and *.egg-info beside the sources
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(".git", ".venv", "reports", ".tablebench-cache",
                                                                 "__pycache__", "build", "*.egg-info", ".benchmarks"))
    wheels = root / "wheels"
    build = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(source)], root)
    assert build.returncode == 0, build.stderr[-2000:]
    (wheel,) = wheels.glob("tablebench-*.whl")
    venv = root / "venv"
    made = _run([sys.executable, "-m", "venv", str(venv)], root)
    assert made.returncode == 0, made.stderr
    pip = _run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                f"{wheel}[parsers]"], root)
    assert pip.returncode == 0, pip.stderr[-2000:]
    project = root / "project"
    (project / "parsers").mkdir(parents=True)
    (project / "parsers" / "__init__.py").write_text("", encoding="utf-8")
    (project / "parsers" / "mine.py").write_text(MINE, encoding="utf-8")
    (project / "parsers" / "helpers.py").write_text(HELPERS, encoding="utf-8")
    (project / "tests").mkdir()
    (project / "tests" / "__init__.py").write_text("", encoding="utf-8")  # tests as a package: the root is importable
    (project / "tests" / "test_helpers.py").write_text(UNIT_TEST, encoding="utf-8")
    return {"wheel": wheel, "venv": venv, "project": project}


def _env(venv: Path, **extra: str) -> dict[str, str]:
    """The environment of a user's shell with the venv active: no PYTHONPATH, nothing of this repository."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYTEST", "VIRTUAL_ENV"))}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(venv), **extra)
    return env


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)


def _bash(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return _run(["bash", "-eo", "pipefail", "-c", command], cwd, env)


def test_the_wheel_installs_only_the_tablebench_import_name(installed: dict) -> None:
    with zipfile.ZipFile(installed["wheel"]) as wheel:
        names = wheel.namelist()
        (top_level,) = [n for n in names if n.endswith(".dist-info/top_level.txt")]
        assert wheel.read(top_level).decode().split() == ["tablebench"]
        (record,) = [n for n in names if n.endswith(".dist-info/RECORD")]
        tops = {line.split(",")[0].split("/")[0] for line in wheel.read(record).decode().splitlines() if line}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"tablebench"}
    for case_set in ("synth-v1", "formulas-v1", "prose-v1", "i18n-v1", "docs-v1"):
        assert f"tablebench/casesets/{case_set}/manifest.json" in names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


def test_plain_pytest_runs_only_the_projects_own_tests_and_writes_nothing(installed: dict) -> None:
    project = installed["project"]
    done = _run(["pytest", "-q", "-p", "no:cacheprovider"], project, _env(installed["venv"]))
    assert done.returncode == 0, done.stdout[-3000:]
    assert re.search(r"^1 passed", done.stdout, re.M), done.stdout[-2000:]
    assert not (project / "reports").exists() and not (project / ".tablebench-cache").exists()


def test_the_installed_package_runs_a_builtin_and_the_projects_own_parser(installed: dict) -> None:
    project, venv = installed["project"], installed["venv"]
    env = _env(venv)
    where = _run(["python", "-c", "import tablebench, tablebench.cases as c; print(tablebench.__file__); "
                  "print(c.INSTALLED_CASES)"], project, env)
    site = str(venv / "lib")
    assert where.returncode == 0 and all(line.startswith(site) for line in where.stdout.split()), where.stdout

    for spec in ("pypdf", "parsers.mine:MyParser"):
        run = _run(["pytest", "-p", "no:cacheprovider", f"--parser={spec}", "-k", "p001", "--report-only"], project, env)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
        assert re.search(r"\b[1-9]\d* passed", run.stdout), run.stdout[-2000:]
        assert "synth-v1/p001::t0" in (project / "reports" / "latest" / "results.json").read_text(encoding="utf-8")
    assert (project / ".tablebench-cache").is_dir()
    installed_tree = {p for p in (venv / "lib").rglob("*") if "__pycache__" not in p.parts}
    assert not [p for p in installed_tree if p.name in ("reports", ".tablebench-cache", "results.json")]

    listed = _run(["tablebench", "parsers"], project, env)
    assert listed.returncode == 0 and all(n in listed.stdout for n in ("pypdf", "pdfplumber", "pymupdf4llm"))
    cases = _run(["tablebench", "cases", "list"], project, env)
    assert cases.returncode == 0 and all(n in cases.stdout for n in ("synth-v1", "formulas-v1", "prose-v1", "i18n-v1", "docs-v1"))


def test_a_baseline_of_one_case_set_version_refuses_a_run_on_another(installed: dict, tmp_path: Path) -> None:
    project, venv = installed["project"], installed["venv"]
    env = _env(venv)
    saved = _run(["pytest", "-p", "no:cacheprovider", "--parser=pypdf", "-k", "p001", "--report-only",
                  f"--save-baseline={tmp_path / 'base.json'}"], project, env)
    assert saved.returncode == 0, saved.stdout[-2000:]
    recorded = json.loads((tmp_path / "base.json").read_text(encoding="utf-8"))["case_set"]
    assert recorded["name"] == "synth-v1" and len(recorded["manifest_sha256"]) == 64
    # the same set, another version: its manifest says one more thing (a release would change a page)
    where = Path(_run(["python", "-c", "import tablebench.cases as c; print(c.INSTALLED_CASES)"], project,
                      env).stdout.strip())
    other = tmp_path / "synth-v1"
    shutil.copytree(where / "synth-v1", other)
    manifest = json.loads((other / "manifest.json").read_text(encoding="utf-8"))
    (other / "manifest.json").write_text(json.dumps({**manifest, "note": "v2"}), encoding="utf-8")
    run = _run(["pytest", "-p", "no:cacheprovider", "--parser=pypdf", f"--cases={other}", "-k", "p001",
                f"--baseline={tmp_path / 'base.json'}"], project, env)
    assert run.returncode == 4, run.stdout[-2000:]  # a usage error: nothing ran
    (line,) = [x for x in run.stderr.splitlines() if "ERROR" in x]
    assert "measured on case set synth-v1 version " in line and "this run's synth-v1 is version" in line, run.stderr


def test_the_documented_workflow_runs_in_the_project(installed: dict) -> None:
    """docs/tablebench-workflow.yml's jobs in order, each `run:` in bash with the workflow's env and
    each matrix value; `uses:` steps are GitHub's (checkout, cache, artifacts: here one folder holds
    everything) and the install step is the wheel's install above. The baseline is saved first with
    docs/ci.md's command; the gate passes on the same parser and fails once a module its class
    imports regresses, with the parse cache of the first run kept (as `actions/cache` restores it)."""
    project, venv = installed["project"], installed["venv"]
    flow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    env = _env(venv, **{k: str(v) for k, v in flow["env"].items()}, GITHUB_STEP_SUMMARY=str(project / "summary.md"))
    few = dict(env, PYTEST_ADDOPTS=f"-p no:cacheprovider -k '{PAGES}'")  # a benchmark run: a few pages
    save = 'pytest --parser="mine=parsers.mine:MyParser" --report-only --save-baseline=benchmarks/tablebench-baseline.json'
    assert save in CI_DOC.read_text(encoding="utf-8") and flow["env"]["BASELINE"] in save
    assert flow["env"]["PARSER"].startswith("mine=parsers.mine:MyParser")
    done = _bash(save, project, few)
    assert done.returncode == 0, done.stdout[-2000:]

    def run_workflow(*jobs: str) -> subprocess.CompletedProcess:
        last = None
        for job in jobs:
            spec = flow["jobs"][job]
            for matrix in _matrix(spec):
                for step in spec["steps"]:
                    if "uses" in step:
                        continue
                    if step.get("name") == "Install tablebench":
                        assert step["run"] == 'pip install "tablebench[parsers]"'
                        continue
                    command = _expand(step["run"], matrix)
                    last = _bash(command, project, few if "--parser" in command else env)
                    if last.returncode and job == "gate" and "merge" in command:
                        return last
                    assert last.returncode == 0, f"{command}\n{last.stdout[-3000:]}\n{last.stderr[-2000:]}"
        return last

    run_workflow("tests", "bench", "gate")
    summary = (project / "summary.md").read_text(encoding="utf-8")
    assert "| mine |" in summary and "semantic" in summary, summary[:2000]
    merged = json.loads((project / "reports" / "merged" / "results.json").read_text(encoding="utf-8"))
    assert {r["page"] for r in merged["results"]} == {"p001", "p002", "p004"}
    assert (project / "reports" / "merged" / "junit.xml").is_file()
    shutil.rmtree(project / "reports")  # a new CI run starts without reports; its parse cache is restored

    # the parser's helper module regresses (a sibling of the class's module): the gate must fail
    (project / "parsers" / "helpers.py").write_text("def keep_share(text):\n    lines = text.splitlines()\n"
                                                    "    return '\\n'.join(lines[: len(lines) // 3])\n", encoding="utf-8")
    failed = run_workflow("bench", "gate")  # (its own unit test fails too: the tests job is not the point)
    assert failed is not None and failed.returncode == 1, failed.stdout[-3000:] if failed else "the gate never ran"
    assert "gate FAILED" in failed.stdout + failed.stderr, failed.stdout[-3000:]


def _matrix(job: dict) -> list[dict[str, str]]:
    """The job's matrix as a list of assignments (one empty one without a matrix)."""
    matrix = job.get("strategy", {}).get("matrix", {})
    combos: list[dict[str, str]] = [{}]
    for key, values in matrix.items():
        combos = [{**c, key: str(v)} for c in combos for v in values]
    return combos


def _expand(command: str, matrix: dict[str, str]) -> str:
    out = re.sub(r"\$\{\{\s*matrix\.(\w+)\s*\}\}", lambda m: matrix[m.group(1)], command)
    assert "${{" not in out, f"an expression the local run cannot give: {out}"
    return out
