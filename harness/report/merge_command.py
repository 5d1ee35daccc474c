"""`tablebench report merge`: shard runs -> one report, ended as a pytest session ends (`tablebench.cli` parses).

Why here and not in the CLI: the merge is `decide_run` and `finish_run` (the same per-case rules,
gates and files a session's end applies) plus what a session prints at its end; the CLI only
reads the options.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tablebench.core.options import RunOptions


def run_merge(args: argparse.Namespace, options: RunOptions) -> int:
    """0 when merged and every case and gate passed, 1 when a case or a gate failed (or a file was not written).
    `options`: the run options `report merge` takes, checked (`tablebench.gating.options.read_options`)."""
    from tablebench.core.files import check_writable, claim_folder
    from tablebench.core.completeness import of_meta
    from tablebench.gating.aggregate import summary_lines
    from tablebench.gating.decide import decide_run, gate_policy, gate_verdict
    from tablebench.gating.rules import baseline_notes
    from tablebench.report.aggregate import boards
    from tablebench.report.finish import FinishPolicy, finish_run
    from tablebench.report.merge import merge_runs
    from tablebench.report.results_file import load_baseline, results_path
    from tablebench.report.terminal import tracks_group
    from tablebench.report.verdict_counts import counts_by_kind
    from tablebench.report.verdicts import causes_lines, failed_lines
    from tablebench.report.whole import print_whole
    from tablebench.report.write import FILES

    out = options.report_dir or ""  # --out
    if options.save_baseline:
        check_writable(options.save_baseline, "--save-baseline")
    check_writable(out, "--out", folder=True)
    if args.junitxml:
        check_writable(args.junitxml, "--junitxml")
    for run in args.runs:  # the merged files would replace the ones being read, half way through
        if results_path(run).parent.resolve() == Path(out).resolve():
            raise ValueError(f"--out {out} is one of the runs it merges ({run}): give another folder")
    meta, merged = merge_runs(args.runs, allow_incomplete=options.allow_incomplete)
    results = merged.slim  # the texts stay in the shards' files until the merged run's are written
    versions, specs = meta.get("parser_versions") or {}, meta.get("parser_specs") or {}
    parsers = {label: {"spec": specs.get(label, label), "version": version} for label, version in versions.items()}
    case_set = {"name": meta.get("case_set"), "manifest_sha256": meta.get("case_set_manifest_sha256")}
    baseline = load_baseline(options.baseline) if options.baseline else None
    notes = baseline_notes(baseline, [r.test_id for r in results], parsers=parsers, case_set=case_set,
                           metrics=meta.get("metrics") or []) if baseline is not None else []
    # without floors or a baseline of its own, each case keeps its shard's verdict
    decider = gate_policy(options, baseline, groups=dict.fromkeys(r.parser for r in results),
                          decide=baseline is not None or bool(options.min_scores))
    policy = FinishPolicy(
        report_dir=Path(out), primary=args.primary, save_baseline=options.save_baseline, parsers=parsers,
        case_set=case_set, metrics=meta.get("metrics") or [], allow_incomplete=options.allow_incomplete,
        crop_folder=options.report_crops == "folder", save_anyway=options.save_baseline_anyway)
    if options.baseline:  # this merge's baseline, not the shards'
        meta["baseline"] = options.baseline
    completeness = of_meta(meta, len(results))
    held = claim_folder(out, "--out")
    try:
        end = finish_run(merged, meta, policy, decide_run(results, decider, completeness))
    finally:
        held.release()
    tracks = boards(results, primary=args.primary)
    print_whole(tracks_group(tracks, counts=counts_by_kind(tracks, results, end.comparisons)))
    if not completeness.complete or not completeness.known:
        print(f"tablebench {completeness.line()}")
    head, lines = causes_lines(results, end.meta)
    for line in [head, *lines] if lines else []:
        print(line)
    if args.list_failed and (listed := failed_lines(results)):
        print("\n".join(listed))
    for note in notes:
        print(note)
    files = ", ".join(path.name for kind, path in end.written.items() if kind in FILES)
    print(f"tablebench report: {out} ({files or 'nothing written'}); merged {len(args.runs)} runs, "
          f"{len(results)} cases")
    if "baseline" in end.written:
        print(f"tablebench baseline saved: {options.save_baseline}")
    if args.junitxml:
        from tablebench.report.junit import write_junit

        try:
            print(f"tablebench junit xml: {write_junit(results, args.junitxml)}")
        except OSError as exc:
            end.errors.append(f"tablebench junit xml not written to {args.junitxml}: {exc.strerror or exc}")
    if end.case_failures:
        print(f"tablebench: {len(end.case_failures)} of {len(results)} cases failed")
    if end.comparisons:
        print("== tablebench gate ==")
        for line in summary_lines(end.comparisons):
            print(line)
        print(gate_verdict(end.comparisons, completeness))
    for line in end.errors:
        print(line, file=sys.stderr)
    return 1 if end.failed or end.case_failures or end.errors else 0
