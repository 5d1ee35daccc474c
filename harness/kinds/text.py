"""A page's prose as one benchmark item: its text blocks, in reading order, against the output's prose.

Why one item per page, not one per block: reading order is a property of the page (a two-column
page read across its columns has every block present and the page unreadable), so the order
metric needs every block of the page in one item, and a dropped or invented paragraph is the
page's error, counted against the page's prose. The item's group is the page's layout as the
generator recorded it (`layout.columns`: one or two columns), so leaderboards split by it.

Its ground truth is the page's `"type": "text"` blocks (tables and formulas are not prose);
its locator aligns the blocks' words with the output's prose (`tablebench.metrics.text.alignment`); its
metrics are `tablebench.metrics.text`; its card is `tablebench.report.text_card` (named, not
imported). Text is opt-in (`default = False`): a run benchmarks it when `--kinds` names it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tablebench.cases.text import LAYOUTS, GroundTruthText, read_text_of
from tablebench.core.kinds import BUILTIN_PREFIX, ItemKind, Located, Scoring, register
from tablebench.core.metric_specs import MetricSpec
from tablebench.core.results import TEXT_DIFF

MAX_SPANS = 200  # matched fragments kept per page (closest ones merged beyond it)


class TextKind(ItemKind):
    name = "text"
    title = "text pages"
    prefix = BUILTIN_PREFIX["text"]
    groups = LAYOUTS
    group_title = "layout"
    group_name = "layout"
    label = "Text"
    notes_title = "text errors"
    default = False  # opt-in: `--kinds=text` (tables stay what a run means by default)
    reads_unclaimed = True  # the page's formulas and tables found in the output are theirs, not prose
    card = "tablebench.report.text_card:text_sides"
    picture = "page"  # the whole page's prose: its card shows the page's layout, not a crop

    def read(self, record: object, blocks: list[dict], gt_path: Path) -> list[GroundTruthText]:
        return read_text_of(record, blocks, gt_path)

    def locate(self, gts: Sequence[GroundTruthText], output: str) -> list[Located]:
        return [_located(gt, output) for gt in gts]

    def locate_llm(self, gts: Sequence[GroundTruthText], output: str, model: str, *, cache_dir: Path | None,
                   api_base: str | None = None, timeout: float | None = None) -> list[Located]:
        """The offline alignment, asking no model: a page's prose is the whole output without its
        marked-up tables, formulas and images, so there is no span for a model to quote, and each
        block is found word by word (`tablebench.metrics.text.alignment`). `--locator=llm` thus finds a run's
        tables and formulas by the model and its text as without it."""
        return self.locate(gts, output)

    def score(self, gt: GroundTruthText, found: Located, metrics: Sequence[MetricSpec]) -> Scoring:
        from tablebench.metrics.score import score_details
        from tablebench.metrics.text.details import text_diff, text_notes

        scored = score_details(list(gt.blocks), found.prediction, metrics)
        diff = text_diff(gt.blocks, found.prediction)
        return Scoring(scored.values, text_notes(gt.blocks, found.prediction, diff),
                       evidence={**(scored.evidence or {}), TEXT_DIFF: diff}, not_computed=scored.not_computed)

    def judge(self, gt: GroundTruthText, extraction: str, model: str, **options: Any) -> Any:
        from tablebench.metrics.judge import judge_text

        return judge_text(gt.blocks, extraction, model, **options)


def _located(gt: GroundTruthText, output: str) -> Located:
    """The page's prose found where any of its words are; the fragments are the stretches of output
    read as ground truth. Missing only when no word of any block is in the output's prose."""
    from tablebench.metrics.text.alignment import EDITED, MATCHED, align_text

    a = align_text(gt.blocks, output)
    spans: list[list[int]] = []
    found_words = 0
    previous = -2
    for j, status in enumerate(a.status):
        if status not in (MATCHED, EDITED):
            continue
        found_words += 1
        word = a.out[j]
        if spans and previous == j - 1:
            spans[-1][1] = word.end
        else:
            spans.append([word.start, word.end])
        previous = j
    if not spans:
        note = "the output has no prose" if not a.out else f"no word of the page's {a.n_blocks} text blocks is in the output"
        return Located(gt.index, None, None, None, 0.0, note)
    spans = _fewer(spans, MAX_SPANS)
    covered = sum(1 for c in a.coverage if c)
    span = (spans[0][0], spans[-1][1])
    return Located(gt.index, output, span, output[span[0]:span[1]], covered / max(1, len(a.gt)),
                   source="prose", spans=tuple((s, t) for s, t in spans))


def _fewer(spans: list[list[int]], limit: int) -> list[list[int]]:
    """At most `limit` spans, the ones closest together merged first (a report highlights each)."""
    if len(spans) <= limit:
        return spans
    gaps = sorted(range(1, len(spans)), key=lambda i: spans[i][0] - spans[i - 1][1])[:len(spans) - limit]
    merge = set(gaps)
    out: list[list[int]] = []
    for i, span in enumerate(spans):
        if i in merge:
            out[-1][1] = span[1]
        else:
            out.append(list(span))
    return out


KIND = register(TextKind())
