"""No test of the default suite asserts how long something took.

Why: the suite runs on shared 2-core machines beside other jobs; an assertion on elapsed wall
time passes or fails with the machine's load, not with the code. Timing belongs to the opt-in
benchmarks (tests/benchmarks) and the opt-in adversarial suite (tests/test_adversarial.py,
which measures wall time by design). A test asserts what happened instead (the process was
killed, the answer came from the cache).

The check reads each test file's syntax: in every function, a name assigned from a clock
(`time.perf_counter()`, `time.time()`, `time.monotonic()`, their `_ns` forms, or the bare names
imported from time) or from arithmetic on one is a clock value, and an `assert` comparing a clock value fails the
check, unless `ALLOWED` lists its function with the reason it cannot be flaky.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
CLOCKS = {"perf_counter", "time", "monotonic", "perf_counter_ns", "time_ns", "monotonic_ns"}
EXCLUDED = {"benchmarks", "test_adversarial.py"}  # opt-in: they measure time by design
# (file, function) -> why its timed assertion holds on any machine: it only proves that a kill
# (or a start) happened well within a much longer timeout
ALLOWED = {
    ("test_generate_runner.py", "test_a_runaway_document_is_killed_at_the_timeout"):
        "< 5 s for a 1 s timeout of a document that loops forever: proves the kill, not a speed",
    ("test_generate_runner.py", "test_a_log_bomb_is_stopped_by_the_file_size_limit"):
        "< 30 s for a 60 s timeout: proves the size limit stopped it before the timeout could",
    ("test_parse.py", "test_hang_is_killed_at_the_timeout_and_the_runner_recovers"):
        "< 10 s for a 1 s timeout of a parser that sleeps an hour: proves the kill, not a speed",
    ("test_parse.py", "test_killed_run_leaves_nothing_in_the_temp_folder"):
        "a polling loop's 30 s deadline for a command to start: fails only when it never starts",
}


def _clock(node: ast.AST, names: set[str]) -> bool:
    """Whether `node` is a clock reading: a clock call, a clock value, or arithmetic on one (a
    clock passed as an argument, e.g. `deadline=time.monotonic()`, makes no clock value)."""
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute):
            return func.attr in CLOCKS and isinstance(func.value, ast.Name) and func.value.id == "time"
        return isinstance(func, ast.Name) and func.id in CLOCKS - {"time"}
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.BinOp):
        return _clock(node.left, names) or _clock(node.right, names)
    if isinstance(node, ast.UnaryOp):
        return _clock(node.operand, names)
    return False


def timed_asserts(source: str) -> list[tuple[str, int]]:
    """(function, line) of every assert comparing a clock reading in `source`."""
    found = []
    for fn in ast.walk(ast.parse(source)):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        names: set[str] = set()
        assigns = sorted((n for n in ast.walk(fn) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign))),
                         key=lambda n: n.lineno)  # in source order: a value from a clock value is one too
        for node in assigns:
            if node.value is not None and _clock(node.value, names):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names |= {t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)}
        for node in ast.walk(fn):
            if isinstance(node, ast.Assert) and any(
                    isinstance(c, ast.Compare) and any(_clock(x, names) for x in (c.left, *c.comparators))
                    for c in ast.walk(node.test)):
                found.append((fn.name, node.lineno))
    return found


def _test_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py")
                  if not EXCLUDED & set(p.relative_to(TESTS).parts))


def test_no_test_asserts_an_elapsed_time():
    found = {(path.name, fn): line for path in _test_files()
             for fn, line in timed_asserts(path.read_text(encoding="utf-8"))}
    unexplained = sorted(f"tests/{name}:{line} in {fn}" for (name, fn), line in found.items()
                         if (name, fn) not in ALLOWED)
    assert not unexplained, "assertions on elapsed time (assert what happened instead):\n" + "\n".join(unexplained)
    stale = sorted(set(ALLOWED) - set(found))
    assert not stale, f"no longer timed, drop from ALLOWED: {stale}"


def test_the_check_sees_a_timed_assert_through_a_name_and_ignores_other_asserts():
    source = '''
import time
from time import perf_counter
def test_a():
    start = time.perf_counter()
    work()
    elapsed = time.perf_counter() - start
    assert elapsed < 1.0
def test_b():
    t0 = perf_counter()
    assert perf_counter() - t0 < 2
def test_c():
    n = len(items)
    spent = budgeted(deadline=time.monotonic())
    assert n < 3 and spent == []
'''
    assert timed_asserts(source) == [("test_a", 8), ("test_b", 11)]
