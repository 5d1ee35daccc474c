"""The metric and gate speeds that docs/performance.md quotes, measured, never typed.

Runs the speed benchmarks of the metrics and the gate (pytest-benchmark, one process, the pairs
of `tests/benchmarks/pairs.py` and the benchmarks' own) as `./dev.sh speed` does, and writes each
benchmark's minimum and median to docs/speed-figures.json and into block `speed`
(docs/performance.md; tests/test_readme.py checks the block against the JSON).

    python -m tests.benchmarks.speed_figures   # from the repo root, about a minute; best on an idle machine
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.benchmarks.readme_blocks import write_block

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "docs" / "speed-figures.json"
FILES = {  # benchmark file -> what its rows measure
    "test_bench_teds.py": "TEDS (content, or structure only)",
    "test_bench_grits.py": "GriTS, all six values, HTML parsing included",
    "test_bench_tlag.py": "T-LAG",
    "test_bench_semantic.py": "semantic score (synthetic pairs; realistic pairs; tables written as lines of text)",
    "test_bench_gate.py": "the aggregate gate: one paired comparison (bootstrap CI and permutation p) at N tables",
}


def measure() -> dict:
    with tempfile.TemporaryDirectory(prefix="tablebench-speed-") as tmp:
        out = Path(tmp) / "bench.json"
        load = os.getloadavg()[0]
        subprocess.run([sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-q",
                        "--benchmark-only", "--benchmark-enable", f"--benchmark-json={out}",
                        *(f"tests/benchmarks/{name}" for name in FILES)],
                       check=True, cwd=REPO, stdout=subprocess.DEVNULL)
        data = json.loads(out.read_text(encoding="utf-8"))
    rows = [{"file": b["fullname"].split("::")[0].rsplit("/", 1)[-1], "name": b["name"],
             "min": b["stats"]["min"], "median": b["stats"]["median"], "rounds": b["stats"]["rounds"]}
            for b in data["benchmarks"]]
    return {"load": round(load, 1), "cpus": len(os.sched_getaffinity(0)), "python": data["machine_info"]["python_version"],
            "benchmarks": rows}


def _seconds(x: float) -> str:
    if x >= 1:
        return f"{x:.2f} s"
    ms = x * 1000
    return f"{ms:.3f} ms" if ms < 1 else f"{ms:.2f} ms" if ms < 10 else f"{ms:.1f} ms" if ms < 100 else f"{ms:.0f} ms"


def block(f: dict) -> str:
    lines = [(f"Measured with `python -m tests.benchmarks.speed_figures` (pytest-benchmark, one process, "
              f"{f['cpus']} usable CPUs, Python {f['python']}, load average {f['load']:.1f} at the start):"), "",
             "| benchmark | min | median | rounds |", "|---|---:|---:|---:|"]
    for file, title in FILES.items():
        rows = [b for b in f["benchmarks"] if b["file"] == file]
        if rows:
            lines.append(f"| _{title}_ | | | |")
        lines += [f"| `{b['name']}` | {_seconds(b['min'])} | {_seconds(b['median'])} | {b['rounds']} |" for b in rows]
    return "\n".join(lines)


def blocks(f: dict) -> dict[str, str]:
    return {"speed": block(f)}


def written_blocks() -> dict[str, str]:
    """The block as the script's last run wrote it (from docs/speed-figures.json)."""
    return blocks(json.loads(OUT.read_text(encoding="utf-8")))


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    f = measure()
    OUT.write_text(json.dumps(f, indent=1) + "\n", encoding="utf-8")
    for name, text in blocks(f).items():
        write_block(name, text)
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
