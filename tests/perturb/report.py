"""The suite's report: JSON (every number) and Markdown (the summary table), and the failure list
(per transformation: how many tables fail, and the smallest examples with the score's errors)."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from tablebench.core.table import Table
from tests.perturb.corpus import Corpus
from tests.perturb.suite import FLOOR, LOSSY_FLOOR, Scored, apply, failures, summarise
from tests.perturb.transforms import TRANSFORMS
from tests.perturb.writers import origins

MAX_ROWS, MAX_CELL, MAX_LINE = 10, 28, 140


def write_report(out_dir: Path, corpus: Corpus, records: Sequence[Scored], seconds: float) -> dict:
    """`perturbation.json` and `perturbation.md` in `out_dir`; returns the JSON's content."""
    out_dir.mkdir(parents=True, exist_ok=True)
    data = {"tables": len(corpus.tables), "per_source": corpus.per_source, "duplicates": corpus.duplicates,
            "skipped": corpus.skipped, "seconds": round(seconds, 1), **summarise(records)}
    (out_dir / "perturbation.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (out_dir / "perturbation.md").write_text(summary_markdown(data), encoding="utf-8")
    return data


def summary_markdown(data: dict) -> str:
    sources = ", ".join(f"{k} {v}" for k, v in data["per_source"].items())
    lines = [f"# Perturbation suite of the semantic score: {data['tables']} distinct ground-truth tables", "",
             f"Sources (distinct tables): {sources}.", ""]
    lines += [f"Skipped: {k}: {v}" for k, v in data["skipped"].items()] + ([""] if data["skipped"] else [])
    lines += [(f"## Invariances (score must stay >= {data['floor']}; a lossy format, which cannot write a span "
               f"and writes its label once over blank cells, >= {data['lossy_floor']}: raters charge that)"), "",
              "| transformation | floor | n tables | min | mean | share >= floor | failing tables |",
              "|---|---|---|---|---|---|---|"]
    for name, row in data["transforms"].items():
        if row["kind"] == "invariant":
            lines.append(f"| {name} | {_num(row['floor'])} | {row['n']} | {_num(row['min'])} | {_num(row['mean'])} | "
                         f"{_num(row['share_ge_floor'])} | {row['fails']} |")
    lines += ["", "## Damage (the score must fall at every step of a family)", "",
              "| family | amount | n tables | mean | min | not below the previous step |", "|---|---|---|---|---|---|"]
    for family, fam in data["families"].items():
        for point in fam["curve"]:
            name = next(n for n, r in data["transforms"].items() if r["family"] == family
                        and r["amount"] == point["amount"])
            lines.append(f"| {family} | {point['amount']} | {point['n']} | {_num(point['mean'])} | "
                         f"{_num(point['min'])} | {data['transforms'][name]['fails']} |")
        lines.append(f"| {family} | tables where the curve breaks | | | | {fam['breaks']} |")
    return "\n".join(lines) + "\n"


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:g}"


def failures_markdown(corpus: Corpus, records: Sequence[Scored], per_transform: int = 5) -> str:
    """Per transformation: failing tables, then the smallest failing examples in full."""
    by_digest = {g.digest: g for g in corpus.tables}
    lines = ["# Perturbation suite: failures of the semantic score", "",
             f"Invariance: fails below {FLOOR} ({LOSSY_FLOOR} for a lossy format). Damage: fails when not "
             "strictly below the previous amount's score (amount 1: the undamaged table's).", "", "| transformation | n tables | failing |", "|---|---|---|"]
    per = {name: failures(records, name) for name in TRANSFORMS}
    counts = {name: sum(r.transform == name for r in records) for name in TRANSFORMS}
    lines += [f"| {name} | {counts[name]} | {len(f)} |" for name, f in per.items()]
    for name, failed in per.items():
        if not failed:
            continue
        lines += ["", f"## {name}: {len(failed)} of {counts[name]} tables fail", "",
                  "Most frequent first errors (texts quoted as _, numbers as N):", ""]
        kinds = Counter(_pattern(r.errors[0]) if r.errors else "(no error named)" for r, _ in failed)
        lines += [f"- {n} x {k}" for k, n in kinds.most_common(5)] + [""]
        failed = sorted(failed, key=lambda f: (len(by_digest[f[0].digest].table.cells()), f[0].ident))
        for r, base in failed[:per_transform]:
            gt = by_digest[r.digest]
            lines += [f"### {r.ident}: score {r.score:g}" + (f" (previous step {base:g})" if base is not None else ""),
                      "", "Ground truth:", "", "```", short(gt.table), "```", "", "Perturbed:", "", "```",
                      short(apply(gt, TRANSFORMS[name])), "```", "", "Errors:", ""]
            lines += [f"- {e}" for e in r.errors] or ["- (none)"]
            lines.append("")
    return "\n".join(lines) + "\n"


def _pattern(error: str) -> str:
    """An error message with its quoted texts and numbers blanked: what kind of error it is."""
    return re.sub(r"\d+", "N", re.sub(r"'[^']*'", "_", error))


def short(value: Table | str | None) -> str:
    """A table as short pipe rows (a span's text once), or output text cut to a few lines."""
    if value is None:
        return "(not applicable)"
    if isinstance(value, str):
        text = value.splitlines()
        cut = [line if len(line) <= MAX_LINE else line[:MAX_LINE] + "..." for line in text[:MAX_ROWS * 3]]
        return "\n".join(cut + (["..."] if len(text) > MAX_ROWS * 3 else []))
    text, _, h = origins(value)
    rows = [" | ".join(c if len(c) <= MAX_CELL else c[:MAX_CELL] + "..." for c in (" ".join(t.split()) for t in row))
            for row in text]
    if h:
        rows.insert(h, "--- (header above) ---")
    return "\n".join(rows[:MAX_ROWS] + ([f"... ({len(rows) - MAX_ROWS} more rows)"] if len(rows) > MAX_ROWS else []))


