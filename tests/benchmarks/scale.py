"""The scale benchmark: how a whole run grows with the number of pages.

synth-v1's pages are replicated N times over into a temporary case set (ground truth copied,
PDFs linked, nothing committed), the perfect parser is a `dir:` folder holding every
ground-truth table written back as HTML, and each size is run as a real pytest subprocess,
serial and with `-n 2`. Per run: wall, wall per table, the controller's and the workers' peak
RSS and the controller's session-end seconds (`tests.benchmarks.rss_probe`), the size of every
report file, and (Chromium on PATH, `tests.benchmarks.browser_load`) the seconds headless
Chromium takes beyond an empty page until report.html is usable (leaderboards painted, first
cards laid out) and then until a search for the last card's id shows it. Between two sizes, the growth exponent of each figure
(log(y2/y1) / log(N2/N1): 1 is linear).

    python -m tests.benchmarks.scale --pages 100 --pages 1000 [--repeat 3] [--json OUT]

`tests/benchmarks/test_bench_scale.py` runs it at $TABLEBENCH_SCALE_PAGES pages (default 20).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tablebench.cases import load_case_set
from tablebench.core.results import case_id
from tests.benchmarks import browser_load
from tests.benchmarks.same_results import _stable

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "cases" / "synth-v1"
ARTEFACTS = ("results.json", "results.jsonl", "report.html", "leaderboard.md")
FIGURES = ("wall_s", "ms_per_table", "controller_peak_mb", "loop_peak_mb", "worker_peak_mb", "finish_s",
           "browser_load_s", "browser_search_s")


def build(folder: Path, pages: int) -> tuple[Path, Path, int]:
    """A case set of `pages` pages cycling through synth-v1's, and the perfect parser's folder
    for it -> (case set, outputs, tables)."""
    source = load_case_set(SOURCE)
    cases, outputs = folder / "scale-cases", folder / "scale-outputs"
    cases.mkdir(parents=True)
    outputs.mkdir()
    shutil.copy(SOURCE / "manifest.json", cases / "manifest.json")  # the layout's marker; runs use --no-verify
    width, tables = len(str(pages)), 0
    for i in range(pages):
        page = source.pages[i % len(source.pages)]
        stem = f"{i + 1:0{width + 1}d}"
        shutil.copy(page.pdf.with_suffix(".json"), cases / f"{stem}.json")
        _link(page.pdf, cases / f"{stem}.pdf")
        parts = [f"Prose before table {t.index}.\n\n{t.table.to_html()}\n" for t in page.tables]
        (outputs / f"{stem}.html").write_text("\n".join(parts), encoding="utf-8")
        tables += len(page.tables)
    return cases, outputs, tables


def _link(source: Path, target: Path) -> None:
    """A hard link (not a symlink: a parser may resolve the PDF's path and find the original's stem), or a copy."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy(source, target)


def _probe(path: Path) -> dict:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []
    controller = next((x for x in lines if x["role"] == "controller"), {})
    workers = [x["peak_rss_mb"] for x in lines if x["role"] != "controller"]
    return {"controller_peak_mb": controller.get("peak_rss_mb"), "finish_s": controller.get("finish_s"),
            "loop_peak_mb": controller.get("loop_peak_mb"),
            "worker_peak_mb": max(workers) if workers else None}


def run_once(cases: Path, outputs: Path, tables: int, workers: int, scratch: Path) -> dict:
    """One pytest run of the case set with the perfect parser -> its figures."""
    report, probe = scratch / f"report-n{workers}", scratch / f"probe-n{workers}.jsonl"
    shutil.rmtree(report, ignore_errors=True)
    probe.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "tests.benchmarks.rss_probe", "-q",
           f"--cases={cases}", "--no-verify", f"--parser=perfect=dir:{outputs}", "--report-only",
           f"--report-dir={report}", f"--parse-cache={scratch / 'cache'}",
           *(["-n", str(workers)] if workers else ["-p", "no:xdist"])]
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, check=False,
                          env={**os.environ, "TABLEBENCH_SCALE_PROBE": str(probe)})
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"run failed ({done.returncode}): {' '.join(cmd)}\n"
                           f"{done.stdout[-3000:]}{done.stderr[-3000:]}")
    scores = _scores(report / "results.json", scratch)
    if scores["outcomes"] != {"ok": tables}:  # the perfect parser finds every table: else this measured nothing
        raise RuntimeError(f"the perfect parser's outcomes are {scores['outcomes']}, expected {tables} ok")
    sizes = {name: (report / name).stat().st_size for name in ARTEFACTS if (report / name).exists()}
    browser = browser_load.measure(report / "report.html", scratch, wanted=scores["last_id"])
    if browser and not browser["found"]:
        raise RuntimeError(f"a search for {scores['last_id']} did not show its card in report.html")
    return {"wall_s": wall, "ms_per_table": 1000 * wall / tables, **_probe(probe),
            "bytes": sizes, "browser_load_s": browser.get("load_s"), "browser_search_s": browser.get("search_s"),
            "scores": scores}


def _scores(path: Path, scratch: Path) -> dict:
    """Outcome counts and a digest of results.json without what a clock, cache or path decides
    (the temporary folder is in every result's parser spec): what a change to the run's plumbing
    must not move."""
    results = json.loads(path.read_text(encoding="utf-8"))["results"]
    outcomes: dict[str, int] = {}
    for r in results:
        outcomes[r["outcome"]] = outcomes.get(r["outcome"], 0) + 1
    stable = json.dumps(_stable(results), sort_keys=True).replace(str(scratch), "SCRATCH").encode()
    last = max(results, key=lambda r: (r["case_set"], r["page"], r["index"]))  # the last card of the report
    return {"outcomes": outcomes, "n": len(results), "sha256": hashlib.sha256(stable).hexdigest(),
            "last_id": case_id(last["case_set"], last["page"], last["index"], last["parser"], last.get("kind", "table"))}


def measure(pages: int, repeat: int = 1, workers: tuple[int, ...] = (0, 2)) -> dict:
    """Both runs of one size, `repeat` times each -> the medians (sizes and scores of the last)."""
    with tempfile.TemporaryDirectory(prefix="tablebench-scale-") as tmp:
        scratch = Path(tmp)
        cases, outputs, tables = build(scratch, pages)
        row: dict = {"pages": pages, "tables": tables}
        for n in workers:
            runs = [run_once(cases, outputs, tables, n, scratch) for _ in range(repeat)]
            med = {k: statistics.median(r[k] for r in runs) if all(r[k] is not None for r in runs) else None
                   for k in FIGURES}
            row[f"n{n}"] = {**med, "bytes": runs[-1]["bytes"], "scores": runs[-1]["scores"]}
        return row


def exponents(rows: list[dict]) -> list[dict]:
    """Growth exponent of each figure between consecutive sizes (by tables)."""
    out = []
    for a, b in zip(rows, rows[1:], strict=False):
        ratio = math.log(b["tables"] / a["tables"])
        grown: dict = {"from": a["pages"], "to": b["pages"]}
        for mode in (k for k in a if k.startswith("n") and isinstance(a[k], dict)):
            flat_a, flat_b = _flat(a[mode]), _flat(b[mode])
            grown[mode] = {k: round(math.log(flat_b[k] / flat_a[k]) / ratio, 2) for k in flat_a
                           if flat_a[k] and flat_b.get(k)}
        out.append(grown)
    return out


def _flat(run: dict) -> dict:
    return {**{k: v for k, v in run.items() if isinstance(v, (int, float))},
            **{f"{k}_bytes": v for k, v in run["bytes"].items()}}


def table(rows: list[dict]) -> str:
    """The figures as a Markdown table (one row per size and mode)."""
    head = ("| pages | tables | workers | wall s | ms/table | controller MB (in loop) | worker MB | session end s "
            "| results.json MB | report.html MB | leaderboard.md KB | Chromium load s | search s |")
    lines = [head, "|" + "|".join(["---:"] * 13) + "|"]
    fmt = lambda v, spec: "-" if v is None else format(v, spec)  # noqa: E731
    for row in rows:
        for mode in (k for k in row if k.startswith("n") and isinstance(row[k], dict)):
            r, mb = row[mode], {k: v / 1e6 for k, v in row[mode]["bytes"].items()}
            lines.append(f"| {row['pages']} | {row['tables']} | {mode[1:] or 0} | {fmt(r['wall_s'], '.2f')} "
                         f"| {fmt(r['ms_per_table'], '.2f')} | {fmt(r['controller_peak_mb'], '.0f')} "
                         f"({fmt(r['loop_peak_mb'], '.0f')}) | {fmt(r['worker_peak_mb'], '.0f')} "
                         f"| {fmt(r['finish_s'], '.2f')} | {fmt(mb.get('results.json', 0), '.1f')} "
                         f"| {fmt(mb.get('report.html', 0), '.1f')} | {fmt(mb.get('leaderboard.md', 0) * 1e3, '.1f')} "
                         f"| {fmt(r['browser_load_s'], '.2f')} | {fmt(r.get('browser_search_s'), '.2f')} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, action="append", help="replicated pages (repeatable; default 20)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per size and mode (medians)")
    parser.add_argument("--workers", default="0,2", help="xdist workers per run, comma-separated (0: serial)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    workers = tuple(int(w) for w in args.workers.split(","))
    rows = [measure(n, args.repeat, workers) for n in (args.pages or [20])]
    data = {"rows": rows, "exponents": exponents(rows)}
    print(table(rows))
    for grown in data["exponents"]:
        print(f"growth exponents {grown['from']} -> {grown['to']} pages: "
              + "; ".join(f"n{m[1:]}: " + ", ".join(f"{k} {v}" for k, v in grown[m].items())
                          for m in grown if m.startswith("n")))
    if args.json:
        args.json.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
