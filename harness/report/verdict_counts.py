"""Each parser's answer in one line: found, passed, failed, xfailed, regressed and the gate's verdict.

Why: the leaderboard ranks parsers by their scores, but what a run says about a parser first is
how many of its cases passed and failed, whether it regressed, and whether its gate held; those
counts were spread over pytest's last line, the outcomes table and the gate section. Every
artefact shows this line beside the leaderboard (the terminal, leaderboard.md, report.html,
`tablebench report`, `report merge`), and summary.json holds the same numbers.

The counts read what each result carries: its verdict (`tablebench.gating.rules.verdict_of`:
pass, fail, known = pytest's xfail), its change against the baseline (`baseline_change`, verdict
"regressed") and the gate's comparisons of the parser (`Comparison.group` is the parser's label).
A result without a verdict (a results.json from before verdicts were kept) counts in no column.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

from tablebench.core.results import ItemResult
from tablebench.gating.aggregate import Comparison
from tablebench.gating.rules import verdict_of
from tablebench.report.aggregate import Leaderboard
from tablebench.report.verdicts import FAILED, PASSED

COLUMNS = ("found", "passed", "failed", "xfailed", "regressed", "gate")


@dataclass(frozen=True)
class VerdictCounts:
    """One parser's cases of one kind, counted by verdict."""

    parser: str
    kind: str
    total: int
    found: int  # outcome ok: located and scored
    passed: int
    failed: int
    xfailed: int  # known failures: failed in the baseline too (pytest's xfail)
    regressed: int  # worse than the baseline beyond its tolerance
    gate: str | None  # PASSED / FAILED (its gated comparisons); None: no gate ran for the parser
    gate_failed: tuple[str, ...] = ()  # the labels of its failed gated comparisons ("teds", "semantic:complex")

    @property
    def gate_fails(self) -> bool:
        return self.gate == FAILED

    def gate_text(self) -> str:
        if self.gate is None:
            return "no gate"
        return "gate FAILED (" + ", ".join(self.gate_failed) + ")" if self.gate_fails else "gate passed"

    def line(self) -> str:
        """'pdfplumber: found 408/441, 400 passed, 41 failed, 0 xfailed, 3 regressed, gate passed'."""
        return (f"{self.parser}: found {self.found}/{self.total}, {self.passed} passed, {self.failed} failed, "
                f"{self.xfailed} xfailed, {self.regressed} regressed, {self.gate_text()}")

    def cells(self) -> list[str]:
        """COLUMNS as text, for a table row."""
        return [f"{self.found}/{self.total}", str(self.passed), str(self.failed), str(self.xfailed),
                str(self.regressed), self.gate_text().removeprefix("gate ")]

    def to_dict(self) -> dict:
        return {**asdict(self), "gate_failed": list(self.gate_failed)}


def verdict_counts(parsers: Sequence[str], results: Sequence[ItemResult], comparisons: Sequence[Comparison] = (),
                   kind: str | None = None) -> list[VerdictCounts]:
    """One `VerdictCounts` per parser of `parsers` (in that order: a leaderboard's), over its results
    of `kind` (every kind when None). `results` need no texts."""
    tally = {p: [0] * 6 for p in parsers}  # total, found, passed, failed, xfailed, regressed
    for r in results:
        counts = tally.get(r.parser)
        if counts is None or (kind is not None and r.kind != kind):
            continue
        counts[0] += 1
        counts[1] += r.outcome == "ok"
        verdict = verdict_of(r)
        if verdict is not None:
            counts[2 + ("pass", "fail", "known").index(verdict.status)] += 1
        change = r.baseline_change
        counts[5] += isinstance(change, dict) and change.get("verdict") == "regressed"
    return [VerdictCounts(p, kind or "all", *tally[p], *_gate(p, comparisons)) for p in parsers]


def _gate(parser: str, comparisons: Sequence[Comparison]) -> tuple[str | None, tuple[str, ...]]:
    gated = [c for c in comparisons if c.group == parser and c.gating]
    if not gated:
        return None, ()
    failed = tuple(dict.fromkeys(c.label for c in gated if c.failed))
    return (FAILED if failed else PASSED), failed


def counts_by_kind(tracks: Mapping[str, Leaderboard], results: Sequence[ItemResult],
                   comparisons: Sequence[Comparison] = ()) -> dict[str, list[VerdictCounts]]:
    """{kind: its parsers' counts in its leaderboard's order} for every track of `aggregate.boards`."""
    return {kind: verdict_counts([row.parser for row in board.rows], results, comparisons, kind)
            for kind, board in tracks.items()}
