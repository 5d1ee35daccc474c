"""The `tablebench` command. Each subcommand lives with the step it drives; this only dispatches."""

from __future__ import annotations

import argparse
import sys

from harness import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tablebench", description="Benchmark PDF table extraction.")
    parser.add_argument("--version", action="version", version=f"tablebench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.set_defaults(func=None)
    _add_meta_eval(sub)
    _add_generate(sub)
    _add_cases(sub)
    return parser


def _add_generate(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("generate", help="generate synthetic benchmark pages (needs pdflatex)")
    p.add_argument("--pages", type=int, required=True, help="number of pages")
    p.add_argument("--seed", type=int, default=0, help="same seed -> identical pages and ground truth")
    p.add_argument("--out", required=True, help="output folder (NNN.pdf + NNN.json + manifest.json)")
    p.add_argument("--jobs", type=int, default=1, help="pages compiled in parallel")

    def run(args: argparse.Namespace) -> int:
        from harness.generate.commands import run_generate

        return run_generate(args)

    p.set_defaults(func=run)


def _add_cases(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("cases", help="inspect case sets")
    cases = p.add_subparsers(dest="cases_command", metavar="ACTION", required=True)
    info = cases.add_parser("info", help="counts, size and sha256 check of a case-set folder")
    info.add_argument("dir", help="a case-set folder")

    def run(args: argparse.Namespace) -> int:
        from harness.generate.commands import run_cases_info

        return run_cases_info(args)

    info.set_defaults(func=run)


def _add_meta_eval(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("meta-eval", help="correlate metrics with human ratings (table-metric-study format)")
    p.add_argument("file", help="a table-metric-study-format JSON file (e.g. dev.json)")
    p.add_argument("--metrics", default="teds,grits,tlag",
                   help="our metrics to recompute from the raw ground truth and extraction (comma-separated)")
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples for the 95%% CIs")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print {name: {pearson, spearman, kendall, ci95, n}}")
    p.set_defaults(func=_run_meta_eval)


def _run_meta_eval(args: argparse.Namespace) -> int:
    import json

    from harness.metaeval import load_rated_pairs, meta_evaluate, recomputed_scorers
    from harness.metrics.registry import parse_metric_list

    metrics = parse_metric_list(args.metrics) if args.metrics else []
    pairs = load_rated_pairs(args.file)
    results = meta_evaluate(pairs, recomputed_scorers(metrics), n_boot=args.bootstrap, seed=args.seed)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    from harness.report.terminal import meta_eval_table

    from rich.console import Console

    Console().print(meta_eval_table(results, title=f"Agreement with human ratings ({len(pairs)} pairs)"))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.func is None:
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except (ValueError, OSError) as exc:  # a clear one-line error, not a traceback
        print(f"tablebench: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
