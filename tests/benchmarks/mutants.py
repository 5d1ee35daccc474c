"""Mutation checks of our own: one textual change in a copy of the repository, and whether tests fail.

A `Mutation` replaces one piece of text (`old`, found exactly once in `path`) by `new`: a
constant moved, a comparison flipped, a branch removed. `run` applies it in a temporary copy of
the repository and runs the given tests there; the mutation is killed when a test fails. One
that survives names a behaviour no test pins. The mutation sets are
`tests.benchmarks.semantic_mutations` (the semantic score) and `tests.benchmarks.mutations`
(the gate, the locator, the reference metrics and the table model).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tablebench.core.score_table import ScoreRow

ROOT = Path(__file__).resolve().parents[2]
IGNORED = shutil.ignore_patterns(".venv", ".git", ".tablebench-cache", "reports", "__pycache__")


@dataclass(frozen=True)
class Mutation:
    name: str
    kind: str  # what the change is, e.g. "threshold", "compare", "branch"
    path: str  # relative to the repository's root
    old: str  # found exactly once in `path`
    new: str


def occurrences(mutation: Mutation, root: Path = ROOT) -> int:
    """How many times the mutation's `old` text is in its file under `root` (0 when the file is absent)."""
    target = root / mutation.path
    return target.read_text(encoding="utf-8").count(mutation.old) if target.is_file() else 0


def mutated(mutation: Mutation, root: Path = ROOT) -> str:
    """The text of the mutation's file under `root` with the mutation applied; a SystemExit naming
    the mutation when its `old` text is not there exactly once (the code moved: update it)."""
    found = occurrences(mutation, root)
    if found != 1:
        where = "is not" if not found else f"is {found} times"
        raise SystemExit(f"{mutation.name}: {mutation.old!r} {where} in {mutation.path}: update the mutation")
    return (root / mutation.path).read_text(encoding="utf-8").replace(mutation.old, mutation.new, 1)


def run(mutation: Mutation | None, tests: Sequence[str], python: str) -> tuple[bool, str]:
    """(killed, the first failing test or why it survived) for one mutation, in a copy of the repo,
    running `tests` (test files or node ids) with pytest until the first failure. With no
    mutation, the control run: the copy as it is, whose tests must pass ("survived").

    The copy's `harness/` is imported as `tablebench`, ahead of the installed package. The copy reads the repository's ../shared (`TABLEBENCH_SHARED`, unless the caller set it), so
    the tests that need it run there too instead of skipping. A SystemExit when pytest finds no test or cannot read its arguments:
    that would count as a kill."""
    text = mutated(mutation) if mutation is not None else None
    with tempfile.TemporaryDirectory(prefix="tb-mutant-") as tmp:
        copy = Path(tmp) / "repo"
        shutil.copytree(ROOT, copy, ignore=IGNORED)
        if mutation is not None:
            (copy / mutation.path).write_text(text, encoding="utf-8")
        # the package is `tablebench` (the copy's harness/): ahead of the installed one on the path, or
        # the tests would import the unmutated package and every mutation would survive
        package_dir = Path(tmp) / "path"
        package_dir.mkdir()
        (package_dir / "tablebench").symlink_to(copy / "harness", target_is_directory=True)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(package_dir), str(copy)]))
        env.setdefault("TABLEBENCH_SHARED", str(ROOT.parent / "shared"))
        proc = subprocess.run([python, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                               "--no-header", *tests], check=False, cwd=copy, capture_output=True, text=True, env=env)
    if proc.returncode in (4, 5):  # pytest's usage error, no test collected
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-1:] or ["no output"]
        raise SystemExit(f"pytest could not run {' '.join(tests)}: {tail[0]}")
    failed = [line for line in proc.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))]
    return proc.returncode != 0, (failed[0] if failed else "survived")


def report(mutations: Sequence[Mutation], tests: Sequence[str], python: str) -> int:
    """Run each mutation against `tests`, print one line per mutation; how many were killed."""
    killed = 0
    width = max([22, *(len(m.name) for m in mutations)])
    for m in mutations:
        dead, why = run(m, tests, python)
        killed += dead
        print(f"{'killed ' if dead else 'SURVIVED'}  {m.kind:<9} {m.name:<{width}} {why}", flush=True)
    return killed


def row_mutations(rows: Sequence[ScoreRow]) -> list[Mutation]:
    """One mutation per row of a score's table (`core.score_table`): the value on the source line that
    sets the row's constant (`NAME = value`, or the row's `assigned` left side) set to the row's `mutant`."""
    out = []
    for row in rows:
        left = row.assigned or row.name
        source = (ROOT / row.path).read_text(encoding="utf-8")
        # `NAME = value  # ...` or, a keyword of a call set out a line each, `    beta=0.5,`
        found = re.search(rf"^{re.escape(left)} ?= ?(.*?)(?=,?[ \t]*(?:#.*)?$)", source, re.M)
        if found is None:
            raise SystemExit(f"{row.name}: no line '{left} = ...' in {row.path}")
        line = found.group(0)
        name = f"{row.module.rsplit('.', 1)[-1]}.{row.name}".replace(".", "_").lower()
        mutated = line[:found.start(1) - found.start(0)] + row.mutant
        out.append(Mutation(f"{name}_{row.mutant}", "constant", row.path, "\n" + line, "\n" + mutated))
    return out
