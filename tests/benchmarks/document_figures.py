"""What docs/documents.md quotes about documents longer than a page, measured, never typed.

For every built-in parser, over `cases/docs-v1` and, as the one-page baseline, the first
`SYNTH_PAGES` pages of `cases/synth-v1`, in this process, one case after another: each case is
evaluated once (the parser runs unless the parse cache holds its answer; the parser's own
measured time is in the results either way), then once more from the parse cache, timed: that
second time is locating and scoring. Per set and parser: parse and locate+score seconds per PDF
page, the share of tables found, and the primary score (missing tables as 0) over the tables
broken across pages and over the others. Writes docs/documents-figures.json and block
`documents` (docs/documents.md; tests/test_readme.py checks the block against the JSON).

    python -m tests.benchmarks.document_figures [--cache DIR] [--parsers a,b]   # ~25 min cold on 2 busy cores
    python -m tests.benchmarks.document_figures --block-only   # the block again from the last measurement
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from tablebench.cases import load_case_set
from tablebench.core.metric_specs import specs_of
from tablebench.evaluate.page import evaluate_page
from tests.benchmarks.readme_blocks import write_block

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "docs" / "documents-figures.json"
PARSERS = ("pymupdf4llm", "pdfplumber", "camelot", "pypdf", "tesseract")
SETS = ("docs-v1", "synth-v1")
SYNTH_PAGES = 30  # one-page cases of the baseline: about a third of docs-v1's PDF pages, enough for a per-page mean


def measure(parsers: tuple[str, ...], cache: Path) -> dict:
    primary = next(s.headline for s in specs_of("table") if s.primary)
    load = os.getloadavg()[0]
    rows = []
    for set_name in SETS:
        pages = load_case_set(set_name, kinds="table").pages
        pages = pages[:SYNTH_PAGES] if set_name == "synth-v1" else pages
        for parser in parsers:
            parse = locate = 0.0
            broken, whole, found = [], [], 0
            for page in pages:
                results = evaluate_page(page, parser, None, cache_dir=cache)
                started = time.perf_counter()
                evaluate_page(page, parser, None, cache_dir=cache)  # from the parse cache: locate and score
                locate += time.perf_counter() - started
                parse += results[0].parse_seconds if results else 0.0
                for r, t in zip(results, page.tables):
                    found += r.outcome == "ok"
                    (broken if t.breaks else whole).append(r.scores.get(primary, 0.0) if r.outcome == "ok" else 0.0)
                page.forget_parsed()
            pdf_pages = sum(p.pdf_pages for p in pages)
            rows.append({"set": set_name, "parser": parser, "cases": len(pages), "pdf_pages": pdf_pages,
                         "tables": len(broken) + len(whole), "broken": len(broken), "found": found,
                         "primary_broken": _mean(broken), "primary_other": _mean(whole),
                         "parse_per_pdf_page": parse / pdf_pages, "locate_score_per_pdf_page": locate / pdf_pages})
            print(rows[-1], flush=True)
    return {"primary": primary, "load": round(load, 1), "cpus": len(os.sched_getaffinity(0)), "rows": rows}


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _score(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f}"


def _time(x: float) -> str:
    return f"{x * 1000:.0f} ms" if x < 1 else f"{x:.2f} s"


def block(f: dict) -> str:
    lines = [(f"Measured with `python -m tests.benchmarks.document_figures` (one process, one case after another, "
              f"{f['cpus']} usable CPUs shared, load average {f['load']:.1f} at the start); {f['primary']} is the "
              "mean with missing tables as 0; synth-v1 is its first "
              f"{SYNTH_PAGES} one-page cases:"), "",
             f"| parser | set | PDF pages | tables (broken) | found | {f['primary']}, broken tables | "
             f"{f['primary']}, other tables | parse per PDF page | locate + score per PDF page | "
             "locate + score per table |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for parser in dict.fromkeys(r["parser"] for r in f["rows"]):
        for r in (r for r in f["rows"] if r["parser"] == parser):
            lines.append(f"| {parser} | {r['set']} | {r['pdf_pages']} | {r['tables']} ({r['broken']}) | "
                         f"{r['found']} | {_score(r['primary_broken'])} | {_score(r['primary_other'])} | "
                         f"{_time(r['parse_per_pdf_page'])} | {_time(r['locate_score_per_pdf_page'])} | "
                         f"{_time(r['locate_score_per_pdf_page'] * r['pdf_pages'] / r['tables'])} |")
    return "\n".join(lines)


def blocks(f: dict) -> dict[str, str]:
    return {"documents": block(f)}


def written_blocks() -> dict[str, str]:
    """The block as the script's last run wrote it (from docs/documents-figures.json)."""
    return blocks(json.loads(OUT.read_text(encoding="utf-8")))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", help="parse cache folder (default: a new one)")
    parser.add_argument("--parsers", default=",".join(PARSERS), help="comma list (default: every built-in parser)")
    parser.add_argument("--block-only", action="store_true", help="write the block again from the last measurement")
    args = parser.parse_args(argv)
    if args.block_only:
        f = json.loads(OUT.read_text(encoding="utf-8"))
    else:
        with tempfile.TemporaryDirectory(prefix="tablebench-documents-") as tmp:
            cache = Path(args.cache) if args.cache else Path(tmp) / "cache"
            f = measure(tuple(p.strip() for p in args.parsers.split(",") if p.strip()), cache)
        OUT.write_text(json.dumps(f, indent=1) + "\n", encoding="utf-8")
    for name, text in blocks(f).items():
        write_block(name, text)
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
