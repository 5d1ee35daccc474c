"""Realistic (ground truth, prediction) pairs shared by the metric benchmarks.

One generator for every metric, so their speed tables compare the same work: a results
table with a two-row header (a rowspan, colspan-2 groups) over numbers, ± values and words;
the prediction drops a body row, edits ~5% of cells and merges two cells of one body row.
"""

from __future__ import annotations

import random

from tablebench.core.table import Cell, Table

WORDS = ["Model", "Baseline", "Ours", "accuracy", "F1", "ResNet-50", "BERT-base", "n/a", "Total",
         "mean", "Method", "Params (M)", "Time (s)", "\u2014", "ImageNet", "val"]


def _value(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.4:
        return f"{rng.uniform(0, 100):.{rng.choice([1, 2, 3])}f}"
    if kind < 0.7:
        return f"{rng.uniform(0, 100):.1f} \u00b1 {rng.uniform(0, 5):.1f}"
    if kind < 0.85:
        return rng.choice(WORDS)
    return " ".join(rng.sample(WORDS, 2))


def _edit(rng: random.Random, text: str) -> str:
    i = rng.randrange(len(text)) if text else 0
    return text[:i] + rng.choice("0123456789x.") + text[i + 1:]


def realistic_pair(rows: int, cols: int, seed: int = 0) -> tuple[Table, Table]:
    """A `rows` x `cols` ground truth and its damaged prediction (`rows - 1` x `cols`)."""
    rng = random.Random(seed)
    groups = (cols - 1) // 2
    header = [Cell("Method", rowspan=2, header=True)]
    header += [Cell(_value(rng), colspan=2, header=True) for _ in range(groups)]
    header += [Cell("Notes", rowspan=2, header=True)] * ((cols - 1) % 2)
    sub = [Cell(rng.choice(["mean", "std", "F1", "Acc."]), header=True) for _ in range(2 * groups)]
    body = [[Cell(_value(rng)) for _ in range(cols)] for _ in range(rows - 2)]
    gt = Table([header, sub] + body)

    pred_body = [[Cell(_edit(rng, c.text) if rng.random() < 0.05 else c.text) for c in row] for row in body]
    del pred_body[rng.randrange(len(pred_body))]
    merged = pred_body[rng.randrange(len(pred_body))]
    merged[0:2] = [Cell(f"{merged[0].text} {merged[1].text}", colspan=2)]
    copy = [[Cell(c.text, c.rowspan, c.colspan, c.header) for c in row] for row in (header, sub)]
    return gt, Table(copy + pred_body)
