"""The README's leaderboards, computed, never typed.

Runs the benchmark as a user would (one pytest session, two processes): every built-in parser on
the default case set, its tables and its pages' prose (`--kinds=table,formula,text`), and
pymupdf4llm on the multilingual set; then writes the table leaderboard with each parser's text
columns beside it, the primary score per complexity and the text scores per layout into block
`leaderboard` (README), and the primary score per language into block `i18n` (docs/case-sets.md;
`readme_blocks.BLOCKS` says where each block is), and both to docs/NAME.md (tests/test_readme.py
checks that each block shows what this script last wrote).

    python -m tests.benchmarks.leaderboard_figures [--cache DIR] [--only NAME]   # from the repo root, ~9 min cold
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tablebench.report import fmt
from tablebench.report.aggregate import Leaderboard, boards
from tablebench.report.markdown import leaderboard_md, md_text
from tests.benchmarks.readme_blocks import write_block

REPO = Path(__file__).resolve().parents[2]
PARSERS = "pymupdf4llm,pdfplumber,camelot,pypdf,tesseract"
TEXT_COLUMNS = ("text_fidelity", "reading_order")  # the text kind's scores beside each parser's table scores
RUNS = {  # block name -> the benchmark's arguments
    "leaderboard": [f"--parser={PARSERS}", "--kinds=table,formula,text"],
    "i18n": ["--parser=pymupdf4llm", "--cases=i18n-v1"],
}


def out_file(name: str) -> Path:
    return REPO / "docs" / f"{name}.md"


def command(name: str) -> str:
    return " ".join([".venv/bin/pytest", *RUNS[name], "-n 2 --report-only"])


def run(name: str, report_dir: Path, cache: Path | None) -> tuple[float, float]:
    """The benchmark run of block `name`, into `report_dir`: its wall time in seconds and the
    machine's load average when it started (times measured on a busy machine say so)."""
    args = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *RUNS[name], "-n", "2",
            "--report-only", "-q", f"--report-dir={report_dir}"]
    if cache is not None:
        args.append(f"--parse-cache={cache}")
    load = os.getloadavg()[0]
    started = time.perf_counter()
    subprocess.run(args, check=True, cwd=REPO, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started, load


def by_md(board: Leaderboard, attribute: str, metric: str | None = None) -> str:
    """`metric` (default: the board's primary score) per `attribute` (group, language), one row per
    parser (include-missing mean, found-only mean)."""
    metric = metric or board.primary
    levels = board.values(attribute)
    lines = ["| parser | all | " + " | ".join(md_text(c) for c in levels) + " |",
             "|---|" + "---:|" * (len(levels) + 1)]
    for row in board.rows:
        groups = [row.overall] + [row.by(attribute).get(c) for c in levels]
        cells = [fmt.pair(g.metrics.get(metric), metric) if g else fmt.DASH for g in groups]
        lines.append(f"| {md_text(row.parser)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def with_text(table_md: str, tables: Leaderboard, text: Leaderboard) -> str:
    """The table leaderboard with TEXT_COLUMNS appended: each parser's text scores, joined by parser
    (the table board's row order, which ranks by the table score)."""
    lines = table_md.split("\n")
    head, rule, rows = lines[0], lines[1], lines[2:]
    assert len(rows) == len(tables.rows), "one Markdown row per parser"
    by_parser = {row.parser: row for row in text.rows}
    out = [head + "".join(f" {fmt.metric_label(m)} |" for m in TEXT_COLUMNS),  # as leaderboard_md names metrics
           rule + " ---: |" * len(TEXT_COLUMNS)]
    for line, row in zip(rows, tables.rows, strict=True):
        prose = by_parser.get(row.parser)
        out.append(line + "".join(f" {fmt.pair(prose.overall.metrics.get(m), m) if prose else fmt.DASH} |"
                                  for m in TEXT_COLUMNS))
    return "\n".join(out)


def block(name: str, results: list[dict], wall_seconds: float, load: float, cold: bool) -> str:
    """What the README shows between block `name`'s markers."""
    kinds = boards(results)
    board = kinds["table"]
    n = sum(row.total for row in board.rows) // max(len(board.rows), 1)
    text = kinds.get("text")
    pages = f", {sum(row.total for row in text.rows) // max(len(text.rows), 1)} text pages" if text else ""
    when = "cold parse caches" if cold else "warm parse caches"
    head = (f"Measured with `{command(name)}` ({n} tables{pages}, {wall_seconds / 60:.1f} min with {when}, "
            f"load average {load:.1f} at the start)")
    if name == "i18n":
        return "\n".join([f"{head}; {board.primary} by language (mean with missing tables as 0; in brackets, "
                          "over found tables):", "", by_md(board, "language")])
    table = leaderboard_md(board)
    parts = [f"{head}:", "", with_text(table, board, text) if text else table, "",
             f"_{md_text(fmt.legend(board))}"]
    if text:
        parts[-1] += (f"; {' and '.join(f'`{m}`' for m in TEXT_COLUMNS)} score each page's prose "
                      "(one text item per page, on 0-1)")  # no link: docs/NAME.md holds the block too
    parts[-1] += "._"
    parts += ["", f"{board.primary} by complexity (mean with missing tables as 0; in brackets, over found tables):", "",
              by_md(board, "group")]
    for metric in TEXT_COLUMNS if text else ():
        parts += ["", f"{metric} by page layout (mean with missing pages as 0; in brackets, over found "
                  "pages):", "", by_md(text, "group", metric)]
    return "\n".join(parts)


def written_blocks() -> dict[str, str]:
    """The blocks as the script's last run wrote them (docs/NAME.md)."""
    return {name: out_file(name).read_text(encoding="utf-8").strip() for name in RUNS}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", help="parse cache folder (default: a new one, so parse times are cold)")
    parser.add_argument("--only", choices=sorted(RUNS), help="one block only")
    args = parser.parse_args(argv)
    for name in [args.only] if args.only else list(RUNS):
        with tempfile.TemporaryDirectory(prefix="tablebench-leaderboard-") as tmp:
            cache = Path(args.cache) if args.cache else Path(tmp) / "cache"
            wall, load = run(name, Path(tmp) / "report", cache)
            results = json.loads((Path(tmp) / "report" / "results.json").read_text(encoding="utf-8"))["results"]
        text = block(name, results, wall, load, cold=not args.cache)
        out_file(name).write_text(text + "\n", encoding="utf-8")
        write_block(name, text)
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
