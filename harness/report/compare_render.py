"""The comparison of runs (`tablebench.report.compare`) as terminal tables, Markdown and text rows.

Every format shows the same rows: per metric the gate's columns (`regressions.gate_cells`),
then the cases that moved, most worse first. The HTML page is `compare_html`.
"""

from __future__ import annotations

from collections.abc import Sequence

from tablebench.core.markdown_table import markdown_table
from tablebench.core.metric_specs import scale_of
from tablebench.report.compare import CaseDelta, PairReport, Side, card_id
from tablebench.report.regressions import gate_cells

ARROW = "→"  # not "->": Markdown would show its escaped ">"
SHOWN = 20  # cases listed per direction in the terminal and in Markdown


def summary_head(report: PairReport) -> list[str]:
    """The metric table's columns, named by the two sides' letters."""
    a, b = report.a.letter, report.b.letter
    return ["metric", f"mean {a}", f"mean {b}", f"delta {b}-{a}", "CI", "p", "n shared", "verdict"]


def summary_cells(report: PairReport) -> list[list[str]]:
    """One row per metric: SUMMARY_HEAD's columns, from the gate's own row formatting."""
    rows = []
    for c in report.comparisons:
        label, _group, base, run, diff, ci, p, n, verdict = gate_cells(c)
        rows.append([label, base, run, diff, ci, p, n, verdict])
    return rows


def _num(value: object, metric: str, signed: bool = False) -> str:
    if not isinstance(value, (int, float)):
        return "–"
    digits = 2 if scale_of(metric) > 1 else 3
    value = round(value, digits) + 0.0  # no "-0.000"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def case_cells(case: CaseDelta, metrics: Sequence[str]) -> list[str]:
    """A case's row: its id, then per metric "A → B (delta)", then the outcomes ("ok", or "A's → B's")."""
    cells = [case.item]
    for m in metrics:
        a = case.a.scores.get(m) if case.a.outcome == "ok" else 0.0
        b = case.b.scores.get(m) if case.b.outcome == "ok" else 0.0
        cells.append(f"{_num(a, m)} {ARROW} {_num(b, m)} ({_num(case.deltas.get(m), m, signed=True)})")
    outcome = case.a.outcome if case.a.outcome == case.b.outcome else f"{case.a.outcome} {ARROW} {case.b.outcome}"
    return [*cells, outcome]


def moved(report: PairReport, n: int = SHOWN) -> tuple[list[CaseDelta], list[CaseDelta]]:
    """(worse, better): the cases whose first metric got worse / better (`CaseDelta.gain`), most
    moved first, at most `n` each."""
    first = report.metrics[0]
    worse = [c for c in report.cases if c.gain(first) < 0]
    better = [c for c in reversed(report.cases) if c.gain(first) > 0]
    return worse[:n], better[:n]


def header_lines(report: PairReport) -> list[str]:
    """Who is compared with whom, and what each side has that the other lacks."""
    lines = [f"{side.name}" + (f", version {side.version()}" if side.version() else "")
             for side in (report.a, report.b)]
    a, b = report.a.letter, report.b.letter
    lines.append(f"{len(report.cases)} shared cases; {len(report.only_a)} only in {a}, {len(report.only_b)} only in "
                 f"{b}; a case not found counts 0 (as the gate counts it)")
    return lines


def only_lines(report: PairReport, n: int = SHOWN) -> list[str]:
    out = []
    for letter, items in ((report.a.letter, report.only_a), (report.b.letter, report.only_b)):
        if items:
            more = f" (+{len(items) - n} more)" if len(items) > n else ""
            out.append(f"only in {letter}: " + ", ".join(items[:n]) + more)
    return out


# -- terminal -------------------------------------------------------------------------------------
def compare_rich(reports: Sequence[PairReport], n: int = SHOWN):  # -> rich renderable
    """Per compared pair: who, the metric table (red: B significantly worse, green: better), the cases."""
    from rich import box
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    parts: list = []
    for report in reports:
        parts.append(Text(f"compare {report.a.letter} vs {report.b.letter}", style="bold"))
        parts += [Text(line) for line in header_lines(report)]
        table = Table(box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
        for name in summary_head(report):
            table.add_column(name, no_wrap=True)
        for c, cells in zip(report.comparisons, summary_cells(report)):
            style = "red bold" if c.verdict == "regression" else "green" if c.verdict == "improvement" else None
            table.add_row(*(Text(x) for x in cells), style=style)
        parts.append(table)
        worse, better = moved(report, n)
        a, b = report.a.letter, report.b.letter
        first = report.metrics[0]
        for title, cases in ((f"worse in {b}", worse), (f"better in {b}", better)):
            if cases:  # one line per case, its id last and whole (paste it into pytest with a label)
                parts.append(Text(f"{title} ({len(cases)} shown; {first} {a} {ARROW} {b} (delta), outcome, case; "
                                  "every metric in --markdown / --html)"))
                for case in cases:
                    cells = case_cells(case, [first])
                    parts.append(Text(f"  {cells[1]:<24} {cells[2]:<14} {cells[0]}"))
        parts += [Text(line, style="dim") for line in only_lines(report, n)]
        parts.append(Text(""))
    return Group(*parts)


# -- Markdown -------------------------------------------------------------------------------------
def compare_markdown(reports: Sequence[PairReport], html_file: str | None = None, n: int = SHOWN) -> str:
    """The comparison as GitHub Markdown (a PR comment or job summary); cases link to `html_file` cards."""
    from tablebench.report.markdown import md_text

    parts = ["# tablebench compare", ""]
    for report in reports:
        parts += [f"## {md_text(report.a.letter)} vs {md_text(report.b.letter)}", ""]
        parts += [f"- {md_text(line)}" for line in header_lines(report)] + [""]
        rows = []
        for c, cells in zip(report.comparisons, summary_cells(report)):
            cells = [md_text(x) for x in cells]
            if c.verdict in ("regression", "improvement"):
                cells[-1] = f"**{cells[-1]}**"
            rows.append(cells)
        parts += [*markdown_table(summary_head(report), rows).split("\n"), ""]
        head = ["case", *report.metrics, "outcome"]
        worse, better = moved(report, n)
        a, b = report.a.letter, report.b.letter
        for title, cases in ((f"Worse in {b}", worse), (f"Better in {b}", better)):
            if not cases:
                continue
            rows = []
            for case in cases:
                cells = [md_text(x) for x in case_cells(case, report.metrics)]
                if html_file:
                    cells[0] = f"[{cells[0]}]({html_file}#{card_id(case.item)})"
                rows.append(cells)
            parts += [f"### {title} ({len(cases)} shown, {a} {ARROW} {b} (delta))", "",
                      *markdown_table([md_text(h) for h in head], rows).split("\n"), ""]
        parts += [md_text(line) for line in only_lines(report, n)]
        parts.append("")
    return "\n".join(parts).rstrip() + "\n"


def side_names(reports: Sequence[PairReport]) -> list[Side]:
    """Every side once, A first."""
    out = [reports[0].a] if reports else []
    return out + [r.b for r in reports]

