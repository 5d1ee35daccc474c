"""Results files read as untrusted input (issue 46, finding 5).

A results.json or a baseline given to `tablebench report`, `report merge`, `compare` or
`--baseline` comes from anywhere: every field of a real run's files gets each of 16 hostile
values (wrong types, NaN, Infinity, 1e308, an integer of 5,000 digits, nesting 100,000 deep, a
long string, HTML, line breaks), and every command either uses the file or refuses it in one
line naming the file and the field; never a traceback, and every error it prints is one line.
The audit's four tracebacks are pinned first below.

The default suite reads every (field, value) through each command's reader in-process, runs
every command on one document per value holding it in every field that takes it, and a handful
through the real `tablebench` and `pytest` commands. Opt-in: every (field, value, command) through
the command (`-m slow`); a file of 100 MB under a memory limit in tests/test_adversarial.py
(`-m adversarial`), its time in tests/benchmarks/test_bench_results_file.py.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tablebench.cli import main
from tablebench.core.messages import MAX_ERROR_LINE
from tablebench.report.results_file import Shelf, load_baseline, read_results, read_slim
from tests.results_seed import COMMANDS, Seed, command_argv, hostile_file, make_seed, shown_path, with_value

HTML = "<img src=x onerror=alert(1)><script>alert(1)</script>"
# the audit's 15 hostile values and line breaks, as JSON text (what `json.dumps` cannot write, too:
# NaN, a 5,000-digit integer)
HOSTILE = {
    "null": "null", "true": "true", "minus one": "-1", "a fraction": "1.5", "1e308": "1e308", "NaN": "NaN",
    "-Infinity": "-Infinity", "5,000 digits": "9" * 5000, "empty string": '""', "HTML": json.dumps(HTML),
    "empty list": "[]", "HTML object": json.dumps({HTML: HTML}), "nested lists": '[[["x"]]]',
    "100,000 deep": "[" * 100_000 + "]" * 100_000, "a long string": json.dumps("é" * 20_000),
    "line breaks": json.dumps("a\nb\rc\u2028d"),
    "terminal escapes": json.dumps("\x1b]0;owned\x07\x1b[2J\x9b31mred\x08"),
}
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # what acts on a terminal instead of being read


# -- the documents --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def seed(tmp_path_factory: pytest.TempPathFactory) -> Seed:
    return make_seed(tmp_path_factory.mktemp("seed"))


@pytest.fixture(scope="module")
def docs(seed: Seed) -> dict[str, dict]:
    """The second run's results.json with its first result of each kind (every field of the file's
    head and of each kind's result, in a file small enough to read thousands of times), and the baseline."""
    results = json.loads((seed.second / "results.json").read_text(encoding="utf-8"))
    firsts = {}
    for r in results["results"]:
        firsts.setdefault(r["kind"], r)
    results["results"] = [_small(r) for r in firsts.values()]
    return {"results": results, "baseline": json.loads(seed.baseline.read_text(encoding="utf-8"))}


def _small(value: Any) -> Any:
    """`value` with every string cut to 300 characters and every list to 3 items: the same shapes,
    read in a fraction of the time (the file is read some 10,000 times)."""
    if isinstance(value, str):
        return value[:300]
    if isinstance(value, list):
        return [_small(v) for v in value[:3]]
    if isinstance(value, dict):
        return {k: _small(v) for k, v in value.items()}
    return value


# free-form data (leaderboards, which readers compute again; a hook's `extra`; scoring's evidence,
# read defensively by the cards): the default suite goes this many levels into it, `-m slow` all the way
FREE_FORM = {"leaderboard": 1, "formula_leaderboard": 1, "text_leaderboard": 1, "extra": 1, "evidence": 2}


def field_paths(value: Any, at: tuple = (), depth: int | None = None, whole: bool = False) -> Iterator[tuple]:
    """The path of every value in `value`: each object's fields, each list's first item (but every
    result; the baseline's first case only), at most `FREE_FORM` levels into free-form data unless `whole`."""
    yield at
    if depth == 0:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if at == ("cases",) and key != next(iter(value)):
                continue
            inner = None if depth is None else depth - 1
            if depth is None and not whole and key in FREE_FORM and (key != "extra" or at[:1] == ("results",)):
                inner = FREE_FORM[key]
            yield from field_paths(item, (*at, key), inner, whole)
    elif isinstance(value, list) and value:
        items = enumerate(value) if at == ("results",) else [(0, value[0])]
        for i, item in items:
            yield from field_paths(item, (*at, i), None if depth is None else depth - 1, whole)


def read_back(command: str, path: Path) -> str | None:
    """What `command` reads `path` with, in-process: None when it reads it, else its refusal."""
    try:
        if command == "baseline":
            load_baseline(path)
        elif command == "merge":
            read_slim(path, Shelf())
        else:
            read_results(path)  # the gate's rows too (`read_comparisons` reads what this checked)
    except ValueError as exc:
        return str(exc)
    return None


def cli(argv: list[str]) -> tuple[int, str, str]:
    """`tablebench ARGV` in this process: (exit code, stdout, stderr); an exception escapes (the test fails)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def assert_said_in_one_line(code: int, err: str) -> None:
    """A command that failed printed one line of bounded length on stderr, whatever it quotes of the
    file (a parser label of 20,000 characters, one holding line breaks)."""
    assert code == 1 and err.count("\n") == 1 and err.startswith("tablebench: error: "), err[-2000:]
    assert len(err) <= len("tablebench: error: \n") + MAX_ERROR_LINE, len(err)


def assert_one_line(refusal: str, file: Path, path: tuple) -> None:
    """One line, the file first, then the field (or a field inside it) the value was put in."""
    assert "\n" not in refusal and len(refusal) < 600, refusal
    assert refusal.startswith((f"{file}: ", f"baseline {file}: ")), refusal
    field = shown_path(path)
    named = refusal.split(f"{file}: ", 1)[1]
    assert named.startswith(field[:90]) or not field, (field, refusal)


# -- the audit's four tracebacks, each one line now -----------------------------------------------
def test_a_score_of_1e308_is_refused_naming_it_not_summed_to_an_overflow(seed: Seed, docs: dict, tmp_path: Path):
    """Was: OverflowError in html._heat (`report --out`, `report merge`): two scores of 1e308 summed to infinity."""
    doc = json.loads((seed.second / "results.json").read_text(encoding="utf-8"))
    tables = [i for i, r in enumerate(doc["results"]) if r["kind"] == "table" and r["scores"].get("semantic")]
    for i in tables:  # six tables of 1e308: their mean sums past the float range
        doc["results"][i]["scores"]["semantic"] = 1e308
    table = tables[0]
    file = hostile_file(tmp_path, "report", json.dumps(doc, indent=1))
    for argv in (["report", str(file), "--out", str(tmp_path / "out")],
                 ["report", "merge", str(file.parent), "--out", str(tmp_path / "merged")]):
        code, _, err = cli(argv)
        assert code == 1 and err == f"tablebench: error: {file}: results[{table}].scores.semantic: 1e+308, expected " \
                                    "a number from -10 to 10\n", err


@pytest.mark.parametrize("field", ["now", "metric"])
def test_a_baseline_change_holding_nested_lists_is_refused_naming_it(seed: Seed, docs: dict, tmp_path: Path,
                                                                     field: str):
    """Was: TypeError in regressions.change_badge (`now`) and metric_specs.scale_of (`metric`)."""
    doc = copy.deepcopy(docs["results"])
    doc["results"][0]["baseline_change"][field] = [[["x"]]]
    file = hostile_file(tmp_path, "report", json.dumps(doc, indent=1))
    for argv in (["report", str(file), "--out", str(tmp_path / "out")],
                 ["compare", str(file), str(seed.first)]):
        code, _, err = cli(argv)
        assert code == 1 and err.startswith(f"tablebench: error: {file}: results[0].baseline_change.{field}: a list "
                                            "of 1 item, expected a "), err
        assert err.count("\n") == 1


def test_extra_nested_100000_deep_in_a_shard_is_refused_naming_it(seed: Seed, docs: dict, tmp_path: Path):
    """Was: RecursionError in `report merge` (a shard is read one result at a time, and that parse was not guarded)."""
    file = hostile_file(tmp_path, "merge", with_value(docs["results"], [("results", 1, "extra", "notes")],
                                                      HOSTILE["100,000 deep"]))
    code, _, err = cli(["report", "merge", str(file.parent), "--out", str(tmp_path / "merged")])
    assert code == 1 and err.startswith(f"tablebench: error: {file}: results[1].extra.notes[0][0]"), err
    assert err.endswith(": nested deeper than 64 levels\n") and err.count("\n") == 1


def test_a_baseline_mapping_a_parser_to_a_string_is_a_usage_error_naming_it(seed: Seed, docs: dict,
                                                                             tmp_path: Path):
    """Was: INTERNALERROR AttributeError in rules.baseline_notes (pytest --baseline), a traceback in `report merge`."""
    doc = copy.deepcopy(docs["baseline"])
    doc["parsers"]["p"] = "dir:/somewhere"
    file = hostile_file(tmp_path, "baseline", json.dumps(doc, indent=1))
    says = f'baseline {file}: parsers.p: "dir:/somewhere", expected an object'
    code, _, err = cli(command_argv("baseline", file, seed, tmp_path))
    assert code == 1 and err == f"tablebench: error: {says}\n", err
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-q",
                          f"--cases={seed.cases}", "--kinds=table,formula,text", f"--parser=p=dir:{tmp_path}",
                          f"--baseline={file}", "--collect-only"], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=300, check=False)
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.stdout[-2000:] + run.stderr[-2000:]
    assert "INTERNALERROR" not in run.stdout + run.stderr and "Traceback" not in run.stdout + run.stderr
    assert [line for line in run.stderr.splitlines() if line.strip()] == [f"ERROR: {says}"], run.stderr


# -- every field x every value ------------------------------------------------------------------------
@pytest.mark.parametrize("value", list(HOSTILE))
def test_a_hostile_value_in_any_field_is_refused_in_one_line_or_taken_by_every_command(
        seed: Seed, docs: dict, tmp_path: Path, value: str):
    """`value` in each field of the file alone, through each command's reader (in-process): read,
    or refused in one line naming the file and the field. Then one document per command with
    `value` in every field its reader took it in (HTML in every string, null in every field that
    may be null, ...), through the whole command: it runs to its end, and no HTML page it writes
    holds the poisoned text unescaped."""
    raw = HOSTILE[value]
    counts = []
    for command in ("report", "merge", "baseline"):  # compare reads as report does
        doc = docs["baseline" if command == "baseline" else "results"]
        taken = []
        for path in field_paths(doc):
            file = hostile_file(tmp_path / "alone", command, with_value(doc, [path], raw))
            refusal = read_back(command, file)
            if refusal is None:
                taken.append(path)
            else:
                assert_one_line(refusal, file, path)
        counts.append(f"{command}: {len(taken)} of {len(list(field_paths(doc)))} fields take it")
        for run in (command, "compare") if command == "report" else (command,):
            file = hostile_file(tmp_path / "all" / run, run, with_value(doc, taken, raw))
            out = tmp_path / "out" / run
            code, stdout, err = cli(command_argv(run, file, seed, out))
            assert code in (0, 1) and "Traceback" not in stdout + err, (run, value, err[-2000:])
            assert not RAW_CONTROL.search(stdout + err), (run, value)  # shown written out, never acting
            if read_back(command, file) is not None:  # taken in each field alone, refused together
                assert code == 1, (run, value, err)
            if "tablebench: error: " in err:  # refused, or failed on what it holds (e.g. parser labels that differ)
                assert_said_in_one_line(code, err)
            for page in out.rglob("*.html"):
                assert "<script>alert(1)" not in page.read_text(encoding="utf-8"), (run, value, page)
    print(f"{value}: " + "; ".join(counts))


# -- the real commands ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("command", "path", "value"), [
    ("report", ("results", 2, "scores", "semantic"), "1e308"),
    ("merge", ("results", 2, "extra"), "100,000 deep"),
    ("compare", ("meta", "completeness", "expected"), "5,000 digits"),
    ("report", ("gate", 0, "diff"), "NaN"),
    ("baseline", ("cases",), "HTML"),
])
def test_the_tablebench_command_says_it_in_one_line(seed: Seed, docs: dict, tmp_path: Path, command: str,
                                                    path: tuple, value: str):
    doc = docs["baseline" if command == "baseline" else "results"]
    file = hostile_file(tmp_path, command, with_value(doc, [path], HOSTILE[value]))
    argv = command_argv(command, file, seed, tmp_path / "out")
    run = subprocess.run([sys.executable, "-m", "tablebench.cli", *argv], capture_output=True, text=True,
                         timeout=300, check=False)
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr[-3000:]
    [line] = run.stderr.splitlines()
    assert line.startswith("tablebench: error: ") and shown_path(path) in line, line


# -- the shapes and the writers cannot drift -------------------------------------------------------------
def _undeclared(shape: Any, value: Any, at: str = "") -> Iterator[str]:
    """Fields of `value` that fall to a Record's `rest` (declared by no shape), outside users' data."""
    from tablebench.core.schema import Items, Maybe, Record, Table, join

    if isinstance(shape, Record) and isinstance(value, dict):
        for key, item in value.items():
            if key in shape.fields:
                yield from _undeclared(shape.fields[key], item, join(at, key))
            elif shape.rest is None:
                yield join(at, key)
    elif isinstance(shape, Maybe) and value is not None:
        yield from _undeclared(shape.inner, value, at)
    elif isinstance(shape, (Items, Table)) and isinstance(value, (list, dict)):
        for key, item in (enumerate(value) if isinstance(value, list) else value.items()):
            yield from _undeclared(shape.inner, item, join(at, key))


def test_a_real_run_writes_only_fields_the_shapes_declare(seed: Seed) -> None:
    from dataclasses import fields

    from tablebench.core.results import ROW
    from tablebench.core.results_schema import GATE_ROW, HEAD, META
    from tablebench.gating.aggregate import Comparison
    from tablebench.gating.baseline import BASELINE, ENTRY

    data = json.loads((seed.second / "results.json").read_text(encoding="utf-8"))
    head = {k: v for k, v in data.items() if k not in ("results", "leaderboard") and not k.endswith("_leaderboard")}
    assert list(_undeclared(HEAD, head)) == []
    assert [f for i, r in enumerate(data["results"]) for f in _undeclared(ROW, r, f"results[{i}]")
            if ".extra." not in f and ".evidence." not in f] == []
    assert list(_undeclared(BASELINE, json.loads(seed.baseline.read_text(encoding="utf-8")))) == []
    assert set(GATE_ROW.fields) == {f.name for f in fields(Comparison)} | {"failed"}
    assert set(ENTRY.fields) == {"outcome", "scores"} and "completeness" in META.fields


# -- opt-in -------------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
def test_every_field_with_every_hostile_value_through_every_command(seed: Seed, docs: dict, tmp_path: Path,
                                                                    command: str):
    """The audit's fuzz: every (field, value) through the whole command, not only its reader."""
    doc = docs["baseline" if command == "baseline" else "results"]
    runs = 0
    for n, path in enumerate(field_paths(doc, whole=True)):
        for m, (value, raw) in enumerate(HOSTILE.items()):
            folder = tmp_path / f"{n}-{m}"
            file = hostile_file(folder, command, with_value(doc, [path], raw))
            code, stdout, err = cli(command_argv(command, file, seed, folder / "out"))
            runs += 1
            assert code in (0, 1) and "Traceback" not in stdout + err, (path, value, err[-2000:])
            if "tablebench: error: " in err:
                assert_said_in_one_line(code, err)
    print(f"{command}: {runs} runs, no traceback")
