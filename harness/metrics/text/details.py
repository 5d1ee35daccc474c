"""What a text card shows and what a failure says: the diff behind the text metrics, bounded.

The scores say how much; this says where: the ground truth block by block with its missing and
edited words marked, the output's prose piece by piece with what each piece is (read in order,
read out of order, edited, invented, a repeat of a block), and the costliest errors in words.
Plain data (lists of strings and numbers), so it travels in a result's `evidence` to results.json
and the report; `tablebench.report.text_card` renders it. Texts are cut at `MAX_CARD_CHARS` per
side: a card must open quickly whatever the page.
"""

from __future__ import annotations

from collections.abc import Sequence

from tablebench.metrics.text.alignment import (
    CHANGED,
    DUPLICATE,
    EDITED,
    INVENTED,
    MISSING,
    Alignment,
    align_text,
    in_order,
)
from tablebench.metrics.text.scores import counts, edit_cost

MAX_CARD_CHARS = 60_000  # characters of text per side of a card
MAX_NOTES = 8
PREVIEW = 60

# a piece's status on the card (an output word's status, with matched split by reading order)
IN_ORDER, OUT_OF_ORDER = "ok", "order"
_GT_STATE = {MISSING: "missing", CHANGED: "edited"}


def text_diff(gt: Sequence[str], pred: str) -> dict:
    """{"blocks": [[[text, state], ...] per block], "pieces": [[text, status, block], ...],
    "counts": {...}, "cut": bool}: the card's two sides (block -1: not ground truth)."""
    a = align_text(gt, pred)
    budget = [MAX_CARD_CHARS, MAX_CARD_CHARS]
    blocks: list[list[list[str]]] = [[] for _ in range(a.n_blocks)]
    for g, word in enumerate(a.gt):
        state = _GT_STATE.get(a.coverage[g], "ok")
        _append(blocks[a.block_of[g]], word.norm, state, budget, 0)
    pieces: list[list] = []
    for j, status in _statuses(a):
        block = a.block_at(j)
        text = a.out[j].norm
        if pieces and pieces[-1][1] == status and pieces[-1][2] == block and budget[1] > 0:
            pieces[-1][0] += " " + text
            budget[1] -= len(text) + 1
        elif budget[1] > 0:
            pieces.append([text, status, block])
            budget[1] -= len(text) + 1
    return {"blocks": blocks, "pieces": pieces, "counts": counts(a), "cut": min(budget) <= 0}


def _append(segments: list[list[str]], text: str, state: str, budget: list[int], side: int) -> None:
    if budget[side] <= 0:
        return
    budget[side] -= len(text) + 1
    if segments and segments[-1][1] == state:
        segments[-1][0] += " " + text
    else:
        segments.append([text, state])


def _statuses(a: Alignment) -> list[tuple[int, str]]:
    """Each output word with its card status: matched words split into in order / out of order."""
    out_of_order = bytearray(len(a.out))
    for run, kept in zip(a.runs, in_order(a), strict=True):
        if not kept:
            out_of_order[run.start:run.end] = b"\1" * (run.end - run.start)
    return [(j, (OUT_OF_ORDER if out_of_order[j] else IN_ORDER) if s not in (EDITED, INVENTED, DUPLICATE) else s)
            for j, s in enumerate(a.status)]


def text_notes(gt: Sequence[str], pred: str, diff: dict | None = None) -> list[str]:
    """The costliest errors in words, worst first: blocks or words missing, text invented or
    repeated, text read out of order, words read as others (`diff`: this pair's `text_diff`, if made)."""
    a = align_text(gt, pred)
    diff = diff if diff is not None else text_diff(gt, pred)
    found: list[tuple[int, str]] = []
    for b, (missing, total, first) in _missing_by_block(a).items():
        if missing == total:
            found.append((missing, f"¶{b + 1} missing: '{_preview(first)}'"))
        else:
            found.append((missing, f"¶{b + 1}: {missing} of {total} characters missing, e.g. '{_preview(first)}'"))
    for text, status, block in diff["pieces"]:
        if status == INVENTED:
            found.append((len(text) + 1, f"invented: '{_preview(text)}'"))
        elif status == DUPLICATE:
            found.append((len(text) + 1, f"¶{block + 1} repeated: '{_preview(text)}'"))
        elif status == OUT_OF_ORDER:
            found.append((len(text) + 1, f"¶{block + 1} read out of order: '{_preview(text)}'"))
    for edit in a.edits:
        o_lo, o_hi, g_lo, g_hi = edit
        was = " ".join(w.norm for w in a.gt[g_lo:g_hi])
        now = " ".join(w.norm for w in a.out[o_lo:o_hi])
        found.append((edit_cost(a, edit), f"¶{a.block_of[g_lo] + 1}: '{_preview(was)}' read as '{_preview(now)}'"))
    found.sort(key=lambda item: -item[0])
    return [text for _, text in found[:MAX_NOTES]]


def _missing_by_block(a: Alignment) -> dict[int, tuple[int, int, str]]:
    """block -> (missing characters, its characters, its first missing stretch) for blocks missing any."""
    totals: dict[int, int] = {}
    missing: dict[int, int] = {}
    first: dict[int, list[str]] = {}
    closed: set[int] = set()  # blocks whose first missing stretch has ended
    for g, word in enumerate(a.gt):
        b = a.block_of[g]
        totals[b] = totals.get(b, 0) + len(word.norm) + 1
        if a.coverage[g] != MISSING:
            if b in first:
                closed.add(b)
            continue
        missing[b] = missing.get(b, 0) + len(word.norm) + 1
        stretch = first.setdefault(b, [])
        if b not in closed and len(" ".join(stretch)) < PREVIEW:
            stretch.append(word.norm)
    return {b: (missing[b], totals[b], " ".join(first[b])) for b in sorted(missing)}


def _preview(text: str) -> str:
    return text if len(text) <= PREVIEW else text[:PREVIEW - 1] + "…"
