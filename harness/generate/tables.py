"""Built-in generator of realistic scientific tables in LaTeX, deterministic from a seed.

Three classes, as the benchmark scores them:
- simple: a regular grid (results, hyper-parameters, dataset statistics, measurements, ablations);
- moderate: one kind of merging (a two-level header, or `\\multirow` row groups, or section rows);
- complex: multi-level headers (`\\multicolumn` + `\\cmidrule`/`\\cline`) together with grouped
  rows, nested groups or three header levels.
Content follows real results tables: bold best and underlined second best per column (in the
metric's direction), ± values, arrows, percentages, Greek and math, dashes for missing values,
footnote marks, booktabs / `\\hline` / `|`-ruled styles.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tablebench.cases import COMPLEXITIES
from tablebench.generate import vocab


@dataclass(frozen=True, slots=True)
class GeneratedTable:
    """One table of the pool: its LaTeX `tabular`, class, origin and generator kind."""

    latex: str
    complexity: str
    source: str = "builtin"
    kind: str = ""


class _Rules:
    """Rule commands and column specs for one of three ruling styles."""

    def __init__(self, style: str) -> None:
        self.style = style
        bt = style == "booktabs"
        self.top = r"\toprule" if bt else r"\hline"
        self.mid = r"\midrule" if bt else r"\hline"
        self.bottom = r"\bottomrule" if bt else r"\hline"
        self.grid = style == "grid"

    def part(self, a: int, b: int) -> str:
        """A partial rule under columns a..b (1-based, inclusive)."""
        return rf"\cmidrule(lr){{{a}-{b}}}" if self.style == "booktabs" else rf"\cline{{{a}-{b}}}"

    def spec(self, n_lead: int, n_data: int, align: str, group: int = 0, bar_after_lead: bool = False) -> str:
        """Column spec: `|` everywhere (grid), between column groups (hline), or none (booktabs)."""
        lead = "l" * n_lead
        if self.grid:
            return "|" + "|".join(lead + align * n_data) + "|"
        sep = "|" if bar_after_lead else ""
        if self.style == "hline" and group and n_data % group == 0:
            return lead + sep + "|".join([align * group] * (n_data // group))
        return lead + sep + align * n_data


class _Gen:
    """One table's random choices; every method draws from the same numpy Generator."""

    def __init__(self, seed: int, max_cols: int) -> None:
        self.rng = np.random.default_rng([int(seed), 0x7AB])
        self.max_cols = max(3, int(max_cols))
        r = self.rng
        self.rules = _Rules(str(r.choice(["booktabs", "hline", "grid"], p=[0.55, 0.3, 0.15])))
        self.bar = self.rules.style == "hline" and bool(r.random() < 0.7)
        p_std = 0.45 if self.max_cols > 6 else 0.2  # ± doubles a column's width
        styles, weights = ["none", "pm", "mathpm", "sub"], [1 - p_std, p_std * 0.45, p_std * 0.35, p_std * 0.2]
        self.std = str(r.choice(styles, p=weights))
        self.arrow = str(r.choice(["none", "paren", "plain"], p=[0.7, 0.15, 0.15]))
        self.bold_best = bool(r.random() < 0.65)
        self.p_missing = 0.08 if r.random() < 0.2 else 0.0
        self.bold_header = bool(r.random() < 0.2)
        self.missing = str(r.choice(vocab.MISSING))
        self.indent = "  " * int(r.integers(0, 3))

    # -- small pickers ----------------------------------------------------------------
    def pick(self, items, k: int) -> list:
        idx = self.rng.choice(len(items), size=min(k, len(items)), replace=False)
        return [items[i] for i in idx]

    def header(self, text: str) -> str:
        return rf"\textbf{{{text}}}" if self.bold_header else text

    def metric_header(self, m: tuple) -> str:
        name, *_, higher, pct = m
        name = f"{name} (\\%)" if pct and self.rng.random() < 0.8 else name
        if self.arrow == "none":
            return self.header(name)
        arrow = r"$\uparrow$" if higher else r"$\downarrow$"
        return self.header(f"{name} ({arrow})" if self.arrow == "paren" else f"{name}{arrow}")

    def methods(self, k: int) -> list[str]:
        names = self.pick(vocab.METHODS, k - 1) + [str(self.rng.choice(vocab.OURS))]
        out = []
        for n in names:
            if self.rng.random() < 0.12:
                n += str(self.rng.choice(vocab.FOOTMARKS))
            elif self.rng.random() < 0.08:
                n += f"~[{int(self.rng.integers(1, 60))}]"
            out.append(n)
        return out

    # -- values -----------------------------------------------------------------------
    def metric_block(self, n_rows: int, metric: tuple, quality: np.ndarray) -> list[str]:
        """One column of formatted values with best bold / second underlined."""
        _, lo, hi, dec, higher, _pct = metric
        span = hi - lo
        base = lo + span * self.rng.uniform(0.3, 0.7)
        vals = base + span * 0.25 * (quality if higher else -quality) + self.rng.normal(0, span * 0.03, n_rows)
        vals = np.clip(vals, lo, hi)
        missing = self.rng.random(n_rows) < self.p_missing
        missing[-1] = False  # "Ours" always reports
        order = [i for i in np.argsort(-vals if higher else vals) if not missing[i]]
        out = []
        for i, v in enumerate(vals):
            if missing[i]:
                out.append(self.missing)
                continue
            s = f"{v:.{dec}f}"
            if self.std != "none":
                sd = f"{abs(self.rng.normal(0, span * 0.01)) + 10 ** -dec:.{dec}f}"
                s = {"pm": f"{s} $\\pm$ {sd}", "mathpm": f"${s} \\pm {sd}$",
                     "sub": f"{s}\\textsubscript{{$\\pm${sd}}}"}[self.std]
            if self.bold_best and order and i == order[0]:
                s = rf"\textbf{{{s}}}"
            elif self.bold_best and len(order) > 3 and i == order[1] and self.rng.random() < 0.5:
                s = rf"\underline{{{s}}}"
            out.append(s)
        return out

    def results_columns(self, n_rows: int, metrics: list[tuple], n_sets: int) -> list[list[str]]:
        quality = np.linspace(-1, 1, n_rows) + self.rng.normal(0, 0.6, n_rows)
        quality[-1] = quality.max() + 0.2  # the proposed method wins most columns
        return [self.metric_block(n_rows, m, quality) for _ in range(n_sets) for m in metrics]

    # -- output -------------------------------------------------------------------------
    def emit(self, spec: str, lines: list[str]) -> str:
        body = "\n".join(self.indent + "  " + ln for ln in lines)
        return f"{self.indent}\\begin{{tabular}}{{{spec}}}\n{body}\n{self.indent}\\end{{tabular}}"

    def spec(self, n_lead: int, n_data: int, align: str, group: int = 0) -> str:
        return self.rules.spec(n_lead, n_data, align, group, self.bar)

    def row(self, cells: list[str], after: str | None = None) -> str:
        """One row; in grid style it is closed by `after` (a partial rule) or a full `\\hline`."""
        end = (after if after is not None else r"\hline") if self.rules.grid else ""
        return " & ".join(cells) + r" \\" + (f" {end}" if end else "")

    def mc(self, n: int, text: str, align: str = "c", first: bool = False) -> str:
        """`\\multicolumn` that keeps the grid style's vertical rules."""
        if self.rules.grid:
            align = ("|" if first else "") + align + "|"
        return rf"\multicolumn{{{n}}}{{{align}}}{{{text}}}"


# -- table kinds -----------------------------------------------------------------------------


def _results(g: _Gen, complexity: str) -> str:
    """Methods x datasets x metrics, the commonest table of a paper."""
    r = g.rng
    grouped = complexity == "complex" or (complexity == "moderate" and r.random() < 0.45)
    two_level = complexity == "complex" or (complexity == "moderate" and not grouped)
    nested = complexity == "complex" and r.random() < 0.4
    three_level = complexity == "complex" and not nested and r.random() < 0.35
    n_lead = 1 + int(grouped) + int(nested)
    budget = max(2, g.max_cols - n_lead)
    if complexity == "simple":
        n_sets, n_metrics = 1, int(r.integers(2, min(6, budget) + 1))
    elif not two_level:  # moderate with row groups: one metric, datasets as columns
        n_sets, n_metrics = int(r.integers(2, min(5, budget) + 1)), 1
    else:
        n_metrics = int(r.integers(2, max(2, min(3, budget // 2)) + 1))
        n_sets = max(1 if budget < 4 else 2, min(int(r.integers(2, 4)), budget // n_metrics))
        three_level = three_level and n_sets > 1
    metrics = g.pick(vocab.METRICS, n_metrics)
    datasets = g.pick(vocab.DATASETS, n_sets)
    rules = g.rules

    # rows: groups -> (subgroups) -> methods
    n_groups = int(r.integers(2, 4)) if grouped else 1
    sub_names = g.pick(vocab.SUBGROUPS, 2) if nested else [None]
    sizes = [[int(r.integers(2, 4)) if grouped else int(r.integers(4, 10)) for _ in sub_names] for _ in range(n_groups)]
    n_rows = sum(sum(s) for s in sizes)
    names = g.methods(n_rows)
    cols = g.results_columns(n_rows, metrics, n_sets)
    n_data = len(cols)
    lines = [rules.top]

    # header
    lead_names = (["Category"] if grouped else []) + (["Size"] if nested else []) + ["Method"]
    lead_names = [g.header(x) for x in lead_names]
    group_cols = n_metrics if two_level else 0
    if two_level:
        levels = 3 if three_level else 2
        # complex tables stack the row labels with \multirow; moderate ones keep one kind of merging
        lead = [rf"\multirow{{{levels}}}{{*}}{{{x}}}" for x in lead_names] if complexity == "complex" else [""] * n_lead
        if three_level:
            task = g.header(str(r.choice(vocab.TASKS)))
            part = rules.part(n_lead + 1, n_lead + n_data)
            lines.append(g.row(lead + [g.mc(n_data, task)], after=part))
            if not rules.grid:
                lines.append(part)
            lead = [""] * n_lead
        sets = [g.mc(n_metrics, g.header(d)) if n_metrics > 1 else g.header(d) for d in datasets]
        parts = " ".join(rules.part(n_lead + 1 + i * n_metrics, n_lead + (i + 1) * n_metrics) for i in range(n_sets))
        lines.append(g.row(lead + sets, after=rules.part(n_lead + 1, n_lead + n_data)))
        if not rules.grid:
            lines.append(parts)
        bottom_lead = [""] * n_lead if complexity == "complex" else lead_names
        heads = [g.metric_header(m) for m in metrics]  # once per metric: same label under every dataset
        lines.append(g.row(bottom_lead + heads * n_sets))
    else:
        heads = [g.metric_header(m) for m in metrics] if n_sets == 1 else [g.header(d) for d in datasets]
        lines.append(g.row(lead_names + heads))
    lines.append(rules.mid)

    # body
    gnames = g.pick(vocab.GROUPS, n_groups)
    i = 0
    for gi, group in enumerate(sizes):
        gname = gnames[gi]
        for si, size in enumerate(group):
            for k in range(size):
                lead = []
                if grouped:
                    lead.append(rf"\multirow{{{sum(group)}}}{{*}}{{{gname}}}" if si == 0 and k == 0 else "")
                if nested:
                    lead.append(rf"\multirow{{{size}}}{{*}}{{{sub_names[si]}}}" if k == 0 else "")
                last_in_sub, last_in_group = k == size - 1, k == size - 1 and si == len(group) - 1
                free = 2 if nested and not last_in_sub else (1 if grouped and not last_in_group else 0)
                after = rules.part(free + 1, n_lead + n_data) if free else None
                lines.append(g.row(lead + [names[i]] + [c[i] for c in cols], after=after))
                i += 1
            if nested and si < len(group) - 1 and not rules.grid:
                lines.append(rules.part(2, n_lead + n_data))
        if gi < len(sizes) - 1 and not rules.grid:
            lines.append(rules.mid)
    if not rules.grid:
        lines.append(rules.bottom)
    align = str(r.choice(["c", "c", "r"]))
    return g.emit(g.spec(n_lead, n_data, align, group_cols if n_metrics > 1 else 0), lines)


def _sections(g: _Gen) -> str:
    """Moderate: a flat results table cut by full-width section rows (`\\multicolumn{n}`)."""
    r = g.rng
    n_metrics = int(r.integers(2, min(5, g.max_cols - 1) + 1))
    metrics = g.pick(vocab.METRICS, n_metrics)
    n_sec = int(r.integers(2, 4))
    sizes = [int(r.integers(2, 5)) for _ in range(n_sec)]
    names = g.methods(sum(sizes))
    cols = g.results_columns(sum(sizes), metrics, 1)
    n = 1 + n_metrics
    lines = [g.rules.top, g.row([g.header("Method")] + [g.metric_header(m) for m in metrics]), g.rules.mid]
    i = 0
    for sec in g.pick(vocab.GROUPS, n_sec):
        style = str(r.choice([r"\textit{%s}", r"\textbf{%s}", "%s"]))
        lines.append(g.row([g.mc(n, style % sec, "l" if r.random() < 0.5 else "c", first=True)]))
        if not g.rules.grid:
            lines.append(g.rules.mid)
        for _ in range(sizes.pop(0)):
            lines.append(g.row([names[i]] + [c[i] for c in cols]))
            i += 1
    lines.append(g.rules.bottom if not g.rules.grid else "")
    return g.emit(g.spec(1, n_metrics, str(r.choice(["c", "r"]))), [ln for ln in lines if ln])


def _hyper(g: _Gen, complexity: str) -> str:
    """Hyper-parameters: names, Greek symbols, values in scientific notation."""
    r = g.rng
    lead = 3 if complexity == "moderate" else 2
    n_sets = int(r.integers(1, max(1, min(4, g.max_cols - lead)) + 1))
    params = g.pick(vocab.HYPER, int(r.integers(5, 11)))
    sets = g.pick(vocab.DATASETS, n_sets)

    def value(kind: str) -> str:
        if kind == "lr":
            return f"${int(r.choice([1, 2, 3, 5]))} \\times 10^{{-{int(r.integers(3, 6))}}}$"
        if kind == "wd":
            return str(r.choice(["0.01", "0.05", "$10^{-4}$", "0", "0.1"]))
        if kind == "int":
            return str(int(r.choice([16, 32, 64, 128, 256, 512, 1000, 2000, 4000])))
        if kind == "pow2":
            return str(int(2 ** r.integers(7, 12)))
        if kind == "small":
            return str(int(r.integers(2, 25)))
        return f"{r.uniform(0.01, 0.99):.2f}"

    rows = [[p, sym] + [value(kind) for _ in sets] for p, sym, kind in params]
    heads = [g.header(s) for s in ("Hyper-parameter", "Symbol", *sets)]
    lines = [g.rules.top, g.row(heads), g.rules.mid]
    if complexity == "moderate":  # group rows by component with \multirow
        cut = int(r.integers(2, len(rows) - 1))
        for block, name in ((rows[:cut], "Optimizer"), (rows[cut:], "Model")):
            for k, row in enumerate(block):
                after = g.rules.part(2, 2 + len(row) - 1) if k < len(block) - 1 else None
                lines.append(g.row([rf"\multirow{{{len(block)}}}{{*}}{{{name}}}" if k == 0 else ""] + row, after=after))
            if not g.rules.grid:
                lines.append(g.rules.mid if name == "Optimizer" else g.rules.bottom)
        lines[1] = g.row([g.header("Part")] + heads)
        return g.emit(g.spec(3, n_sets, "c"), lines)
    lines += [g.row(row) for row in rows] + ([g.rules.bottom] if not g.rules.grid else [])
    return g.emit(g.spec(2, n_sets, "c"), lines)


def _dataset_stats(g: _Gen) -> str:
    """Dataset statistics: counts with thousands separators, domains, percentages."""
    r = g.rng
    sets = g.pick(vocab.DATASETS, int(r.integers(3, 9)))
    cols = ["Domain", "\\#Train", "\\#Val", "\\#Test", "Classes", "Avg. len.", "Imbalance (\\%)"]
    cols = cols[: min(len(cols), g.max_cols - 1)]
    sep = str(r.choice([",", "{,}", "\\,"]))
    lines = [g.rules.top, g.row([g.header("Dataset")] + [g.header(c) for c in cols]), g.rules.mid]
    for d in sets:
        n = int(10 ** r.uniform(3, 6.2))
        vals = {"Domain": str(r.choice(vocab.DOMAINS)), "\\#Train": n, "\\#Val": n // int(r.integers(5, 20)),
                "\\#Test": n // int(r.integers(4, 12)), "Classes": int(r.integers(2, 1000)),
                "Avg. len.": f"{r.uniform(5, 500):.1f}", "Imbalance (\\%)": f"{r.uniform(0, 60):.1f}"}
        cells = [f"{v:,}".replace(",", sep) if isinstance(v, int) else v for v in (vals[c] for c in cols)]
        if r.random() < g.p_missing:
            cells[int(r.integers(1, len(cells)))] = g.missing
        lines.append(g.row([d] + cells))
    lines += [g.rules.bottom] if not g.rules.grid else []
    return g.emit(g.spec(1, len(cols), "r"), lines)


def _measurements(g: _Gen, complexity: str) -> str:
    """Physical measurements: chemical formulas, units with Greek, scientific notation."""
    r = g.rng
    per = 2 if complexity == "moderate" else 1  # moderate repeats the quantities per condition
    qs = g.pick(vocab.QUANTITIES, int(r.integers(2, max(2, min(6, (g.max_cols - 1) // per)) + 1)))
    samples = g.pick(vocab.SAMPLES, int(r.integers(4, 10)))

    def fmt(lo: float, hi: float, dec: int) -> str:
        v = r.uniform(lo, hi)
        if dec >= 4 and r.random() < 0.5:
            e = int(np.floor(np.log10(abs(v))))
            return f"${v / 10 ** e:.2f} \\times 10^{{{e}}}$"
        s = f"{v:.{dec}f}"
        return f"${s}$" if s.startswith("-") else s

    lines = [g.rules.top]
    if complexity == "moderate":  # two conditions side by side under \multicolumn
        conds = str(r.choice(["Bulk/Film", "Exp./Theory", "300 K/77 K"])).split("/")
        n = len(qs)
        lines.append(g.row([""] + [g.mc(n, c) for c in conds], after=g.rules.part(2, 1 + 2 * n)))
        if not g.rules.grid:
            lines.append(" ".join(g.rules.part(2 + i * n, 1 + (i + 1) * n) for i in range(2)))
        lines.append(g.row([g.header("Sample")] + [q[0] for q in qs] * 2))
        lines.append(g.rules.mid)
        for s in samples:
            lines.append(g.row([s] + [fmt(*q[1:]) for _ in range(2) for q in qs]))
        lines += [g.rules.bottom] if not g.rules.grid else []
        return g.emit(g.spec(1, 2 * n, "c", n), lines)
    lines += [g.row([g.header("Sample")] + [q[0] for q in qs]), g.rules.mid]
    lines += [g.row([s] + [fmt(*q[1:]) for q in qs]) for s in samples]
    lines += [g.rules.bottom] if not g.rules.grid else []
    return g.emit(g.spec(1, len(qs), "c"), lines)


def _ablation(g: _Gen, complexity: str) -> str:
    """Ablation: check marks per component, then metrics; moderate adds grouped headers."""
    r = g.rng
    comps = g.pick(vocab.COMPONENTS, min(int(r.integers(2, 5)), g.max_cols - 2))
    metrics = g.pick(vocab.METRICS, int(r.integers(1, max(1, min(3, g.max_cols - 1 - len(comps))) + 1)))
    n_rows = int(r.integers(3, 8))
    mark = str(r.choice([r"\checkmark", r"$\checkmark$", r"$\surd$"]))
    off = str(r.choice(["", r"$\times$", "--"]))
    marks = (r.random((n_rows, len(comps))) < np.linspace(0.2, 1, n_rows)[:, None]).astype(bool)
    marks[-1] = True
    cols = g.results_columns(n_rows, metrics, 1)
    ids = [f"({chr(97 + i)})" for i in range(n_rows)]
    lines = [g.rules.top]
    if complexity == "moderate":
        nc, nm = len(comps), len(metrics)
        heads = ["", g.mc(nc, g.header("Components"))]
        heads.append(g.mc(nm, g.header("Metrics")) if nm > 1 else g.header("Metric"))
        lines.append(g.row(heads, after=g.rules.part(2, 1 + nc + nm)))
        if not g.rules.grid:
            lines.append(g.rules.part(2, 1 + nc) + " " + g.rules.part(2 + nc, 1 + nc + nm))
        lines.append(g.row([g.header("\\#")] + comps + [g.metric_header(m) for m in metrics]))
    else:
        lines.append(g.row([g.header("\\#")] + comps + [g.metric_header(m) for m in metrics]))
    lines.append(g.rules.mid)
    for i in range(n_rows):
        lines.append(g.row([ids[i]] + [mark if m else off for m in marks[i]] + [c[i] for c in cols]))
    lines += [g.rules.bottom] if not g.rules.grid else []
    return g.emit(g.spec(1, len(comps) + len(metrics), "c"), lines)


def generate_table(seed: int, complexity: str, max_cols: int = 9) -> GeneratedTable:
    """A table of class `complexity` from `seed` alone; `max_cols` caps the grid width."""
    if complexity not in COMPLEXITIES:
        raise ValueError(f"unknown complexity {complexity!r}: expected one of {', '.join(COMPLEXITIES)}")
    g = _Gen(seed, max_cols)
    r = g.rng
    if complexity == "simple":
        kinds = ["results", "hyper", "dataset", "measurements", "ablation"]
        kind = str(r.choice(kinds, p=[0.45, 0.12, 0.15, 0.13, 0.15]))
    elif complexity == "moderate":
        kinds = ["results", "sections", "hyper", "measurements", "ablation"]
        kind = str(r.choice(kinds, p=[0.45, 0.2, 0.1, 0.1, 0.15]))
    else:
        kind = "results"
    latex = {
        "results": lambda: _results(g, complexity),
        "sections": lambda: _sections(g),
        "hyper": lambda: _hyper(g, complexity),
        "dataset": lambda: _dataset_stats(g),
        "measurements": lambda: _measurements(g, complexity),
        "ablation": lambda: _ablation(g, complexity),
    }[kind]()
    return GeneratedTable(latex, complexity, "builtin", kind)
