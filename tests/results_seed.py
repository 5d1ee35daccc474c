"""A real run's files to send hostile copies of: two runs of the real plugin on a page of formulas and
prose (formulas-v1 001) and a page of six tables (synth-v1 001), the second against the first's
baseline with a gate, so results.json holds every kind of result, the gate's rows, verdicts and
changes against the baseline, a missing table's best candidate and each kind's evidence.

The parser is a `dir:` folder: the first run's outputs are the ground truth as written, the second's
are worse (a formula and a paragraph dropped, a character changed in every table, the first table
replaced by an unrelated one), so the gate has something to find.

Then how a hostile copy is made (`with_value`, `hostile_file`) and given to each command that reads
one (`command_argv`): tests/test_results_hostile.py, tests/test_adversarial.py and
tests/benchmarks/test_bench_results_file.py share them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.ci_cases import shift_one_char

REPO = Path(__file__).resolve().parents[1]
PAGES = {"001": REPO / "cases" / "formulas-v1" / "001", "002": REPO / "cases" / "synth-v1" / "001"}
OTHER_TABLE = "<table><tr><th>Colour</th><th>Weight</th></tr><tr><td>red</td><td>3 kg</td></tr></table>"


@dataclass(frozen=True)
class Seed:
    cases: Path
    baseline: Path  # saved by the first run
    first: Path  # the first run's report folder
    second: Path  # the second's: against the baseline, gated


def make_seed(root: Path) -> Seed:
    cases = root / "cases"
    for sub in ("pdfs", "ground_truth"):
        (cases / sub).mkdir(parents=True, exist_ok=True)
    for page, source in PAGES.items():
        shutil.copy(source.with_suffix(".pdf"), cases / "pdfs" / f"{page}.pdf")
        shutil.copy(source.with_suffix(".json"), cases / "ground_truth" / f"{page}.json")
    seed = Seed(cases, root / "baseline.json", root / "first", root / "second")
    _run(root, cases, _outputs(root / "good", cases, worse=False), f"--report-dir={seed.first}",
         f"--save-baseline={seed.baseline}")
    _run(root, cases, _outputs(root / "worse", cases, worse=True), f"--report-dir={seed.second}",
         f"--baseline={seed.baseline}", "--gate=semantic")
    return seed


def _outputs(folder: Path, cases: Path, worse: bool) -> Path:
    """One Markdown page per PDF: the formula page's blocks as written (LaTeX in $...$), the table
    page's tables as HTML; `worse` drops and changes some (see the module docstring)."""
    folder.mkdir(parents=True, exist_ok=True)
    for gt in sorted((cases / "ground_truth").glob("*.json")):
        blocks = json.loads(gt.read_text(encoding="utf-8"))["blocks"]
        parts, formulas = [], 0
        for block in blocks:
            if block["type"] == "table":
                html = block.get("html") or block["data"]
                if worse:
                    index = sum(1 for p in parts if p.startswith("<table"))
                    html = OTHER_TABLE if index == 0 else shift_one_char(gt.stem, index, html)
                parts.append(html)
            elif block["type"].endswith("formula"):
                formulas += 1
                if not (worse and formulas % 3 == 0):
                    parts.append(block["data"])
            elif block["type"] == "text" and not (worse and block is blocks[-1]):
                parts.append(block["data"])
        (folder / f"{gt.stem}.md").write_text("\n\n".join(parts) + "\n", encoding="utf-8")
    return folder


def _run(root: Path, cases: Path, outputs: Path, *more: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-q",
                          f"--cases={cases}", "--kinds=table,formula,text", f"--parser=p=dir:{outputs}",
                          "--metrics=semantic,teds,formula_score,text_fidelity", f"--parse-cache={root / 'cache'}",
                          *more], cwd=root, env=env, capture_output=True, text=True, timeout=600, check=False)
    if run.returncode not in (0, 1):
        raise RuntimeError(f"the seed run failed ({run.returncode}):\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}")


# -- hostile copies -------------------------------------------------------------------------------------
COMMANDS = ("report", "merge", "compare", "baseline")  # every way a results file reaches tablebench


def shown_path(path: tuple) -> str:
    """`path` as the refusals name a field: `results[2].scores.semantic`, `cases["set/p001::t0[p]"]`."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part.isidentifier():
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(part)}]"
    return out


_MARK = "\x00hostile\x00"


def with_value(doc: dict, paths: list[tuple], raw: str) -> str:
    """`doc` as its writer lays it out (indent 1), with JSON text `raw` at each of `paths` (put in
    place and taken out again: `doc` is left as it was)."""
    if () in paths:
        return raw + "\n"
    saved = []
    try:
        for path in sorted(paths, key=len, reverse=True):  # the deepest first: a parent replaced later wins
            at = doc
            for step in path[:-1]:
                at = at[step]
            saved.append((at, path[-1], at.get(path[-1], _MARK) if isinstance(at, dict) else at[path[-1]]))
            at[path[-1]] = _MARK
        return json.dumps(doc, indent=1, ensure_ascii=False).replace(json.dumps(_MARK), raw) + "\n"
    finally:
        for at, key, value in reversed(saved):
            if value is _MARK:
                del at[key]
            else:
                at[key] = value


def command_argv(command: str, file: Path, seed: Seed, out: Path) -> list[str]:
    """The `tablebench` arguments that give `file` to `command`, writing under `out`: a results.json
    to `report --out`, to `report merge` with a gate against the seed's baseline, to `compare` against
    the seed's first run; a baseline to `report merge --baseline` (pytest's --baseline reads it alike)."""
    if command == "report":
        return ["report", str(file), "--out", str(out / "report")]
    if command == "merge":
        return ["report", "merge", str(file.parent), "--out", str(out / "merged"), "--baseline", str(seed.baseline),
                "--gate", "semantic", "--junitxml", str(out / "junit.xml")]
    if command == "compare":
        return ["compare", str(file), f"{seed.first}", "--html", str(out / "compare.html"),
                "--markdown", str(out / "compare.md")]
    return ["report", "merge", str(seed.second), "--out", str(out / "merged"), "--baseline", str(file),
            "--gate", "semantic"]


def hostile_file(tmp_path: Path, command: str, text: str) -> Path:
    """`text` as the file `command` is given: a baseline, or a results.json alone in its folder (a
    merge is given the folder)."""
    folder = tmp_path / command
    folder.mkdir(parents=True, exist_ok=True)
    file = folder / ("baseline.json" if command == "baseline" else "results.json")
    file.write_text(text, encoding="utf-8")
    return file
