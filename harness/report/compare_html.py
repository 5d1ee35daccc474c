"""The comparison of runs as one self-contained HTML page: summary per metric, cases sorted, a card per case.

The card holds the ground truth and every side's extraction side by side, rendered by the
item kind's own card (`tablebench.core.kinds`: canonical tables re-generated from parsed HTML,
MathML through an allowlist) as report.html renders them. Every other text goes through
`html.escape`; there is no script, and a Content-Security-Policy allows only our own style
(by hash) and no network.
"""

from __future__ import annotations

import base64
import hashlib
import math
from collections.abc import Sequence

from tablebench.core.metric_specs import scale_of
from tablebench.core.results import ItemResult
from tablebench.report import fmt
from tablebench.report.cards import renderer
from tablebench.report.compare import PairReport, card_id
from tablebench.report.compare_render import (
    ARROW,
    case_cells,
    header_lines,
    only_lines,
    side_names,
    summary_cells,
    summary_head,
)
from tablebench.report.html_assets import CSS
from tablebench.report.html_escape import e

EXTRA_CSS = """
.sides.n3 { grid-template-columns: repeat(3, 1fr); } .sides.n4 { grid-template-columns: repeat(4, 1fr); }
.sides.many { grid-template-columns: repeat(auto-fill, minmax(320px, 1fr)); }
table.cases td:first-child, table.cases th:first-child, table.gate td:first-child { text-align: left; }
tr.worse td.d { color: #cf222e; font-weight: 700; } tr.better td.d { color: #1a7f37; font-weight: 700; }
tr.regression td:last-child { color: #cf222e; font-weight: 700; }
tr.improvement td:last-child { color: #1a7f37; font-weight: 700; }
"""
STYLE = CSS + EXTRA_CSS
CARDS = 2000  # cards in one page by default (`--cards`)


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def carded(reports: Sequence[PairReport], limit: int | None = CARDS) -> list[str]:
    """The cases that get a card: all when at most `limit`, else the `limit` that moved most (largest
    change of the first metric, on its 0-1 scale, in any pair), in the first pair's order. Why a
    limit: a card holds every side's table, and a page of tens of thousands of them is too big to open."""
    items = list(dict.fromkeys(c.item for r in reports for c in r.cases))
    if limit is None or len(items) <= limit:
        return items
    moved: dict[str, float] = {}
    for r in reports:
        first = r.metrics[0]
        for c in r.cases:
            d = c.deltas.get(first)
            size = math.inf if c.a.outcome != c.b.outcome else abs(d or 0) / scale_of(first)
            moved[c.item] = max(moved.get(c.item, 0.0), size)
    keep = set(sorted(items, key=lambda i: -moved.get(i, 0.0))[:max(0, limit)])
    return [i for i in items if i in keep]


def compare_html(reports: Sequence[PairReport], cards: int | None = CARDS) -> str:
    """The whole page; `cards` bounds the number of cards (None: every shared case)."""
    sides = side_names(reports)
    shown = carded(reports, cards)
    title = "tablebench compare: " + " vs ".join(s.label for s in sides)
    body = [f"<h1>{e(title)}</h1>", '<ul class="note">']
    body += [f"<li>{e(s.name)}{e(', version ' + s.version() if s.version() else '')}</li>" for s in sides]
    body.append("</ul>")
    for report in reports:
        body.append(_pair_html(report, set(shown)))
    body.append(_cards_html(reports, shown))
    policy = (f"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
              f"style-src '{_sha256(STYLE)}'; base-uri 'none'; form-action 'none'\">")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"{policy}<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{e(title)}</title><style>{STYLE}</style></head><body>{''.join(body)}</body></html>\n")


def _pair_html(report: PairReport, carded: set[str]) -> str:
    out = [f"<section><h2>{e(report.a.letter)} vs {e(report.b.letter)}</h2>"]
    out += [f'<p class="note">{e(line)}</p>' for line in header_lines(report)]
    head = "".join(f"<th>{e(h)}</th>" for h in summary_head(report))
    rows = "".join(f'<tr class="{e(c.verdict.replace(" ", "-"))}">' + "".join(f"<td>{e(x)}</td>" for x in cells)
                   + "</tr>" for c, cells in zip(report.comparisons, summary_cells(report)))
    out.append(f'<div class="scroll"><table class="board gate"><thead><tr>{head}</tr></thead>'
               f"<tbody>{rows}</tbody></table></div>")
    first = report.metrics[0]
    head = "".join(f"<th>{e(h)}</th>" for h in ["case", *(f"{m} {report.a.letter} {ARROW} {report.b.letter} (delta)"
                                                                     for m in report.metrics),
                                                   "outcome"])
    rows = []
    for case in report.cases:
        gain = case.gain(first)
        cls = "worse" if gain < 0 else "better" if gain > 0 else ""
        cells = case_cells(case, report.metrics)
        link = f'<a href="#{e(card_id(case.item))}">{e(cells[0])}</a>' if case.item in carded else e(cells[0])
        rest = "".join(f'<td class="d">{e(x)}</td>' for x in cells[1:-1]) + f"<td>{e(cells[-1])}</td>"
        rows.append(f'<tr class="{cls}"><td class="name">{link}</td>{rest}</tr>')
    out.append(f"<h3>Cases, most worse in {e(report.b.letter)} first ({len(report.cases)})</h3>"
               f'<div class="scroll"><table class="board cases"><thead><tr>{head}</tr></thead>'
               f'<tbody>{"".join(rows)}</tbody></table></div>')
    out += [f'<p class="note">{e(line)}</p>' for line in only_lines(report, n=10**9)]
    return "".join(out) + "</section>"


def _cards_html(reports: Sequence[PairReport], items: Sequence[str]) -> str:
    """A card per case of `items` (in the first pair's order: most worse first), each side's extraction."""
    sides = side_names(reports)
    by_side = [{c.item: c.a for r in reports for c in r.cases if r.a is side} |
               {c.item: c.b for r in reports for c in r.cases if r.b is side} for side in sides]
    total = len({c.item for r in reports for c in r.cases})
    gt_cache: dict[str, str] = {}
    out = [f"<section><h2>Cases side by side ({len(items)})</h2>"]
    if len(items) < total:
        out.append(f'<p class="note">cards for the {len(items)} cases that moved most, of {total} shared '
                   "(--cards N for more)</p>")
    for item in items:
        present = [(side, found[item]) for side, found in zip(sides, by_side) if item in found]
        out.append(_card(item, present, gt_cache))
    return "".join(out) + "</section>"


def _card(item: str, present: Sequence[tuple[object, ItemResult]], gt_cache: dict[str, str]) -> str:
    first = present[0][1]
    sides = renderer(first.kind)
    gt, _ = sides(first, gt_cache)
    columns = [f'<div class="side"><h4>ground truth</h4>{gt}</div>']
    for side, r in present:
        _, pred = sides(r, gt_cache)
        scores = " · ".join(f"<b>{e(k)}</b> {e(fmt.score(v, k))}" for k, v in r.scores.items()
                            if isinstance(v, (int, float)))
        message = f'<p class="message">{e(r.message)}</p>' if r.message else ""
        columns.append(f'<div class="side"><h4>{e(side.letter)}: {e(side.label)}</h4>'
                       f'<span class="badge o-{e(r.outcome)}">{e(r.outcome)}</span> '
                       f'<span class="scores">{scores}</span>{message}{pred}</div>')
    n = len(columns)
    grid = f"n{n}" if n in (3, 4) else "many" if n > 4 else ""
    return (f'<article class="case" id="{e(card_id(item))}"><header>'
            f'<a class="id" href="#{e(card_id(item))}">{e(item)}</a>'
            f'<span class="cx">{e(first.group)}</span></header>'
            f'<div class="sides {grid}">{"".join(columns)}</div></article>')
