"""The `tablebench` command. Each subcommand lives with the step it drives; this only dispatches."""

from __future__ import annotations

import argparse
import sys

from tablebench import __version__
from tablebench.core.messages import MAX_ERROR_LINE, one_line
from tablebench.core.options import (
    DEFAULT_JUDGE_TIMEOUT,
    DEFAULT_MAX_ANSWER_MB,
    REPORT_CROPS,
    Renamed,
    renamed_lines,
)

CROPS_HELP = ("page crops in report.html (--out): inline for the cards opened first (default), or folder: also every "
              "table's crop as a file under crops/ beside it")


# what a newcomer runs first: the benchmark is a pytest run, not a subcommand (README, "Two commands")
START = """\
Benchmark a parser with pytest, from the repository root:
  pytest --parser=pymupdf4llm                       the default case set (cases/synth-v1)
  pytest --parser=pdfplumber --report-only          measure only: every case passes, exit 0
  ./dev.sh bench --parser=pdfplumber --report-only  on a fresh machine: installs what it needs first
Each run writes reports/<timestamp>-<parsers>/ (reports/latest: the newest); `pytest --help` lists
the benchmark's options under "tablebench". The commands below read what runs leave behind, and
make case sets.

"""


class _Parser(argparse.ArgumentParser):
    """`tablebench`'s own parser: its help starts with how to run a benchmark (`START`)."""

    def format_help(self) -> str:
        return START + super().format_help()


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="tablebench", description="Benchmark PDF table extraction.")
    parser.add_argument("--version", action="version", version=f"tablebench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=argparse.ArgumentParser)
    parser.set_defaults(func=None)
    _add_meta_eval(sub)
    _add_generate(sub)
    _add_cases(sub)
    _add_harvest(sub)
    _add_report(sub)
    _add_compare(sub)
    _add_parse(sub)
    p = sub.add_parser("parsers", help="list the installed parsers, where each comes from, and its options")
    p.set_defaults(func=_run_parsers)
    return parser


def _run_parsers(args: argparse.Namespace) -> int:
    from tablebench.parse.listing import installed_parsers, parsers_text

    print(parsers_text(installed_parsers()), end="")
    return 0


def _add_parse(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("parse", help="run one parser on one page in this process and print its output or traceback")
    p.add_argument("spec", help="a parser spec, as --parser takes it (pdfplumber, command:..., dir:..., module:Class)")
    p.add_argument("pdf", help="the page's PDF")
    p.add_argument("--pdb", action="store_true", help="open the debugger where the parser raised")

    def run(args: argparse.Namespace) -> int:
        from tablebench.parse.debug import run_parse

        return run_parse(args.spec, args.pdf, pdb=args.pdb)

    p.set_defaults(func=run)


def _add_generate(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("generate", help="generate synthetic benchmark pages (needs pdflatex)")
    p.add_argument("--pages", type=int, required=True, help="number of pages")
    p.add_argument("--seed", type=int, default=0, help="same seed -> identical pages and ground truth")
    p.add_argument("--out", required=True, help="output folder (NNN.pdf + NNN.json + manifest.json)")
    p.add_argument("--jobs", type=int, default=1, help="pages compiled in parallel")
    p.add_argument("--pool", metavar="FILE.jsonl",
                   help="external tables ({\"latex\": ...} per line, e.g. from `harvest`): each table slot "
                        "takes a fitting pool table of its class, else a built-in one; with --track formulas|mixed|prose "
                        "a formula pool ({\"latex\": ..., \"kind\": \"inline\"|\"display\"}, from `harvest --formulas`)")
    p.add_argument("--track", choices=("tables", "formulas", "mixed", "prose"), default="tables",
                   help="what the pages hold: tables (default), inline and display formulas, formulas "
                        "with 1-3 tables per page, or prose with inline formulas only")
    _add_variant_options(p, "each page is compiled, then replaced by its image-only version (no text layer)")
    p.add_argument("--languages", metavar="CODES", default=None,
                   help="comma list from en,de,fr,es,ru,el,zh,ja,ar,hi: pages cycle through them, with tables and "
                        "text in that language and the TeX engine it needs (pdflatex, or xelatex for zh/ja/ar/hi); "
                        "default: the mixed en/de/fr/es pages with English tables")
    p.add_argument("--doc-pages", metavar="N|LOW-HIGH", default=None,
                   help="make documents of N (or LOW to HIGH) pages instead of single pages, one column, with "
                        "text and long tables continuing across pages (the header repeated on each page); "
                        "--pages counts the documents")

    def run(args: argparse.Namespace) -> int:
        from tablebench.generate.commands import run_generate

        return run_generate(args)

    p.set_defaults(func=run)


def _run_cases_list(args: argparse.Namespace) -> int:
    """The installed case sets, one row each, from their manifests (no page is read)."""
    from rich.console import Console
    from rich.table import Table as RichTable

    from tablebench.cases import DEFAULT_SET, INSTALLED_CASES, installed_case_sets
    from tablebench.cases.manifest import MANIFEST, manifest_sha256
    from tablebench.core.files import read_json

    table = RichTable(title=f"case sets installed in {INSTALLED_CASES}")
    for column in ("name", "pages", "items", "version"):
        table.add_column(column, justify="right" if column == "pages" else "left")
    for name in installed_case_sets():
        folder = INSTALLED_CASES / name
        manifest = read_json(folder / MANIFEST)
        counts = {k: sum(v.values()) if isinstance(v, dict) else v for k in ("tables", "formulas")
                  if (v := manifest.get(k))}  # formulas are counted per kind (inline, display)
        items = ", ".join(f"{n} {k}" for k, n in counts.items())
        table.add_row(name + (" (default)" if name == DEFAULT_SET else ""), str(manifest.get("pages", "?")),
                      items, (manifest_sha256(folder) or "")[:12])
    Console().print(table)
    print("Any other folder works too: --cases=PATH (a tablebench set or a pdf-parse-bench folder).")
    return 0


def _add_cases(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("cases", help="inspect case sets")
    cases = p.add_subparsers(dest="cases_command", metavar="ACTION", required=True)
    listed = cases.add_parser("list", help="the case sets installed with tablebench: name, pages, items, version")
    listed.set_defaults(func=_run_cases_list)
    info = cases.add_parser("info", help="counts, size and sha256 check of a case-set folder")
    info.add_argument("dir", help="a case-set folder, or the name of an installed set (as --cases takes)")

    def run(args: argparse.Namespace) -> int:
        from tablebench.cases import resolve_case_set
        from tablebench.generate.commands import run_cases_info

        args.dir = str(resolve_case_set(args.dir))  # `synth-v1` means what `--cases=synth-v1` means
        return run_cases_info(args)

    info.set_defaults(func=run)
    imp = cases.add_parser("import", help="a pdf-parse-bench folder (pdfs/ + ground_truth/) -> a tablebench case set")
    imp.add_argument("src", help="a pdf-parse-bench folder")
    imp.add_argument("--out", required=True, help="an empty or new folder for the case set")

    def run_import(args: argparse.Namespace) -> int:
        from tablebench.generate.importer import run_import

        return run_import(args)

    imp.set_defaults(func=run_import)
    twin = cases.add_parser("variant", help="a scanned/photographed twin of a case set: same tables, "
                                            "image-only pages (needs poppler, not TeX)")
    twin.add_argument("src", help="a tablebench case set (folder or name in cases/)")
    twin.add_argument("--out", required=True, help="an empty or new folder for the twin")
    twin.add_argument("--pages", type=int, default=None, help="only the first N pages")
    twin.add_argument("--seed", type=int, default=None, help="variant seed (default: the source set's seed)")
    _add_variant_options(twin, "the degradation applied to every page", required=True)

    def run_variant(args: argparse.Namespace) -> int:
        from tablebench.cases import resolve_case_set
        from tablebench.generate.twin import run_variant

        args.src = str(resolve_case_set(args.src))
        return run_variant(args)

    twin.set_defaults(func=run_variant)


def _add_variant_options(p: argparse.ArgumentParser, what: str, required: bool = False) -> None:
    from tablebench.generate.variants import DEFAULT_DPI, VARIANTS

    p.add_argument("--variant", choices=VARIANTS, default=None, required=required,
                   help=f"scan or photo: {what}; seeded, recorded in the ground truth")
    p.add_argument("--dpi", type=int, default=DEFAULT_DPI, help="raster resolution of variant pages (default %(default)s)")


def _add_report(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="show a run's leaderboard again, or re-render its report files; "
                                      "`report merge DIR... --out DIR` merges shard runs")
    p.add_argument("results", help="a results.json written by a benchmark run, or the run's report folder")
    p.add_argument("--out", help="write results.json, leaderboard.md and report.html into this folder")
    p.add_argument("--primary", help="rank by this metric (default: semantic if present, else teds)")
    p.add_argument("--report-crops", choices=REPORT_CROPS, default=REPORT_CROPS[0], help=CROPS_HELP)
    p.add_argument("--list-failed", action="store_true",
                   help="also print every failed case, one line each (FAILED ID - REASONS), after the causes")
    p.set_defaults(func=_run_report)


def _run_report(args: argparse.Namespace) -> int:
    from tablebench.evaluate.completeness import of_meta
    from tablebench.report.aggregate import boards
    from tablebench.report.regressions import RegressionView, regressions_rich
    from tablebench.report.terminal import tracks_group
    from tablebench.report.verdict_counts import counts_by_kind
    from tablebench.report.verdicts import causes_lines, failed_lines
    from tablebench.report.whole import print_whole
    from tablebench.core.files import claim_folder
    from tablebench.report.results_file import read_comparisons, read_results, results_path
    from tablebench.report.write import FILES, write_report

    meta, results = read_results(args.results)
    comparisons = read_comparisons(results_path(args.results))
    tracks = boards(results, primary=args.primary)
    print_whole(tracks_group(tracks, counts=counts_by_kind(tracks, results, comparisons)))
    completeness = of_meta(meta, len(results))
    if not completeness.complete or not completeness.known:
        print(f"tablebench {completeness.line()}")
    head, lines = causes_lines(results, meta)
    for line in [head, *lines] if lines else []:
        print(line)
    if args.list_failed and (listed := failed_lines(results)):
        print("\n".join(listed))
    view = RegressionView.of(results, comparisons, meta.get("baseline"))
    html = results_path(args.results).parent / FILES["html"]
    html_path = str(html.resolve()) if html.is_file() else None
    if view is not None:
        print_whole(regressions_rich(view, html_path))
    if args.out:
        held = claim_folder(args.out, "--out")
        try:
            written = write_report(results, args.out, meta, primary=args.primary, comparisons=comparisons,
                                   crop_folder=args.report_crops == "folder")
        finally:
            held.release()
        print(f"tablebench report: {args.out} ({', '.join(p.name for p in written.values())})")
    return 0


def _add_compare(sub: argparse._SubParsersAction) -> None:
    from tablebench.core.options import DEFAULT_ALPHA, DEFAULT_MIN_EFFECT

    p = sub.add_parser("compare", help="runs side by side, case by case: RUN_A RUN_B [RUN_C...] (A is the reference)")
    p.add_argument("runs", nargs="+", metavar="RUN", help="a run folder or results.json; RUN:LABEL picks one parser "
                                                          "of a run that has several")
    p.add_argument("--metrics", help="metrics to compare, comma-separated (default: the headline metrics of every run)")
    p.add_argument("--markdown", metavar="FILE", help="also write the comparison as Markdown")
    p.add_argument("--html", metavar="FILE", help="also write a self-contained HTML page with a card per case")
    p.add_argument("--gate-alpha", default=DEFAULT_ALPHA, metavar="P",
                   help="as the plugin's: significance level of the one-sided test (default %(default)s)")
    p.add_argument("--gate-min-effect", default=DEFAULT_MIN_EFFECT, metavar="X",
                   help="as the plugin's: smallest mean drop called a regression, 0-1 scale (default %(default)s)")
    _renamed(p, "--alpha", "--gate-alpha")
    _renamed(p, "--min-effect", "--gate-min-effect")
    p.add_argument("--top", type=int, default=20, help="cases listed per direction in the terminal and Markdown")
    p.add_argument("--cards", type=int, default=None, metavar="N",
                   help="HTML: a card for at most N cases, those that moved most (default 2000)")

    def run(args: argparse.Namespace) -> int:
        from tablebench.gating.options import read_options
        from tablebench.report.compare_command import run_compare

        gate = read_options({"gate_alpha": args.gate_alpha, "gate_min_effect": args.gate_min_effect})  # as checked everywhere
        return run_compare(args.runs, metrics=args.metrics, markdown=args.markdown, html=args.html,
                           alpha=gate.gate_alpha, min_effect=gate.gate_min_effect, top=args.top, cards=args.cards)

    p.set_defaults(func=run)


def _renamed(p: argparse.ArgumentParser, old: str, new: str) -> None:
    """`old` still works as `new` (hidden from --help; `main` says once which name to use)."""
    p.add_argument(old, dest=new.lstrip("-").replace("-", "_"), action=Renamed, new=new)


def _merge_parser() -> argparse.ArgumentParser:
    """`tablebench report merge`: its own options (the positional runs clash with `report RESULTS`)."""
    from tablebench.core.options import DEFAULT_ALPHA, DEFAULT_MIN_EFFECT, DEFAULT_TOLERANCE

    p = argparse.ArgumentParser(prog="tablebench report merge",
                                description="Merge shard runs (--shard=I/N) into one report, gated as pytest gates.")
    p.add_argument("runs", nargs="+", metavar="DIR", help="run folders (or their results.json), one per shard")
    p.add_argument("--out", required=True, help="folder for the merged results.json, leaderboard.md, report.html")
    p.add_argument("--primary", help="rank by this metric (default: semantic if present, else teds)")
    p.add_argument("--baseline", metavar="FILE", help="baseline file: cases that regressed against it fail, as "
                                                       "with pytest --baseline (and --gate compares with it)")
    p.add_argument("--baseline-tolerance", default=str(DEFAULT_TOLERANCE), metavar="X",
                   help="as the plugin's (default %(default)s; e.g. semantic=0.5,teds=2%%)")
    p.add_argument("--baseline-per-table", choices=("on", "off"), default="on", help="as the plugin's")
    p.add_argument("--min-score", action="append", default=[], metavar="METRIC=VALUE", help="as the plugin's")
    p.add_argument("--gate", action="append", default=[], metavar="METRIC[:SUBSET]",
                   help="as the plugin's --gate (repeatable); needs --baseline")
    p.add_argument("--gate-min-effect", default=DEFAULT_MIN_EFFECT, metavar="X", help="as the plugin's (default %(default)s)")
    p.add_argument("--gate-alpha", default=DEFAULT_ALPHA, metavar="P", help="as the plugin's (default %(default)s)")
    p.add_argument("--save-baseline", metavar="FILE", help="write the merged scores as a baseline file")
    p.add_argument("--report-crops", choices=REPORT_CROPS, default=REPORT_CROPS[0], help=CROPS_HELP)
    p.add_argument("--allow-incomplete", action="store_true",
                   help="merge (gate, save a baseline from) runs that did not finish every item; the merged run "
                        "is flagged INCOMPLETE")
    p.add_argument("--save-baseline-anyway", action="store_true",
                   help="--save-baseline even when a parser failed on every page")
    p.add_argument("--junitxml", metavar="FILE", help="also write the merged run as junit XML (one test case per case)")
    p.add_argument("--list-failed", action="store_true",
                   help="also print every failed case, one line each (FAILED ID - REASONS), after the causes")
    return p


def _run_merge(argv: list[str]) -> int:
    """Shard runs -> one report (`tablebench.report.merge_command`): 0 when merged and every case and gate
    passed, 1 when a case or a gate failed."""
    from tablebench.report.merge_command import run_merge

    args = _merge_parser().parse_args(argv)
    for line in renamed_lines(args):
        print(line, file=sys.stderr)
    return run_merge(args)


def _add_harvest(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("harvest", help="extract real tables from .tex files / arXiv archives into a pool (needs pdflatex)")
    p.add_argument("src", help="a .tex, .tar.gz or .gz file, or a folder of them (searched recursively)")
    p.add_argument("--out", required=True, help="the pool file to write (JSONL), for `generate --pool`")
    p.add_argument("-v", "--verbose", action="store_true", help="list every rejected table with its reason")
    p.add_argument("--formulas", action="store_true",
                   help="harvest inline and display formulas instead of tables (a pool for `generate --track formulas`)")

    def run(args: argparse.Namespace) -> int:
        if args.formulas:
            from tablebench.generate.formula_harvest import run_formula_harvest

            return run_formula_harvest(args)
        from tablebench.generate.harvest import run_harvest

        return run_harvest(args)

    p.set_defaults(func=run)


def _add_meta_eval(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("meta-eval", help="correlate metrics with human ratings (table or formula metric study)")
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="a table-metric-study or formula-metric-study JSON file (e.g. dev.json); the format picks "
                        "the track; several files of one study are pooled (e.g. dev.json dev2.json), each file's "
                        "ground truths kept apart")
    p.add_argument("--metrics", default=None,
                   help="our metrics to recompute from the raw ground truth and extraction (comma-separated; "
                        "default: semantic, the headline score, and teds, grits, tlag)")
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples for the 95%% CIs")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print {name: {pearson, spearman, kendall, ci95, n}}")
    p.add_argument("--cv", action="store_true",
                   help="cross-validate the semantic score instead: leave one ground-truth table out, choose every "
                        "constant of the score on the other tables, score the held-out one (CIs resample tables)")
    p.add_argument("--ablation", action="store_true",
                   help="tables: cross-validate the semantic score without each of its reading rules in turn")
    p.add_argument("--judge", metavar="MODEL", default=None,
                   help="also correlate an LLM judge (litellm model string; keys from the environment)")
    p.add_argument("--judge-variant", default="tuned", choices=("tuned", "tuned_no_cot", "naive"),
                   help="judge prompt variant (default %(default)s)")
    p.add_argument("--llm-cache", metavar="DIR", default=".tablebench-cache/judge",
                   help="judge answer cache: a rerun costs nothing (default %(default)s)")
    p.add_argument("--llm-api-base", metavar="URL", default=None,
                   help="as the plugin's: send judge requests to this OpenAI-compatible server (e.g. a local vLLM)")
    _renamed(p, "--api-base", "--llm-api-base")
    p.add_argument("--judge-timeout", metavar="SECONDS", default=DEFAULT_JUDGE_TIMEOUT,
                   help="as the plugin's: wall-clock seconds of one judge question (default %(default)s)")
    p.add_argument("--judge-max-answer", metavar="MB", default=DEFAULT_MAX_ANSWER_MB,
                   help="as the plugin's: largest judge answer read, in MB (default %(default)s)")
    p.add_argument("--no-render", action="store_true",
                   help="formula study: skip the rendered glyph match (glyph_f1), which needs pdflatex")
    p.set_defaults(func=_run_meta_eval)


def _run_meta_eval(args: argparse.Namespace) -> int:
    """One engine for every study: the first file's format picks the kind (formulas always list
    their cross-validated score; tables print the full cross-validation with --cv)."""
    import json

    from tablebench.evaluate.metaeval import TABLE_METRICS, Options, kind_of, load_pairs, meta_eval
    from tablebench.evaluate.metaeval_formulas import FORMULAS
    from tablebench.evaluate.metaeval_tables import TABLES
    from tablebench.evaluate.progress import StderrProgress
    from tablebench.gating.options import read_options

    bounds = read_options({"judge_timeout": args.judge_timeout, "judge_max_answer": args.judge_max_answer})
    options = Options(metrics=TABLE_METRICS if args.metrics is None else args.metrics, judge=args.judge,
                      judge_variant=args.judge_variant, judge_timeout=bounds.judge_timeout,
                      judge_max_answer=bounds.judge_max_answer,
                      llm_cache=args.llm_cache, api_base=args.llm_api_base, render=not args.no_render, cv=args.cv,
                      n_boot=args.bootstrap, seed=args.seed)
    kind = kind_of(args.files[0], (FORMULAS, TABLES))
    kind.check(options)
    pairs = load_pairs(kind, args.files)
    progress = StderrProgress("meta-eval")
    if args.ablation:
        if kind is not TABLES:
            raise ValueError("--ablation is for the table study (the semantic score's reading rules)")
        from tablebench.evaluate.metaeval_tables import ablation, ablation_report

        try:
            rows = ablation(pairs, progress=progress)
        finally:
            progress.close()
        print(json.dumps(rows, indent=2) if args.json else ablation_report(rows))
        return 0
    try:
        result = meta_eval(kind, pairs, options, progress=progress)
    finally:
        progress.close()
    if args.json:
        print(json.dumps(result, indent=2))
    elif kind.reports_cv(options):
        print(kind.cv_report(result))
    else:
        from tablebench.evaluate.metaeval import agreement_title
        from tablebench.report.terminal import meta_eval_table
        from tablebench.report.whole import print_whole

        print_whole(meta_eval_table(result, title=agreement_title(kind, pairs)))
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:2] == ["report", "merge"]:  # shard runs -> one report: its own options (_merge_parser)
        try:
            return _run_merge(argv[2:])
        except (ValueError, OSError) as exc:
            return _failed(exc)
    parser = build_parser()
    args = parser.parse_args(argv)
    for line in renamed_lines(args):
        print(line, file=sys.stderr)
    if args.func is None:
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except (ValueError, OSError) as exc:  # a clear one-line error, not a traceback
        return _failed(exc)


def _failed(exc: Exception) -> int:
    """Exit status 1 after `exc` on one line: it may quote what a file from anywhere holds."""
    print(f"tablebench: error: {one_line(exc, MAX_ERROR_LINE)}", file=sys.stderr)
    return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
