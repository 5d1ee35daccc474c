"""The run header's line about the case set: what is run (cases, and for documents their PDF pages;
items per kind) and whether its files were verified against the manifest."""

from __future__ import annotations

from tablebench.cases import CaseSet
from tablebench.cases.manifest import named
from tablebench.core import kinds as item_kinds
from tablebench.core.results import case_unit


def case_set_line(cases: CaseSet, verified: bool) -> str:
    """'tablebench: case set NAME: 30 documents on 94 PDF pages, 66 tables; files match ...'."""
    run = [p for p in cases.pages if p.n_items]
    unit = case_unit(p.pdf_pages for p in run)
    pdf_pages = f" on {sum(p.pdf_pages for p in run)} PDF pages" if unit != "pages" else ""
    check = ("files match manifest.json (sha256)" if verified else
             "NOT VERIFIED against manifest.json (--no-verify)" if cases.kind == "tablebench" else
             "no manifest to verify (pdf-parse-bench folder)")
    if cases.unlisted:  # found when verified
        check += f"; not in it, never read: {named(cases.unlisted)}"
    counts = ", ".join(f"{cases.count(k)} {item_kinds.get(k).title}" for k in cases.kinds)
    return f"tablebench: case set {cases.name}: {len(run)} {unit}{pdf_pages}, {counts or '0 tables'}; {check}"
