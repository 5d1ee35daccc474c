"""The table scores, bit for bit, before and after a change to how they are computed.

A speed-up of the similarity or alignment work must not move one bit of the semantic reading's
features, nor any score, error text or count, nor GriTS or T-LAG. This scores every ground-truth table of the
committed case sets (and of ../shared when present) under every perturbation of
`tests.perturb` (output text located first, as a run locates it), every rated pair of the
table-metric-study files as meta-eval reads them, and generated pairs of every size (both
alignment paths of `semantic_align`), and writes each result with its floats as exact hex.

    python -m tests.benchmarks.same_semantic dump OUT.json [--shared ../shared]   # from the repo root
    python -m tests.benchmarks.same_semantic diff BEFORE.json AFTER.json          # exit 1 on a difference
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tablebench.core.table import NoTableError, Table, TableLike
from tablebench.evaluate.metaeval_tables import _read_pair, load_rated_pairs
from tablebench.locate.tables import locate_tables
from tablebench.metrics.tables.grits import grits_details
from tablebench.metrics.tables.semantic import read_and_count, semantic_details
from tablebench.metrics.tables.tlag import tlag_details
from tests.benchmarks.pairs import realistic_pair
from tests.perturb.corpus import collect
from tests.perturb.suite import apply
from tests.perturb.transforms import TRANSFORMS

STUDY = ("dev.json", "dev2.json")
SIZES = [(4, 3), (6, 5), (10, 10), (20, 10), (20, 20), (30, 30), (40, 40), (60, 20)]


def record(gt: Table, pred: TableLike) -> dict[str, Any]:
    """Everything the score reports, the reading's features included, floats exact."""
    try:
        readings = [read_and_count(gt, pred).differences]
        result = semantic_details(gt, pred)
    except NoTableError as exc:
        return {"no_table": str(exc)}
    others = {**grits_details(gt, pred), **{f"tlag_{k}": v for k, v in tlag_details(gt, pred).items()}}
    return {"others": {k: float(v).hex() for k, v in others.items()},
            "score": result.score.hex(), "errors": result.errors, "recall": result.recall.hex(),
            "precision": result.precision.hex(), "n": [result.n_gt, result.n_pred],
            "readings": [[float(x).hex() for x in c.features] + [c.f1.hex()] + [x.text for x in c.causes]
                         for c in readings]}


def dump(shared: Path) -> dict[str, dict[str, Any]]:
    """Every compared pair by name."""
    out: dict[str, dict[str, Any]] = {}
    corpus = collect(shared if shared.is_dir() else None)
    for gt in corpus.tables:
        for name, transform in TRANSFORMS.items():
            perturbed = apply(gt, transform)
            if perturbed is None:
                continue
            if isinstance(perturbed, str):
                loc = locate_tables([gt.table], perturbed)[0]
                if not loc.found:
                    continue
                perturbed = loc.prediction
            out[f"{gt.ident}:{name}"] = record(gt.table, perturbed)
    study = [shared / "data" / "table-metric-study" / f for f in STUDY]
    if all(p.is_file() for p in study):
        for n, pair in enumerate(load_rated_pairs(*study)):
            gt, pred = _read_pair(pair.gt, pair.extraction)
            if pred is not None:
                out[f"study/{pair.gt_id}/{n}"] = record(gt, pred)
    for rows, cols in SIZES:
        for seed in range(3):
            out[f"generated/{rows}x{cols}/{seed}"] = record(*realistic_pair(rows, cols, seed))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="same_semantic", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("out", type=Path)
    d.add_argument("--shared", type=Path, default=Path("../shared"))
    c = sub.add_parser("diff")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "dump":
        data = dump(args.shared)
        args.out.write_text(json.dumps(data, ensure_ascii=False, indent=0), encoding="utf-8")
        print(f"{len(data)} pairs written to {args.out}")
        return 0
    a, b = (json.loads(p.read_text(encoding="utf-8")) for p in (args.before, args.after))
    differ = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
    for k in differ[:20]:
        print(f"{k}: {a.get(k)} before, {b.get(k)} after", file=sys.stderr)
    print(f"{len(a)} pairs before, {len(b)} after, {len(differ)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
