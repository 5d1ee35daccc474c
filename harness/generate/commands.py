"""What `tablebench generate` and `tablebench cases info` do, behind the thin parser in cli.py."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table as RichTable

from tablebench.cases.manifest import named
from tablebench.generate.caseset import caseset_info, check_output, parse_doc_pages, write_caseset
from tablebench.generate.formula_pool import MIXED_TABLES, FormulaPool
from tablebench.generate.languages import check_engines, parse_languages
from tablebench.generate.pool import TablePool
from tablebench.generate.variants import DEFAULT_DPI
from tablebench.tex.runner import have_pdflatex

POOL_CACHE = Path(".tablebench-cache/pool")  # vetting outcomes per pool content (like the judge cache)


BLOCK_KINDS = {"table": "tables", "inline-formula": "formulas", "display-formula": "formulas"}


def counted(count: dict[str, int]) -> str:
    """'3 tables + 11 formulas': each kind the pages hold, counted on its own."""
    return " + ".join(f"{n} {kind}" for kind, n in count.items())


def run_generate(args: argparse.Namespace) -> int:
    """Generate a case set with a progress bar; print pages/min and pdflatex runs per page."""
    if not have_pdflatex():
        raise OSError("pdflatex not found: `generate` needs TeX Live (see README); benchmarking does not")
    if args.jobs < 1:
        raise ValueError(f"--jobs must be >= 1, got {args.jobs}")
    check_output(args.out, args.pages)
    doc_pages = parse_doc_pages(args.doc_pages) if getattr(args, "doc_pages", None) else None
    if doc_pages and (getattr(args, "track", "tables") != "tables" or getattr(args, "pool", None)
                      or getattr(args, "languages", None)):
        raise ValueError("--doc-pages documents make their own tables: use it without --pool, --track and --languages")
    languages = None
    if getattr(args, "languages", None):
        languages = parse_languages(args.languages)
        if getattr(args, "track", "tables") != "tables" or getattr(args, "pool", None):
            raise ValueError("--languages makes its own tables in each language: use it without --pool and --track")
        check_engines(languages)  # xelatex and the fonts, before any page
    console = Console(stderr=True)
    start = time.perf_counter()
    pool = None
    track = getattr(args, "track", "tables")
    if track != "tables":  # formula pages: built-in formulas, or a vetted formula pool
        tables = MIXED_TABLES if track == "mixed" else (0, 0)
        displays = track != "prose"
        if getattr(args, "pool", None):
            pool = FormulaPool.from_jsonl(args.pool, cache_dir=POOL_CACHE, tables=tables, displays=displays)
            console.print(f"formula pool {pool.name}: {len(pool.formulas)} formulas, {len(pool.rejected)} rejected")
        else:
            pool = FormulaPool(tables=tables, displays=displays)
    elif getattr(args, "pool", None):
        pool = TablePool.from_jsonl(args.pool, cache_dir=POOL_CACHE)  # vetted once, before any page
        by_class = {c: len(ts) for c, ts in pool.by_class.items()}
        console.print(f"pool {pool.name}: {len(pool.tables)} tables {by_class}, {len(pool.rejected)} rejected")
    columns = (TextColumn("[bold]generate"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[items]}"),
               TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        count = {"tables": 0} if track == "tables" else {"tables": 0, "formulas": 0}
        task = progress.add_task("pages", total=args.pages, items=counted(count))

        def on_page(_index: int, record: dict) -> None:
            for block in record["blocks"]:
                kind = BLOCK_KINDS.get(block["type"])
                if kind in count:
                    count[kind] += 1
            progress.update(task, advance=1, items=counted(count))

        variant = getattr(args, "variant", None)
        manifest = write_caseset(Path(args.out), args.pages, args.seed, jobs=args.jobs, on_page=on_page, pool=pool,
                                 variant=variant, dpi=getattr(args, "dpi", DEFAULT_DPI), languages=languages,
                                 doc_pages=doc_pages)
    minutes = (time.perf_counter() - start) / 60
    pages = manifest["pages"]
    unit = "documents" if manifest.get("pdf_pages") else "pages"
    console.print(
        f"{pages} {unit}, {manifest['tables']} tables {manifest['complexity']}"
        f"{', formulas ' + str(manifest['formulas']) if manifest.get('formulas') else ''} -> {args.out}  "
        f"({pages / minutes:.1f} {unit}/min, {manifest['pdflatex_runs'] / pages:.2f} pdflatex runs/{unit[:-1]})"
    )
    if manifest.get("pdf_pages"):
        console.print(f"documents of {manifest['pdf_pages']} PDF pages in all, "
                      f"{manifest['broken_tables']} tables broken across pages")
    if variant:
        console.print(f"every page as a {variant} at {args.dpi} dpi: image only, no text layer")
    return 0


def run_cases_info(args: argparse.Namespace) -> int:
    """Summarise a case-set folder and check every file against the manifest's sha256."""
    info = caseset_info(Path(args.dir))
    table = RichTable(title=f"case set {info['folder']}", show_header=False)
    for key in ("pages", "tables", "complexity", "columns", "languages", "seed", "runs_per_page"):
        table.add_row(key, str(info[key]))
    if info.get("formulas"):
        table.add_row("formulas", str(info["formulas"]))
    if info.get("pdf_pages"):  # --doc-pages sets: documents of several PDF pages
        table.add_row("pdf_pages", str(info["pdf_pages"]))
        table.add_row("broken_tables", str(info["broken_tables"]))
    if info.get("engines"):  # --languages sets: pages per TeX engine
        table.add_row("engines", str(info["engines"]))
    table.add_row("generator", f"{info['generator'].get('name')} v{info['generator'].get('version')}")
    for key, counts in info["layouts"].items():
        if counts:
            table.add_row(key, str(counts))
    for key in ("imported_from", "pool", "variant", "variant_of"):
        if info.get(key):
            table.add_row(key, ", ".join(f"{k}={v}" for k, v in info[key].items()))
    table.add_row("size", f"{info['bytes'] / 1e6:.2f} MB")
    table.add_row("integrity", "ok (sha256 match)" if not info["problems"] else "; ".join(info["problems"][:5]))
    if info["unlisted"]:
        table.add_row("unlisted", f"not in manifest.json, never read: {named(info['unlisted'])}")
    Console().print(table)
    return 0 if not info["problems"] else 1
