"""LaTeX reader speed on authors' own tables: all 91 of the pdf-parse-bench sample, and one big table.

Run: `.venv/bin/python -m pytest -p no:xdist --benchmark-only --benchmark-enable tests/benchmarks/test_bench_latex.py`
"""

from __future__ import annotations

import json
from pathlib import Path

from tablebench.readers.latex import read_latex


def _bench_tables(sample_dir: Path) -> list[str]:
    out = []
    for path in sorted((sample_dir / "ground_truth").glob("*.json")):
        out += [b["data"] for b in json.loads(path.read_text(encoding="utf-8")) if b.get("type") == "table"]
    return out


def test_bench_read_all_91_sample_tables(benchmark, bench_sample_dir: Path) -> None:
    tables = _bench_tables(bench_sample_dir)
    assert len(tables) == 91
    results = benchmark(lambda: [read_latex(t) for t in tables])
    assert all(r[0].shape[0] >= 1 for r in results)
    assert benchmark.stats.stats.mean < 0.5  # ~5 ms per table at most


def _big_table(n_rows: int, n_cols: int) -> str:
    head = " & ".join(rf"\textbf{{Col {c}}}" for c in range(n_cols)) + r" \\ \midrule"
    rows = [rf"\multirow{{2}}{{*}}{{Model-{r}}} & " + " & ".join(rf"${r}.{c} \pm 0.{c}$" for c in range(1, n_cols))
            + r" \\" + "\n & " + " & ".join(r"\textit{x}" for _ in range(1, n_cols)) + r" \\"
            for r in range(n_rows // 2)]
    return "\\begin{tabular}{" + "l" * n_cols + "}\n\\toprule\n" + head + "\n" + "\n".join(rows) + "\n\\bottomrule\n\\end{tabular}"


def test_bench_read_60x12_table(benchmark) -> None:
    latex = _big_table(60, 12)
    result = benchmark(read_latex, latex)
    assert result[0].shape == (61, 12)
    assert result[0].header_rows == 1
    assert benchmark.stats.stats.mean < 0.1
