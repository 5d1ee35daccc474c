"""Case-set folders: `NNN.pdf` + `NNN.json` per page and a `manifest.json` with sha256 sums.

Page JSON keeps the pdf-parse-bench block shape (`{"type": "text"|"table", "data": ...}`)
and adds, per table, its canonical HTML, complexity, source, kind, bbox (PDF points, origin
top-left) and scale; plus the layout, the page seed and the pdflatex run count. Everything in
it derives from the seed, so the same seed gives byte-identical JSON (and, with TeX's dates
pinned, identical PDFs).

A set of documents (`doc_pages`) holds one multi-page PDF per `NNN.pdf`: its record says how
many PDF pages it has (`pages`), and each table the page it starts on (`page`); a long table
also the pages it spans and the rows that open a new page (`breaks`, see
`tablebench.generate.page.long_table_block`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from tablebench import __version__
from tablebench.cases.manifest import page_files, unlisted_files, verify_files
from tablebench.core.files import read_json, sha256_file
from tablebench.generate import GENERATOR_VERSION
from tablebench.generate.document import build_document
from tablebench.generate.formula_page import build_formula_page
from tablebench.generate.formula_pool import FormulaPool
from tablebench.generate.layouts import localize, sample_layout
from tablebench.generate.page import Page, PageError, build_page
from tablebench.generate.pool import TablePool
from tablebench.generate.seeds import derive_seed
from tablebench.generate.variants import DEFAULT_DPI, check_variant, page_variant_seed, variant_bytes, variant_summary

MANIFEST = "manifest.json"
FORMAT = "tablebench-caseset/1"
LAYOUT_COUNTS = ("docclass", "font", "fontsize", "paper", "spacing")  # counted in the manifest
ATTEMPTS = 4  # a page that cannot be made clean is redrawn from a derived seed
MAX_DOC_PAGES = 20  # pages of one generated document at most (`--doc-pages`)
FORMULA_KINDS = {"inline-formula": "inline", "display-formula": "display"}  # block type -> kind


def make_page(seed: int, index: int, pool: TablePool | FormulaPool | None = None, language: str | None = None) -> Page:
    """Page `index` of the set with seed `seed`; redrawn (deterministically) if it fails.
    A `FormulaPool` makes it a formula page (same layout as the table page of that seed);
    a `language` (from `--languages`) sets its language, tables and TeX engine."""
    last: Exception | None = None
    for attempt in range(ATTEMPTS):
        try:
            page_seed = derive_seed(seed, "page", index, attempt)
            if isinstance(pool, FormulaPool):
                return build_formula_page(page_seed, pool, tables=pool.tables)
            if language is not None:
                layout = localize(sample_layout(page_seed), language, page_seed)
                return build_page(page_seed, layout=layout, pool=pool)
            return build_page(page_seed, pool=pool)
        except PageError as exc:
            last = exc
    raise PageError(f"page {index}: no clean page in {ATTEMPTS} attempts ({last})")


def make_document(seed: int, index: int, doc_pages: tuple[int, int]) -> tuple[Page, int]:
    """Document `index` of the set with seed `seed` and its page count, drawn from `doc_pages`
    (inclusive range) by the index alone, so it stays the same when a redraw is needed."""
    low, high = doc_pages
    n_pages = low + derive_seed(seed, "doc-pages", index) % (high - low + 1)
    last: Exception | None = None
    for attempt in range(ATTEMPTS):
        try:
            return build_document(derive_seed(seed, "doc", index, attempt), n_pages), n_pages
        except PageError as exc:
            last = exc
    raise PageError(f"document {index}: no clean document of {n_pages} pages in {ATTEMPTS} attempts ({last})")


def parse_doc_pages(spec: str) -> tuple[int, int]:
    """'2-4' -> (2, 4), '3' -> (3, 3): the page counts of `--doc-pages` documents (each at least 2)."""
    low, dash, high = spec.strip().partition("-")
    try:
        pair = (int(low), int(high if dash else low))
    except ValueError:
        raise ValueError(f"--doc-pages takes N or LOW-HIGH (e.g. 2-4), got {spec!r}") from None
    if not 2 <= pair[0] <= pair[1] <= MAX_DOC_PAGES:
        raise ValueError(f"--doc-pages must lie within 2-{MAX_DOC_PAGES} with LOW <= HIGH, got {spec!r}")
    return pair


def page_record(page: Page, seed: int, index: int, pages: int = 1) -> dict:
    """The JSON ground truth of one page (of a document of `pages` pages: `pages` recorded)."""
    record = {
        "generator": {"name": "tablebench.generate", "version": GENERATOR_VERSION},
        "caseset_seed": seed,
        "index": index,
        "seed": page.seed,
        "layout": page.layout.to_dict(),
        "pdflatex_runs": page.runs,
        "blocks": page.blocks,
    }
    if pages > 1:  # one-page records stay byte-identical
        record = {**dict(list(record.items())[:5]), "pages": pages, **dict(list(record.items())[5:])}
    return record


def dump_json(obj: dict) -> str:
    """The one JSON form of page records and manifests (byte-stable for the same data)."""
    return json.dumps(obj, ensure_ascii=False, indent=1) + "\n"


_POOL: TablePool | None = None  # the pool of this process's pages (set once per worker)


def _set_pool(pool: TablePool | None) -> None:
    global _POOL
    _POOL = pool


def _job(args: tuple) -> tuple[int, bytes, dict]:
    seed, index, variant, dpi, doc_pages, *language = args
    if doc_pages is not None:
        page, n_pages = make_document(seed, index, doc_pages)
        record = page_record(page, seed, index, n_pages)
    else:
        page = make_page(seed, index, _POOL, *language)
        record = page_record(page, seed, index)
    if variant is None:
        return index, page.pdf, record
    pdf, record["variant"] = variant_bytes(page.pdf, variant, page_variant_seed(seed, variant, index), dpi)
    return index, pdf, record


def check_output(out: Path | str, pages: int) -> Path:
    """Refuse, before any work, a page count < 1 or a folder that already holds a case set."""
    out = Path(out)
    if pages < 1:
        raise ValueError(f"--pages must be >= 1, got {pages}")
    if (out / MANIFEST).exists() or page_files(out, ".pdf"):
        raise ValueError(f"{out} already holds a case set; choose an empty folder")
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} exists and is not a folder")
    return out


def write_caseset(
    out: Path | str,
    pages: int,
    seed: int,
    jobs: int = 1,
    on_page: Callable[[int, dict], None] | None = None,
    pool: TablePool | FormulaPool | None = None,
    variant: str | None = None,
    dpi: int = DEFAULT_DPI,
    languages: tuple[str, ...] | None = None,
    doc_pages: tuple[int, int] | None = None,
) -> dict:
    """Generate `pages` pages into `out` (created; must not hold a case set) and the manifest.

    A `pool` (vetted once, in this process) is handed to each worker once, not per page.
    A `variant` ("scan" | "photo") replaces each compiled page by its image-only version.
    `doc_pages` (low, high) makes each entry a document of that many pages instead
    (`tablebench.generate.document`), with its own tables: no `pool`, formulas or `languages`."""
    out = check_output(out, pages)
    if variant is not None:
        check_variant(variant, dpi)  # before any page is compiled
    if doc_pages is not None and (pool is not None or languages):
        raise ValueError("--doc-pages documents make their own tables: use it without --pool, --track and --languages")
    out.mkdir(parents=True, exist_ok=True)
    tasks = [(seed, i, variant, dpi, doc_pages) for i in range(1, pages + 1)]
    if languages:  # pages cycle through the languages: 12 pages, 6 languages -> 2 each
        tasks = [(*t, languages[(t[1] - 1) % len(languages)]) for t in tasks]
    records: dict[int, dict] = {}

    def store(index: int, pdf: bytes, record: dict) -> None:
        (out / f"{index:03d}.pdf").write_bytes(pdf)
        (out / f"{index:03d}.json").write_text(dump_json(record), encoding="utf-8")
        records[index] = record
        if on_page:
            on_page(index, record)

    if jobs <= 1:
        _set_pool(pool)
        try:
            for task in tasks:
                store(*_job(task))
        finally:
            _set_pool(None)
    else:
        with ProcessPoolExecutor(max_workers=jobs, initializer=_set_pool, initargs=(pool,)) as workers:
            for result in workers.map(_job, tasks):
                store(*result)
    manifest = build_manifest(out, seed, [records[i] for i in sorted(records)])
    if pool is not None:
        manifest["pool"] = pool.info()
    (out / MANIFEST).write_text(dump_json(manifest), encoding="utf-8")
    return manifest


def build_manifest(folder: Path, seed: int | None, records: list[dict]) -> dict:
    """Counts by complexity and layout, run statistics and the sha256 of every page file."""
    tables = [b for r in records for b in r["blocks"] if b["type"] == "table"]
    laid_out = [r for r in records if r.get("layout")]  # imported pages have no layout
    files = sorted(p for p in folder.iterdir() if p.name != MANIFEST and p.suffix in (".pdf", ".json"))
    manifest = {
        "format": FORMAT,
        "generator": {"name": "tablebench.generate", "version": GENERATOR_VERSION, "tablebench": __version__},
        "seed": seed,
        "pages": len(records),
        "tables": len(tables),
        "complexity": dict(sorted(Counter(t["complexity"] for t in tables).items())),
        "columns": {str(k): v for k, v in sorted(Counter(r["layout"]["columns"] for r in laid_out).items())},
        "languages": dict(sorted(Counter(r["layout"]["language"] for r in laid_out).items())),
        "layouts": {key: {str(k): v for k, v in sorted(Counter(r["layout"][key] for r in laid_out).items())}
                    for key in LAYOUT_COUNTS},
        "pdflatex_runs": sum(r.get("pdflatex_runs", 0) for r in records),
        "files": {p.name: sha256_file(p) for p in files},
    }
    if any(r.get("pages", 1) > 1 for r in records):  # documents: their PDF pages and broken tables
        manifest["pdf_pages"] = sum(r.get("pages", 1) for r in records)
        manifest["broken_tables"] = sum(1 for t in tables if t.get("breaks"))
    engines = Counter(r["layout"]["engine"] for r in laid_out if r["layout"].get("engine"))
    if engines:  # --languages sets: pages per TeX engine (default sets keep their manifest unchanged)
        manifest["engines"] = dict(sorted(engines.items()))
    variants = variant_summary(records)
    if variants:
        manifest["variant"] = variants
    formulas = Counter(FORMULA_KINDS[b["type"]] for r in records for b in r["blocks"] if b["type"] in FORMULA_KINDS)
    if formulas:  # formula pages: counts by kind (table-only sets keep their manifest unchanged)
        manifest["formulas"] = dict(sorted(formulas.items()))
    return manifest


def load_manifest(folder: Path | str) -> dict:
    """The manifest of a case-set folder, with a one-line error when it is not one."""
    path = Path(folder) / MANIFEST
    if not path.is_file():
        raise ValueError(f"{folder} is not a case set: {MANIFEST} is missing")
    manifest = read_json(path)
    if manifest.get("format") != FORMAT:
        raise ValueError(f"{path}: unknown format {manifest.get('format')!r}, expected {FORMAT!r}")
    return manifest


def verify_caseset(folder: Path | str) -> list[str]:
    """Problems found: files missing, extra, or whose sha256 differs from the manifest (the one
    check, shared with the benchmark)."""
    load_manifest(folder)
    return verify_files(folder)


def load_pages(folder: Path | str) -> list[dict]:
    """Every page record of a case set, in page order."""
    folder = Path(folder)
    load_manifest(folder)
    return [json.loads(p.read_text(encoding="utf-8")) for p in page_files(folder)]


def caseset_info(folder: Path | str) -> dict:
    """A summary for `tablebench cases info`: manifest counts, size on disk, integrity (files that do not
    match the manifest, and what the folder holds besides, never read)."""
    folder = Path(folder)
    manifest = load_manifest(folder)
    size = sum(p.stat().st_size for p in folder.iterdir() if p.is_file())
    return {
        "folder": str(folder),
        "pages": manifest["pages"],
        "tables": manifest["tables"],
        "complexity": manifest["complexity"],
        "columns": manifest.get("columns", {}),
        "languages": manifest.get("languages", {}),
        "seed": manifest.get("seed"),
        "generator": manifest.get("generator", {}),
        "runs_per_page": round(manifest.get("pdflatex_runs", 0) / max(manifest["pages"], 1), 2),
        "pdf_pages": manifest.get("pdf_pages"),
        "broken_tables": manifest.get("broken_tables"),
        "layouts": manifest.get("layouts", {}),
        "imported_from": manifest.get("imported_from"),
        "pool": manifest.get("pool"),
        "formulas": manifest.get("formulas"),
        "engines": manifest.get("engines"),
        "variant": manifest.get("variant"),
        "variant_of": manifest.get("variant_of"),
        "bytes": size,
        "problems": verify_caseset(folder),
        "unlisted": unlisted_files(folder),
    }
