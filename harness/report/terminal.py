"""Rich renderables for the terminal: small tables composed by the CLI and the plugin."""

from __future__ import annotations

from rich.table import Table as RichTable


def meta_eval_table(results: dict[str, dict], title: str = "") -> RichTable:
    """Correlations with human ratings, best Pearson first, with the Pearson 95% CI."""
    table = RichTable(title=title or None)
    table.add_column("metric", overflow="fold")
    for name in ("Pearson", "95% CI", "Spearman", "Kendall", "n"):
        table.add_column(name, justify="right")
    ordered = sorted(results.items(), key=lambda kv: _key(kv[1]["pearson"]), reverse=True)
    for name, r in ordered:
        lo, hi = r["ci95"]["pearson"]
        ci = f"[{lo:.3f}, {hi:.3f}]" if lo is not None else "-"
        style = "bold" if name.startswith("ours:") else None
        table.add_row(name, _fmt(r["pearson"]), ci, _fmt(r["spearman"]), _fmt(r["kendall"]), str(r["n"]), style=style)
    return table


def _fmt(value: float) -> str:
    return "-" if value != value else f"{value:.3f}"


def _key(value: float) -> float:
    return float("-inf") if value != value else value
