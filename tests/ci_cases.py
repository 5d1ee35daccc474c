"""Small case sets and synthetic parsers for the CI tests (gate, shards, repeats, remote workers).

The pages come from the committed `cases/synth-v1` (no ../shared needed), copied into a
pdf-parse-bench folder so the subset needs no manifest. The "parsers" are `dir:` folders whose
pages hold the ground-truth tables as HTML, changed in controlled ways:

- `exact`: every table as it is;
- `shifted`: one character changed in one cell of every table (a small constant loss);
- `noisy(seed)`: each table independently keeps 0-3 of its cells replaced, drawn from a
  seeded generator per (seed, page, table): a stochastic parser, same distribution per seed.
"""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SYNTH = REPO / "cases" / "synth-v1"
_CELL = re.compile(r"(<t[dh][^>]*>)([^<]+)(</t[dh]>)")


def case_set(dest: Path, pages: int) -> Path:
    """The first `pages` pages of synth-v1 as a pdf-parse-bench folder (pdfs/ + ground_truth/)."""
    for sub in ("pdfs", "ground_truth"):
        (dest / sub).mkdir(parents=True, exist_ok=True)
    for i in range(1, pages + 1):
        shutil.copy(SYNTH / f"{i:03d}.pdf", dest / "pdfs" / f"{i:03d}.pdf")
        shutil.copy(SYNTH / f"{i:03d}.json", dest / "ground_truth" / f"{i:03d}.json")
    return dest


def write_pages(folder: Path, cases: Path, change=None) -> Path:
    """One Markdown page per PDF with every ground-truth table as HTML, each passed through
    `change(page_id, table_index, html) -> html` when given."""
    from tablebench.cases import load_case_set

    folder.mkdir(parents=True, exist_ok=True)
    for page in load_case_set(cases).pages:
        parts = []
        for t in page.tables:
            html = t.table.to_html()
            if change is not None:
                html = change(page.page_id, t.index, html)
            parts.append(f"Paragraph before table {t.index}.\n\n{html}\n")
        (folder / f"{page.pdf.stem}.md").write_text("\n".join(parts), encoding="utf-8")
    return folder


def shift_one_char(page: str, index: int, html: str) -> str:
    """One character of the last cell with at least 4 characters changed: a small loss per table."""
    cells = [m for m in _CELL.finditer(html) if len(m.group(2).strip()) >= 4]
    if not cells:
        return html
    m = cells[-1]
    text = m.group(2)
    text = text[:-1] + ("q" if text[-1] != "q" else "z")
    return html[:m.start(2)] + text + html[m.end(2):]


def noisy(seed: int):
    """A change function replacing 0-3 random cells per table with '###', seeded per (seed, page, table)."""

    def change(page: str, index: int, html: str) -> str:
        rng = random.Random(f"{seed}/{page}/{index}")
        cells = list(_CELL.finditer(html))
        hit = set(rng.sample(range(len(cells)), min(len(cells), rng.randint(0, 3))))
        out, last = [], 0
        for i, m in enumerate(cells):
            if i in hit:
                out += [html[last:m.start(2)], "###"]
                last = m.end(2)
        return "".join(out) + html[last:]

    return change


def bench_args(cases: Path, tmp_path: Path, *parsers: str, report: Path | None = None) -> list[str]:
    """The options of a small benchmark run of `cases` scored by TEDS alone, each parser spec
    (`label=dir:FOLDER`) its own `--parser`, the parse cache and the report under `tmp_path`."""
    return [f"--cases={cases}", *(f"--parser={p}" for p in parsers), "--metrics=teds", "-p", "no:cacheprovider",
            f"--parse-cache={tmp_path / 'cache'}", f"--report-dir={report or tmp_path / 'report'}"]
