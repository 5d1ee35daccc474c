"""The plugin's part of the terminal summary: the failed cases by id, the leaderboard, the run's
notes, then the gate last.

pytest's terminal reporter owns the output stream, so the leaderboard (a rich renderable) is
rendered to text first and written through it.
"""

from __future__ import annotations

import io
import re
import shlex
import shutil
from collections import Counter
from collections.abc import Collection
from typing import Any

from rich.console import Console

from tablebench.cases import CaseSet
from tablebench.core.messages import one_line
from tablebench.core.results import ItemResult
from tablebench.evaluate.completeness import Completeness, of_meta
from tablebench.gating.decide import gate_verdict
from tablebench.plugin.ci import GateStep, repeat_summary
from tablebench.plugin.nodes import REPRODUCE
from tablebench.report.aggregate import boards, cache_summary
from tablebench.report.finish import RunEnd
from tablebench.report.terminal import tracks_group
from tablebench.report.whole import print_whole


def write_run(tr: Any, results: list[ItemResult], *, cases: CaseSet, verified: bool, notes: list[str],
              report_dir: Any, end: RunEnd | None) -> None:
    """The leaderboard, the cache line, the warnings and notes, and where the files went."""
    tr.section("tablebench leaderboard")
    banner = of_meta(end.meta, len(results)).banner() if end is not None else None
    if banner:
        tr.write_line(f"tablebench {banner}", red=True, bold=True)
    tr.write(render(tracks_group(boards(results)), tr.hasmarkup))
    tr.write_line(f"tablebench parse cache: {cache_summary(results)}")
    if not verified and cases.kind == "tablebench":
        tr.write_line(f"tablebench WARNING: case set {cases.name} was not verified against "
                      "its manifest (--no-verify)", yellow=True, bold=True)
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


MAX_LISTED = 500  # failing cases listed by id (the rest: results.json and report.html)
MAX_REASON = 300  # characters of each case's reason
MAX_REPRODUCE = 20  # `tablebench parse` commands listed (one per parser and page that failed)


def write_failures(tr: Any, case_ids: Collection[str]) -> None:
    """The failed benchmark cases sorted by id (pytest lists them in the order xdist finished
    them, each line cut to the terminal's width), each id whole and shell-quoted, so that
    pasting it after `pytest` runs that case; then the command that reruns each parser failure
    in one process (`tablebench parse`), once per parser and page."""
    failed = {}
    reproduce: dict[str, None] = {}
    for report in tr.stats.get("failed", []):
        if getattr(report, "when", None) == "call" and report.nodeid in case_ids:
            failed[report.nodeid] = one_line(_reason(report), MAX_REASON)
            reproduce.update(dict.fromkeys(ln for ln in str(report.longreprtext).splitlines()
                                           if ln.startswith(REPRODUCE)))
    if not failed:
        return
    tr.section(f"tablebench failures ({len(failed)}, by id; paste an id after pytest to run that case)", red=True)
    ids = sorted(failed, key=natural_key)
    for nodeid in ids[:MAX_LISTED]:
        tr.write_line(f"{shlex.quote(nodeid)}  {failed[nodeid]}")
    if len(ids) > MAX_LISTED:
        tr.write_line(f"... and {len(ids) - MAX_LISTED} more (every case is in results.json and report.html)")
    for line in list(reproduce)[:MAX_REPRODUCE]:
        tr.write_line(line)
    if len(reproduce) > MAX_REPRODUCE:
        tr.write_line(f"... and {len(reproduce) - MAX_REPRODUCE} more parser failures (--tb=short shows each)")


def _reason(report: Any) -> str:
    """The failure's message: pytest.fail's text (a string longrepr), else the crash line; its
    first line (the reason: a parser failure adds the reproduce command and traceback below it)."""
    longrepr = report.longrepr
    if isinstance(longrepr, str):
        return longrepr.split("\n", 1)[0]
    crash = getattr(longrepr, "reprcrash", None)
    return str(getattr(crash, "message", "") or longrepr).removeprefix("Failed: ").split("\n", 1)[0]  # pytest.fail's word


def natural_key(text: str) -> list[Any]:
    """'p2::t10' after 'p2::t9': digit runs compare as numbers."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", text)]


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
