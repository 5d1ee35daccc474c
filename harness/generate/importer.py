"""Import a pdf-parse-bench folder (`pdfs/NNN.pdf` + `ground_truth/NNN.json`) as a tablebench case set.

`load_case_set` already reads such folders directly; importing makes a self-contained set
with what a case set adds: each table's canonical HTML (from our LaTeX reader, computed once
here instead of on every run), its complexity (the source's label, or classified by spans),
its source, and a manifest with the sha256 of every file. Page numbers (file stems) are kept,
so page ids match the source folder's. PDFs are copied byte for byte.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tablebench.cases.pdfbench import FORMAT, KINDS, bench_pairs, formulas_of
from tablebench.core.files import read_json
from tablebench.generate.caseset import MANIFEST, build_manifest, check_output, dump_json
from tablebench.generate.stats import classify_complexity
from tablebench.readers.latex import read_latex


def _table_block(block: dict, where: str) -> dict:
    latex = block.get("data")
    if not isinstance(latex, str) or not latex.strip():
        raise ValueError(f"{where}: table block without LaTeX in 'data'")
    try:
        html = read_latex(latex)[0].to_html()
    except Exception as exc:  # noqa: BLE001 - name the table, keep the message to one line
        raise ValueError(f"{where}: our LaTeX reader cannot read this table ({exc})") from None
    return {
        "type": "table",
        "data": latex,
        "html": html,
        "complexity": block.get("complexity") or classify_complexity(latex),
        "source": where,
    }


def page_record(gt: Path, src_name: str) -> dict:
    """One imported page: the source's blocks in order, tables completed with HTML and source."""
    blocks = read_json(gt)
    if isinstance(blocks, dict):
        blocks = blocks.get("blocks")
    if not isinstance(blocks, list):
        raise ValueError(f"{gt}: expected a list of blocks")
    formulas = iter(formulas_of(blocks, gt))  # checks every formula block has its LaTeX
    out, n, f = [], 0, 0
    for block in blocks:
        if not isinstance(block, dict) or "type" not in block:
            raise ValueError(f"{gt}: every block needs a 'type'")
        if block["type"] == "table":
            out.append(_table_block(block, f"{src_name}/{gt.stem}#{n}"))
            n += 1
        elif block["type"] in KINDS:  # a formula keeps its exact LaTeX and gains its kind and source
            latex, kind = next(formulas)
            out.append({"type": block["type"], "data": latex, "kind": kind, "source": f"{src_name}/{gt.stem}#f{f}"})
            f += 1
        else:
            out.append({"type": block["type"], "data": block.get("data", "")})
    return {"imported_from": {"format": FORMAT, "set": src_name, "page": gt.stem},
            "index": int(gt.stem), "blocks": out}


def import_bench(src: Path | str, out: Path | str) -> dict:
    """Write the case set of pdf-parse-bench folder `src` into `out`; return its manifest.

    Everything is read and checked before anything is written, so a bad source leaves no
    half-imported folder behind."""
    src, out = Path(src), Path(out)
    pairs = bench_pairs(src)
    check_output(out, len(pairs))
    if out.exists() and any(out.iterdir()):
        raise ValueError(f"{out} is not empty; choose an empty folder")
    records = [page_record(gt, src.name) for _, gt in pairs]
    out.mkdir(parents=True, exist_ok=True)
    for (pdf, gt), record in zip(pairs, records, strict=True):
        shutil.copyfile(pdf, out / f"{gt.stem}.pdf")
        (out / f"{gt.stem}.json").write_text(dump_json(record), encoding="utf-8")
    manifest = build_manifest(out, None, records)
    manifest["generator"] = {"name": "tablebench.cases.importer", "version": "1",
                             "tablebench": manifest["generator"]["tablebench"]}
    manifest["imported_from"] = {"format": FORMAT, "set": src.name}
    (out / MANIFEST).write_text(dump_json(manifest), encoding="utf-8")
    return manifest


def run_import(args) -> int:
    """`tablebench cases import SRC --out DIR`: import and print the counts."""
    manifest = import_bench(args.src, args.out)
    formulas = f", formulas {manifest['formulas']}" if manifest.get("formulas") else ""
    print(f"imported {manifest['pages']} pages, {manifest['tables']} tables {manifest['complexity']}{formulas} "
          f"from {args.src} -> {args.out}")
    return 0
