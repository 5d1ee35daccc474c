"""`--shard=I/N`: which pages of a case set one CI job runs, balanced by table count.

What "deterministic" and "stable" mean here:

- deterministic: the assignment depends only on the page ids, their table counts and N —
  not on the machine, the order pages are listed in, Python's hash seed or the parser.
  Every shard job computes the same split, so N jobs cover every page exactly once.
- stable when a case set grows: each page has its own preference order over the shards
  (rendezvous hashing: shards ranked by sha256(page id, shard)), and pages are placed in an
  order fixed by their own hash, each in its most preferred shard that still has room. A
  page added later lands where its hash sends it and moves an older page only when that
  shard runs out of room, so most pages keep their shard (measured in the tests: adding 10%
  more pages moves few of the old ones) and a shard job's parse cache stays warm.
- balanced: a shard's room is (1 + SLACK) x the mean table count; a page that fits nowhere
  goes to the least loaded shard, so no shard exceeds the room by more than one page.

Sharding is by page, never by table, so a page is parsed by one job only.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

from tablebench.core import kinds as item_kinds
from tablebench.core.files import sha256_file

SLACK = 0.05
_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


def parse_shard(text: str) -> tuple[int, int]:
    """'2/3' -> (2, 3), 1-based; a one-line ValueError for anything else."""
    m = _SHARD.match(text or "")
    if not m or not 1 <= int(m[1]) <= int(m[2]):
        raise ValueError(f"--shard {text!r}: expected I/N with 1 <= I <= N, e.g. --shard=2/3")
    return int(m[1]), int(m[2])


def _h(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()[:8], "big")


def assign(weights: Mapping[str, int], n: int, slack: float = SLACK) -> dict[str, int]:
    """Page id -> shard index in 0..n-1, for pages weighted by their table count (>= 1 each)."""
    if n < 1:
        raise ValueError(f"shard count must be >= 1, got {n}")
    if n > max(1, len(weights)):  # a shard would be empty for sure, and the work grows with n
        raise ValueError(f"{n} shards for {len(weights)} pages: use at most {max(1, len(weights))}")
    if n == 1:
        return dict.fromkeys(weights, 0)
    w = {page: max(1, int(count)) for page, count in weights.items()}
    total = sum(w.values())
    mean = total / n
    room = math.ceil(mean * (1 + slack))
    loads = [0] * n
    out: dict[str, int] = {}
    for page in sorted(w, key=lambda p: (_h("order", p), p)):
        ranked = sorted(range(n), key=lambda s: _h("shard", page, s))
        for shard in ranked:
            if loads[shard] + w[page] <= room:
                break
        else:  # full everywhere (a big page late in the order): the least loaded shard takes it
            shard = min(range(n), key=lambda s: (loads[s], s))
        loads[shard] += w[page]
        out[page] = shard
    return out


def select(weights: Mapping[str, int], index: int, n: int) -> set[str]:
    """The page ids of shard `index` (1-based) of `n`."""
    return {page for page, shard in assign(weights, n).items() if shard == index - 1}


def fingerprint(pages: Iterable[Any]) -> str:
    """A digest of what a case set measures: each page's id, PDF bytes and ground-truth items.

    Two runs (or shards) with the same fingerprint scored the same pages against the same
    ground truth, whatever folder or layout the set was read from. The record is the page id,
    the PDF's sha256, its tables (`ORIGINAL_KIND`'s items), then each other kind's items where it
    has any (so a set of tables only keeps the fingerprint it had before other kinds existed).
    """
    h = hashlib.sha256()
    for page in sorted(pages, key=lambda p: p.page_id):
        first = [[t.index, t.latex, t.group] for t in page.items_of(item_kinds.ORIGINAL_KIND)]
        record = [page.page_id, sha256_file(page.pdf), first]
        for kind, items in page.items.items():
            if kind != item_kinds.ORIGINAL_KIND and items:
                record.append([[i.index, i.latex, i.group] for i in items])
        h.update(json.dumps(record, ensure_ascii=False).encode())
    return h.hexdigest()[:16]
