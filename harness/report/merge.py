"""`tablebench report merge DIR...`: shard runs -> one results.json / leaderboard.md / report.html.

A merge is only meaningful when the shards measured the same thing, so it refuses, with one
line, inputs that differ in what was measured (case set and its fingerprint, parsers and
their versions, metrics, judge, locator, repeats, tablebench version), a shard given twice or
missing (`--shard=I/N` runs record "I/N"), or a case present in two inputs. The merged
results are ordered as an unsharded run orders them, so the merged results.json lists the
same tables with the same scores as a run without shards.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any
from pathlib import Path

from harness.core.results import TableResult, run_order

# meta keys that must agree across shards: they say what was measured
# (not `parser_specs`: shards may reach one parser differently, e.g. each its own model server;
# the label and the version say which parser it is)
CONSISTENT = ("case_set", "case_set_fingerprint", "case_set_manifest_sha256", "parsers", "parser_versions",
              "metrics", "judge", "locator", "repeat", "version")
# meta keys that describe one shard's run: dropped, or recomputed for the union
_PER_RUN = ("timestamp", "finished", "command", "shard", "shard_pages", "tables", "cases", "parse_cache", "gate",
            "report_dir")


def results_path(path: str | os.PathLike) -> Path:
    """A results.json given directly or inside a run folder; a one-line error otherwise."""
    p = Path(path)
    if p.is_dir():
        p = p / "results.json"
    if not p.is_file():
        raise ValueError(f"{path}: no results.json (give a run's report folder or its results.json)")
    return p


def merge_runs(paths: Sequence[str | os.PathLike]) -> tuple[dict, list[TableResult]]:
    """(meta, results) of the union of shard runs, after every consistency check."""
    from harness.report.write import read_results

    if not paths:
        raise ValueError("report merge: give at least one run folder or results.json")
    runs = []
    for path in paths:
        file = results_path(path)
        meta, results = read_results(file)
        runs.append((str(file), meta if isinstance(meta, dict) else {}, results))
    _check_consistent(runs)
    _check_shards(runs)
    seen: dict[str, str] = {}
    merged: list[TableResult] = []
    for file, _, results in runs:
        for r in results:
            if r.test_id in seen:
                raise ValueError(f"report merge: {r.test_id} is in both {seen[r.test_id]} and {file} "
                                 "(the same shard twice, or overlapping runs)")
            seen[r.test_id] = file
            merged.append(r)
    parsers = runs[0][1].get("parsers")
    return merged_meta(runs), run_order(merged, parsers if isinstance(parsers, list) else [])



def merged_meta(runs: list[tuple[str, dict, list[TableResult]]]) -> dict:
    """The first run's facts, with times spanning all runs and counts of the union."""
    first = runs[0][1]
    meta = {k: v for k, v in first.items() if k not in _PER_RUN}
    starts = [m["timestamp"] for _, m, _ in runs if isinstance(m.get("timestamp"), str)]
    ends = [m["finished"] for _, m, _ in runs if isinstance(m.get("finished"), str)]
    if starts:
        meta["timestamp"] = min(starts)
    if ends:
        meta["finished"] = max(ends)
    from harness.report.aggregate import cache_summary, run_counts

    union = [r for _, _, results in runs for r in results]
    counts = run_counts(union)
    meta["tables"], meta["cases"] = counts["tables"], counts["cases"]
    meta["parse_cache"] = cache_summary(union)
    meta["merged_from"] = [f"{file}" + (f" (shard {m['shard']})" if m.get("shard") else "") for file, m, _ in runs]
    return meta


def _check_consistent(runs: list[tuple[str, dict, list[TableResult]]]) -> None:
    first_file, first, _ = runs[0]
    for file, meta, _ in runs[1:]:
        for key in CONSISTENT:
            if first.get(key) != meta.get(key):
                raise ValueError(f"report merge: {key} differs: {_show(first.get(key))} in {first_file}, "
                                 f"{_show(meta.get(key))} in {file}")


def _check_shards(runs: list[tuple[str, dict, list[TableResult]]]) -> None:
    """All inputs are shards of one split (same N, each I once, none missing), or none is a shard."""
    shards = [(file, meta.get("shard")) for file, meta, _ in runs]
    marked = [(file, s) for file, s in shards if s]
    if not marked:
        return
    if len(marked) != len(shards):
        plain = next(file for file, s in shards if not s)
        raise ValueError(f"report merge: {plain} is not a shard run but {marked[0][0]} is (shard {marked[0][1]})")
    from harness.cases.shard import parse_shard

    parsed = {}
    for file, text in marked:
        try:
            index, total = parse_shard(str(text))
        except ValueError:
            raise ValueError(f"report merge: {file} records shard {text!r}, not I/N") from None
        if index in parsed:
            raise ValueError(f"report merge: shard {index}/{total} given twice ({parsed[index][0]} and {file})")
        parsed[index] = (file, total)
    totals = {total for _, total in parsed.values()}
    if len(totals) > 1:
        raise ValueError(f"report merge: shards of different splits ({', '.join(f'/{t}' for t in sorted(totals))})")
    total = totals.pop()
    missing = [f"{i}/{total}" for i in range(1, total + 1) if i not in parsed]
    if missing:
        raise ValueError(f"report merge: shard {', '.join(missing)} missing (got {len(parsed)} of {total})")


def _show(value: object) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, list):
        return ",".join(map(str, value)) or "nothing"
    return str(value)


def build_parser() -> Any:
    import argparse

    p = argparse.ArgumentParser(prog="tablebench report merge",
                                description="Merge shard runs (--shard=I/N) into one report, optionally gated.")
    p.add_argument("runs", nargs="+", metavar="DIR", help="run folders (or their results.json), one per shard")
    p.add_argument("--out", required=True, help="folder for the merged results.json, leaderboard.md, report.html")
    p.add_argument("--primary", help="rank by this metric (default: semantic if present, else teds)")
    p.add_argument("--baseline", metavar="FILE", help="baseline file to gate the merged run against")
    p.add_argument("--gate", action="append", default=[], metavar="METRIC[:SUBSET]",
                   help="as the plugin's --gate (repeatable); needs --baseline")
    p.add_argument("--gate-min-effect", default="0.01", metavar="X", help="as the plugin's (default %(default)s)")
    p.add_argument("--gate-alpha", default="0.05", metavar="P", help="as the plugin's (default %(default)s)")
    p.add_argument("--save-baseline", metavar="FILE", help="write the merged scores as a baseline file")
    return p


def run_merge(argv: Sequence[str]) -> int:
    """`tablebench report merge`: 0 when merged (and every gate passed), 1 when a gate failed."""
    from rich.console import Console

    from harness.gating.aggregate import baseline_values, evaluate, gate_pairs, parse_fraction, parse_gate, summary_lines
    from harness.core.metric_specs import scales
    from harness.report.aggregate import boards
    from harness.report.terminal import tracks_group
    from harness.report.write import write_report

    args = build_parser().parse_args(list(argv))
    gates = [parse_gate(g) for g in args.gate]
    min_effect = parse_fraction("--gate-min-effect", args.gate_min_effect, upper=1.0)
    alpha = parse_fraction("--gate-alpha", args.gate_alpha, upper=0.5, positive=True)
    if gates and not args.baseline:
        raise ValueError("--gate needs --baseline FILE (the run to compare with)")
    meta, results = merge_runs(args.runs)
    comparisons = []
    if gates:
        from harness.gating.baseline import load_baseline
        from harness.evaluate.repeat import sd_of

        baseline = load_baseline(args.baseline)
        pairs = gate_pairs(results, lambda r: baseline_values(baseline, r))
        if not pairs:
            raise ValueError(f"baseline {args.baseline}: none of its {len(baseline.cases)} entries match the "
                             f"{len(results)} merged cases")
        run_sd = {(r.parser, r.test_id): sd_of(r) for r in results if sd_of(r)}
        comparisons = evaluate(pairs, gates, min_effect=min_effect, alpha=alpha, scale=scales(), run_sd=run_sd,
                               groups=list(dict.fromkeys(r.parser for r in results)))
        meta["gate"] = summary_lines(comparisons)
        meta["baseline"] = args.baseline
    written = write_report(results, args.out, meta, primary=args.primary)
    if comparisons:
        import json

        from harness.core.files import write_atomic

        write_atomic(Path(args.out) / "gate.json", json.dumps([c.to_dict() for c in comparisons], indent=1) + "\n")
    console = Console()
    console.print(tracks_group(boards(results, primary=args.primary)))
    print(f"tablebench report: {args.out} ({', '.join(p.name for p in written.values())}); "
          f"merged {len(args.runs)} runs, {len(results)} cases")
    if args.save_baseline:
        from harness.gating.baseline import save_baseline

        versions, specs = meta.get("parser_versions") or {}, meta.get("parser_specs") or {}
        parsers = {label: {"spec": specs.get(label, label), "version": version} for label, version in versions.items()}
        save_baseline(results, args.save_baseline, parsers=parsers, metrics=meta.get("metrics") or [],
                      case_set={"name": meta.get("case_set"), "manifest_sha256": meta.get("case_set_manifest_sha256")})
        print(f"tablebench baseline saved: {args.save_baseline}")
    failed = [c for c in comparisons if c.failed]
    if comparisons:
        print("== tablebench gate ==")
        for line in summary_lines(comparisons):
            print(line)
        print(f"gate FAILED: {len(failed)} of {sum(c.gating for c in comparisons)} gated comparisons regressed"
              if failed else "gate passed: no significant regression beyond the minimum effect")
    return 1 if failed else 0
