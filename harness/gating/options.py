"""`read_options`: option values as typed -> one checked `tablebench.core.options.RunOptions`.

The type lives in `core` (every stage may read it); the reading lives here because two checks
belong to later stages than `core`: a `--min-score` floor is checked against its metric's
scale (`thresholds.parse_min_score`) and `--shard` by `tablebench.cases.shard`. The pytest plugin
passes every option, `tablebench report merge` the ones it has; a field not given keeps its
default. Options are checked in the order given, then the ones that need each other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import partial
from types import MappingProxyType
from typing import Any

from tablebench.cases.shard import parse_shard
from tablebench.core.labels import label_specs
from tablebench.core.options import (
    LOCATORS,
    MAX_ALPHA,
    MAX_ANSWER_MB,
    MAX_PARSE_TIMEOUT,
    MAX_REPEAT,
    REPORT_CROPS,
    RunOptions,
    fraction,
    number,
    parse_gate,
    positive_int,
    split_specs,
)
from tablebench.gating.thresholds import parse_min_score, parse_tolerance


def _parsers(values: Iterable[str]) -> Mapping[str, str]:
    return MappingProxyType(label_specs(split_specs(list(values))))


def _min_scores(values: Iterable[str]) -> Mapping[str, float]:
    return MappingProxyType(dict(parse_min_score(text) for text in values))


def _locator(value: str) -> str:
    if value not in LOCATORS:
        raise ValueError(f"--locator must be one of {', '.join(LOCATORS)}, got {value!r}")
    return value


def _report_crops(value: str) -> str:
    if value not in REPORT_CROPS:
        raise ValueError(f"--report-crops must be one of {', '.join(REPORT_CROPS)}, got {value!r}")
    return value


def _count_or_off(option: str, off: str, value: object) -> int:
    """`--report-keep`, `--max-page-failures`: 0 (`off` says what it means) or a positive count."""
    if str(value).strip() == "0":
        return 0
    try:
        return positive_int(option, value)
    except ValueError:
        raise ValueError(f"{option} must be 0 ({off}) or a positive integer, got {value!r:.40}") from None


def _switch(value: object) -> bool:
    """`--baseline-per-table on|off` (or a bool)."""
    return value not in ("off", False)


def _text(value: object) -> str | None:
    return str(value) if value else None


# field -> its check; a field not named here is taken as given
_READ: dict[str, Callable[[Any], Any]] = {
    "parsers": _parsers,
    "cases": _text,
    "verify": bool,
    "metrics": _text,
    "kinds": _text,  # names checked against the registry when the case set is read (`tablebench.core.kinds.chosen`)
    "judge": _text,
    "judge_timeout": partial(number, "--judge-timeout", positive=True, upper=MAX_PARSE_TIMEOUT),
    "judge_page_timeout": partial(number, "--judge-page-timeout", positive=True, upper=MAX_PARSE_TIMEOUT),
    "judge_max_answer": partial(number, "--judge-max-answer", positive=True, upper=MAX_ANSWER_MB),
    "llm_api_base": _text,
    "locator": _locator,
    "locator_model": _text,
    "min_scores": _min_scores,
    "baseline": _text,
    "save_baseline": _text,
    "tolerance": parse_tolerance,
    "per_table": _switch,
    "report_only": bool,
    "allow_incomplete": bool,
    "save_baseline_anyway": bool,
    "report_dir": _text,
    "report_crops": _report_crops,
    "report_keep": partial(_count_or_off, "--report-keep", "keep every run folder"),
    "parse_timeout": partial(number, "--parse-timeout", positive=True, upper=MAX_PARSE_TIMEOUT),
    "parse_cache": _text,
    "parse_refresh": bool,
    "gates": lambda values: tuple(parse_gate(text) for text in values),
    "gate_min_effect": partial(fraction, "--gate-min-effect", upper=1.0),
    "gate_alpha": partial(fraction, "--gate-alpha", upper=MAX_ALPHA, positive=True),
    "repeat": partial(positive_int, "--repeat", upper=MAX_REPEAT),
    "shard": lambda text: parse_shard(text) if text else None,
    "parse_concurrency": partial(positive_int, "--parse-concurrency"),
    "max_page_failures": partial(_count_or_off, "--max-page-failures", "never stop"),
}

def read_options(values: Mapping[str, Any]) -> RunOptions:
    """`values` by RunOptions field name, as typed on a command line (strings, lists of
    strings, flags) -> RunOptions; the first bad value is a one-line ValueError."""
    unknown = sorted(set(values) - set(_READ))
    if unknown:
        raise TypeError(f"read_options: no option {', '.join(unknown)}")
    checked = {name: _READ[name](value) for name, value in values.items()}
    if not checked.get("locator_model"):
        checked["locator_model"] = checked.get("judge")
    options = RunOptions(**checked)
    if options.locator == "llm" and not options.locator_model:
        raise ValueError("--locator llm needs --locator-model MODEL (or --judge MODEL)")
    if options.gates and not options.baseline:
        raise ValueError("--gate needs --baseline FILE (the run to compare with)")
    return options
