"""The end of a run, one for a pytest session and for `tablebench report merge`: files and baseline.

The run was decided before it gets here (`tablebench.gating.decide.decide_run`: the gates, each
case's verdict and change, kept on the results); this only writes what was decided.
`finish_run(results, meta, policy, decisions)` does, in this order:

1. the gate's lines into the meta; then `policy.update_meta` (the plugin's
   `pytest_tablebench_update_meta` hook);
2. results.json first (the run's memory), then leaderboard.md, report.html, gate.json;
3. last, the baseline file (`--save-baseline`), refused for an incomplete run (see
   `tablebench.core.completeness`) unless `policy.allow_incomplete`, and when a parser failed
   on every page (such a baseline would make every later failure "known") unless
   `policy.save_anyway`.

`results` may be a `tablebench.report.stream.FullResults`: then the baseline reads its slim
results (scores, outcomes, facts), and only results.json, report.html and the meta hook read
the texts, one result at a time from disk.

No write failure loses what was written before it: each is one line in `RunEnd.errors` (and
`notes`), the steps after it still run, and the caller exits non-zero (the plugin sets the
session's exit status, the command line returns 1).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablebench.core.completeness import Completeness, of_meta, refusal
from tablebench.core.files import write_atomic
from tablebench.core.results import PARSE_FAILURES, ItemResult
from tablebench.gating.aggregate import Comparison
from tablebench.gating.baseline import save_baseline
from tablebench.gating.decide import Decisions
from tablebench.report.stream import slim_of

GATE_FILE = "gate.json"


@dataclass(frozen=True)
class FinishPolicy:
    """What the end of a run writes: where the files go, whether a baseline is saved and with which facts."""

    report_dir: Path
    primary: str | None = None  # the ranking metric (default: semantic if present, else teds)
    save_baseline: str | None = None
    parsers: Mapping[str, Mapping] = field(default_factory=dict)  # label -> {"spec", "version"}, for the baseline file
    case_set: Mapping = field(default_factory=dict)  # {"name", "manifest_sha256"}, for the baseline file
    metrics: Sequence[str] = ()  # for the baseline file
    update_meta: Callable[[dict, Sequence[ItemResult]], None] | None = None  # last word on the meta before writing
    allow_incomplete: bool = False  # save a baseline from a run that did not finish every item
    save_anyway: bool = False  # save a baseline even when a parser failed on every page
    crop_folder: bool = False  # every page crop also under the report folder's crops/ (--report-crops=folder)


@dataclass
class RunEnd:
    """What `finish_run` did: the gate comparisons, the files written, what went wrong."""

    comparisons: list[Comparison]
    meta: dict
    written: dict[str, Path] = field(default_factory=dict)  # "baseline", "gate" and `write.FILES`' kinds
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # one line per file not written (or refused)
    case_failures: list[tuple[str, str]] = field(default_factory=list)  # (test_id, reasons) of each failing case

    @property
    def error(self) -> str | None:
        """The first thing that went wrong, or None."""
        return self.errors[0] if self.errors else None

    @property
    def failed(self) -> list[Comparison]:
        return [c for c in self.comparisons if c.failed]

    @property
    def report_files(self) -> dict[str, Path]:
        return {kind: path for kind, path in self.written.items() if kind != "baseline"}


def finish_run(results: Sequence[ItemResult], meta: Mapping[str, Any], policy: FinishPolicy,
               decisions: Decisions) -> RunEnd:
    """The end of a run (see the module docstring): `decisions` are what `decide_run` decided."""
    end = RunEnd(decisions.comparisons, dict(meta), case_failures=decisions.case_failures)
    completeness = of_meta(end.meta, len(results))  # as the run ended, before the hook's last word
    if decisions.gate_lines:
        end.meta["gate"] = decisions.gate_lines
    if policy.update_meta is not None:
        policy.update_meta(end.meta, results)
    _write_files(end, results, policy)
    if policy.save_baseline:
        _save_baseline(end, slim_of(results), policy, completeness)
    end.notes += end.errors
    return end


def _write_files(end: RunEnd, results: Sequence[ItemResult], policy: FinishPolicy) -> None:
    """The report folder, results.json first; gate.json beside it when a gate ran."""
    from tablebench.report.write import write_report  # the renderers: only the process that writes imports them

    try:
        end.written.update(write_report(results, policy.report_dir, end.meta, primary=policy.primary,
                                        comparisons=end.comparisons, written=end.written,
                                        crop_folder=policy.crop_folder))
        if end.comparisons:
            text = json.dumps([c.to_dict() for c in end.comparisons], indent=1, default=json_number) + "\n"
            end.written["gate"] = write_atomic(Path(policy.report_dir) / GATE_FILE, text)
    except OSError as exc:
        done = ", ".join(p.name for p in end.report_files.values())
        end.errors.append(f"tablebench report not written to {policy.report_dir}: {exc.strerror or exc}"
                          + (f" (written before it: {done})" if done else ""))


def _save_baseline(end: RunEnd, results: Sequence[ItemResult], policy: FinishPolicy, completeness: Completeness) -> None:
    """--save-baseline, last: refused for an incomplete run unless allowed; a failed write is one line."""
    refused = refusal(completeness, f"--save-baseline {policy.save_baseline}", policy.allow_incomplete)
    if not refused and not policy.save_anyway:
        refused = all_failed_refusal(results, f"--save-baseline {policy.save_baseline}")
    if refused:
        end.errors.append(f"tablebench {refused}")
        return
    try:
        end.written["baseline"] = save_baseline(results, policy.save_baseline, parsers=policy.parsers,
                                                case_set=policy.case_set, metrics=policy.metrics)
    except OSError as exc:
        end.errors.append(f"tablebench baseline not written to {policy.save_baseline}: {exc.strerror or exc}")


def all_failed_refusal(results: Sequence[ItemResult], what: str) -> str:
    """Why a baseline is refused: some parser failed on every page (its baseline would make
    every later run's failures "known"), naming the parsers and the first failure; "" otherwise."""
    by_parser: dict[str, list[ItemResult]] = {}
    for r in results:
        by_parser.setdefault(r.parser, []).append(r)
    dead = {p: rs for p, rs in by_parser.items() if rs and all(r.outcome in PARSE_FAILURES for r in rs)}
    if not dead:
        return ""
    first = next(iter(dead.values()))[0]
    return (f"{what}: refused: parser {', '.join(dead)} failed on every page ({first.message or first.outcome}); "
            "fix it, or give --save-baseline-anyway")


def json_number(value: Any) -> Any:
    """`json.dumps(default=...)` for gate rows: a non-finite number as null, anything else as text."""
    return None if isinstance(value, float) and not math.isfinite(value) else str(value)
