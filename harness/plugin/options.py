"""The plugin's command-line options, and the one `RunOptions` they become.

Defaults come from `tablebench.core.options` (the help texts show them); the checks are
`tablebench.gating.options.read_options`, the same `tablebench report merge` uses.
"""

from __future__ import annotations

import pytest

from tablebench.cases import DEFAULT_SET
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
    MAX_PARSE_TIMEOUT,
    REPORT_CROPS,
    Renamed,
    RunOptions,
)
from tablebench.gating.options import read_options

# RunOptions field -> the pytest option dest it is read from (dests as they always were:
# a conftest may read them with config.getoption)
DESTS = {"parsers": "tb_parsers", "cases": "tb_cases", "verify": "tb_no_verify", "metrics": "tb_metrics",
         "kinds": "tb_kinds",
         "judge": "tb_judge", "judge_timeout": "tb_judge_timeout", "judge_page_timeout": "tb_judge_page_timeout",
         "judge_max_answer": "tb_judge_max_answer", "llm_api_base": "tb_judge_api_base", "locator": "tb_locator",
         "locator_model": "tb_locator_model", "min_scores": "tb_min_scores", "baseline": "tb_baseline",
         "save_baseline": "tb_save_baseline", "tolerance": "tb_tolerance", "per_table": "tb_baseline_per_table",
         "report_only": "tb_report_only", "allow_incomplete": "tb_allow_incomplete",
         "save_baseline_anyway": "tb_save_baseline_anyway",
         "report_dir": "tb_report_dir", "report_crops": "tb_report_crops", "report_keep": "tb_report_keep",
         "parse_timeout": "tb_timeout",
         "parse_cache": "tb_cache", "parse_refresh": "tb_refresh", "gates": "tb_gates",
         "gate_min_effect": "tb_gate_min_effect", "gate_alpha": "tb_gate_alpha", "repeat": "tb_repeat",
         "shard": "tb_shard", "parse_concurrency": "tb_parse_concurrency",
         "max_page_failures": "tb_max_page_failures"}


def run_options(config: pytest.Config) -> RunOptions:
    """This session's options, checked; a bad one is a one-line ValueError."""
    values = {field: config.getoption(dest) for field, dest in DESTS.items()}
    values["verify"] = not values["verify"]  # the flag is --no-verify
    return read_options(values)


def builtin_names() -> list[str]:
    """The built-in parsers' names, from this install's entry points (so the help never lags a new one)."""
    from tablebench.parse.registry import builtin_parsers

    return sorted(builtin_parsers()) or ["none installed"]


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("tablebench", "tablebench: benchmark PDF table extraction (active with --parser)")
    group.addoption("--parser", action="append", default=[], dest="tb_parsers", metavar="NAME",
                    help=f"parser spec to benchmark (repeatable or comma-separated): a built-in "
                         f"({', '.join(builtin_names())}), an entry-point name, module:Class, "
                         "vlm:MODEL, or command:CLI / dir:FOLDER (these take the rest of the value "
                         "verbatim). LABEL=SPEC names it: the label is its name in test ids, "
                         "reports and baselines. Without it nothing of the benchmark runs.")
    group.addoption("--cases", dest="tb_cases", metavar="SET", default=None,
                    help=f"case set: a name in cases/, a folder, or a pdf-parse-bench folder "
                         f"(default: {DEFAULT_SET}).")
    group.addoption("--no-verify", dest="tb_no_verify", action="store_true", default=False,
                    help="benchmark a case set without checking its files against manifest.json (warns).")
    group.addoption("--kinds", dest="tb_kinds", metavar="LIST", default=None,
                    help="comma-separated item kinds to benchmark: table, formula, text (a page's prose and "
                         "reading order), or a plug-in's. Default: tables and formulas; text only when named.")
    group.addoption("--metrics", dest="tb_metrics", metavar="LIST", default=None,
                    help="comma-separated metric groups: table ones (default: every offline metric) and "
                         "formula ones (default formula_score,token_edit; glyph_f1 renders with pdflatex), text ones "
                         "(default text_fidelity,reading_order,text_coverage). "
                         "A kind none of whose metrics is named keeps its defaults.")
    group.addoption("--judge", dest="tb_judge", metavar="MODEL", default=None,
                    help="also score located tables and formulas with an LLM judge (litellm model string; off by default).")
    group.addoption("--judge-timeout", dest="tb_judge_timeout", metavar="SECONDS", default=DEFAULT_JUDGE_TIMEOUT,
                    help="wall-clock seconds of one judge question, its re-sends and re-asks included "
                         "(default %(default)s; past it: judge timeout).")
    group.addoption("--judge-page-timeout", dest="tb_judge_page_timeout", metavar="SECONDS",
                    default=DEFAULT_JUDGE_PAGE_TIMEOUT,
                    help="wall-clock seconds of all the judge questions of one page together (default %(default)s; "
                         "the items asked past it get a judge timeout without a call).")
    group.addoption("--judge-max-answer", dest="tb_judge_max_answer", metavar="MB", default=DEFAULT_MAX_ANSWER_MB,
                    help="largest judge answer read, in MB (default %(default)s; past it the rest is not read: "
                         "judge error).")
    group.addoption("--llm-api-base", dest="tb_judge_api_base", metavar="URL", default=None,
                    help="send judge and LLM-locator requests to this OpenAI-compatible server (e.g. a local one).")
    group.addoption("--judge-api-base", dest="tb_judge_api_base", action=Renamed, new="--llm-api-base")
    group.addoption("--locator", dest="tb_locator", choices=LOCATORS, default=LOCATORS[0],
                    help="how ground-truth tables and formulas are found in the output: offline content matching "
                         "(default) or an LLM that quotes each table's span (re-found literally).")
    group.addoption("--locator-model", dest="tb_locator_model", metavar="MODEL", default=None,
                    help="litellm model for --locator llm (default: the --judge model).")
    group.addoption("--min-score", dest="tb_min_scores", action="append", default=[], metavar="METRIC=VALUE",
                    help="fail a table whose METRIC is below VALUE, or above it for a lower-is-better metric "
                         "(repeatable; semantic/judge on 0-10).")
    group.addoption("--baseline", dest="tb_baseline", metavar="FILE", default=None,
                    help="fail a table whose scores regressed against this baseline file; a table "
                         "not found there either is a known failure (xfail).")
    group.addoption("--save-baseline", dest="tb_save_baseline", metavar="FILE", default=None,
                    help="write this run's scores as a baseline file at session end.")
    group.addoption("--save-baseline-anyway", dest="tb_save_baseline_anyway", action="store_true", default=False,
                    help="--save-baseline even when a parser failed on every page (by default it refuses: such "
                         "a baseline would gate nothing but the failure).")
    group.addoption("--baseline-tolerance", dest="tb_tolerance", default=DEFAULT_TOLERANCE,
                    metavar="X", help="allowed drop below the baseline for the headline metrics: a number on "
                                      "the 0-1 scale (x10 for semantic/judge; default %(default)s) or a share "
                                      "of the baseline score (5%%); per metric: semantic=0.5,teds=2%% (on the "
                                      "metric's own scale; naming a sub-metric such as tlag_precision checks it).")
    group.addoption("--report-only", dest="tb_report_only", action="store_true", default=False,
                    help="record outcomes and scores without failing any case (exit 0 when nothing crashed).")
    group.addoption("--allow-incomplete", dest="tb_allow_incomplete", action="store_true", default=False,
                    help="gate and --save-baseline a run that did not finish every item (Ctrl-C, -x, a lost "
                         "worker): by default both refuse it; the run is still flagged INCOMPLETE everywhere.")
    group.addoption("--report-dir", dest="tb_report_dir", metavar="DIR", default=None,
                    help="where results.json, leaderboard.md and report.html go "
                         "(default: reports/<timestamp>-<parsers> under rootdir; reports/latest names the newest).")
    group.addoption("--report-keep", dest="tb_report_keep", default=DEFAULT_REPORT_KEEP, metavar="N",
                    help="keep the newest N run folders under reports/ (default %(default)s; 0 keeps every one): "
                         "only folders of the default name holding nothing but a run's files are removed.")
    group.addoption("--report-crops", dest="tb_report_crops", choices=REPORT_CROPS, default=REPORT_CROPS[0],
                    help="page crops in report.html: inline for the cards opened first (default), or folder: "
                         "also every table's crop as a file under the report's crops/ folder.")
    group.addoption("--parse-timeout", dest="tb_timeout", default=DEFAULT_PARSE_TIMEOUT,
                    metavar="SECONDS", help="per-page parser timeout (default %(default)s, at most "
                         f"{MAX_PARSE_TIMEOUT:g}).")
    group.addoption("--max-page-failures", dest="tb_max_page_failures", default=0, metavar="N",
                    help="stop the run once N pages failed to parse (the parser raised, timed out or wrote "
                         "nothing; a low score never counts), as --maxfail stops after N failed tests; the "
                         "line that says so names the cause. Default 0: never stop.")
    group.addoption("--parse-refresh", dest="tb_refresh", action="store_true", default=False,
                    help="parse every page again, ignoring (and overwriting) cached parser outputs; "
                         "cached errors are always retried.")
    group.addoption("--parse-cache", dest="tb_cache", metavar="DIR", default=None,
                    help="parser output cache (default: .tablebench-cache/ under rootdir).")
    _add_ci_options(group)


def _add_ci_options(group: pytest.OptionGroup) -> None:
    """--gate, --repeat, --shard, --parse-concurrency: the parts `tablebench.plugin.ci` runs."""
    group.addoption("--gate", dest="tb_gates", action="append", default=[], metavar="METRIC[:SUBSET]",
                    help="fail the run when METRIC dropped against --baseline on the tables both have, by more "
                         "than --gate-min-effect and significantly (paired permutation test, --gate-alpha); "
                         "SUBSET is a complexity or KEY=VALUE. Repeatable; improvements are reported too.")
    group.addoption("--gate-min-effect", dest="tb_gate_min_effect", default=DEFAULT_MIN_EFFECT, metavar="X",
                    help="smallest mean drop that fails a gate, on the 0-1 scale (x10 for semantic/judge; "
                         "default %(default)s).")
    group.addoption("--gate-alpha", dest="tb_gate_alpha", default=DEFAULT_ALPHA, metavar="P",
                    help="significance level of the gate's one-sided test (default %(default)s).")
    group.addoption("--baseline-per-table", dest="tb_baseline_per_table", choices=("on", "off"), default="on",
                    help="fail single tables that regressed against --baseline (default on; off: only the "
                         "aggregate --gate decides, for noisy parsers).")
    group.addoption("--repeat", dest="tb_repeat", default=DEFAULT_REPEAT, metavar="K",
                    help="parse every page K times (stochastic parsers): scores are per-table means, the "
                         "report shows per-table spread, the gate compares the means (default %(default)s).")
    group.addoption("--shard", dest="tb_shard", default=None, metavar="I/N",
                    help="run shard I of N: a deterministic share of the pages balanced by table count "
                         "(merge the shards with `tablebench report merge`).")
    group.addoption("--parse-concurrency", dest="tb_parse_concurrency", default=DEFAULT_PARSE_CONCURRENCY,
                    metavar="N", help="parse up to N upcoming pages at once in each process (for parsers behind a "
                                      "model server, e.g. vlm: with --llm-api-base; default %(default)s).")
