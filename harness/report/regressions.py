"""The "Regressions" section of every report: the gate's verdicts as a table and the cases that moved most.

Why one module: leaderboard.md, report.html and `tablebench report RUN` must say the same
thing, from the same data: the gate's comparisons (`tablebench.gating.aggregate.Comparison`)
and each case's change against the baseline, which the gate keeps on each result
(`ItemResult.baseline_change`, `tablebench.gating.decide`). Cases link to their card in
report.html by `card_anchor`. Everything shown is escaped by the renderer of its format.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from tablebench.core.markdown_table import markdown_table
from tablebench.core.metric_specs import scale_of
from tablebench.core.results import ItemResult
from tablebench.gating.aggregate import Comparison, p_text
from tablebench.gating.regressions import VERDICTS
from tablebench.report.html_escape import e

SHOWN = 10  # cases listed as most regressed / most improved
HTML_FILE = "report.html"
GATE_HEAD = ("metric", "parser", "baseline", "now", "delta", "CI", "p", "n", "verdict")
CASE_HEAD = ("case", "metric", "baseline", "now", "delta", "outcome")


def card_anchor(test_id: str) -> str:
    """The id of a case's card in report.html: readable, URL-safe, unique (a hash of the whole id)."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", test_id).strip("-")[:80]
    return f"c-{slug}-{hashlib.sha1(test_id.encode('utf-8')).hexdigest()[:8]}"


@dataclass
class RegressionView:
    """A run against its baseline: the gate rows and every case's change."""

    comparisons: list[Comparison] = field(default_factory=list)
    changes: list[tuple[ItemResult, dict]] = field(default_factory=list)  # cases with a baseline verdict
    baseline: str | None = None  # the baseline file, as given

    @classmethod
    def of(cls, results: Sequence[ItemResult], comparisons: Sequence[Comparison] = (),
           baseline: object = None) -> RegressionView | None:
        """None when the run had neither a baseline nor a gate: nothing to show."""
        changes = [(r, r.baseline_change) for r in results
                   if isinstance(r.baseline_change, dict) and r.baseline_change.get("verdict") in VERDICTS]
        if not changes and not comparisons:
            return None
        return cls(list(comparisons), changes, str(baseline) if baseline else None)

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(VERDICTS, 0)
        for _, change in self.changes:
            out[change["verdict"]] += 1
        return out

    def moved(self, verdict: str, n: int = SHOWN) -> list[tuple[ItemResult, dict]]:
        """The `n` cases of `verdict` that moved most (on their metric's 0-1 scale), in that order."""
        chosen = [(r, c) for r, c in self.changes if c["verdict"] == verdict]
        sign = 1 if verdict == "regressed" else -1
        return sorted(chosen, key=lambda rc: sign * _relative(rc[1]))[:n]

    def summary(self) -> str:
        counts = self.counts()
        against = f" against {self.baseline}" if self.baseline else ""
        return f"{len(self.changes)} cases{against}: " + ", ".join(f"{n} {v}" for v, n in counts.items())


def _relative(change: dict) -> float:
    delta = change.get("delta")
    if not isinstance(delta, (int, float)) or not math.isfinite(delta):
        return -math.inf if change.get("verdict") == "regressed" else math.inf  # lost / found: first
    return delta / scale_of(change.get("metric") or "")


def gate_cells(c: Comparison) -> list[str]:
    """One gate row as text: GATE_HEAD's columns."""
    digits = 3 if c.min_effect < 0.5 else 2
    num = (lambda v: "–" if v is None else f"{v:.{digits}f}")
    signed = (lambda v: "–" if v is None else f"{v:+.{digits}f}")
    ci = "–" if c.ci_low is None else f"{signed(c.ci_low)}..{signed(c.ci_high)}"
    p = "–" if c.p_shown is None else p_text(c.p_shown)
    label = c.label + ("" if c.gating else " (not gated)")
    return [label, c.group, num(c.base_mean), num(c.run_mean), signed(c.diff), ci, p, str(c.n), c.shown_verdict]


def case_cells(r: ItemResult, change: dict) -> list[str]:
    """One case row as text: CASE_HEAD's columns after the case id."""
    metric = change.get("metric") or ""
    digits = 2 if scale_of(metric) > 1 else 3
    num = (lambda v: "–" if not isinstance(v, (int, float)) else f"{v:.{digits}f}")
    delta = change.get("delta")
    outcome = r.outcome if change.get("baseline_outcome", "ok") == r.outcome else \
        f"{change.get('baseline_outcome')} -> {r.outcome}"
    return [metric, num(change.get("baseline")), num(change.get("now")),
            "–" if not isinstance(delta, (int, float)) else f"{delta:+.{digits}f}", outcome]


def _ordered_gates(view: RegressionView) -> list[Comparison]:
    return sorted(view.comparisons, key=lambda c: not c.gating)


# -- Markdown -------------------------------------------------------------------------------------
def regressions_md(view: RegressionView, md_text, html_file: str = HTML_FILE) -> list[str]:
    """The section's lines; `md_text` escapes one table cell (tablebench.report.markdown.md_text)."""
    parts = ["## Regressions", "", md_text(view.summary()), ""]
    if view.comparisons:
        rows = []
        for c in _ordered_gates(view):
            cells = [md_text(x) for x in gate_cells(c)]
            if c.failed:
                cells[-1] = f"**{cells[-1]}**"
            rows.append(cells)
        parts += [*markdown_table(GATE_HEAD, rows).split("\n"), ""]
    for verdict, title in (("regressed", "Most regressed"), ("improved", "Most improved")):
        moved = view.moved(verdict)
        if not moved:
            continue
        rows = [[f"[{md_text(r.test_id)}]({html_file}#{card_anchor(r.test_id)})",
                 *(md_text(x) for x in case_cells(r, change))] for r, change in moved]
        parts += [f"### {title} ({len(moved)} of {view.counts()[verdict]})", "",
                  *markdown_table(CASE_HEAD, rows).split("\n"), ""]
    return parts


# -- HTML -----------------------------------------------------------------------------------------
def regressions_html(view: RegressionView) -> str:
    """The section at the top of report.html: coloured gate verdicts, the cases that moved most, each
    linked to its card."""
    out = ['<section id="regressions"><h2>Regressions</h2>', f'<p class="note">{e(view.summary())}</p>']
    if view.comparisons:
        head = "".join(f"<th>{e(h)}</th>" for h in GATE_HEAD)
        rows = []
        for c in _ordered_gates(view):
            cls = "v-fail" if c.failed else "v-up" if c.verdict == "improvement" else \
                "v-info" if not c.gating else "v-pass"
            cells = "".join(f"<td>{e(x)}</td>" for x in gate_cells(c))
            rows.append(f'<tr class="{cls}">{cells}</tr>')
        out.append(f'<div class="scroll"><table class="board gate"><thead><tr>{head}</tr></thead>'
                   f'<tbody>{"".join(rows)}</tbody></table></div>')
    for verdict, title in (("regressed", "Most regressed"), ("improved", "Most improved")):
        moved = view.moved(verdict)
        if not moved:
            continue
        head = "".join(f"<th>{e(h)}</th>" for h in CASE_HEAD)
        rows = []
        for r, change in moved:
            link = f'<a href="#{e(card_anchor(r.test_id))}">{e(r.test_id)}</a>'
            cells = "".join(f"<td>{e(x)}</td>" for x in case_cells(r, change))
            rows.append(f'<tr class="v-{e(verdict)}"><td class="name">{link}</td>{cells}</tr>')
        out.append(f"<h3>{e(title)} ({len(moved)} of {view.counts()[verdict]})</h3>"
                   f'<div class="scroll"><table class="board moved"><thead><tr>{head}</tr></thead>'
                   f'<tbody>{"".join(rows)}</tbody></table></div>')
    return "".join(out) + "</section>"


def change_badge(change: object) -> str:
    """A card header's note of its change against the baseline ('' without one)."""
    if not isinstance(change, dict) or change.get("verdict") not in VERDICTS:
        return ""
    metric = change.get("metric") or ""
    delta = change.get("delta")
    text = change["verdict"]
    if isinstance(delta, (int, float)) and isinstance(change.get("baseline"), (int, float)):
        digits = 2 if scale_of(metric) > 1 else 3
        old, now = change["baseline"], change.get("now") or 0.0
        text += f": {metric} {old:.{digits}f} → {now:.{digits}f} ({delta:+.{digits}f})"
    return f'<span class="badge v-{e(change["verdict"])}">{e(text)}</span>'


# -- terminal -------------------------------------------------------------------------------------
def regressions_rich(view: RegressionView, html_path: str | None = None):  # -> rich renderable
    """The section for `tablebench report RUN`: the gate as a compact table (breakdown rows dimmed),
    then one line per case that moved most, its id last and whole (paste it into pytest)."""
    from rich import box
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    parts: list = [Text("Regressions", style="bold"), Text(view.summary())]
    if view.comparisons:
        groups = list(dict.fromkeys(c.group for c in view.comparisons))
        keep = [i for i, name in enumerate(GATE_HEAD) if name != "parser" or len(groups) > 1]
        title = "gate" + (f" [{groups[0]}]" if len(groups) == 1 else "") + " (dim: breakdowns, not gated)"
        table = Table(box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True, title=Text(title),
                      title_justify="left")
        for i in keep:
            table.add_column(GATE_HEAD[i], overflow="fold", no_wrap=GATE_HEAD[i] not in ("metric", "parser"))
        for c in _ordered_gates(view):
            style = "red bold" if c.failed else "green" if c.verdict == "improvement" else None if c.gating else "dim"
            cells = gate_cells(c)
            cells[0] = c.label
            table.add_row(*(Text(cells[i]) for i in keep), style=style)
        parts.append(table)
    for verdict, title in (("regressed", "most regressed"), ("improved", "most improved")):
        moved = view.moved(verdict)
        if moved:
            parts.append(Text(f"{title} ({len(moved)} of {view.counts()[verdict]}): delta, metric baseline -> now, "
                              f"case{' (linked to its card in ' + html_path + ')' if html_path else ''}"))
            for r, change in moved:
                metric, old, new, delta, outcome = case_cells(r, change)
                link = f"link file://{html_path}#{card_anchor(r.test_id)}" if html_path else ""
                line = Text(f"  {delta:>7}  {metric} {old} -> {new}  ")
                line.append(r.test_id, style=link)
                if outcome != r.outcome or outcome != "ok":
                    line.append(f"  ({outcome})")
                parts.append(line)
    return Group(*parts)
