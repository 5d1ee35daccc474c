"""Tables in the page's language for `generate --languages`: regional statistics and price lists.

Same three classes as `tables.py` (simple grid; moderate: a two-level header or `\\multirow`
row groups; complex: both, with a header split under each year), content from
`vocab_i18n` and numbers in the language's own format (decimal comma, thin-space or dot
thousands, lakh grouping, Arabic-Indic digits). Deterministic from the seed.
"""

from __future__ import annotations

import numpy as np

from tablebench.generate.tables import GeneratedTable
from tablebench.generate.text import escape_latex
from tablebench.generate.vocab_i18n import VOCAB


def format_number(x: float, decimals: int, number: tuple) -> str:
    """`x` as the language writes it in tables: `number` = (decimal, thousands, digits, grouping)."""
    dec, thou, digits, grouping = number
    sign = "-" if x < 0 else ""
    whole, _, frac = f"{abs(x):.{decimals}f}".partition(".")
    if len(whole) > 4 or (len(whole) == 4 and thou not in (r"\,",)):  # 4-digit numbers: no thin space
        if grouping == "indian" and len(whole) > 3:
            head, tail = whole[:-3], whole[-3:]
            groups = [head[max(0, i - 2):i] for i in range(len(head), 0, -2)][::-1] + [tail]
        else:
            groups = [whole[max(0, i - 3):i] for i in range(len(whole), 0, -3)][::-1]
        whole = thou.join(groups)
    out = sign + whole + (dec + frac if frac else "")
    if digits:
        out = out.translate(str.maketrans("0123456789", digits))
    return out


class _I18nTable:
    """One table's random choices for language `lang`."""

    def __init__(self, seed: int, lang: str, max_cols: int) -> None:
        self.rng = np.random.default_rng([int(seed), 0x118])
        self.v = VOCAB[lang]
        self.max_cols = max(3, int(max_cols))
        self.booktabs = bool(self.rng.random() < 0.65)

    def num(self, low: float, high: float, decimals: int) -> str:
        return format_number(float(self.rng.uniform(low, high)), decimals, self.v["number"])

    def pick(self, items: list, k: int) -> list:
        idx = sorted(self.rng.choice(len(items), size=min(k, len(items)), replace=False))
        return [items[i] for i in idx]

    def rules(self) -> tuple[str, str, str]:
        return (r"\toprule", r"\midrule", r"\bottomrule") if self.booktabs else (r"\hline", r"\hline", r"\hline")

    def part(self, a: int, b: int) -> str:
        return rf"\cmidrule(lr){{{a}-{b}}}" if self.booktabs else rf"\cline{{{a}-{b}}}"

    def tabular(self, spec: str, header: list[str], rows: list[str]) -> str:
        """The tabular: rules, header lines, then `rows`, each ended by `\\\\` except a rule
        between row groups."""
        top, mid, bottom = self.rules()
        body = "\n".join(r if r in (r"\midrule", r"\hline") else r + r" \\" for r in rows)
        return f"\\begin{{tabular}}{{{spec}}}\n{top}\n" + "\n".join(header) + f"\n{mid}\n{body}\n{bottom}\n\\end{{tabular}}"

    @staticmethod
    def head(name: str, unit: str) -> str:
        return f"\\makecell{{{escape_latex(name)}\\\\({escape_latex(unit)})}}"

    def regions(self, n: int, groups: int = 0) -> list[tuple[str, list[str]]]:
        names = list(self.v["regions"])
        chosen = self.pick(names, max(groups, 1))
        out = []
        for g in chosen:
            members = self.v["regions"][g]
            out.append((g, self.pick(members, max(2, n // max(groups, 1)) if groups else n)))
        return out

    # -- the three classes ---------------------------------------------------------------
    def simple(self) -> tuple[str, str]:
        if self.rng.random() < 0.5:
            k = int(self.rng.integers(2, min(5, self.max_cols - 1) + 1))
            measures = self.pick(self.v["measures"], k)
            regions = [r for _, rs in self.regions(int(self.rng.integers(4, 7)), 2) for r in rs]
            header = " & ".join([escape_latex(self.v["row_head"])] + [self.head(m[0], m[1]) for m in measures]) + r" \\"
            rows = [" & ".join([escape_latex(r)] + [self.num(m[2], m[3], m[4]) for m in measures]) for r in regions]
            return self.tabular("l" + "r" * k, [header], rows), "regions"
        name, unit = self.v["product_heads"]
        years = self.v["years"][-int(self.rng.integers(2, min(3, self.max_cols - 2) + 1)):]
        price, low, high = self.v["price"]
        products = self.pick(self.v["products"], int(self.rng.integers(4, 8)))
        header = " & ".join([escape_latex(name), escape_latex(unit)] + [escape_latex(y) for y in years]) + r" \\"
        rows = [" & ".join([escape_latex(p), escape_latex(u)] + [self.num(low, high, 2) for _ in years]) for p, u in products]
        return self.tabular("ll" + "r" * len(years), [header], rows), "prices"

    def moderate(self) -> tuple[str, str]:
        if self.rng.random() < 0.5:  # a two-level header: one measure over the years
            m = self.v["measures"][int(self.rng.integers(len(self.v["measures"])))]
            years = self.v["years"][-int(self.rng.integers(3, min(5, self.max_cols - 1) + 1)):]
            regions = [r for _, rs in self.regions(int(self.rng.integers(4, 7)), 2) for r in rs]
            n = len(years)
            h1 = (f"\\multirow{{2}}{{*}}{{{escape_latex(self.v['row_head'])}}} & "
                  f"\\multicolumn{{{n}}}{{c}}{{{escape_latex(m[0])} ({escape_latex(m[1])})}} \\\\ {self.part(2, n + 1)}")
            h2 = " & ".join([""] + [escape_latex(y) for y in years]) + r" \\"
            rows = [" & ".join([escape_latex(r)] + [self.num(m[2], m[3], m[4]) for _ in years]) for r in regions]
            return self.tabular("l" + "r" * n, [h1, h2], rows), "years"
        k = int(self.rng.integers(2, min(4, self.max_cols - 2) + 1))  # multirow row groups
        measures = self.pick(self.v["measures"], k)
        header = " & ".join([escape_latex(self.v["group_head"]), escape_latex(self.v["row_head"])]
                            + [self.head(m[0], m[1]) for m in measures]) + r" \\"
        rows = []
        groups = self.regions(int(self.rng.integers(6, 9)), int(self.rng.integers(2, 4)))
        for gi, (g, members) in enumerate(groups):
            for j, r in enumerate(members):
                lead = f"\\multirow{{{len(members)}}}{{*}}{{{escape_latex(g)}}}" if j == 0 else ""
                rows.append(" & ".join([lead, escape_latex(r)] + [self.num(m[2], m[3], m[4]) for m in measures]))
            if gi < len(groups) - 1:
                rows.append(self.rules()[1])  # a rule between row groups
        return self.tabular("ll" + "r" * k, [header], rows), "groups"

    def complex(self) -> tuple[str, str]:
        """Row groups (`\\multirow`) under a three-level header: measure > year > split."""
        m = self.v["measures"][int(self.rng.integers(len(self.v["measures"])))]
        years = self.v["years"][-2:] if self.max_cols >= 6 else self.v["years"][-1:]
        split = self.v["split"]
        n = 2 * len(years)
        h1 = (f"\\multirow{{3}}{{*}}{{{escape_latex(self.v['group_head'])}}} & \\multirow{{3}}{{*}}{{{escape_latex(self.v['row_head'])}}}"
              f" & \\multicolumn{{{n}}}{{c}}{{{escape_latex(m[0])} ({escape_latex(m[1])})}} \\\\ {self.part(3, n + 2)}")
        h2 = " & ".join(["", ""] + [f"\\multicolumn{{2}}{{c}}{{{escape_latex(y)}}}" for y in years]) + " \\\\ " + " ".join(
            self.part(3 + 2 * i, 4 + 2 * i) for i in range(len(years)))
        h3 = " & ".join(["", ""] + [escape_latex(s) for _ in years for s in split]) + r" \\"
        rows = []
        groups = self.regions(int(self.rng.integers(5, 8)), int(self.rng.integers(2, 4)))
        for gi, (g, members) in enumerate(groups):
            for j, r in enumerate(members):
                lead = f"\\multirow{{{len(members)}}}{{*}}{{{escape_latex(g)}}}" if j == 0 else ""
                rows.append(" & ".join([lead, escape_latex(r)] + [self.num(m[2] / 2, m[3] / 2, m[4]) for _ in range(n)]))
            if gi < len(groups) - 1:
                rows.append(self.rules()[1])  # a rule between row groups
        return self.tabular("ll" + "r" * n, [h1, h2, h3], rows), "groups-split"


def generate_i18n_table(seed: int, complexity: str, lang: str, max_cols: int = 9) -> GeneratedTable:
    """One table of class `complexity` in language `lang` (a key of `vocab_i18n.VOCAB`)."""
    if lang not in VOCAB:
        raise ValueError(f"no table vocabulary for language {lang!r}")
    gen = _I18nTable(seed, lang, max_cols)
    latex, kind = getattr(gen, complexity)()
    return GeneratedTable(latex, complexity, source=f"builtin-{lang}", kind=kind)
