"""Same numbers before and after a change: run the reference runs, then diff two of them.

A restructure must not move a score or a verdict. This runs what the README and docs/ measure
(the 5-parser run on synth-v1, formulas-v1 with pymupdf4llm, `meta-eval --cv` on the four study
files) and the gate's paths (three parsers against a baseline saved from other parsers under
their labels, so cases regress, improve and fail: with `--gate`, floors and per-case verdicts;
the same run in two shards merged by `tablebench report merge` with the same gate) into a
folder, at whatever commit is checked out, and compares two such folders: every result in
order (outcome, scores, spans, messages, semantic errors, HTML, verdicts, changes against the
baseline), every leaderboard number, every gate row, the baselines and every meta-eval number.
Only what a clock or a cache decides is left out (seconds, the cache flag, timestamps, a
baseline's `created`, paths and the command line). A folder written in an older results format
(format 1: fields named for tables; 1 and 2: the project's facts in `extra`) compares with one
written after:
each result is read as every reader reads it (`ItemResult.from_dict`) and written back in the
current layout, and the leaderboards' groups go under their current names, so only a real
difference shows.

    python -m tests.benchmarks.same_results run OUT [--cache DIR]   # from the repo root
    python -m tests.benchmarks.same_results diff BEFORE AFTER       # exit 1 and the differences

With a shared `--cache`, a parser whose code did not change is served its earlier output,
so the runs compare scoring, not parser nondeterminism.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

PARSERS = "pymupdf4llm,pdfplumber,camelot,pypdf,tesseract"
STUDIES = ("table-metric-study/dev", "table-metric-study/dev2", "formula-metric-study/dev",
           "formula-metric-study/dev2")
VOLATILE = ("seconds", "parse_cache", "parse_cached", "timestamp", "created", "finished", "command", "_path")
# keys whose whole name is a path of the output folder (summary.json's baseline file, a merge's inputs); a
# substring match would drop `baseline_change`
PATHS = ("baseline", "merged_from")


def run(out: Path, cache: Path, shared: Path) -> None:
    """The reference runs of the README and docs/ into `out` (results.json of each run, meta-eval JSON)."""
    out.mkdir(parents=True, exist_ok=True)
    py = sys.executable
    runs = {"synth": ["--parser=" + PARSERS], "formulas": ["--cases=formulas-v1", "--parser=pymupdf4llm"]}
    for name, args in runs.items():
        subprocess.run([py, "-m", "pytest", "-p", "no:cacheprovider", *args, "-n", "2", "--report-only", "-q",
                        f"--report-dir={out / name}", f"--parse-cache={cache}"], check=True,
                       stdout=subprocess.DEVNULL)
    _gate_runs(out, cache)
    for study in STUDIES:
        data = shared / "data" / f"{study}.json"
        done = subprocess.run([py, "-m", "tablebench.cli", "meta-eval", str(data), "--cv", "--json"], check=True,
                              capture_output=True, text=True)
        (out / f"meta_{study.replace('/', '_')}.json").write_text(done.stdout, encoding="utf-8")


# The baseline: other parsers under the gated run's labels, so that the run's cases move both ways.
BASELINE_PARSERS = ("--parser=pdfplumber=pypdf", "--parser=pypdf=pdfplumber", "--parser=pymupdf4llm=pymupdf4llm?layout=off")
GATED = ("--parser=pdfplumber", "--parser=pypdf", "--parser=pymupdf4llm", "--gate=semantic", "--gate=teds",
         "--min-score=semantic=3")


def _gate_runs(out: Path, cache: Path) -> None:
    """A baseline, a gated run against it (cases fail: the exit status is not checked), the same
    run in two shards, and their merge with the same gate."""
    py = sys.executable
    baseline = out / "baseline.json"

    def pytest_run(name: str, *args: str, check: bool = False) -> None:
        subprocess.run([py, "-m", "pytest", "-p", "no:cacheprovider", *args, "-n", "2", "-q",
                        f"--report-dir={out / name}", f"--parse-cache={cache}"], check=check,
                       stdout=subprocess.DEVNULL)

    pytest_run("baseline_run", *BASELINE_PARSERS, "--report-only", f"--save-baseline={baseline}", check=True)
    pytest_run("gated", *GATED, f"--baseline={baseline}")
    for i in (1, 2):
        pytest_run(f"shard{i}", *GATED, f"--baseline={baseline}", f"--shard={i}/2")
    subprocess.run([py, "-m", "tablebench.cli", "report", "merge", str(out / "shard1"), str(out / "shard2"),
                    "--out", str(out / "merged"), f"--baseline={baseline}", "--gate=semantic", "--gate=teds",
                    "--min-score=semantic=3"], check=False, stdout=subprocess.DEVNULL)


# format 1's names of the leaderboards' groups, and the format markers themselves (each side has its own)
_BOARD_NAMES = {"by_complexity": "by_group", "complexities": "groups"}
_FORMAT_KEYS = ("schema", "format")


def _current(data: Any) -> Any:
    """A results.json's content in the current layout, whichever format wrote it (any other file as it is)."""
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        return data
    from tablebench.core.results import ItemResult

    out = {k: _renamed(v) if k.endswith("leaderboard") else v for k, v in data.items() if k not in _FORMAT_KEYS}
    out["results"] = [ItemResult.from_dict(row).to_row() for row in data["results"]]
    return out


def _renamed(value: Any) -> Any:
    if isinstance(value, dict):
        return {_BOARD_NAMES.get(k, k): _renamed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v) for v in value]
    return value


def _stable(value: Any) -> Any:
    """`value` without the keys a clock, a cache or a path decides."""
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items()
                if not any(word in k for word in VOLATILE) and not (k in PATHS and isinstance(v, (str, list)))}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _differences(a: Any, b: Any, where: str, out: list[str], limit: int = 20) -> None:
    if len(out) >= limit:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(a.keys() | b.keys()):
            if key not in a or key not in b:
                out.append(f"{where}.{key}: only in {'after' if key not in a else 'before'}")
            else:
                _differences(a[key], b[key], f"{where}.{key}", out, limit)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{where}: {len(a)} entries before, {len(b)} after")
        for i, (x, y) in enumerate(zip(a, b)):
            _differences(x, y, f"{where}[{i}]", out, limit)
    elif a != b or type(a) is not type(b):
        out.append(f"{where}: {a!r} before, {b!r} after")


def diff(before: Path, after: Path) -> list[str]:
    """Every difference between two reference folders (or two JSON files), as lines."""
    pairs = ([(before, after)] if before.is_file() else
             [(p, after / p.relative_to(before)) for p in sorted(before.rglob("*.json"))])
    out: list[str] = []
    for a, b in pairs:
        if not b.is_file():
            out.append(f"{b}: missing")
            continue
        data_a, data_b = (_stable(_current(json.loads(p.read_text(encoding="utf-8")))) for p in (a, b))
        if isinstance(data_a, dict):
            data_a.pop("meta", None), data_b.pop("meta", None)
        _differences(data_a, data_b, a.name if before.is_file() else str(a.relative_to(before)), out)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="same_results", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run the reference runs into a folder")
    r.add_argument("out", type=Path)
    r.add_argument("--cache", type=Path, default=Path(".tablebench-cache"))
    r.add_argument("--shared", type=Path, default=Path("../shared"))
    d = sub.add_parser("diff", help="compare two reference folders (or two results / meta-eval JSON files)")
    d.add_argument("before", type=Path)
    d.add_argument("after", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "run":
        run(args.out, args.cache, args.shared)
        return 0
    lines = diff(args.before, args.after)
    files = 1 if args.before.is_file() else len(list(args.before.rglob("*.json")))
    print("\n".join(lines) if lines else f"identical: {files} files (results, leaderboards, meta-eval)")
    return 1 if lines else 0


if __name__ == "__main__":
    raise SystemExit(main())
