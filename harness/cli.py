"""The `tablebench` command. Each subcommand lives with the step it drives; this only dispatches."""

from __future__ import annotations

import argparse
import sys

from harness import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tablebench", description="Benchmark PDF table extraction.")
    parser.add_argument("--version", action="version", version=f"tablebench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    # Subcommands register here as their steps land: generate, harvest, cases, meta-eval.
    parser.set_defaults(func=None)
    _ = sub
    return parser


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
