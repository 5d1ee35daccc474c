"""`python -m tests.perturb report OUT [--shared DIR] [--failures FILE]`: the full run's report.

Scores every distinct ground-truth table of the committed case sets and of ../shared under every
transformation and writes OUT/perturbation.json and OUT/perturbation.md (with --failures, also
the failure list with the smallest examples per transformation).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tests.perturb.corpus import collect
from tests.perturb.report import failures_markdown, summary_markdown, write_report
from tests.perturb.suite import run
from tests.perturb.transforms import TRANSFORMS

REPO = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.perturb", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("report", help="run the full suite and write its report")
    rep.add_argument("out", type=Path, help="folder for perturbation.json and perturbation.md")
    rep.add_argument("--shared", type=Path, default=REPO.parent / "shared",
                     help="the ../shared folder (absent: its sources are skipped and listed)")
    rep.add_argument("--failures", type=Path, help="also write the failure list (Markdown) here")
    args = ap.parse_args(argv)
    start = time.perf_counter()
    corpus = collect(args.shared)
    records = run(corpus.tables, list(TRANSFORMS))
    data = write_report(args.out, corpus, records, time.perf_counter() - start)
    if args.failures:
        args.failures.write_text(failures_markdown(corpus, records), encoding="utf-8")
    sys.stdout.write(summary_markdown(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
