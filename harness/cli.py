"""The `tablebench` command. Each subcommand lives with the step it drives; this only dispatches."""

from __future__ import annotations

import argparse
import sys

from tablebench import __version__
from tablebench.core.messages import MAX_ERROR_LINE, one_line
from tablebench.core.option_table import Option, add_options, values_of
from tablebench.core.options import RunOptions, renamed_lines
from tablebench.gating.options import COMPARE, MERGE, META_EVAL, OPTIONS, REPORT, read_options

FAILED_HELP = "also print every failed case, one line each (FAILED ID - REASONS), after the causes"
VARIANT_RUNNERS = ("generate", "cases variant")  # the runners of `_variant_options`
PRIMARY_HELP = "rank by this metric (default: semantic if present, else teds)"
# the subcommands' own options (the run's are `OPTIONS`, beside their checks), by runner
OWN = (
    Option("--version", None, ("tablebench",), action="version", argparse={"version": f"tablebench {__version__}"}),
    Option("spec", "a parser spec, as --parser takes it (pdfplumber, command:..., dir:..., module:Class)", ("parse",)),
    Option("pdf", "the page's PDF", ("parse",)),
    Option("--pdb", "open the debugger where the parser raised", ("parse",), default=False, action="store_true"),
    Option("--pages", "number of pages", ("generate",), argparse={"type": int, "required": True}),
    Option("--seed", "same seed -> identical pages and ground truth", ("generate",), default=0, argparse={"type": int}),
    Option("--out", "output folder (NNN.pdf + NNN.json + manifest.json)", ("generate",), argparse={"required": True}),
    Option("--jobs", "pages compiled in parallel", ("generate",), default=1, argparse={"type": int}),
    Option("--pool", "external tables ({\"latex\": ...} per line, e.g. from `harvest`): each table slot "
                     "takes a fitting pool table of its class, else a built-in one; with --track formulas|mixed|prose "
                     "a formula pool ({\"latex\": ..., \"kind\": \"inline\"|\"display\"}, from `harvest --formulas`)",
           ("generate",), metavar="FILE.jsonl"),
    Option("--track", "what the pages hold: tables (default), inline and display formulas, formulas "
                      "with 1-3 tables per page, or prose with inline formulas only", ("generate",), default="tables",
           choices=("tables", "formulas", "mixed", "prose")),
    Option("--languages", "comma list from en,de,fr,es,ru,el,zh,ja,ar,hi: pages cycle through them, with tables and "
                          "text in that language and the TeX engine it needs (pdflatex, or xelatex for zh/ja/ar/hi); "
                          "default: the mixed en/de/fr/es pages with English tables", ("generate",), metavar="CODES"),
    Option("--doc-pages", "make documents of N (or LOW to HIGH) pages instead of single pages, one column, with "
                          "text and long tables continuing across pages (the header repeated on each page); "
                          "--pages counts the documents", ("generate",), metavar="N|LOW-HIGH"),
    Option("dir", "a case-set folder, or the name of an installed set (as --cases takes)", ("cases info",)),
    Option("src", "a pdf-parse-bench folder", ("cases import",)),
    Option("--out", "an empty or new folder for the case set", ("cases import",), argparse={"required": True}),
    Option("src", "a tablebench case set (folder or name in cases/)", ("cases variant",)),
    Option("--out", "an empty or new folder for the twin", ("cases variant",), argparse={"required": True}),
    Option("--pages", "only the first N pages", ("cases variant",), argparse={"type": int}),
    Option("--seed", "variant seed (default: the source set's seed)", ("cases variant",), argparse={"type": int}),
    Option("results", "a results.json written by a benchmark run, or the run's report folder", (REPORT,)),
    Option("--out", "write results.json, leaderboard.md and report.html into this folder", (REPORT,)),
    Option("runs", "run folders (or their results.json), one per shard", (MERGE,), metavar="DIR",
           argparse={"nargs": "+"}),
    Option("--out", "folder for the merged results.json, leaderboard.md, report.html", (MERGE,), "report_dir",
           argparse={"required": True}),
    Option("--primary", PRIMARY_HELP, (REPORT, MERGE)),
    Option("runs", "a run folder or results.json; RUN:LABEL picks one parser of a run that has several", (COMPARE,),
           metavar="RUN", argparse={"nargs": "+"}),
    Option("--metrics", "metrics to compare, comma-separated (default: the headline metrics of every run)", (COMPARE,)),
    Option("--markdown", "also write the comparison as Markdown", (COMPARE,), metavar="FILE"),
    Option("--html", "also write a self-contained HTML page with a card per case", (COMPARE,), metavar="FILE"),
    Option("src", "a .tex, .tar.gz or .gz file, or a folder of them (searched recursively)", ("harvest",)),
    Option("--out", "the pool file to write (JSONL), for `generate --pool`", ("harvest",), argparse={"required": True}),
    Option(("-v", "--verbose"), "list every rejected table with its reason", ("harvest",), default=False,
           action="store_true"),
    Option("--formulas", "harvest inline and display formulas instead of tables (a pool for `generate --track "
                         "formulas`)", ("harvest",), default=False, action="store_true"),
    Option("files", "a table-metric-study or formula-metric-study JSON file (e.g. dev.json); the format picks "
                    "the track; several files of one study are pooled (e.g. dev.json dev2.json), each file's "
                    "ground truths kept apart", (META_EVAL,), metavar="FILE", argparse={"nargs": "+"}),
    Option("--metrics", "our metrics to recompute from the raw ground truth and extraction (comma-separated; "
                        "default: semantic, the headline score, and teds, grits, tlag)", (META_EVAL,)),
    Option("--bootstrap", "bootstrap resamples for the 95%% CIs", (META_EVAL,), default=1000, argparse={"type": int}),
    Option("--seed", None, (META_EVAL,), default=0, argparse={"type": int}),
    Option("--json", "print {name: {pearson, spearman, kendall, ci95, n}}", (META_EVAL,), default=False,
           action="store_true"),
    Option("--cv", "cross-validate the semantic score instead: leave one ground-truth table out, choose every "
                   "constant of the score on the other tables, score the held-out one (CIs resample tables)",
           (META_EVAL,), default=False, action="store_true"),
    Option("--ablation", "tables: cross-validate the semantic score without each of its reading rules in turn",
           (META_EVAL,), default=False, action="store_true"),
    Option("--judge", "also correlate an LLM judge (litellm model string; keys from the environment)", (META_EVAL,),
           metavar="MODEL"),
    Option("--judge-variant", "judge prompt variant (default %(default)s)", (META_EVAL,), default="tuned",
           choices=("tuned", "tuned_no_cot", "naive")),
    Option("--llm-cache", "judge answer cache: a rerun costs nothing (default %(default)s)", (META_EVAL,),
           default=".tablebench-cache/judge", metavar="DIR"),
    Option("--no-render", "formula study: skip the rendered glyph match (glyph_f1), which needs pdflatex",
           (META_EVAL,), default=False, action="store_true"),
    Option("--top", "cases listed per direction in the terminal and Markdown", (COMPARE,), default=20,
           argparse={"type": int}),
    Option("--cards", "HTML: a card for at most N cases, those that moved most (default 2000)", (COMPARE,),
           metavar="N", argparse={"type": int}),
    Option("--junitxml", "also write the merged run as junit XML (one test case per case)", (MERGE,), metavar="FILE"),
    Option("--list-failed", FAILED_HELP, (REPORT, MERGE), default=False, action="store_true"),
)


def _options(parser: argparse.ArgumentParser, runner: str) -> argparse.ArgumentParser:
    """`runner`'s options, its own and the run's, in one parser (`tablebench.core.option_table`)."""
    variants = _variant_options() if runner in VARIANT_RUNNERS else ()
    add_options(parser, runner, OWN, variants, OPTIONS)
    return parser


def _checked(args: argparse.Namespace, runner: str) -> RunOptions:
    """The run options `runner` takes, as parsed into `args`, checked as the plugin checks them."""
    return read_options(values_of(args, runner, OWN, OPTIONS))


def _variant_options() -> tuple[Option, ...]:
    """`--variant`, `--dpi` of `generate` and `cases variant` (read when the parser is built: numpy, PIL)."""
    from tablebench.generate.variants import DEFAULT_DPI, VARIANTS

    scan_or_photo = "scan or photo: {}; seeded, recorded in the ground truth"
    return (Option("--variant", scan_or_photo.format("each page is compiled, then replaced by its image-only version "
                                                     "(no text layer)"), VARIANT_RUNNERS[:1], choices=VARIANTS),
            Option("--variant", scan_or_photo.format("the degradation applied to every page"), VARIANT_RUNNERS[1:],
                   choices=VARIANTS, argparse={"required": True}),
            Option("--dpi", "raster resolution of variant pages (default %(default)s)", VARIANT_RUNNERS,
                   default=DEFAULT_DPI, argparse={"type": int}))


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
    parser = _options(_Parser(prog="tablebench", description="Benchmark PDF table extraction."), "tablebench")
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
    p = _options(sub.add_parser("parse", help="run one parser on one page in this process and print its output or "
                                              "traceback"), "parse")

    def run(args: argparse.Namespace) -> int:
        from tablebench.parse.debug import run_parse

        return run_parse(args.spec, args.pdf, pdb=args.pdb)

    p.set_defaults(func=run)


def _add_generate(sub: argparse._SubParsersAction) -> None:
    p = _options(sub.add_parser("generate", help="generate synthetic benchmark pages (needs pdflatex)"), "generate")

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
    info = _options(cases.add_parser("info", help="counts, size and sha256 check of a case-set folder"), "cases info")

    def run(args: argparse.Namespace) -> int:
        from tablebench.cases import resolve_case_set
        from tablebench.generate.commands import run_cases_info

        args.dir = str(resolve_case_set(args.dir))  # `synth-v1` means what `--cases=synth-v1` means
        return run_cases_info(args)

    info.set_defaults(func=run)
    imp = _options(cases.add_parser("import", help="a pdf-parse-bench folder (pdfs/ + ground_truth/) -> a tablebench "
                                                   "case set"), "cases import")

    def run_import(args: argparse.Namespace) -> int:
        from tablebench.generate.importer import run_import

        return run_import(args)

    imp.set_defaults(func=run_import)
    twin = _options(cases.add_parser("variant", help="a scanned/photographed twin of a case set: same tables, "
                                                     "image-only pages (needs poppler, not TeX)"), "cases variant")

    def run_variant(args: argparse.Namespace) -> int:
        from tablebench.cases import resolve_case_set
        from tablebench.generate.twin import run_variant

        args.src = str(resolve_case_set(args.src))
        return run_variant(args)

    twin.set_defaults(func=run_variant)


def _add_report(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="show a run's leaderboard again, or re-render its report files; "
                                      "`report merge DIR... --out DIR` merges shard runs")
    _options(p, REPORT)
    p.set_defaults(func=_run_report)


def _run_report(args: argparse.Namespace) -> int:
    from tablebench.core.completeness import of_meta
    from tablebench.report.aggregate import boards
    from tablebench.report.regressions import RegressionView, regressions_rich
    from tablebench.report.terminal import tracks_group
    from tablebench.report.verdict_counts import counts_by_kind
    from tablebench.report.verdicts import causes_lines, failed_lines
    from tablebench.report.whole import print_whole
    from tablebench.core.files import claim_folder
    from tablebench.report.results_file import read_comparisons, read_results, results_path
    from tablebench.report.write import FILES, write_report

    options = _checked(args, REPORT)
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
                                   crop_folder=options.report_crops == "folder")
        finally:
            held.release()
        print(f"tablebench report: {args.out} ({', '.join(p.name for p in written.values())})")
    return 0


def _add_compare(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help="runs side by side, case by case: RUN_A RUN_B [RUN_C...] (A is the reference)")
    _options(p, COMPARE)

    def run(args: argparse.Namespace) -> int:
        from tablebench.report.compare_command import run_compare

        gate = _checked(args, COMPARE)  # as checked everywhere
        return run_compare(args.runs, metrics=args.metrics, markdown=args.markdown, html=args.html,
                           alpha=gate.gate_alpha, min_effect=gate.gate_min_effect, top=args.top, cards=args.cards)

    p.set_defaults(func=run)


def _merge_parser() -> argparse.ArgumentParser:
    """`tablebench report merge`: its own options (the positional runs clash with `report RESULTS`)."""
    return _options(argparse.ArgumentParser(prog="tablebench report merge", description="Merge shard runs "
                                            "(--shard=I/N) into one report, gated as pytest gates."), MERGE)


def _run_merge(argv: list[str]) -> int:
    """Shard runs -> one report (`tablebench.report.merge_command`): 0 when merged and every case and gate
    passed, 1 when a case or a gate failed."""
    from tablebench.report.merge_command import run_merge

    args = _merge_parser().parse_args(argv)
    for line in renamed_lines(args):
        print(line, file=sys.stderr)
    return run_merge(args, _checked(args, MERGE))


def _add_harvest(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("harvest", help="extract real tables from .tex files / arXiv archives into a pool (needs pdflatex)")
    _options(p, "harvest")

    def run(args: argparse.Namespace) -> int:
        if args.formulas:
            from tablebench.generate.formula_harvest import run_formula_harvest

            return run_formula_harvest(args)
        from tablebench.generate.harvest import run_harvest

        return run_harvest(args)

    p.set_defaults(func=run)


def _add_meta_eval(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("meta-eval", help="correlate metrics with human ratings (table or formula metric study)")
    _options(p, META_EVAL)
    p.set_defaults(func=_run_meta_eval)


def _run_meta_eval(args: argparse.Namespace) -> int:
    """One engine for every study: the first file's format picks the kind (formulas always list
    their cross-validated score; tables print the full cross-validation with --cv)."""
    import json

    from tablebench.evaluate.metaeval import TABLE_METRICS, Options, kind_of, load_pairs, meta_eval
    from tablebench.evaluate.metaeval_formulas import FORMULAS
    from tablebench.evaluate.metaeval_tables import TABLES
    from tablebench.evaluate.progress import StderrProgress
    bounds = _checked(args, META_EVAL)
    options = Options(metrics=TABLE_METRICS if args.metrics is None else args.metrics, judge=args.judge,
                      judge_variant=args.judge_variant, judge_timeout=bounds.judge_timeout,
                      judge_max_answer=bounds.judge_max_answer,
                      llm_cache=args.llm_cache, api_base=bounds.llm_api_base, render=not args.no_render, cv=args.cv,
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
