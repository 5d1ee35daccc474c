"""Shard runs -> one run: the (meta, results) `tablebench report merge DIR...` writes as one report.

The command (`tablebench.cli`) gates and writes the merged run through `tablebench.report.finish`,
as a pytest session ends. A merge is only meaningful when the shards measured the same thing, so it refuses, with one
line, inputs that differ in what was measured (case set and its fingerprint, parsers and
their versions, metrics, judge, locator, repeats, tablebench version), a shard given twice or
missing (`--shard=I/N` runs record "I/N"), a case present in two inputs, or an input that did
not finish every item it was asked for or does not say (`meta.completeness`; `allow_incomplete`
merges it and the merged run says INCOMPLETE, or that its completeness is unknown). The merged
results are ordered as an unsharded run orders them, so the merged results.json lists the
same tables with the same scores as a run without shards.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from itertools import islice

from tablebench.core import kinds as item_kinds
from tablebench.core.completeness import combine, of_meta, refusal
from tablebench.core.results import ItemResult, run_order
from tablebench.report.results_file import Shelf, read_slim, results_path
from tablebench.report.stream import FullResults

# meta keys that must agree across shards: they say what was measured
# (not `parser_specs`: shards may reach one parser differently, e.g. each its own model server;
# the label and the version say which parser it is)
CONSISTENT = ("case_set", "case_set_fingerprint", "case_set_manifest_sha256", "parsers", "parser_versions",
              "metrics", "judge", "locator", "repeat", "version")
_SHOWN = 5  # missing shards named in the refusal
# meta keys that describe one shard's run: dropped, or recomputed for the union
# (and each kind's count, under its title: recomputed)
_PER_RUN = ("timestamp", "finished", "command", "shard", "shard_pages", "cases", "parse_cache", "gate",
            "report_dir", "completeness")


def merge_runs(paths: Sequence[str | os.PathLike], allow_incomplete: bool = False) -> tuple[dict, FullResults]:
    """(meta, results) of the union of shard runs, after every consistency check. The results
    hold no texts in memory: each shard's results.json is read one result at a time, and read
    again, one result at a time, when the merged run's files are written (`FullResults`)."""
    if not paths:
        raise ValueError("report merge: give at least one run folder or results.json")
    runs = []
    shelf = Shelf()
    for path in paths:
        file = results_path(path)
        meta, results = read_slim(file, shelf)
        runs.append((str(file), meta, results))
    _check_consistent(runs)
    _check_local_specs(runs)
    _check_shards(runs)
    parts = [of_meta(meta, len(results)) for _, meta, results in runs]
    for (file, _, _), part in zip(runs, parts):
        refused = refusal(part, f"report merge: {file}", allow_incomplete, record_required=True)
        if refused:
            raise ValueError(refused)
    seen: dict[str, str] = {}
    merged: list[ItemResult] = []
    for file, _, results in runs:
        for r in results:
            if r.test_id in seen:
                raise ValueError(f"report merge: {r.test_id} is in both {seen[r.test_id]} and {file} "
                                 "(the same shard twice, or overlapping runs)")
            seen[r.test_id] = file
            merged.append(r)
    parsers = runs[0][1].get("parsers")
    meta = merged_meta(runs)
    meta["completeness"] = combine(parts, flagged=allow_incomplete).to_dict()
    return meta, FullResults(run_order(merged, parsers if isinstance(parsers, list) else []), shelf.read)



def merged_meta(runs: list[tuple[str, dict, list[ItemResult]]]) -> dict:
    """The first run's facts, with times spanning all runs and counts of the union."""
    first = runs[0][1]
    from tablebench.report.aggregate import cache_summary, run_counts

    titles = {kind.title for kind in item_kinds.all_kinds()}
    meta = {k: v for k, v in first.items() if k not in _PER_RUN and k not in titles}
    starts = [m["timestamp"] for _, m, _ in runs if isinstance(m.get("timestamp"), str)]
    ends = [m["finished"] for _, m, _ in runs if isinstance(m.get("finished"), str)]
    if starts:
        meta["timestamp"] = min(starts)
    if ends:
        meta["finished"] = max(ends)
    union = [r for _, _, results in runs for r in results]
    counts = run_counts(union)
    meta.update((k, n) for k, n in counts.items() if k != "parsers")  # each kind's count ("tables", "formulas")
    meta["parse_cache"] = cache_summary(union)
    meta["merged_from"] = [f"{file}" + (f" (shard {m['shard']})" if m.get("shard") else "") for file, m, _ in runs]
    return meta


def _check_consistent(runs: list[tuple[str, dict, list[ItemResult]]]) -> None:
    first_file, first, _ = runs[0]
    for file, meta, _ in runs[1:]:
        for key in CONSISTENT:
            if first.get(key) != meta.get(key):
                raise ValueError(f"report merge: {key} differs: {_show(first.get(key))} in {first_file}, "
                                 f"{_show(meta.get(key))} in {file}")


# specs whose outputs live on this machine: another folder or command under the same label is
# another parser, whatever its label and version say (a model server may differ per shard)
LOCAL_SPECS = ("dir:", "command:")


def _check_local_specs(runs: list[tuple[str, dict, list[ItemResult]]]) -> None:
    first_file, first, _ = runs[0]
    first_specs = first.get("parser_specs") if isinstance(first.get("parser_specs"), dict) else {}
    for file, meta, _ in runs[1:]:
        specs = meta.get("parser_specs") if isinstance(meta.get("parser_specs"), dict) else {}
        for label, spec in first_specs.items():
            other = specs.get(label)
            local = any(str(s).startswith(LOCAL_SPECS) for s in (spec, other) if s is not None)
            if local and other is not None and other != spec:
                raise ValueError(f"report merge: parser {label!r} is {_show(spec)} in {first_file} but "
                                 f"{_show(other)} in {file}: another output under one label")


def _check_shards(runs: list[tuple[str, dict, list[ItemResult]]]) -> None:
    """All inputs are shards of one split (same N, each I once, none missing), or none is a shard."""
    shards = [(file, meta.get("shard")) for file, meta, _ in runs]
    marked = [(file, s) for file, s in shards if s]
    if not marked:
        return
    if len(marked) != len(shards):
        plain = next(file for file, s in shards if not s)
        raise ValueError(f"report merge: {plain} is not a shard run but {marked[0][0]} is (shard {marked[0][1]})")
    from tablebench.cases.shard import parse_shard

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
    if len(parsed) < total:  # the first few missing by name, counted not listed (N comes from a hand-editable file)
        shown = list(islice((f"{i}/{total}" for i in range(1, total + 1) if i not in parsed), _SHOWN))
        more = f" and {total - len(parsed) - len(shown):,} more" if total - len(parsed) > len(shown) else ""
        raise ValueError(f"report merge: shard {', '.join(shown)}{more} missing (got {len(parsed)} of {total:,})")


def _show(value: object) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, list):
        return ",".join(map(str, value)) or "nothing"
    return str(value)
