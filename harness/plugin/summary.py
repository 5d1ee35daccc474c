"""The plugin's part of the terminal summary: the leaderboard with each parser's verdict counts
first, the run's notes, the failures grouped by cause, then the gate last.

pytest's terminal reporter owns the output stream, so the leaderboard (a rich renderable) is
rendered to text first and written through it.

pytest's short test summary prints one `FAILED id - reason` line per failed test by default
(`-r fE`): 441 lines for a parser that failed on every page, each saying the same thing. The
benchmark's cases are left out of it (`hold_case_lines`, given back before pytest's last line
counts them) and grouped by cause instead (`write_failures`, `tablebench.report.causes`): at most
`MAX_CAUSES` causes in three lines each. Each case is still in junit, results.json, report.html
and `pytest --lf`; `-r` with `f` (or `a`, `A`) on the command line keeps pytest's lines too.
"""

from __future__ import annotations

import io
import shutil
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from rich.console import Console
from tablebench.cases import CaseSet
from tablebench.cases.manifest import named
from tablebench.core.completeness import Completeness, of_meta
from tablebench.core.results import ItemResult
from tablebench.gating.aggregate import Comparison
from tablebench.gating.decide import gate_verdict
from tablebench.plugin.ci import GateStep, repeat_summary
from tablebench.report.aggregate import boards, cache_summary
from tablebench.report.finish import RunEnd
from tablebench.report.terminal import tracks_group
from tablebench.report.verdict_counts import counts_by_kind
from tablebench.report.verdicts import causes_lines
from tablebench.report.whole import print_whole


def write_run(tr: Any, results: list[ItemResult], *, cases: CaseSet, verified: bool, notes: list[str],
              report_dir: Any, end: RunEnd | None, comparisons: Sequence[Comparison] = ()) -> None:
    """The leaderboard and each parser's verdict counts, the cache line, the warnings and notes,
    and where the files went."""
    tr.section("tablebench leaderboard")
    banner = of_meta(end.meta, len(results)).banner() if end is not None else None
    if banner:
        tr.write_line(f"tablebench {banner}", red=True, bold=True)
    tracks = boards(results)
    tr.write(render(tracks_group(tracks, counts=counts_by_kind(tracks, results, comparisons)), tr.hasmarkup))
    tr.write_line(f"tablebench parse cache: {cache_summary(results)}")
    if not verified and cases.kind == "tablebench":
        tr.write_line(f"tablebench WARNING: case set {cases.name} was not verified against "
                      "its manifest (--no-verify)", yellow=True, bold=True)
    if cases.unlisted:
        tr.write_line(f"tablebench WARNING: case set {cases.name} holds {len(cases.unlisted)} files not in "
                      f"manifest.json, never read: {named(cases.unlisted)} (remove them)", yellow=True, bold=True)
    for note in notes:
        tr.write_line(note, yellow=True)
    for line in unscored_notes(results):
        tr.write_line(line, red=True, bold=True)
    written = end.written if end is not None else {}
    if "baseline" in written:
        tr.write_line(f"tablebench baseline saved: {written['baseline']}")
    reports = end.report_files if end is not None else {}
    if reports:
        tr.write_line(f"tablebench report: {report_dir}  ({', '.join(p.name for p in reports.values())})")


def write_failures(tr: Any, results: Sequence[ItemResult], meta: Mapping[str, object] | None = None) -> None:
    """The failed cases grouped by cause (`tablebench.report.verdicts.causes_lines`), in a section
    of its own: at most 3 * MAX_CAUSES + 1 lines, however many cases failed."""
    head, lines = causes_lines(results, meta)
    if not lines:
        return
    tr.section(head, red=True)
    for line in lines:
        tr.write_line(line)


def wants_case_lines(config: Any) -> bool:
    """Whether the command line itself asks pytest's short summary for failed tests (`-rf`, `-ra`,
    `-rA`, `--report-chars=...`; not the project's addopts, not pytest's default `fE`): then
    the benchmark's cases keep their `FAILED` lines."""
    args = [str(a) for a in config.invocation_params.args]
    chars = ""
    for i, arg in enumerate(args):
        if arg in ("-r", "--report-chars") and i + 1 < len(args):
            chars += args[i + 1]
        elif arg.startswith("--report-chars="):
            chars += arg.split("=", 1)[1]
        elif arg.startswith("-r") and not arg.startswith("--"):
            chars += arg[2:]
    wanted = False
    for char in chars:
        if char in "fFaA":
            wanted = True
        elif char == "N":
            wanted = False
    return wanted


def hold_case_lines(tr: Any, case_ids: Collection[str]) -> list[Any]:
    """Take the failed call reports of benchmark cases out of pytest's short summary (see the
    module docstring); `give_back` puts them back, so pytest's last line counts them."""
    kept, held = [], []
    for report in tr.stats.get("failed", []):
        (held if getattr(report, "when", None) == "call" and report.nodeid in case_ids else kept).append(report)
    if held:
        tr.stats["failed"] = kept
    return held


def give_back(tr: Any, held: list[Any]) -> None:
    if held:
        tr.stats.setdefault("failed", []).extend(held)


def write_ci(tr: Any, results: list[ItemResult], repeat: int, gate: GateStep,
             completeness: Completeness | None = None) -> None:
    """The spread over repeats, the run's completeness (loud when incomplete), then the gate's
    rows and verdict: the last block of the output."""
    if repeat > 1 and results:
        tr.write_line(f"tablebench repeats: {repeat_summary(results)}")
    if completeness is not None and completeness.banner():
        tr.write_sep("=", f"tablebench {completeness.banner()}", red=True, bold=True)
    if gate.refused:
        tr.write_line(f"tablebench {gate.refused}", red=True, bold=True)
    if gate.skipped:
        tr.write_line("tablebench gate: not run: the session stopped early (-x / --maxfail / Ctrl-C), "
                      "and the gate compares every table", yellow=True, bold=True)
    comparisons = gate.comparisons
    if not comparisons:
        return
    failed = any(c.failed for c in comparisons)
    tr.section("tablebench gate", red=failed, green=not failed, bold=True)
    for comparison in sorted(comparisons, key=lambda c: not c.gating):
        text = ("  " if not comparison.gating else "") + comparison.line()
        tr.write_line(text, red=comparison.failed, green=comparison.verdict == "improvement")
    tr.write_line(gate_verdict(comparisons, completeness), red=failed, green=not failed, bold=True)


def unscored_notes(results: list[ItemResult]) -> list[str]:
    """'tablebench judge: 12 of 12 found tables not scored: REASON' per metric that failed (an
    unreachable judge), with its most frequent reason: said at the end, not only in results.json."""
    failed: dict[str, list[str]] = {}
    found = sum(1 for r in results if r.outcome == "ok")
    for r in results:
        for metric, why in r.metric_errors.items():
            if r.outcome == "ok" and metric not in r.scores:
                failed.setdefault(metric, []).append(str(why))
    out = []
    for metric, reasons in failed.items():
        top = Counter(reasons).most_common(1)[0][0]
        out.append(f"tablebench {metric}: {len(reasons)} of {found} found cases not scored: {top}")
    return out


def render(renderable: Any, markup: bool) -> str:
    """A rich renderable as text for the terminal reporter (which owns the output stream)."""
    width = max(80, min(shutil.get_terminal_size((120, 24)).columns, 200))
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=markup, color_system="standard" if markup else None,
                      no_color=not markup, highlight=False)
    print_whole(renderable, console)  # no number cut at a narrow terminal
    return buffer.getvalue()
