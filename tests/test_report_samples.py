"""Realistic synthetic benchmark results for the report tests (and hostile variants of them).

`sample_results()` builds what a run of several parsers over a generated case set yields:
real `Table`s for ground truth and extraction (canonical HTML, the matched Markdown text),
every outcome, per-parser quality levels, page times and costs. Scores are drawn, not
computed, so building 180 results takes milliseconds; the report only reads them.
"""

from __future__ import annotations

import random

from tablebench.core.results import CELL_DIFF, OUTCOMES, ItemResult
from tablebench.core.table import Table
from tablebench.metrics.tables.semantic import semantic_details
from tablebench.readers.html import table_from_html

PAYLOADS = (
    "<script>alert(1)</script>",
    "<img src=x onerror=\"document.title='pwned'\">",
    "</script><script>document.title='pwned'</script>",
    "javascript:alert(1)",
    "<a href=\"javascript:document.title='pwned'\">x</a>",
    "\u2028\u2029 & <!-- --> ]]>",
)
RAW_HOSTILE_HTML = ("<table><tr><td onclick=\"document.title='pwned'\">a<img src=x onerror=\"document.title="
                    "'pwned'\"></td><td><a href=\"javascript:document.title='pwned'\">b</a></td></tr></table>"
                    "<script>document.title='pwned'</script>")
_WORDS = ("Model", "Dataset", "Accuracy", "F1", "Params", "Latency", "Baseline", "Ours", "ResNet-50",
          "BERT-base", "CIFAR-10", "ImageNet", "Recall", "Top-1", "Epochs", "µm", "α = 0.5")
_PARSERS = {"pymupdf4llm": (0.85, 0.1, 0.02), "pdfplumber": (0.55, 0.35, 0.0), "vlm:gpt-x": (0.75, 0.05, 0.004)}
_COMPLEXITY = ("simple", "moderate", "complex")


def sample_results(n_pages: int = 20, tables_per_page: int = 3, seed: int = 0,
                   payloads: bool = False) -> list[ItemResult]:
    """n_pages * tables_per_page ground-truth tables, each parsed by three parsers."""
    rng = random.Random(seed)
    gts = [(f"p{p:03d}", t, _COMPLEXITY[(p + t) % 3], _gt_table(rng, (p + t) % 3, payloads and p == 0))
           for p in range(n_pages) for t in range(tables_per_page)]
    out: list[ItemResult] = []
    for parser, (quality, p_missing, cost) in _PARSERS.items():
        name = parser + ("</script><b>x" if payloads and parser == "pdfplumber" else "")
        page_seconds = {page: round(rng.uniform(0.2, 2.5), 3) for page, *_ in gts}
        failed_pages = {f"p{k:03d}": o for k, o in ((1, "parse_error"), (n_pages // 2, "timeout"),
                                                     (n_pages - 1, "empty"))}
        for i, (page, t, complexity, gt) in enumerate(gts):
            outcome = failed_pages.get(page) if parser != "pymupdf4llm" or i < 10 else None
            if outcome is None:
                outcome = "missing" if rng.random() < p_missing else "ok"
            if (page, t) == ("p002", 2):
                outcome = "error"  # e.g. ground truth the harness cannot read: a case all the same
            out.append(_result(rng, name, page, t, complexity, gt, outcome, quality, page_seconds[page],
                               cost, payloads and i < 3))
    _page_outputs(out)
    return out


def _page_outputs(results: list[ItemResult]) -> None:
    """Each parsed page's whole output on its first result (as evaluation stores it), holding
    every matched text at its span (moved on when the text before it runs past its start)."""
    pages: dict[tuple[str, str], list[ItemResult]] = {}
    for r in results:
        pages.setdefault((r.parser, r.page), []).append(r)
    for rs in pages.values():
        if any(r.outcome in ("parse_error", "timeout", "empty") for r in rs):
            continue
        text = "# page\n"
        for r in rs:
            if r.matched_text is None:
                continue
            text += "lorem ipsum " * max(0, (r.matched_span[0] - len(text)) // 12) + "\n"
            r.matched_span = [len(text), len(text) + len(r.matched_text)]
            text += r.matched_text + "\n"
        rs[0].page_output = text + "the end\n"


def _gt_table(rng: random.Random, level: int, hostile: bool) -> Table:
    n_rows, n_cols = 3 + 2 * level + rng.randrange(3), 3 + level + rng.randrange(2)
    rows = [[rng.choice(_WORDS) for _ in range(n_cols)]]
    rows += [[rng.choice(_WORDS)] + [f"{rng.uniform(0, 100):.1f}" for _ in range(n_cols - 1)]
             for _ in range(n_rows - 1)]
    if hostile:
        rows[1][1:1 + len(PAYLOADS)] = list(PAYLOADS)[: n_cols - 1]
    table = Table.from_rows(rows, header_rows=1)
    if level == 2:  # a spanning header cell, as complex tables have
        first = table.rows[0]
        first[1].colspan = 2
        del first[2]
    return table


def _result(rng: random.Random, parser: str, page: str, t: int, complexity: str, gt: Table, outcome: str,
            quality: float, seconds: float, cost: float, hostile: bool) -> ItemResult:
    r = ItemResult(parser=parser, case_set="synth-demo", page=page, index=t, group=complexity,
                    outcome=outcome, gt_latex=_latex(gt), gt_html=gt.to_html(), parse_seconds=seconds,
                    cost=cost)
    if outcome == "ok":
        pred = _perturb(rng, gt, quality)
        r.pred_html = pred.to_html()
        r.matched_text = _markdown(pred) + ("\n" + " ".join(PAYLOADS) if hostile else "")
        r.matched_span = [1000 * t, 1000 * t + len(r.matched_text)]
        r.locate_score = round(rng.uniform(0.6, 1.0), 3)
        base = min(1.0, max(0.0, rng.gauss(quality, 0.2)))
        exact = rng.random() < quality / 3
        teds = 1.0 if exact else round(base, 4)
        r.evidence[CELL_DIFF] = semantic_details(gt, pred).diff
        r.scores = {"teds": teds, "teds_struct": 1.0 if exact else round(min(1.0, base + 0.1), 4),
                    "grits_con": 1.0 if exact else round(base * 0.95, 4),
                    "grits_top": 1.0 if exact else round(min(1.0, base + 0.05), 4),
                    "tlag": 1.0 if exact else round(base * 0.9, 4),
                    "semantic": 10.0 if exact else float(round(base * 10))}
        if r.scores["semantic"] < 10:
            r.errors = ["a value under (row 1, col 2) read as 1.0"]
        if hostile:
            r.errors = [f"value {PAYLOADS[0]} missing"]
            r.message = "locator noticed " + PAYLOADS[1]
            r.pred_html = RAW_HOSTILE_HTML  # raw markup, as a careless adapter might store it
    else:
        r.message = {"missing": "no candidate above the locate threshold 0.35",
                     "parse_error": "RuntimeError: cannot open PDF " + (PAYLOADS[0] if hostile else ""),
                     "timeout": "parser exceeded 60 s", "empty": "the parser returned no text",
                     "error": "error: ground truth unreadable (NoTableError: no tabular)"}[outcome]
    return r


def _perturb(rng: random.Random, gt: Table, quality: float) -> Table:
    grid = [[c.text for c in row] for row in gt.rows]
    for row in grid[1:]:
        for j in range(len(row)):
            if rng.random() > quality:
                row[j] = row[j][:-1] if len(row[j]) > 2 else ""
    if rng.random() > quality and len(grid) > 3:
        del grid[rng.randrange(1, len(grid))]
    return Table.from_rows(grid, header_rows=1)


def _markdown(table: Table) -> str:
    rows = [[c.text for c in row] for row in table.rows]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows[1:]])


def _latex(table: Table) -> str:
    body = " \\\\\n".join(" & ".join(c.text for c in row) for row in table.rows)
    return "\\begin{tabular}{" + "l" * table.shape[1] + "}\n" + body + "\n\\end{tabular}"


def test_samples_cover_every_outcome_and_complexity() -> None:
    results = sample_results()
    assert len(results) == 180 and len({r.parser for r in results}) == 3
    assert {r.outcome for r in results} == set(OUTCOMES)
    assert {r.group for r in results} == set(_COMPLEXITY)
    assert all(table_from_html(r.pred_html).rows for r in results if r.outcome == "ok")


def test_hostile_samples_carry_every_payload() -> None:
    results = sample_results(payloads=True)
    cell_texts = " ".join(c.text for r in results for c in table_from_html(r.gt_html).cells())
    matched = " ".join(r.matched_text or "" for r in results)
    for payload in PAYLOADS:
        assert payload in cell_texts or payload in matched
    assert sum(r.pred_html == RAW_HOSTILE_HTML for r in results) > 0
    assert any("</script>" in r.parser for r in results)
