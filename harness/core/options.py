"""A run's options, parsed and checked once: `RunOptions`, its defaults and the number checks.

Each option is declared once, as a row of `tablebench.gating.options.OPTIONS` (its field here,
its default, help, check and runners); the pytest plugin builds one `RunOptions` from its
command line, each `tablebench` subcommand (`report merge`, `compare`, `meta-eval`) the part it
takes, all through `tablebench.gating.options.read_options`, so an option means the same and is
refused with the same one-line message wherever it is given. Every default value is defined
here, once: the rows, the dataclass and the statistics read these names.

A NaN, an infinity or a negative number would silently turn a check off (every comparison
with NaN is false), so the number checks refuse them at the door.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

DEFAULT_PARSE_TIMEOUT = 300.0  # seconds per page
# a parse that needs more than a day is a hang; above this the OS waits overflow (1e20 s made every page an error)
MAX_PARSE_TIMEOUT = 86_400.0
# the judge's bounds: a silent server held a page of 6 tables for 30 min (120 s per attempt, 5 attempts
# per table), a 200 MB answer took 14 min and 7.5 GB; a judge's answer is about 1 KB. Timeouts at most
# MAX_PARSE_TIMEOUT, answers at most MAX_ANSWER_MB
DEFAULT_JUDGE_TIMEOUT = 300.0  # seconds of one judge question, its re-sends and re-asks included
DEFAULT_JUDGE_PAGE_TIMEOUT = 1200.0  # seconds of all the judge questions of one page together
DEFAULT_MAX_ANSWER_MB = 8.0  # of one model answer as sent (any LLM call: judge, locator, vlm: parsers)
MAX_ANSWER_MB = 4_096.0
DEFAULT_TOLERANCE = 0.01  # --baseline-tolerance, on the 0-1 scale
DEFAULT_MIN_EFFECT = 0.01  # --gate-min-effect, on the 0-1 scale
DEFAULT_ALPHA = 0.05  # --gate-alpha
MAX_ALPHA = 0.5  # a one-sided test above 0.5 would call noise a change
DEFAULT_REPEAT = 1
# each repetition parses and scores every page again: 1,000 is far past any spread estimate, and
# --repeat=99999999999999999999 ran until killed
MAX_REPEAT = 1_000
DEFAULT_PARSE_CONCURRENCY = 1
LOCATORS = ("offline", "llm")  # the first is the default
# page crops in report.html: inline for the cards opened first only, or also every crop in a folder
# beside it (the first is the default)
REPORT_CROPS = ("inline", "folder")
DEFAULT_REPORT_KEEP = 20  # run folders kept under reports/ (`tablebench.report.runs`); 0 keeps every one


def number(option: str, text: object, *, positive: bool = False, upper: float | None = None) -> float:
    """`text` as a finite float >= 0 (> 0 with `positive`, <= `upper` when given); a one-line ValueError else."""
    try:
        value = float(text)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{option}: expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"{option}: expected a finite number, got {text!r}")
    if value < 0 or (positive and value == 0):
        raise ValueError(f"{option} must be {'positive' if positive else '>= 0'}, got {text!r}")
    if upper is not None and value > upper:
        raise ValueError(f"{option} must be <= {upper:g}, got {text!r}")
    return value


def fraction(option: str, text: object, *, upper: float | None = None, positive: bool = False) -> float:
    """A finite number >= 0 (> 0 when `positive`, <= `upper` when given), or a one-line ValueError
    (the gate's options: one message naming the whole allowed range)."""
    try:
        value = float(text)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        value = math.nan
    bad = not math.isfinite(value) or value < 0 or (positive and value == 0) or (upper is not None and value > upper)
    if bad:
        bounds = f"{'>' if positive else '>='} 0" + (f" and <= {upper:g}" if upper is not None else "")
        raise ValueError(f"{option} must be a finite number {bounds}, got {text!r}")
    return value


def positive_int(option: str, text: object, *, upper: int | None = None) -> int:
    """`text` as an integer >= 1 (<= `upper` when given), or a one-line ValueError."""
    digits = str(text).strip()
    try:
        value = int(digits) if len(digits) <= 30 else 0  # no 5,000-digit int() either
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"{option} must be a positive integer, got {text!r:.40}")
    if upper is not None and value > upper:
        raise ValueError(f"{option} must be <= {upper}, got {text!r:.40}")
    return value


RENAMED_ATTR = "tb_renamed"  # on a parsed namespace: {old option name used: its new name}


class Renamed(argparse.Action):
    """An option's old name (`--alpha` for `--gate-alpha`): it sets what the new name sets, is
    hidden from --help, and is noted on the namespace so the command says once, on stderr, which
    name to use (`renamed_lines`). Why noted, not printed here: pytest parses its command line
    more than once, and again in every xdist worker."""

    def __init__(self, option_strings: list[str], dest: str, new: str, **kwargs: object) -> None:
        kwargs.update(default=argparse.SUPPRESS, help=argparse.SUPPRESS)  # the new name's default stands
        super().__init__(option_strings, dest, **kwargs)  # type: ignore[arg-type]
        self.new = new

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        setattr(namespace, self.dest, values)
        renamed = dict(getattr(namespace, RENAMED_ATTR, None) or {})
        renamed[option_string or self.option_strings[0]] = self.new
        setattr(namespace, RENAMED_ATTR, renamed)


def renamed_lines(namespace: object) -> list[str]:
    """'tablebench: --alpha is deprecated; use --gate-alpha' for each old option name the command line used."""
    renamed = getattr(namespace, RENAMED_ATTR, None) or {}
    return [f"tablebench: {old} is deprecated; use {new}" for old, new in renamed.items()]


def split_specs(values: list[str]) -> list[str]:
    """['a,b', 'c'] -> ['a', 'b', 'c'], first occurrence kept; a command: or dir: spec (named or
    not) takes the rest of its value verbatim (a command line or a path may hold commas)."""
    from tablebench.core.labels import split_label

    out: list[str] = []
    for value in values:
        parts = value.split(",")
        for i, part in enumerate(parts):
            if split_label(part)[1].startswith(("command:", "dir:")):
                parts = parts[:i] + [",".join(parts[i:])]
                break
        for spec in (p.strip() for p in parts):
            if spec and spec not in out:
                out.append(spec)
    return out


GROUP = "group"  # the case attribute a bare gate subset selects on: the item's group, whatever its kind


@dataclass(frozen=True)
class GateSpec:
    """`--gate=METRIC[:SUBSET]`: SUBSET is a group (`complex`, of any kind) or `KEY=VALUE` on a case
    attribute (`complexity=complex`: a kind's own name for its group, `ItemKind.group_name`)."""

    metric: str
    subset: str | None = None

    @property
    def label(self) -> str:
        return self.metric + (f":{self.subset}" if self.subset else "")

    def selects(self, attrs: Mapping[str, object]) -> bool:
        """Does a case with these attributes (its group, language, ...) belong to the subset?"""
        if not self.subset:
            return True
        key, eq, value = self.subset.partition("=")
        if not eq:
            key, value = GROUP, self.subset
        return str(attrs.get(key.strip(), "")) == value.strip()


def parse_gate(text: str) -> GateSpec:
    """'teds' / 'semantic:complex' / 'teds:language=de' -> GateSpec; one-line ValueError otherwise."""
    metric, _, subset = text.strip().partition(":")
    metric, subset = metric.strip(), subset.strip()
    if not metric or (":" in text and not subset) or (subset.startswith("=") or subset.endswith("=")):
        raise ValueError(f"--gate {text!r}: expected METRIC[:SUBSET], e.g. teds or semantic:complex or teds:language=de")
    return GateSpec(metric, subset or None)


def _frozen(mapping: Mapping | None = None) -> Mapping:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True)
class Tolerance:
    """`--baseline-tolerance`: how far a table's score may fall below its baseline, per metric.

    Why per metric: one number for every sub-metric made tables fail on `tlag_precision`
    noise. A bare number (`0.01`, on the 0-1 scale, x10 for 10-point metrics: its meaning since
    the option exists) or a bare percentage (`5%` of the baseline score) applies to the
    headline scores only; `METRIC=X` gives a metric its own, absolute on the metric's own scale
    (`semantic=0.5`) or relative (`teds=2%`), and is how a sub-metric is checked at all.
    Parsed by `tablebench.gating.thresholds.parse_tolerance`. Whether single tables fail on it at
    all is `RunOptions.per_table` (`--baseline-per-table`); a case's change against the
    baseline is judged by it either way.
    """

    default: float = DEFAULT_TOLERANCE
    default_relative: bool = False
    named: Mapping[str, tuple[float, bool]] = field(default_factory=_frozen)  # metric -> (value, relative)


@dataclass(frozen=True)
class RunOptions:
    """Every benchmark option of one run, checked (see `tablebench.gating.options.read_options`).

    What needs the case set or the parsers themselves (metric names against the case set's
    kinds, a parser spec that resolves, a baseline that matches) is checked by the session
    that has them; everything here is known from the command line alone.
    """

    parsers: Mapping[str, str] = field(default_factory=_frozen)  # label -> spec, in --parser order
    cases: str | None = None  # a set name, a folder, or None for the default set
    verify: bool = True  # check the case set against its manifest.json
    metrics: str | None = None  # comma-separated metric groups; None: each kind's defaults
    kinds: str | None = None  # --kinds: comma-separated item kinds to benchmark; None: the default kinds
    judge: str | None = None  # litellm model of the LLM judge
    judge_timeout: float = DEFAULT_JUDGE_TIMEOUT  # seconds of one judge question, re-sends included
    judge_page_timeout: float = DEFAULT_JUDGE_PAGE_TIMEOUT  # seconds of a page's judge questions together
    judge_max_answer: float = DEFAULT_MAX_ANSWER_MB  # MB of one judge answer, as sent
    llm_api_base: str | None = None  # OpenAI-compatible server for judge, LLM locator and vlm: parsers
    locator: str = LOCATORS[0]
    locator_model: str | None = None  # for the LLM locator: --locator-model, else the judge's model
    min_scores: Mapping[str, float] = field(default_factory=_frozen)  # metric -> floor
    baseline: str | None = None  # the baseline file, as given
    save_baseline: str | None = None
    tolerance: Tolerance = Tolerance()  # allowed drop below the baseline, per metric
    per_table: bool = True  # single tables fail against the baseline (off: only --gate decides)
    report_only: bool = False
    allow_incomplete: bool = False  # gate, save a baseline from, merge a run that did not finish every item
    save_baseline_anyway: bool = False  # save a baseline even when a parser failed on every page
    report_dir: str | None = None  # None: reports/<timestamp>-<parsers> under the rootdir
    report_crops: str = REPORT_CROPS[0]  # "folder": every page crop also under the report's crops/
    report_keep: int = DEFAULT_REPORT_KEEP  # default run folders kept under reports/; 0: every one
    parse_timeout: float = DEFAULT_PARSE_TIMEOUT
    parse_cache: str | None = None  # None: .tablebench-cache/ under the rootdir
    parse_refresh: bool = False
    gates: tuple[GateSpec, ...] = ()
    gate_min_effect: float = DEFAULT_MIN_EFFECT
    gate_alpha: float = DEFAULT_ALPHA
    repeat: int = DEFAULT_REPEAT
    shard: tuple[int, int] | None = None  # (I, N), 1-based
    parse_concurrency: int = DEFAULT_PARSE_CONCURRENCY
    max_page_failures: int = 0  # stop the run once this many pages failed to parse; 0: never
