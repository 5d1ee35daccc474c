"""A card's two sides (ground truth, extraction) as HTML, rendered by the name of the item's kind.

Why here and not in the kind: rendering is the report's job, and a kind that imported the report
to render its card made a loop at run time (report -> `core.kinds.get` -> the kind -> report).
So a kind declares its card as the "module:attr" name of a renderer (`ItemKind.card`, e.g. the
table kind's `tablebench.report.html:table_sides`), loaded here when a card is drawn; a kind that
names none gets the generic card: its ground truth and the matched text as written, escaped.
A renderer takes (result, cache): `cache` lets it render a ground truth several parsers share once.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import Any

from tablebench.core import kinds as item_kinds
from tablebench.core.named_builtins import load

Sides = Callable[[Any, dict[str, str]], tuple[str, str]]


def card_sides(result: Any, cache: dict[str, str]) -> tuple[str, str]:
    """(ground truth, extraction) of `result`'s card, every text escaped, by its kind's renderer."""
    return renderer(result.kind)(result, cache)


def renderer(kind: str) -> Sides:
    """The card renderer the kind called `kind` names, or `plain_sides` when it names none."""
    target = item_kinds.get(kind).card
    return load(target) if target else plain_sides


def plain_sides(result: Any, cache: dict[str, str]) -> tuple[str, str]:
    """The generic card: the ground truth and the matched text, each as preformatted text."""
    gt = f"<pre>{escape(result.gt_latex)}</pre>" if result.gt_latex else '<p class="none">no ground truth</p>'
    pred = ('<p class="none">nothing matched</p>' if result.matched_text is None else
            f"<pre>{escape(result.matched_text)}</pre>")
    return gt, pred
