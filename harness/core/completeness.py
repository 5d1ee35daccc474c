"""Completeness as data: which items a run was asked for, which it finished, and what follows.

A run cut short (Ctrl-C, `-x`, a worker lost for good, a remote host gone) writes files that
look like any other unless it says so. Every run records a `Completeness` in its meta
(`meta.completeness` of results.json): the items it was asked for (collected, after `-k`, `-m`
and `--shard` deselection), the items it finished, the missing ones (their ids, the first
`MAX_LISTED`, and their count), a reason, and how many finished only as "worker crashed"
errors. A crashed item has a result but no measurement (its process died, perhaps of what the
parser's page did to it), so a run with one is incomplete too, and no baseline keeps it
(`is_crashed`): a later run that loses the same item must fail, not pass as a known failure.
Everything that trusts a run to be whole asks it here: the gate, `--save-baseline` and
`tablebench report merge` refuse an incomplete run (`refusal`) unless `--allow-incomplete`
says so, and then flag it. A results.json written before this record reads as "unknown",
treated as complete, and says so (`line`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

MAX_LISTED = 200  # missing ids listed in results.json; the count is always exact
WORKER_CRASHED = "worker crashed"  # the message of an item whose process was lost
ALLOW = "--allow-incomplete"


@dataclass(frozen=True)
class Completeness:
    """What a run was asked for and what it finished. `expected` None: not recorded (an older file)."""

    expected: int | None
    finished: int
    missing: tuple[str, ...] = ()  # the first MAX_LISTED missing ids, in run order
    missing_count: int = 0
    reason: str = ""  # why items are missing (empty when none are)
    crashed: int = 0  # finished only as "worker crashed" errors

    @property
    def known(self) -> bool:
        return self.expected is not None

    @property
    def complete(self) -> bool:
        """Every expected item finished, none with a crashed worker; an unknown record counts as
        complete (and `line` says so)."""
        return not self.known or (self.missing_count == 0 and self.crashed == 0)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"expected": self.expected, "finished": self.finished, "complete": self.complete,
                                "missing_count": self.missing_count, "missing": list(self.missing)}
        if self.reason:
            data["reason"] = self.reason
        if self.crashed:
            data["crashed"] = self.crashed
        return data

    def line(self) -> str:
        """One line for the terminal, the leaderboards and the report."""
        if not self.known:
            return "completeness unknown (written before tablebench recorded it): treated as complete"
        if self.complete:
            return f"complete: {self.finished} of {self.expected} items finished"
        why = f" ({self.reason})" if self.reason else ""
        missing = f", {self.missing_count} missing{why}" if self.missing_count else ""
        crashed = f", {self.crashed} lost with a crashed worker (error)" if self.crashed else ""
        return f"INCOMPLETE: {self.finished} of {self.expected} items finished{missing}{crashed}"

    def banner(self) -> str | None:
        """The loud line of an incomplete run; None when complete or unknown."""
        return None if self.complete else self.line()


def measure(expected: Iterable[str], finished: Iterable[str], reason: str = "", crashed: int = 0) -> Completeness:
    """The completeness of a run asked for `expected` ids that finished `finished` ids."""
    done = set(finished)
    wanted = list(dict.fromkeys(expected))
    missing = [i for i in wanted if i not in done]
    if missing and not reason:
        reason = "not every item was reported"
    return Completeness(len(wanted), len(done & set(wanted)), tuple(missing[:MAX_LISTED]), len(missing),
                        reason if missing else "", crashed)


def crashed_count(messages: Iterable[str]) -> int:
    """How many of the results' messages say their worker crashed."""
    return sum(1 for m in messages if is_crashed(m))


def is_crashed(message: str | None) -> bool:
    """Whether a result's message says its process was lost (`WORKER_CRASHED`): an item never measured."""
    return WORKER_CRASHED in (message or "")


def of_meta(meta: Mapping[str, Any] | None, finished: int) -> Completeness:
    """The record in a results.json meta; a missing or malformed one is unknown (`finished` results)."""
    data = (meta or {}).get("completeness")
    if not isinstance(data, Mapping):
        return Completeness(None, finished)
    ints = {k: data.get(k) for k in ("expected", "finished", "missing_count", "crashed")}
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for k, v in ints.items()
               if k in ("expected", "finished") or v is not None):
        return Completeness(None, finished)
    missing = data.get("missing") if isinstance(data.get("missing"), list) else []
    count = ints["missing_count"] if ints["missing_count"] is not None else max(0, ints["expected"] - ints["finished"])
    if data.get("complete") is False and count == 0:  # said incomplete without a count: trust the flag
        count = max(1, ints["expected"] - ints["finished"])
    reason = data.get("reason") if isinstance(data.get("reason"), str) else ""
    return Completeness(ints["expected"], ints["finished"], tuple(str(m) for m in missing[:MAX_LISTED]), count,
                        reason, ints["crashed"] or 0)


def combine(parts: Sequence[Completeness], flagged: bool = False) -> Completeness:
    """The union of several runs (shards): known only when every part is; reasons joined.
    `flagged`: the union was let through incomplete (`--allow-incomplete`), which the reason says."""
    if not parts:
        return Completeness(0, 0)
    known = all(p.known for p in parts)
    missing = tuple(m for p in parts for m in p.missing)[:MAX_LISTED]
    reasons = list(dict.fromkeys(p.reason for p in parts if p.reason))
    if flagged and any(not p.complete for p in parts):
        reasons.append(f"merged with {ALLOW}")
    return Completeness(sum(p.expected or 0 for p in parts) if known else None, sum(p.finished for p in parts),
                        missing, sum(p.missing_count for p in parts), "; ".join(reasons),
                        sum(p.crashed for p in parts))


def refusal(completeness: Completeness, what: str, allow: bool, record_required: bool = False) -> str | None:
    """The one-line refusal of `what` (e.g. "--save-baseline") for an incomplete run; None when
    the run is complete or `--allow-incomplete` lets it through. `record_required`: a run without
    a record (an older or an edited file) is refused too: `report merge` would otherwise make a
    whole-looking run of a shard that may have stopped half way."""
    if allow:
        return None
    if record_required and not completeness.known:
        return (f"{what}: refused: no completeness record (written before tablebench recorded it, or edited), "
                f"so it may not hold every item (pass {ALLOW} to use it)")
    if completeness.complete:
        return None
    return f"{what}: refused: {completeness.line()} (pass {ALLOW} to use what finished)"
