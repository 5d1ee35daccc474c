"""The semantic score's agreement figures that the README quotes, computed, never typed.

Runs the leave-one-table-out cross-validation of `tablebench meta-eval` on the human-rated study
files (dev, dev2) alone and on them pooled with the judged pairs, and writes every figure the
README and docs/metrics.md quote to docs/semantic-figures.json and into their blocks
`semantic-summary` (README) and `semantic-figures` (docs/metrics.md); tests/test_readme.py checks
both blocks against the JSON.

    python -m tests.benchmarks.semantic_figures [--shared ../shared]   # from the repo root, ~1 minute
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tablebench.evaluate.metaeval import cross_validate
from tablebench.evaluate.metaeval_tables import TABLES, load_rated_pairs
from tablebench.metrics.tables.semantic_align import FEATURES
from tests.benchmarks import judge_reasons
from tests.benchmarks.readme_blocks import write_block

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "docs" / "semantic-figures.json"


def _r(x: float) -> float:
    return round(float(x), 3)


JUDGED = ("pdf-parse-bench-20-pages", "pdf-parse-bench-40-pages-dev2")  # the judged pairs: 60 pages
# Measured outside the project on ratings and pages it never sees (quoted from the issues that
# report them, updated when a new measurement is given): held-out human ratings (106 pairs) and the
# Gemma-4-31b-it judge's agreement with them.
HELD_OUT = {"semantic": 0.804, "judge": 0.934}


def figures(shared: Path, n_boot: int = 1000) -> dict:
    study = shared / "data" / "table-metric-study"
    judged = [shared / "data" / "judged-pairs" / f"{name}.json" for name in JUDGED]
    rated = cross_validate(load_rated_pairs(study / "dev.json", study / "dev2.json"), TABLES, n_boot, 0)
    pooled = cross_validate(load_rated_pairs(study / "dev.json", study / "dev2.json", *judged), TABLES, n_boot, 0)
    judged_split = pooled["pooled"]["judged pairs, all pages"]  # every judged pair: 60 pages, five parsers
    simple = pooled["pooled"]["rated pairs, simple tables"]
    return {
        "judged_files": {name: {"cv": _r(pooled["splits"][name]["pearson"]),
                                "ci": [_r(x) for x in pooled["splits"][name]["ci95"]["pearson"]],
                                "n": pooled["splits"][name]["n"]} for name in JUDGED},
        "parsers": {name: {"cv": _r(r["pearson"]), "diff": _r(r["diff"]), "n": r["n"]}
                    for name, r in pooled["parsers"].items()},
        "rated_cv": {"pearson": _r(rated["cv"]["pearson"]), "ci": [_r(x) for x in rated["cv"]["ci95"]["pearson"]],
                     "dev": _r(rated["splits"]["dev"]["pearson"]), "dev2": _r(rated["splits"]["dev2"]["pearson"])},
        "judged_cv": {"pearson": _r(judged_split["pearson"]), "ci": [_r(x) for x in judged_split["ci95"]["pearson"]]},
        "judged_shipped": {"pearson": _r(judged_split["shipped"]["pearson"]),
                           "ci": [_r(x) for x in judged_split["shipped"]["ci95"]["pearson"]]},
        "rated_simple": {"pearson": _r(simple["pearson"]), "ci": [_r(x) for x in simple["ci95"]["pearson"]],
                         "n": simple["n"]},
        "rated_shipped": {name: _r(pooled["splits"][name]["shipped"]["pearson"]) for name in ("dev", "dev2")},
        "cells": [{"parser": c["parser"], "complexity": c["complexity"], "n": c["n"], "judge": _r(c["reference_mean"]),
                   "ours": _r(c["shipped_mean"])} for c in pooled["cells"]],
        "weights": pooled["params_all"],
        "judge_reasons": judge_reasons.figures(judged),
    }


def summary_block(f: dict) -> str:
    """The README's two lines (block `semantic-summary`), from the figures alone."""
    rated, shipped = f["rated_cv"], f["judged_shipped"]
    return (f"- **semantic** against human ratings (table-metric-study dev ∪ dev2, cross-validated): Pearson "
            f"**{rated['pearson']:.3f}** [{rated['ci'][0]:.3f}, {rated['ci'][1]:.3f}]; against an LLM judge on the "
            f"built-in parsers' outputs on 60 pages: **{shipped['pearson']:.3f}** [{shipped['ci'][0]:.3f}, {shipped['ci'][1]:.3f}] "
            f"with the shipped weights. Held-out, measured outside the project (quoted): {HELD_OUT['semantic']:.3f} "
            f"against human ratings it never saw, where the judge reaches {HELD_OUT['judge']:.3f}.")


def figures_block(f: dict) -> str:
    """docs/metrics.md's agreement figures (block `semantic-figures`), from the figures alone."""
    rated, judged, shipped = f["rated_cv"], f["judged_cv"], f["judged_shipped"]
    lines = [f"- **Human ratings** (dev ∪ dev2, cross-validated, fitted on them alone): Pearson "
             f"**{rated['pearson']:.3f}** [{rated['ci'][0]:.3f}, {rated['ci'][1]:.3f}]; dev {rated['dev']:.3f}, "
             f"dev2 {rated['dev2']:.3f}. With the shipped weights: dev {f['rated_shipped']['dev']:.3f}, "
             f"dev2 {f['rated_shipped']['dev2']:.3f}.",
             f"- **Rated pairs of simple tables** (cross-validated with the judged pairs): Pearson "
             f"{f['rated_simple']['pearson']:.3f} [{f['rated_simple']['ci'][0]:.3f}, {f['rated_simple']['ci'][1]:.3f}] "
             f"(n={f['rated_simple']['n']}).",
             f"- **The judge on the built-in parsers' outputs** (every judged pair, 60 pages): Pearson **{shipped['pearson']:.3f}** "
             f"[{shipped['ci'][0]:.3f}, {shipped['ci'][1]:.3f}] with the shipped weights, "
             f"{judged['pearson']:.3f} [{judged['ci'][0]:.3f}, {judged['ci'][1]:.3f}] cross-validated.",
             "- Each judged file, cross-validated by page (a page's tables are held out together): " + ", ".join(
                 f"{name} {j['cv']:.3f} [{j['ci'][0]:.3f}, {j['ci'][1]:.3f}] (n={j['n']})"
                 for name, j in f["judged_files"].items()) + ".",
             "- Each parser, cross-validated against the judge on both files: " + ", ".join(
                 f"{name} {r['cv']:.3f} ({r['diff']:+.2f})" for name, r in f["parsers"].items())
             + " (Pearson, mean difference score - judge).",
             "- What the judge's own error list explains of its score (a ridge over the words of its errors, "
             "cross-validated by page: `tests/benchmarks/judge_reasons.py`): " + ", ".join(
                 f"{name} {r:.3f}" for name, r in f["judge_reasons"]["parsers"].items())
             + f" (pooled {f['judge_reasons']['pooled']:.3f}). Where the judge's score follows its own stated reasons "
             "less, a score that can only find those reasons in the output cannot be expected to follow it much "
             "better: each parser's figure above is read against its own here.",
             "- Per parser and complexity (the shipped weights; a leaderboard ranks by these means):", "",
             "| parser | complexity | n | judge | semantic | difference |", "|---|---|---:|---:|---:|---:|"]
    for c in f["cells"]:
        lines.append(f"| {c['parser']} | {c['complexity']} | {c['n']} | {c['judge']:.2f} | {c['ours']:.2f} | "
                     f"{c['ours'] - c['judge']:+.2f} |")
    return "\n".join(lines)


def blocks(f: dict) -> dict[str, str]:
    """Every block these figures fill (`readme_blocks.BLOCKS` says where each one is)."""
    return {"semantic-summary": summary_block(f), "semantic-figures": figures_block(f)}


def written_blocks() -> dict[str, str]:
    """The blocks as the script's last run wrote them (from docs/semantic-figures.json)."""
    return blocks(json.loads(OUT.read_text(encoding="utf-8")))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default=str(REPO.parent / "shared"))
    args = parser.parse_args(argv)
    f = figures(Path(args.shared))
    OUT.write_text(json.dumps(f, indent=1) + "\n", encoding="utf-8")
    for name, text in blocks(f).items():
        write_block(name, text)
        print(text)
    fit = f["weights"]
    print(f"the fit on every pair, to round into semantic.Params: key_weight={fit['key_weight']}, "
          f"midpoint={fit['midpoint']}")
    for field in ("weights", "lines_weights", "lines_presence"):  # as `per_feature` takes them
        print(f"  {field} = per_feature({', '.join(f'{n}={w:.2f}' for n, w in zip(FEATURES, fit[field]))})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
