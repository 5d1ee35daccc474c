"""The "Failed" section of every report and each card's verdict: what failed and why.

Why one module: report.html, leaderboard.md, `tablebench report RUN` and `tablebench report
merge` must list the same failed cases with the same reasons as pytest did. None of them
decides anything: each reads the verdict the result carries (`tablebench.gating.rules.verdict_of`,
decided once when the result was made). A failed case is listed with its id whole (paste it
after `pytest` to run that case) and linked to its card. Everything shown is escaped by the
renderer of its format.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

from tablebench.core.metric_specs import scale_of
from tablebench.core.results import ItemResult
from tablebench.gating.rules import LOCATOR_NOTE, Verdict, verdict_of
from tablebench.report.html_escape import e
from tablebench.report.regressions import HTML_FILE, card_anchor

# a card's verdict as the drill-down's "verdict" filter shows it
VERDICT_LABELS = {"pass": "passed", "fail": "failed", "known": "known failure"}
SHOWN_HTML = 500  # failed cases listed in report.html and leaderboard.md (every one is a card / in results.json)


def failed(results: Iterable[ItemResult]) -> list[tuple[ItemResult, Verdict]]:
    """Every case whose verdict is a failure, with it, in the results' order."""
    return [(r, v) for r in results if (v := verdict_of(r)) is not None and not v.passed]


def verdict_label(r: ItemResult) -> str:
    """'passed' / 'failed' / 'known failure', or 'no verdict' (a results.json from before verdicts)."""
    v = verdict_of(r)
    return VERDICT_LABELS[v.status] if v is not None else "no verdict"


def delta_of(r: ItemResult) -> float | None:
    """The case's change against the baseline on its ranking metric, on a 0-1 scale (None without one)."""
    change = r.baseline_change
    delta = change.get("delta") if isinstance(change, dict) else None
    if not isinstance(delta, (int, float)) or isinstance(delta, bool) or not math.isfinite(delta):
        return None
    return float(delta) / scale_of(str(change.get("metric") or ""))


def _title(n: int, total: int) -> str:
    return f"Failed ({n} of {total} cases)"


# -- Markdown -------------------------------------------------------------------------------------
def failed_md(results: Sequence[ItemResult], md_text: Callable[[object], str], html_file: str = HTML_FILE) -> list[str]:
    """The section's lines ([] when nothing failed); `md_text` escapes one table cell."""
    cases = failed(results)
    if not cases:
        return []
    parts = [f"## {_title(len(cases), len(results))}", "", "| case | outcome | reasons |", "|---|---|---|"]
    for r, v in cases[:SHOWN_HTML]:
        link = f"[{md_text(r.test_id)}]({html_file}#{card_anchor(r.test_id)})"
        parts.append(f"| {link} | {md_text(r.outcome)} | {md_text(v.message or r.outcome)} |")
    if len(cases) > SHOWN_HTML:
        parts.append(f"\n... and {len(cases) - SHOWN_HTML} more (every case is in results.json and report.html)")
    return parts + [""]


# -- HTML -----------------------------------------------------------------------------------------
def failed_html(results: Sequence[ItemResult]) -> str:
    """The section near the top of report.html: each failed case linked to its card, with its reasons."""
    cases = failed(results)
    if not cases:
        return ""
    rows = "".join(f'<tr><td class="name"><a href="#{e(card_anchor(r.test_id))}">{e(r.test_id)}</a></td>'
                   f'<td class="name">{e(r.outcome)}</td><td class="name">{e(v.message or r.outcome)}</td></tr>'
                   for r, v in cases[:SHOWN_HTML])
    more = (f'<p class="note">... and {len(cases) - SHOWN_HTML} more: the "failed" filter below shows every one</p>'
            if len(cases) > SHOWN_HTML else "")
    return (f'<section id="failed"><h2>{e(_title(len(cases), len(results)))}</h2>'
            '<div class="scroll"><table class="board failed"><thead><tr><th class="name">case</th>'
            f'<th class="name">outcome</th><th class="name">reasons</th></tr></thead><tbody>{rows}</tbody></table>'
            f"</div>{more}</section>")


def verdict_html(r: ItemResult) -> tuple[str, str]:
    """(badge, reasons) of a card: a fail / known-failure badge in its header and the reasons
    below it (but the locator's note, which the card shows as its message), with the parser's
    traceback when it raised; nothing for a case that passed."""
    trace = r.parser_traceback
    shown = (f'<details class="traceback"><summary>parser traceback (last frames)</summary><pre>{e(trace)}</pre>'
             "</details>" if isinstance(trace, str) and trace else "")
    v = verdict_of(r)
    if v is None or v.status == "pass":
        return "", shown
    label = VERDICT_LABELS[v.status]
    shown_reasons = [x for x in v.reasons if not x.startswith(LOCATOR_NOTE)]  # the card's message, just below
    items = "".join(f"<li>{e(reason)}</li>" for reason in shown_reasons) or f"<li>{e(r.outcome)}</li>"
    return (f'<span class="badge verdict-{e(v.status)}">{e(label)}</span>',
            f'<div class="verdict verdict-{e(v.status)}"><b>{e(label)}</b><ul>{items}</ul>{shown}</div>')


# -- terminal -------------------------------------------------------------------------------------
def failed_rich(results: Sequence[ItemResult], html_path: str | None = None):  # -> rich renderable | None
    """The section for `tablebench report` and `report merge`: one line per failed case as
    pytest's short summary writes it (`FAILED ID - REASONS`, what CI logs are searched for), the
    id whole (paste it after pytest), the reasons folded, never cut."""
    from rich.console import Group
    from rich.text import Text

    cases = failed(results)
    if not cases:
        return None
    parts: list = [Text(_title(len(cases), len(results)), style="bold red")]
    for r, v in cases:
        line = Text("FAILED ")
        line.append(r.test_id, style=f"link file://{html_path}#{card_anchor(r.test_id)}" if html_path else "")
        line.append(f" - {v.message or r.outcome}")
        parts.append(line)
    return Group(*parts)
