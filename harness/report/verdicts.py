"""The failures section of every report and each card's verdict: what failed and why.

Why one module: report.html, leaderboard.md, the terminal (pytest's, `tablebench report RUN` and
`tablebench report merge`) must show the same failed cases with the same reasons as pytest did.
None of them decides anything: each reads the verdict the result carries
(`tablebench.gating.rules.verdict_of`, decided once when the result was made). Every section
groups the failed cases by cause (`tablebench.report.causes`): one row per cause with its
count, pages, an example id and the command to reproduce it. report.html lists each case inside
its cause (collapsed) and leaderboard.md after the causes (collapsed), each id whole (paste it
after `pytest` to run that case) and linked to its card; the terminal, which a reader scrolls
through, shows at most `MAX_CAUSES` causes in at most three lines each. Everything shown is
escaped by the renderer of its format.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence

from tablebench.core.metric_specs import direction
from tablebench.core.results import ItemResult
from tablebench.gating.rules import LOCATOR_NOTE, Verdict, verdict_of
from tablebench.report.causes import Cause, causes, example, pdf_finder, reproduce, title
from tablebench.report.html_escape import e
from tablebench.report.regressions import HTML_FILE, card_anchor

# a verdict in words, a case's or a parser's gate's: what every report shows and the drill-down's
# "verdict" filter matches (written here only)
PASSED, FAILED = "passed", "failed"
VERDICT_LABELS = {"pass": PASSED, "fail": FAILED, "known": "known failure"}
SHOWN_HTML = 500  # failed cases listed per cause in report.html, and in leaderboard.md (each is a card and in results.json)
MAX_CAUSES = 8  # causes the terminal shows (three lines each at most: the cause, an id, a command)


def failed(results: Iterable[ItemResult]) -> list[tuple[ItemResult, Verdict]]:
    """Every case whose verdict is a failure, with it, in the results' order."""
    return [(r, v) for r in results if (v := verdict_of(r)) is not None and not v.passed]


def verdict_label(r: ItemResult) -> str:
    """'passed' / 'failed' / 'known failure', or 'no verdict' (a results.json from before verdicts)."""
    v = verdict_of(r)
    return VERDICT_LABELS[v.status] if v is not None else "no verdict"


def delta_of(r: ItemResult) -> float | None:
    """The case's change against the baseline on its ranking metric, on a 0-1 scale, negative when it got
    worse (a rise of a lower-is-better metric: `direction`); None without one."""
    change = r.baseline_change
    delta = change.get("delta") if isinstance(change, dict) else None
    if not isinstance(delta, (int, float)) or isinstance(delta, bool) or not math.isfinite(delta):
        return None
    way = direction(str(change.get("metric") or ""))
    return way.gain(0.0, float(delta)) / way.scale


def change_of(r: ItemResult) -> str:
    """The case's verdict against the baseline ("regressed", "improved", "unchanged", "new"), '' without one."""
    change = r.baseline_change
    verdict = change.get("verdict") if isinstance(change, dict) else None
    return verdict if isinstance(verdict, str) else ""


# -- Markdown -------------------------------------------------------------------------------------
def failed_md(results: Sequence[ItemResult], md_text: Callable[[object], str], html_file: str = HTML_FILE,
              meta: Mapping[str, object] | None = None) -> list[str]:
    """The section's lines ([] when nothing failed): a table of causes, then every failed case
    (up to `SHOWN_HTML`) in a collapsed block; `md_text` escapes one table cell."""
    found = causes(results)
    if not found:
        return []
    find_pdf = pdf_finder(meta)
    parts = [f"## {title(found, len(results))}", "",
             f"| parser | cases | {found[0].unit} | cause | first case | reproduce |", "|---|---:|---:|---|---|---|"]
    for cause in found:
        link = f"[{md_text(cause.first.test_id)}]({html_file}#{card_anchor(cause.first.test_id)})"
        command = reproduce(cause, find_pdf)
        parts.append(f"| {md_text(cause.parser)} | {len(cause.cases)} | {len(cause.pages)}/{cause.parser_pages} | "
                     f"{md_text(_reason(cause))} | {link} | {_code(command, md_text) if command else ''} |")
    cases = failed(results)
    parts += ["", f"<details><summary>Every failed case ({len(cases)})</summary>", "",
              "| case | outcome | reasons |", "|---|---|---|"]
    for r, v in cases[:SHOWN_HTML]:
        link = f"[{md_text(r.test_id)}]({html_file}#{card_anchor(r.test_id)})"
        parts.append(f"| {link} | {md_text(r.outcome)} | {md_text(v.message or r.outcome)} |")
    if len(cases) > SHOWN_HTML:
        parts.append(f"\n... and {len(cases) - SHOWN_HTML} more (every case is in results.json and report.html)")
    return parts + ["", "</details>", ""]


def _reason(cause: Cause) -> str:
    """The cause's reason, and that every page failed alike when it did."""
    return f"{cause.reason} ({cause.alike})" if cause.alike else cause.reason


def _code(command: str, md_text: Callable[[object], str]) -> str:
    """A command as inline code in a table cell (GitHub reads an escaped pipe as a pipe there too)."""
    if "`" in command:
        return md_text(command)
    return "`" + command.replace("|", "\\|") + "`"


# -- HTML -----------------------------------------------------------------------------------------
def failed_html(results: Sequence[ItemResult], meta: Mapping[str, object] | None = None) -> str:
    """The section after the leaderboards: one row per cause, sortable; each cause's cases, each
    linked to its card with its own reasons, collapsed in its row."""
    found = causes(results)
    if not found:
        return ""
    find_pdf = pdf_finder(meta)
    rows = []
    for i, cause in enumerate(found):
        command = reproduce(cause, find_pdf)
        shown = cause.cases[:SHOWN_HTML]
        items = "".join(f'<li><a href="#{e(card_anchor(r.test_id))}">{e(r.test_id)}</a> '
                        f'<span class="why">{e(_message(r))}</span></li>' for r in shown)
        more = (f'<li class="note">... and {len(cause.cases) - len(shown)} more: the "failed" filter below '
                "shows every one</li>" if len(cause.cases) > len(shown) else "")
        rerun = f'<p class="note">reproduce: <code>{e(command.removeprefix("reproduce: "))}</code></p>' if command else ""
        rows.append(f'<tr data-rank="{i + 1}"><td class="name">{e(cause.parser)}</td>'
                    f'<td data-v="{len(cause.cases)}">{len(cause.cases)}</td>'
                    f'<td data-v="{len(cause.pages)}">{len(cause.pages)}/{cause.parser_pages}</td>'
                    f'<td class="name cause"><details><summary>{e(_reason(cause))}</summary>{rerun}'
                    f"<ul>{items}{more}</ul></details></td></tr>")
    return (f'<section id="failed"><h2>{e(title(found, len(results)))}</h2>'
            '<p class="note">One row per cause (the same parser, the same reasons but for numbers and names of '
            "one page); open a cause for its cases, each linked to its card. Click a header to sort.</p>"
            '<div class="scroll"><table class="board causes sortable-table"><thead><tr>'
            f'<th data-type="text" class="name">parser</th><th>cases</th><th>{e(found[0].unit)}</th>'
            f'<th data-type="text" class="name">cause</th></tr></thead><tbody>{"".join(rows)}</tbody></table>'
            "</div></section>")


def _message(r: ItemResult) -> str:
    v = verdict_of(r)
    return (v.message if v is not None else "") or r.message or r.outcome


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
def causes_lines(results: Sequence[ItemResult], meta: Mapping[str, object] | None = None,
                 limit: int = MAX_CAUSES) -> tuple[str, list[str]]:
    """(title, lines) of the terminal's section ("", [] when nothing failed): the `limit` causes of
    most cases, each as its line, the id of its first case (paste it after `pytest`) and, for a
    parser that raised, the `tablebench parse` command that reruns it alone; so the section has
    at most 3 * `limit` + 1 lines, however many cases failed."""
    found = causes(results)
    if not found:
        return "", []
    find_pdf = pdf_finder(meta)
    lines = []
    for cause in found[:limit]:
        lines += [cause.line(), f"  e.g. {example(cause)}"]
        command = reproduce(cause, find_pdf)
        if command:
            lines.append(f"  {command}")
    rest = found[limit:]
    if rest:
        lines.append(f"... and {len(rest)} more causes ({sum(len(c.cases) for c in rest)} cases): "
                     "report.html and leaderboard.md list every one")
    head = (f"tablebench failures by cause ({sum(len(c.cases) for c in found)} of {len(results)} cases, "
            f"{len(found)} cause{'s' if len(found) != 1 else ''}; every case: report.html, results.json, junit; "
            "rerun them: pytest --lf)")
    return head, lines


def failed_lines(results: Sequence[ItemResult]) -> list[str]:
    """One line per failed case as pytest's short summary writes it (`FAILED ID - REASONS`, what CI
    logs are searched for), the id whole, the reasons never cut: `--list-failed`."""
    return [f"FAILED {r.test_id} - {v.message or r.outcome}" for r, v in failed(results)]
