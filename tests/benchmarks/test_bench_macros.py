"""Macro expansion speed: the issue's harvest bomb is refused at once; a table that uses its
paper's macros in every cell reads fast.

Run: `.venv/bin/python -m pytest -p no:xdist --benchmark-only --benchmark-enable tests/benchmarks/test_bench_macros.py`
"""

from __future__ import annotations

from tablebench.generate.harvest import extract_tables
from tablebench.readers.latex import read_latex


def _bomb() -> str:
    """One 100 KB macro used 2,000 times in a tabular (the 106 KB reproducer: 147 s, 5.8 GB before)."""
    row = r"\big & \big \\" + "\n"
    return (r"\documentclass{article}\newcommand{\big}{" + "x" * 100_000 + "}\n\\begin{document}\n"
            r"\begin{tabular}{cc}" + "\n" + row * 1000 + r"\end{tabular}\end{document}")


def test_bench_harvest_refuses_the_macro_bomb(benchmark) -> None:
    paper = _bomb()
    [(_, refusal)] = benchmark(extract_tables, paper)
    assert refusal is not None and "more than" in refusal


def test_bench_read_60x8_table_with_macros_in_every_cell(benchmark) -> None:
    defs = r"\newcommand{\best}[1]{\textbf{#1}}\newcommand{\mpm}[2]{$#1 \pm #2$}\def\ours{OurNet}" + "\n"
    rows = "\n".join(r"\ours-" + str(r) + " & " + " & ".join(rf"\best{{\mpm{{{r}.{c}}}{{0.{c}}}}}" for c in range(7))
                     + r" \\" for r in range(60))
    latex = defs + "\\begin{tabular}{" + "l" * 8 + "}\n" + rows + "\n\\end{tabular}"
    result = benchmark(read_latex, latex)
    assert result[0].shape == (60, 8) and result[0].rows[0][0].text == "OurNet-0"
    assert result[0].rows[1][2].text == "1.1 ± 0.1"


def test_bench_runaway_macros_read_as_unknown_fast(benchmark) -> None:
    """A self-recursive macro and a 100 KB one used 200 times: the expansion budget stops both."""
    latex = (r"\newcommand\a{\a\a}\newcommand\big{" + "x" * 100_000 + "}\\begin{tabular}{cc}"
             + r"\a & b \\" + r"\big & \big \\" * 100 + r"\end{tabular}")
    [table] = benchmark(read_latex, latex)
    assert table.rows[0][0].text == ""
    assert benchmark.stats.stats.mean < 2.0


def test_bench_malformed_input_reads_fast(benchmark) -> None:
    """Thousands of unclosed groups, stray closers, chained accents and unclosed scripts."""
    bodies = ["{" * 3000 + "x", "}" * 3000 + "x", r"\"" * 3000 + "o", "$x^{" * 2000, r"\multicolumn{" * 500]
    tables = benchmark(lambda: [read_latex("\\begin{tabular}{cc}" + b + "\\end{tabular}") for b in bodies])
    assert all(t and t[0].shape[0] >= 1 for t in tables)
    assert benchmark.stats.stats.mean < 5.0  # 1 s each at most
