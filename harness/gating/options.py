"""The run's options, each declared once (`OPTIONS`), and `read_options`: their values as typed -> one
checked `tablebench.core.options.RunOptions`.

A row (`tablebench.core.option_table.Option`) holds an option's names, field, default, help, check
and the runners that take it; the pytest plugin adds every row (`tablebench.plugin.options`), a
`tablebench` subcommand the rows that name it, so an option means the same, shows the same help
and default, and is refused with the same one-line message wherever it is given. The table
lives here, not in `core` beside `RunOptions`, because three checks belong to later stages than
`core`: a `--min-score` floor and a `--baseline-tolerance` are checked against their metric's
scale (`tablebench.gating.thresholds`), `--shard` by `tablebench.cases.shard`. A runner passes the
values it has; a field not given keeps its default. Options are checked one by one, then the ones
that need each other.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from types import MappingProxyType
from typing import Any

from tablebench.cases import DEFAULT_SET
from tablebench.cases.shard import parse_shard
from tablebench.core.labels import label_specs
from tablebench.core.option_table import PYTEST, Option
from tablebench.core.options import (
    DEFAULT_ALPHA,
    DEFAULT_JUDGE_PAGE_TIMEOUT,
    DEFAULT_JUDGE_TIMEOUT,
    DEFAULT_MAX_ANSWER_MB,
    DEFAULT_MIN_EFFECT,
    DEFAULT_PARSE_CONCURRENCY,
    DEFAULT_PARSE_TIMEOUT,
    DEFAULT_REPEAT,
    DEFAULT_REPORT_KEEP,
    DEFAULT_TOLERANCE,
    LOCATORS,
    MAX_ALPHA,
    MAX_ANSWER_MB,
    MAX_PARSE_TIMEOUT,
    MAX_REPEAT,
    REPORT_CROPS,
    GateSpec,
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


def _gates(values: Iterable[str]) -> tuple[GateSpec, ...]:
    return tuple(parse_gate(text) for text in values)


def builtin_names() -> list[str]:
    """The built-in parsers' names, from this install's entry points (so the help never lags a new one)."""
    from tablebench.parse.registry import builtin_parsers

    return sorted(builtin_parsers()) or ["none installed"]


def _parser_help() -> str:
    return (f"parser spec to benchmark (repeatable or comma-separated): a built-in "
            f"({', '.join(builtin_names())}), an entry-point name, module:Class, "
            "vlm:MODEL, or command:CLI / dir:FOLDER (these take the rest of the value "
            "verbatim). LABEL=SPEC names it: the label is its name in test ids, "
            "reports and baselines. Without it nothing of the benchmark runs.")


# the runners besides pytest that take a run option
MERGE, REPORT, COMPARE, META_EVAL = "report merge", "report", "compare", "meta-eval"
_PYTEST, _JUDGED, _GATED, _MERGED = (PYTEST,), (PYTEST, META_EVAL), (PYTEST, MERGE, COMPARE), (PYTEST, MERGE)

# Every run option, once, in `pytest --help`'s order: the plugin adds them all (`tablebench.plugin.options`),
# a `tablebench` subcommand the rows that name it; `read_options` checks each with its row's check.
OPTIONS: tuple[Option, ...] = (
    Option("--parser", _parser_help, _PYTEST, "parsers", "tb_parsers", [], "NAME", "append", check=_parsers),
    Option("--cases", f"case set: a name in cases/, a folder, or a pdf-parse-bench folder (default: {DEFAULT_SET}).",
           _PYTEST, "cases", "tb_cases", None, "SET", check=_text),
    Option("--no-verify", "benchmark a case set without checking its files against manifest.json (warns).",
           _PYTEST, "verify", "tb_no_verify", False, action="store_true", negated=True, check=bool),
    Option("--kinds", "comma-separated item kinds to benchmark: table, formula, text (a page's prose and "
                      "reading order), or a plug-in's. Default: tables and formulas; text only when named.",
           _PYTEST, "kinds", "tb_kinds", None, "LIST", check=_text),  # names checked by `core.kinds.chosen`
    Option("--metrics", "comma-separated metric groups: table ones (default: every offline metric) and "
                        "formula ones (default formula_score,token_edit; glyph_f1 renders with pdflatex), text ones "
                        "(default text_fidelity,reading_order,text_coverage). "
                        "A kind none of whose metrics is named keeps its defaults.",
           _PYTEST, "metrics", "tb_metrics", None, "LIST", check=_text),
    Option("--judge", "also score located tables and formulas with an LLM judge (litellm model string; off by "
                      "default).",
           _PYTEST, "judge", "tb_judge", None, "MODEL", check=_text),
    Option("--judge-timeout", "wall-clock seconds of one judge question, its re-sends and re-asks included "
                              "(default %(default)s; past it: judge timeout).",
           _JUDGED, "judge_timeout", "tb_judge_timeout", DEFAULT_JUDGE_TIMEOUT, "SECONDS",
           check=partial(number, "--judge-timeout", positive=True, upper=MAX_PARSE_TIMEOUT)),
    Option("--judge-page-timeout", "wall-clock seconds of all the judge questions of one page together (default "
                                   "%(default)s; the items asked past it get a judge timeout without a call).",
           _PYTEST, "judge_page_timeout", "tb_judge_page_timeout", DEFAULT_JUDGE_PAGE_TIMEOUT, "SECONDS",
           check=partial(number, "--judge-page-timeout", positive=True, upper=MAX_PARSE_TIMEOUT)),
    Option("--judge-max-answer", "largest judge answer read, in MB (default %(default)s; past it the rest is not "
                                 "read: judge error).",
           _JUDGED, "judge_max_answer", "tb_judge_max_answer", DEFAULT_MAX_ANSWER_MB, "MB",
           check=partial(number, "--judge-max-answer", positive=True, upper=MAX_ANSWER_MB)),
    Option("--llm-api-base", "send judge and LLM-locator requests to this OpenAI-compatible server (e.g. a local one).",
           _JUDGED, "llm_api_base", "tb_judge_api_base", None, "URL",
           old=MappingProxyType({"--judge-api-base": _PYTEST, "--api-base": (META_EVAL,)}), check=_text),
    Option("--locator", "how ground-truth tables and formulas are found in the output: offline content matching "
                        "(default) or an LLM that quotes each table's span (re-found literally).",
           _PYTEST, "locator", "tb_locator", LOCATORS[0], choices=LOCATORS, check=_locator),
    Option("--locator-model", "litellm model for --locator llm (default: the --judge model).",
           _PYTEST, "locator_model", "tb_locator_model", None, "MODEL", check=_text),
    Option("--min-score", "fail a table whose METRIC is below VALUE, or above it for a lower-is-better metric "
                          "(repeatable; semantic/judge on 0-10).",
           _MERGED, "min_scores", "tb_min_scores", [], "METRIC=VALUE", "append", check=_min_scores),
    Option("--baseline", "fail a table whose scores regressed against this baseline file; a table "
                         "not found there either is a known failure (xfail).",
           _MERGED, "baseline", "tb_baseline", None, "FILE", check=_text),
    Option("--save-baseline", "write this run's scores as a baseline file at session end.",
           _MERGED, "save_baseline", "tb_save_baseline", None, "FILE", check=_text),
    Option("--save-baseline-anyway", "--save-baseline even when a parser failed on every page (by default it "
                                     "refuses: such a baseline would gate nothing but the failure).",
           _MERGED, "save_baseline_anyway", "tb_save_baseline_anyway", False, action="store_true", check=bool),
    Option("--baseline-tolerance", "allowed drop below the baseline for the headline metrics: a number on "
                                   "the 0-1 scale (x10 for semantic/judge; default %(default)s) or a share "
                                   "of the baseline score (5%%); per metric: semantic=0.5,teds=2%% (on the "
                                   "metric's own scale; naming a sub-metric such as tlag_precision checks it).",
           _MERGED, "tolerance", "tb_tolerance", DEFAULT_TOLERANCE, "X", check=parse_tolerance),
    Option("--report-only", "record outcomes and scores without failing any case (exit 0 when nothing crashed).",
           _PYTEST, "report_only", "tb_report_only", False, action="store_true", check=bool),
    Option("--allow-incomplete", "gate and --save-baseline a run that did not finish every item (Ctrl-C, -x, a lost "
                                 "worker): by default both refuse it; the run is still flagged INCOMPLETE everywhere.",
           _MERGED, "allow_incomplete", "tb_allow_incomplete", False, action="store_true", check=bool),
    Option("--report-dir", "where results.json, leaderboard.md and report.html go "
                           "(default: reports/<timestamp>-<parsers> under rootdir; reports/latest names the newest).",
           _PYTEST, "report_dir", "tb_report_dir", None, "DIR", check=_text),
    Option("--report-keep", "keep the newest N run folders under reports/ (default %(default)s; 0 keeps every one): "
                            "only folders of the default name holding nothing but a run's files are removed.",
           _PYTEST, "report_keep", "tb_report_keep", DEFAULT_REPORT_KEEP, "N",
           check=partial(_count_or_off, "--report-keep", "keep every run folder")),
    Option("--report-crops", "page crops in report.html: inline for the cards opened first (default), or folder: "
                             "also every table's crop as a file under the report's crops/ folder.",
           (PYTEST, REPORT, MERGE), "report_crops", "tb_report_crops", REPORT_CROPS[0], choices=REPORT_CROPS,
           check=_report_crops),
    Option("--parse-timeout", "per-page parser timeout (default %(default)s, at most "
                              f"{MAX_PARSE_TIMEOUT:g}).",
           _PYTEST, "parse_timeout", "tb_timeout", DEFAULT_PARSE_TIMEOUT, "SECONDS",
           check=partial(number, "--parse-timeout", positive=True, upper=MAX_PARSE_TIMEOUT)),
    Option("--max-page-failures", "stop the run once N pages failed to parse (the parser raised, timed out or wrote "
                                  "nothing; a low score never counts), as --maxfail stops after N failed tests; the "
                                  "line that says so names the cause. Default 0: never stop.",
           _PYTEST, "max_page_failures", "tb_max_page_failures", 0, "N",
           check=partial(_count_or_off, "--max-page-failures", "never stop")),
    Option("--parse-refresh", "parse every page again, ignoring (and overwriting) cached parser outputs; "
                              "cached errors are always retried.",
           _PYTEST, "parse_refresh", "tb_refresh", False, action="store_true", check=bool),
    Option("--parse-cache", "parser output cache (default: .tablebench-cache/ under rootdir).",
           _PYTEST, "parse_cache", "tb_cache", None, "DIR", check=_text),
    # the parts `tablebench.plugin.ci` runs
    Option("--gate", "fail the run when METRIC dropped against --baseline on the items both have, by more "
                     "than --gate-min-effect and significantly (paired permutation test, --gate-alpha); "
                     "SUBSET is a group of the metric's kind (complex, inline, two_column) or KEY=VALUE "
                     "(complexity=complex, placement=inline). Repeatable; improvements are reported too.",
           _MERGED, "gates", "tb_gates", [], "METRIC[:SUBSET]", "append", check=_gates),
    Option("--gate-min-effect", "smallest mean drop that fails a gate, on the 0-1 scale (x10 for semantic/judge; "
                                "default %(default)s).",
           _GATED, "gate_min_effect", "tb_gate_min_effect", DEFAULT_MIN_EFFECT, "X",
           old=MappingProxyType({"--min-effect": (COMPARE,)}),
           check=partial(fraction, "--gate-min-effect", upper=1.0)),
    Option("--gate-alpha", "significance level of the gate's one-sided test (default %(default)s).",
           _GATED, "gate_alpha", "tb_gate_alpha", DEFAULT_ALPHA, "P", old=MappingProxyType({"--alpha": (COMPARE,)}),
           check=partial(fraction, "--gate-alpha", upper=MAX_ALPHA, positive=True)),
    Option("--baseline-per-table", "fail single tables that regressed against --baseline (default on; off: only the "
                                   "aggregate --gate decides, for noisy parsers).",
           _MERGED, "per_table", "tb_baseline_per_table", "on", choices=("on", "off"), check=_switch),
    Option("--repeat", "parse every page K times (stochastic parsers): scores are per-table means, the "
                       "report shows per-table spread, the gate compares the means (default %(default)s).",
           _PYTEST, "repeat", "tb_repeat", DEFAULT_REPEAT, "K",
           check=partial(positive_int, "--repeat", upper=MAX_REPEAT)),
    Option("--shard", "run shard I of N: a deterministic share of the pages balanced by table count "
                      "(merge the shards with `tablebench report merge`).",
           _PYTEST, "shard", "tb_shard", None, "I/N", check=lambda text: parse_shard(text) if text else None),
    Option("--parse-concurrency", "parse up to N upcoming pages at once in each process (for parsers behind a "
                                  "model server, e.g. vlm: with --llm-api-base; default %(default)s).",
           _PYTEST, "parse_concurrency", "tb_parse_concurrency", DEFAULT_PARSE_CONCURRENCY, "N",
           check=partial(positive_int, "--parse-concurrency")),
)
# field -> its check
_READ: dict[str, Callable[[Any], Any]] = {row.field: row.check for row in OPTIONS if row.field and row.check}
_FIELDS = tuple(f.name for f in dataclasses.fields(RunOptions))  # the order values are checked in


def read_options(values: Mapping[str, Any]) -> RunOptions:
    """`values` by RunOptions field name, as typed on a command line (strings, lists of
    strings, flags) -> RunOptions; the first bad value (in the fields' order, whoever gives
    them) is a one-line ValueError."""
    unknown = sorted(set(values) - set(_READ))
    if unknown:
        raise TypeError(f"read_options: no option {', '.join(unknown)}")
    checked = {name: _READ[name](values[name]) for name in _FIELDS if name in values}
    if not checked.get("locator_model"):
        checked["locator_model"] = checked.get("judge")
    options = RunOptions(**checked)
    if options.locator == "llm" and not options.locator_model:
        raise ValueError("--locator llm needs --locator-model MODEL (or --judge MODEL)")
    if options.gates and not options.baseline:
        raise ValueError("--gate needs --baseline FILE (the run to compare with)")
    return options
