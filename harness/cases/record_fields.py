"""Fields of a page record that any kind's reader may hold: a whole number (a page, a count) and a box
on the page (what a report crops to show an item: `tablebench.cases.Page.regions_of`).

Why shared: every kind reads its ground truth from the same page records, and a box or a page
number means the same thing whichever item carries it, so each is checked once, here.
"""

from __future__ import annotations

import math
from pathlib import Path


def whole_number(value: object, what: str, gt_path: Path) -> int:
    """A page number or count of a record: an int >= 1, else a one-line error naming it."""
    if type(value) is not int or value < 1:
        raise ValueError(f"{gt_path}: '{what}' must be a whole number >= 1, got {value!r:.40}")
    return value


def bbox_of(value: object) -> tuple[float, float, float, float] | None:
    """[x0, top, x1, bottom] in points when it is one (a report crops the page to it), else None."""
    if not isinstance(value, list) or len(value) != 4 or not all(type(v) in (int, float) for v in value):
        return None
    x0, top, x1, bottom = (float(v) for v in value)
    ok = all(math.isfinite(v) for v in value) and 0 <= x0 < x1 and 0 <= top < bottom
    return (x0, top, x1, bottom) if ok else None
