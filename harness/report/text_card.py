"""A text card: the page's prose as the ground truth has it beside the prose the parser gave.

Why a card of its own: the text metrics charge missing, invented, repeated and out-of-order text,
and a reader checks each charge by seeing it. So the ground truth is shown block by block (¶1,
¶2, ...) with the words the output lacks struck through and the words it read differently
underlined; the extraction is its prose in output order, each piece tagged with the block it was
read as and marked when it was read out of order, invented, or a repeat. The diff comes from the
result (`evidence["text_diff"]`, made by `tablebench.metrics.text.details`); every text goes through
`tablebench.report.html_escape.e`.
"""

from __future__ import annotations

from typing import Any

from tablebench.core.results import TEXT_DIFF
from tablebench.report.html_escape import e

# a piece's status -> (css class, what the mark means)
_PIECES = {"ok": ("", ""), "order": ("t-order", "read out of order"), "edited": ("t-edited", "read differently"),
           "invented": ("t-invented", "not in the ground truth"), "duplicate": ("t-dup", "a repeat of this block")}
_GT = {"ok": ("", ""), "missing": ("t-missing", "not in the output"), "edited": ("t-edited", "read differently")}
LEGEND = ('<p class="note legend"><del class="t-missing">missing</del> · <span class="t-edited">edited</span> · '
          '<span class="t-order">out of order</span> · <ins class="t-invented">invented</ins> · '
          '<ins class="t-dup">repeated</ins></p>')


def text_sides(result: Any, cache: dict[str, str] | None = None) -> tuple[str, str]:
    """(ground truth, extraction) of a text item's card as HTML (`cache`: unused, each page's prose is its own)."""
    diff = result.evidence.get(TEXT_DIFF)
    if not isinstance(diff, dict) or not isinstance(diff.get("blocks"), list):
        gt = "".join(f"<p>{e(p)}</p>" for p in (result.gt_latex or "").split("\n\n") if p)
        pred = '<p class="none">nothing matched</p>' if result.matched_text is None else f"<pre>{e(result.matched_text)}</pre>"
        return f'<div class="prose">{gt}</div>' if gt else '<p class="none">no ground truth</p>', pred
    cut = '<p class="note">… (cut: the card shows the first part of each side)</p>' if diff.get("cut") else ""
    return _gt_side(diff["blocks"]) + cut, _counts(diff.get("counts")) + LEGEND + _pred_side(diff.get("pieces")) + cut


def _gt_side(blocks: list) -> str:
    paragraphs = []
    for b, segments in enumerate(blocks):
        body = "".join(_mark(text, state, _GT, "del") for text, state in _pairs(segments))
        paragraphs.append(f'<p><span class="bn">¶{b + 1}</span> {body}</p>')
    return f'<div class="prose">{"".join(paragraphs)}</div>'


def _pred_side(pieces: object) -> str:
    if not isinstance(pieces, list) or not pieces:
        return '<p class="none">no prose in the output</p>'
    out, last = [], None
    for piece in pieces:
        if not (isinstance(piece, list) and len(piece) == 3):
            continue
        text, status, block = piece
        tag = f'<sup class="bn">¶{e(block + 1)}</sup>' if isinstance(block, int) and block >= 0 and block != last else ""
        last = block
        out.append(tag + _mark(str(text), str(status), _PIECES, "ins") + " ")
    return f'<div class="prose">{"".join(out)}</div>'


def _mark(text: str, state: str, styles: dict, element: str) -> str:
    css, meaning = styles.get(state, ("", ""))
    if not css:
        return e(text) + " "
    tag = element if css in ("t-missing", "t-invented", "t-dup") else "span"
    return f'<{tag} class="{css}" title="{e(meaning)}">{e(text)}</{tag}> '


def _pairs(segments: object) -> list[tuple[str, str]]:
    if not isinstance(segments, list):
        return []
    return [(str(s[0]), str(s[1])) for s in segments if isinstance(s, list) and len(s) == 2]


def _counts(counts: object) -> str:
    """One line of what the metrics counted, in characters."""
    if not isinstance(counts, dict):
        return ""
    parts = [("missing_chars", "missing"), ("invented_chars", "invented"), ("repeated_chars", "repeated"),
             ("out_of_order_chars", "read out of order"), ("edit_chars", "edits")]
    shown = ", ".join(f"{e(counts[k])} {label}" for k, label in parts if isinstance(counts.get(k), int) and counts[k])
    total = counts.get("gt_chars")
    return f'<p class="note">characters: {e(total)} in the ground truth; {shown or "no differences"}</p>'
