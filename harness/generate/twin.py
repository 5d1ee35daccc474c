"""A scanned (or photographed) twin of a case set: the same tables, image-only pages.

Regenerating pages with `generate --variant` needs TeX; a twin needs only poppler and keeps
the source's ground truth exactly, page for page. Each page record gains a `variant` entry
(name, seed, DPI, the drawn parameters and the sha256 of the born-digital PDF); the manifest
gains `variant` counts and `variant_of` (the source set). With the source's seed (the
default) a twin's pages are byte-identical to `generate --variant` pages of the same seed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tablebench.cases.manifest import check_case_set, page_files
from tablebench.core.files import read_json
from tablebench.generate.caseset import MANIFEST, build_manifest, check_output, dump_json, load_manifest
from tablebench.generate.variants import DEFAULT_DPI, check_variant, page_variant_seed, variant_pdf


def _source_pages(src: Path, limit: int | None) -> list[tuple[Path, Path]]:
    pairs = [(gt.with_suffix(".pdf"), gt) for gt in page_files(src)]
    if limit is not None:
        if limit < 1:
            raise ValueError(f"--pages must be >= 1, got {limit}")
        pairs = pairs[:limit]
    if not pairs:
        raise ValueError(f"{src}: no pages (NNN.json) found")
    for pdf, gt in pairs:
        if not pdf.is_file():
            raise ValueError(f"{gt}: its PDF {pdf.name} is missing")
    return pairs


def variant_twin(src: Path | str, out: Path | str, variant: str, seed: int | None = None,
                 dpi: int = DEFAULT_DPI, pages: int | None = None) -> dict:
    """Write the `variant` twin of case set `src` (its first `pages` pages) into `out`; return the manifest.

    Every page is rendered before anything is written, so a failure leaves no half set."""
    src, out = Path(src), Path(out)
    check_variant(variant, dpi)
    manifest = load_manifest(src)
    check_case_set(src)  # a twin's fresh manifest must not vouch for tampered pages
    if manifest.get("variant"):
        raise ValueError(f"{src} is already a variant set ({manifest['variant'].get('pages')} pages); twin a born-digital set")
    seed = (manifest.get("seed") or 0) if seed is None else seed
    pairs = _source_pages(src, pages)
    check_output(out, len(pairs))
    if out.exists() and any(out.iterdir()):
        raise ValueError(f"{out} is not empty; choose an empty folder")
    made: list[tuple[str, bytes, dict]] = []
    for pdf, gt in pairs:
        record = read_json(gt)
        if not isinstance(record, dict) or not isinstance(record.get("blocks"), list):
            raise ValueError(f"{gt}: not a tablebench page record (no 'blocks')")
        data, record["variant"] = variant_pdf(pdf, variant, page_variant_seed(seed, variant, int(gt.stem)), dpi)
        made.append((gt.stem, data, record))
    out.mkdir(parents=True, exist_ok=True)
    for stem, data, record in made:
        (out / f"{stem}.pdf").write_bytes(data)
        (out / f"{stem}.json").write_text(dump_json(record), encoding="utf-8")
    twin = build_manifest(out, manifest.get("seed"), [record for _, _, record in made])
    twin["variant_of"] = {"set": src.name, "seed": seed, "pages": len(made)}
    for key in ("generator", "imported_from", "pool"):  # the pages' provenance is the source's
        if manifest.get(key):
            twin[key] = manifest[key]
    (out / MANIFEST).write_text(dump_json(twin), encoding="utf-8")
    return twin


def run_variant(args: argparse.Namespace) -> int:
    """`tablebench cases variant SRC --variant scan --out DIR`: write the twin, print its size."""
    manifest = variant_twin(args.src, args.out, args.variant, seed=args.seed, dpi=args.dpi, pages=args.pages)
    size = sum(p.stat().st_size for p in Path(args.out).iterdir() if p.is_file())
    print(f"{args.variant} twin of {args.src}: {manifest['pages']} pages, {manifest['tables']} tables "
          f"at {args.dpi} dpi -> {args.out} ({size / 1e6:.1f} MB)")
    return 0
