"""A fourth item kind, for tests only: seals stamped on a page ("APPROVED", "VOID"), each where the
ground truth places it, in the ink it was stamped in.

It shows what a kind is: this module and one registration (`install`: `register(KIND)`, which
registers its metric with it); nothing in `tablebench` names it. Here are its ground-truth type
(`Seal`) and reader, its locator, its metric (`seal_match`), the name of its card's renderer
(`card_sides`, which the report loads by that name) and what its card shows of the PDF (a crop of
where the seal is). A page record lists its seals as blocks
`{"type": "seal", "data": "APPROVED", "ink": "red", "bbox": [x0, top, x1, bottom]}`; a seal is found
where the output has its word in any case; `seal_match` is 1 for the word as stamped, 0.5 in another
case. Its groups are its inks, under the name "ink": a gate's breakdown has a row per ink
(`seal_match:red`) and `--gate=seal_match:ink=red` gates the red ones.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from tablebench.cases.record_fields import bbox_of, whole_number
from tablebench.core.kinds import ItemKind, Located, Scoring, register, unregister
from tablebench.core.metric_specs import MetricSpec, Scored
from tablebench.metrics.score import score_pair

INKS = ("red", "blue")  # the groups, in display order


@dataclass(frozen=True)
class Seal:
    """One seal of a page: its word, its ink, where it is."""

    index: int
    latex: str  # the word as stamped (what cards and the judge show)
    group: str  # its ink
    bbox: tuple[float, float, float, float] | None = None  # PDF points, origin top-left
    page: int = 1  # the PDF page it is on


def seal_match(gt: str, pred: str) -> Scored:
    value = 1.0 if gt == pred else 0.5
    return Scored({"seal_match": value}, () if gt == pred else (f"{gt!r} stamped, {pred!r} read",))


METRIC = MetricSpec("seal_match", "seal", ("seal_match",), "seal_match", seal_match, primary=True)


class SealKind(ItemKind):
    name = "seal"
    title = "seals"
    prefix = "s"
    groups = INKS
    group_title = "ink"
    group_name = "ink"
    label = "Seal"
    notes_title = "misread seals"
    card = "tests.kinds.seals:card_sides"
    metrics = (METRIC,)

    def read(self, record: object, blocks: list[dict], gt_path: Path) -> list[Seal]:
        seals = []
        for block in (b for b in blocks if b.get("type") == "seal"):
            word, ink = block.get("data"), block.get("ink")
            if not isinstance(word, str) or not word.strip() or ink not in INKS:
                raise ValueError(f"{gt_path}: a seal block needs its word in 'data' and an 'ink' of {' / '.join(INKS)}")
            seals.append(Seal(len(seals), word, ink, bbox_of(block.get("bbox")),
                              whole_number(block.get("page", 1), "page", gt_path)))
        return seals

    def locate(self, gts: Sequence[Seal], output: str) -> list[Located]:
        out = []
        for gt in gts:
            hit = re.search(re.escape(gt.latex), output, re.IGNORECASE)
            out.append(Located(gt.index, hit.group(0), hit.span(), hit.group(0), 1.0) if hit else
                       Located(gt.index, None, None, None, 0.0, "no such word in the output"))
        return out

    def score(self, gt: Seal, found: Located, metrics: Sequence[MetricSpec]) -> Scoring:
        scores, notes = score_pair(gt.latex, found.prediction, metrics)
        return Scoring(scores, notes)


def card_sides(result: Any, cache: dict[str, str]) -> tuple[str, str]:
    """A seal's card: the word stamped beside the word read, each in a seal's frame."""
    gt = f'<p class="seal seal-{escape(result.group)}">{escape(result.gt_latex)}</p>'
    read = result.matched_text
    return gt, '<p class="none">nothing matched</p>' if read is None else f'<p class="seal">{escape(read)}</p>'


KIND = SealKind()


def install() -> None:
    """The one registration (a real kind does it at import, or through the `tablebench.kinds` entry points)."""
    register(KIND)


def uninstall() -> None:
    unregister(KIND.name)
