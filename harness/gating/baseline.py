"""Baseline files: every case's outcome and scores, so a later run compares table by table.

Entries are keyed by case id plus parser label (`set/page::tN[label]`, the result's
`test_id` and pytest node id). The file also records what the scores depend on: each parser's
spec and version, the case set's name and manifest hash, the metrics and the tablebench version
and code digest (`core.build`) that scored it, so a run can say why fewer entries match than
expected, or why scores moved. Format 3 is written; formats 1 and 2 (keyed `set/page/tN[...]`)
are still read, their keys in the current form; format 1 (keyed by the raw spec) also has its
keys re-labelled the way unnamed specs are now (`dir:/x/` -> `dir:/x`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from tablebench.core.completeness import is_crashed
from tablebench.core.files import write_atomic
from tablebench.core.labels import default_label
from tablebench.core.results import OUTCOMES, ItemResult, Scores, current_id
from tablebench.core.schema import Items, Maybe, OneOf, Record, Table, Text

FORMAT = "tablebench-baseline/3"
READABLE = ("tablebench-baseline/1", "tablebench-baseline/2", FORMAT)
_KEY = re.compile(r"^(?P<case>[^[]*)\[(?P<label>.*)\]$", re.S)


@dataclass(frozen=True)
class Entry:
    """One case of a baseline: how it ended and its scores."""

    outcome: str
    scores: dict[str, float]


@dataclass
class Baseline:
    """A loaded baseline file (see the module docstring)."""

    path: Path
    format: str
    cases: dict[str, Entry]
    parsers: dict[str, dict] = field(default_factory=dict)  # label -> {"spec", "version"}
    case_set: dict = field(default_factory=dict)  # {"name", "manifest_sha256"}
    metrics: list[str] = field(default_factory=list)
    tablebench: str | None = None  # the version that scored it (None: an older file)
    code: str | None = None  # the digest of the code that scored it (`core.build.code_digest`; None: an older file)

    def get(self, test_id: str) -> Entry | None:
        return self.cases.get(test_id)

    def matched(self, case_ids: Iterable[str]) -> int:
        """How many of this baseline's entries are among `case_ids`."""
        return len(self.cases.keys() & set(case_ids))

    def labels(self) -> list[str]:
        """The parser labels the entries are keyed by, in first-seen order."""
        found = (m["label"] for m in map(_KEY.match, self.cases) if m)
        return list(dict.fromkeys(found))


def save_baseline(results: Iterable[ItemResult], path: Path | str, *, parsers: Mapping[str, Mapping] | None = None,
                  case_set: Mapping | None = None, metrics: Iterable[str] = ()) -> Path:
    """Write every case's outcome and scores with the run's facts, atomically (a killed run leaves the old file).

    A case lost with a crashed worker is left out: it was never measured, and as a baseline's
    failure it would make the same loss in a later run a known failure."""
    from tablebench import __version__
    from tablebench.core.build import code_digest

    cases = {r.test_id: {"outcome": r.outcome, "scores": {k: v for k, v in sorted(r.scores.items())
                                                         if isinstance(v, (int, float)) and math.isfinite(v)}}
             for r in sorted(results, key=lambda r: r.test_id) if not is_crashed(r.message)}
    data = {"format": FORMAT, "created": datetime.now(UTC).isoformat(timespec="seconds"), "tablebench": __version__,
            "tablebench_code": code_digest(), "case_set": dict(case_set or {}), "metrics": list(metrics),
            "parsers": {k: dict(v) for k, v in (parsers or {}).items()}, "cases": cases}
    return write_atomic(Path(path), json.dumps(data, indent=1, ensure_ascii=False) + "\n")


# what a baseline file holds, as `save_baseline` writes it (formats 1 and 2 hold the same fields;
# an entry written without an outcome is a found table)
ENTRY = Record({"outcome": OneOf(OUTCOMES), "scores": Scores(nullable=False)})
BASELINE = Record({
    "format": OneOf(READABLE), "created": Text(), "tablebench": Text(), "tablebench_code": Text(),
    "case_set": Record({"name": Maybe(Text()), "manifest_sha256": Maybe(Text())}), "metrics": Items(Text()),
    "parsers": Table(Record({"spec": Text(), "version": Maybe(Text())})), "cases": Table(ENTRY),
}, required=("format", "cases"))


def baseline_of(path: Path, data: dict) -> Baseline:
    """The baseline a file holds, its keys in the current form; `data` is the file's JSON, checked
    against `BASELINE` (`tablebench.report.results_file.load_baseline` reads it)."""
    cases = {key: Entry(case.get("outcome", "ok"), {str(m): float(v) for m, v in case.get("scores", {}).items()})
             for key, case in data["cases"].items()}
    if data["format"] == READABLE[0]:
        cases = {_relabel(key): entry for key, entry in cases.items()}
    if data["format"] != FORMAT:
        cases = {current_id(key): entry for key, entry in cases.items()}
    return Baseline(path, data["format"], cases, data.get("parsers", {}), data.get("case_set", {}),
                    data.get("metrics", []), data.get("tablebench"), data.get("tablebench_code"))


def _relabel(key: str) -> str:
    """A format-1 key `set/page/tN[spec]` -> `set/page/tN[label]` (then put in the current form)."""
    m = _KEY.match(key)
    return f"{m['case']}[{default_label(m['label'])}]" if m else key
