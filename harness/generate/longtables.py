"""Long tables for documents longer than a page: a `longtable` whose header is repeated on each
page it continues on, deterministic from a seed.

Why apart from `tables.py`: those tables are boxed and must fit one column of one page; these
are meant to break across pages, so they are written for the `longtable` package (one column,
the whole text width, never scaled) with `\\endfirsthead` / `\\endhead`. Their rows are plain
(an identifier, names, numbers, no spanning cell in the body), because the page builder puts an
invisible marker at the start of each body row to learn on which page the row landed.

Two kinds: a sweep of runs (model x dataset, two to four metrics; `moderate` groups the metrics
under "Validation" / "Test") and per-sample measurements (material, two to four quantities).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tablebench.generate import vocab
from tablebench.generate.tables import _Rules

LONG_COMPLEXITIES = ("simple", "moderate")  # a long table's header is one row or two levels


@dataclass(frozen=True, slots=True)
class LongTable:
    """One long table: its column spec, header lines (rules and the header rows, as written in
    the first head and again in the continued head) and body rows (cells of plain LaTeX)."""

    spec: str
    head: tuple[str, ...]
    body: tuple[tuple[str, ...], ...]
    end: str  # the line closing the body (a bottom rule; "" in grid style, whose rows close themselves)
    row_end: str  # what follows `\\` on each body row (`\hline` in grid style)
    complexity: str
    kind: str
    source: str = "builtin"

    @property
    def latex(self) -> str:
        """The table as the ground truth records it: no markers."""
        return self.render()

    def render(self, bid: str | None = None) -> str:
        """The `longtable` source; with a block id `bid`, the first head's first cell and each
        body row's first cell open with a marker (`\\tbhead{bid}`, `\\tbrow{bid}r<k>`) that writes
        its page and position to the log at shipout. The repeated head carries none, so each
        marker is written once."""
        first_row = next(i for i, line in enumerate(self.head) if "&" in line)
        marked_head = [(rf"\tbhead{{{bid}}}" + line if bid is not None and i == first_row else line)
                       for i, line in enumerate(self.head)]
        lines = [rf"\begin{{longtable}}{{{self.spec}}}", *marked_head, r"\endfirsthead", *self.head, r"\endhead"]
        for k, cells in enumerate(self.body):
            mark = rf"\tbrow{{{bid}r{k}}}" if bid is not None else ""
            lines.append(mark + " & ".join(cells) + r" \\" + (f" {self.row_end}" if self.row_end else ""))
        if self.end:
            lines.append(self.end)
        lines.append(r"\end{longtable}")
        return "\n".join(lines)


def generate_long_table(seed: int, n_rows: int, complexity: str = "simple") -> LongTable:
    """A long table of `n_rows` body rows and class `complexity` (simple | moderate) from `seed`."""
    if complexity not in LONG_COMPLEXITIES:
        raise ValueError(f"a long table is {' or '.join(LONG_COMPLEXITIES)}, not {complexity!r}")
    if n_rows < 2:
        raise ValueError(f"a long table needs at least 2 rows, got {n_rows}")
    rng = np.random.default_rng([int(seed), 0x10E6])
    rules = _Rules(str(rng.choice(["booktabs", "hline", "grid"], p=[0.6, 0.25, 0.15])))
    if rng.random() < 0.6:
        return _runs(rng, rules, n_rows, complexity)
    return _samples(rng, rules, n_rows, complexity)


def _row(rules: _Rules, cells: list[str]) -> str:
    return " & ".join(cells) + r" \\" + (r" \hline" if rules.grid else "")


def _frame(rules: _Rules, head_rows: list[str]) -> tuple[list[str], str, str]:
    """Header lines with the style's rules, the line closing the body and each body row's end."""
    if rules.grid:
        return [r"\hline", *head_rows], "", r"\hline"
    return [rules.top, *head_rows, rules.mid], rules.bottom, ""


def _value(rng: np.random.Generator, lo: float, hi: float, dec: int) -> str:
    v = float(rng.uniform(lo, hi))
    s = f"{v:.{dec}f}"
    return f"${s}$" if s.startswith("-") else s


def _runs(rng: np.random.Generator, rules: _Rules, n_rows: int, complexity: str) -> LongTable:
    """A sweep: one row per run (identifier, model, dataset), metric columns."""
    n_metrics = int(rng.integers(2, 4)) if complexity == "simple" else 2
    metrics = [vocab.METRICS[i] for i in rng.choice(len(vocab.METRICS), size=n_metrics, replace=False)]
    models = [vocab.METHODS[i] for i in rng.choice(len(vocab.METHODS), size=8, replace=False)]
    sets = [vocab.DATASETS[i] for i in rng.choice(len(vocab.DATASETS), size=6, replace=False)]
    prefix = str(rng.choice(["R", "Run ", "E", "#"]))
    names = [m[0] for m in metrics]
    groups = 1 if complexity == "simple" else 2
    body = []
    for k in range(n_rows):
        cells = [f"{prefix}{k + 1:02d}".replace("#", r"\#"), models[int(rng.integers(len(models)))],
                 sets[int(rng.integers(len(sets)))]]
        for _ in range(groups):
            cells += [_value(rng, lo, hi, dec) for _, lo, hi, dec, *_ in metrics]
        body.append(tuple(cells))
    align = str(rng.choice(["c", "r"]))
    bar = "|" if rules.grid else ""
    spec = bar + bar.join("lll" + align * (n_metrics * groups)) + bar
    if complexity == "simple":
        head_rows = [_row(rules, ["Run", "Model", "Dataset", *names])]
    else:
        over = [rf"\multicolumn{{{n_metrics}}}{{c{bar}}}{{{g}}}" for g in ("Validation", "Test")]
        parts = " ".join(rf"\cmidrule(lr){{{4 + i * n_metrics}-{3 + (i + 1) * n_metrics}}}" for i in range(2))
        first = " & ".join(["", "", "", *over]) + r" \\"
        head_rows = [first + (rf" \cline{{4-{3 + 2 * n_metrics}}}" if rules.grid else ""),
                     *([] if rules.grid or rules.style == "hline" else [parts]),
                     _row(rules, ["Run", "Model", "Dataset", *names, *names])]
        if rules.style == "hline":
            head_rows[0] = first + rf" \cline{{4-{3 + 2 * n_metrics}}}"
    head, end, row_end = _frame(rules, head_rows)
    return LongTable(spec, tuple(head), tuple(body), end, row_end, complexity, "runs")


def _samples(rng: np.random.Generator, rules: _Rules, n_rows: int, complexity: str) -> LongTable:
    """Per-sample measurements: one row per sample (identifier, material), quantity columns."""
    n_q = int(rng.integers(2, 5)) if complexity == "simple" else 2
    qs = [vocab.QUANTITIES[i] for i in rng.choice(len(vocab.QUANTITIES), size=n_q, replace=False)]
    groups = 1 if complexity == "simple" else 2
    body = []
    for k in range(n_rows):
        cells = [f"S-{k + 1:03d}", vocab.SAMPLES[int(rng.integers(len(vocab.SAMPLES)))]]
        for _ in range(groups):
            cells += [_value(rng, lo, hi, dec) for _, lo, hi, dec in qs]
        body.append(tuple(cells))
    bar = "|" if rules.grid else ""
    spec = bar + bar.join("ll" + "r" * (n_q * groups)) + bar
    names = [q[0] for q in qs]
    if complexity == "simple":
        head_rows = [_row(rules, ["Sample", "Material", *names])]
    else:
        over = [rf"\multicolumn{{{n_q}}}{{c{bar}}}{{{c}}}" for c in ("300 K", "77 K")]
        first = " & ".join(["", "", *over]) + r" \\"
        rule = (rf"\cmidrule(lr){{3-{2 + n_q}}} \cmidrule(lr){{{3 + n_q}-{2 + 2 * n_q}}}" if rules.style == "booktabs"
                else rf"\cline{{3-{2 + 2 * n_q}}}")
        head_rows = [first + " " + rule if rules.style != "booktabs" else first,
                     *([rule] if rules.style == "booktabs" else []),
                     _row(rules, ["Sample", "Material", *names, *names])]
    head, end, row_end = _frame(rules, head_rows)
    return LongTable(spec, tuple(head), tuple(body), end, row_end, complexity, "samples")
