"""A third item kind, for tests only: keywords a page's output must contain.

It shows what adding a kind takes: this one module (its ground truth from a page record, a
locator, a metric, a card) and its registration; nothing in the plugin, the evaluator, the
gate or the report names it. A page record lists its keywords as blocks
`{"type": "keyword", "data": "Lorem"}`; a keyword is found where the output contains it
(case-insensitively); `keyword_match` is 1 for the exact spelling, else the share of its
characters that match.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

from tablebench.core.kinds import ItemKind, Located, Scoring, register, unregister
from tablebench.core.metric_specs import MetricSpec, Scored
from tablebench.core.metric_specs import register as register_metric
from tablebench.core.metric_specs import unregister as unregister_metric
from tablebench.metrics.score import score_pair


@dataclass(frozen=True)
class Keyword:
    index: int
    latex: str  # the keyword as the ground truth spells it
    group: str = "word"


class KeywordKind(ItemKind):
    name = "keyword"
    title = "keywords"
    prefix = "k"
    groups = ("word",)
    group_title = "type"
    label = "Keyword"

    def read(self, record: object, blocks: list[dict], gt_path: Path) -> list[Keyword]:
        words = [b.get("data") for b in blocks if b.get("type") == "keyword"]
        if not all(isinstance(w, str) and w.strip() for w in words):
            raise ValueError(f"{gt_path}: a keyword block needs its word in 'data'")
        return [Keyword(i, w) for i, w in enumerate(words)]

    def locate(self, gts: Sequence[Keyword], output: str) -> list[Located]:
        out = []
        for gt in gts:
            hit = re.search(re.escape(gt.latex), output, re.IGNORECASE)
            out.append(Located(gt.index, hit.group(0), hit.span(), hit.group(0), 1.0) if hit else
                       Located(gt.index, None, None, None, 0.0, "the word is not in the output"))
        return out

    def score(self, gt: Keyword, found: Located, metrics: Sequence[MetricSpec]) -> Scoring:
        scores, notes = score_pair(gt.latex, found.prediction, metrics)
        return Scoring(scores, notes)

    def judge(self, gt: Keyword, extraction: str, model: str, **options: Any) -> Any:
        raise NotImplementedError("keywords have no judge prompt")


def keyword_match(gt: str, pred: str) -> Scored:
    value = 1.0 if gt == pred else SequenceMatcher(None, gt.lower(), pred.lower()).ratio() * 0.9
    return Scored({"keyword_match": value}, () if gt == pred else (f"{gt!r} written as {pred!r}",))


METRIC = MetricSpec("keyword_match", "keyword", ("keyword_match",), "keyword_match", keyword_match, primary=True)
KIND = KeywordKind()


def install() -> None:
    """The registration a real kind does at import or through entry points (tests undo it with `uninstall`)."""
    register_metric(METRIC)
    register(KIND)


def uninstall() -> None:
    unregister_metric(METRIC.name)
    unregister(KIND.name)
