"""Mutations of the gate, the locator, the reference metrics and the table model, and whether the tests kill them.

Each mutation is a bug a maintainer could make in one line (a constant moved, a comparison
flipped, a branch dropped, an off-by-one, a default changed), applied in a copy of the
repository (`tests.benchmarks.mutants`); the area's own tests run there and the mutation is
killed when one fails. Each area first runs its tests on the unmutated copy (they must pass, or
every mutation would count as killed). A mutation that survives names a behaviour no test pins.

    python -m tests.benchmarks.mutations                    # from the repo root; about 15 minutes
    python -m tests.benchmarks.mutations --area gate
    python -m tests.benchmarks.mutations --only min_floor_inclusive
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from tablebench.metrics.formulas.table import ROWS as FORMULA_ROWS
from tablebench.metrics.text.table import ROWS as TEXT_ROWS
from tests.benchmarks.mutants import Mutation, report, row_mutations, run


@dataclass(frozen=True)
class Area:
    tests: list[str]  # the test files run against each of its mutations
    mutations: list[Mutation]


G = "harness/gating/"
L = "harness/locate/"
R = "harness/metrics/tables/"
T = "harness/core/table.py"

GATE = [
    # thresholds: --min-score floors and --baseline-tolerance
    Mutation("min_floor_inclusive", "compare", "harness/core/metric_specs.py",
             "return self.sign * (value - bound) < 0", "return self.sign * (value - bound) <= 0"),
    Mutation("tolerance_unscaled", "constant", G + "thresholds.py", "return value * full_scale(metric)",
             "return value"),
    Mutation("relative_as_absolute", "branch", G + "thresholds.py",
             "return value * abs(old) if relative else value", "return value"),
    # rules: one case's verdict
    Mutation("crash_is_known", "branch", G + "rules.py",
             'base.outcome != "ok" and not is_crashed(result.message)', 'base.outcome != "ok"'),
    Mutation("report_only_gates", "branch", G + "rules.py",
             '        if self.report_only:\n            return Verdict("pass")\n', ""),
    # regressions: a case's change against its baseline
    Mutation("change_no_tolerance", "compare", G + "regressions.py",
             "elif (gain := direction(metric).gain(old, now)) < -tol - 1e-12:",
             "elif (gain := direction(metric).gain(old, now)) < -1e-12:"),
    # aggregate: the paired statistics of the aggregate gate
    Mutation("effect_alone_regresses", "branch", G + "aggregate.py",
             "if sign * diff < -min_effect - tol and p_drop < alpha:", "if sign * diff < -min_effect - tol:"),
    Mutation("ci_one_sided_level", "boundary", G + "aggregate.py", "[alpha / 2, 1 - alpha / 2]",
             "[alpha, 1 - alpha]"),
    Mutation("lost_run_unpaired", "default", G + "aggregate.py", "counted(run_ok, r.scores, m, lost) for m in names}",
             "counted(run_ok, r.scores, m, lost) if run_ok else None for m in names}"),
    # baseline: reading the file
    Mutation("entry_outcome_missing", "default", G + "baseline.py", 'Entry(case.get("outcome", "ok")',
             'Entry(case.get("outcome", "missing")'),
]

LOCATOR = [
    Mutation("min_score_higher", "threshold", L + "tables.py", "MIN_SCORE = 0.30", "MIN_SCORE = 0.45"),
    Mutation("split_gain_removed", "threshold", L + "tables.py", "SPLIT_GAIN = 0.02", "SPLIT_GAIN = 0.0"),
    Mutation("merge_gain_removed", "threshold", L + "tables.py", "MERGE_GAIN = 0.05", "MERGE_GAIN = 0.0"),
    Mutation("max_fragments_two", "threshold", L + "engine.py", "MAX_FRAGMENTS = 4", "MAX_FRAGMENTS = 2"),
    Mutation("assignment_minimised", "compare", L + "engine.py", "linear_sum_assignment(-sub)",
             "linear_sum_assignment(sub)"),
    Mutation("joined_below_min_score", "branch", L + "engine.py", "if len(joined) > 1 and score >= min_score:",
             "if len(joined) > 1:"),
    Mutation("title_dropped_one_piece", "branch", L + "tables.py", "if len(tables) == 1 and not lines:",
             "if len(tables) == 1:"),
    # LOOSE_HIT raised, not lowered: at 0.2 only prose lines that share a few of the table's words
    # change, and they then join its run (a table cut by two such lines is read whole, prose
    # included, instead of one part), which is no worse a reading, so no test should pin it
    Mutation("loose_hit_higher", "threshold", L + "loose_lines.py", "LOOSE_HIT = 0.5", "LOOSE_HIT = 0.8"),
    Mutation("loose_min_grams_none", "threshold", L + "loose_lines.py", "LOOSE_MIN_GRAMS = 10",
             "LOOSE_MIN_GRAMS = 0"),
    Mutation("refind_alignment_lax", "threshold", L + "refind.py", "MIN_ALIGNMENT = 0.85", "MIN_ALIGNMENT = 0.5"),
]

REFERENCE = [
    # TEDS
    Mutation("teds_same_ignores_text", "branch", R + "teds.py",
             "        if not structure_only and a.text != b.text:\n            return False\n", ""),
    Mutation("teds_smaller_tree", "compare", R + "teds.py", "n_nodes = max(n_a, n_b)", "n_nodes = min(n_a, n_b)"),
    Mutation("teds_cell_to_row_free", "constant", R + "teds.py",
             "m = prev[start_b[y]] + 1.0 + (y - 1 - start_b[y])", "m = prev[start_b[y]] + (y - 1 - start_b[y])"),
    Mutation("teds_spans_unclamped", "branch", R + "teds.py",
             "rowspan = min(max(info[i, 0], 1), MAX_SPAN)", "rowspan = info[i, 0]"),
    # GriTS
    Mutation("grits_autojunk_off_by_one", "boundary", R + "grits.py", "elif lb >= autojunk_len:",
             "elif lb > autojunk_len:"),
    Mutation("grits_top_precision_recall", "branch", R + "grits.py",
             "precision_top=top[1], recall_top=top[2]", "precision_top=top[2], recall_top=top[1]"),
    Mutation("grits_ties_skip_first", "compare", R + "grits.py", "            if diag == best:\n",
             "            if diag > max(skip_gt, skip_pred):\n"),
    # T-LAG
    Mutation("tlag_nulls_unmatched", "branch", R + "tlag.py", "    sim[np.ix_(null_a, null_b)] = 1.0\n", ""),
    Mutation("tlag_self_edges", "compare", R + "tlag.py", "keep = (a != b) & (np.minimum(a, b) >= 0)",
             "keep = np.minimum(a, b) >= 0"),
    Mutation("tlag_exponent_default", "default", R + "tlag.py",
             "def tlag_details(gt: TableLike, pred: TableLike, *, k: int = 7,",
             "def tlag_details(gt: TableLike, pred: TableLike, *, k: int = 5,"),
]

TABLE = [
    Mutation("header_rows_any", "compare", T, "if ids and all(cells[i].header for i in ids):",
             "if ids and any(cells[i].header for i in ids):"),
    Mutation("header_rows_no_break", "branch", T, "                n += 1\n            else:\n                break\n",
             "                n += 1\n"),
    Mutation("clamp_span_zero", "boundary", T, "return min(max(int(span), 1), MAX_SPAN)",
             "return min(max(int(span), 0), MAX_SPAN)"),
    Mutation("layout_later_cell_wins", "branch", T, "occupied.setdefault((r + dr, c + dc), cell_id)",
             "occupied[(r + dr, c + dc)] = cell_id"),
    Mutation("grid_shape_limit_inclusive", "boundary", T, "                if n_rows * n_cols > limit:",
             "                if n_rows * n_cols >= limit:"),
    Mutation("grid_shape_span_lingers", "boundary", T, "live = sorted(s for s in live if s[2] > r)",
             "live = sorted(s for s in live if s[2] >= r)"),
    Mutation("to_html_unescaped", "branch", T, "html.escape(cell.text, quote=False)", "cell.text"),
    Mutation("to_html_th_always", "default", T, 'tag = "th" if headers and cell.header else "td"',
             'tag = "th" if cell.header else "td"'),
    Mutation("from_rows_header_off_by_one", "boundary", T, "header=i < header_rows", "header=i <= header_rows"),
    Mutation("max_span_smaller", "constant", T, "MAX_SPAN = 1000", "MAX_SPAN = 100"),
]



AREAS = {
    "gate": Area(["tests/test_gate.py", "tests/test_case_changes.py", "tests/test_plugin_baseline.py",
                  "tests/test_plugin_options.py", "tests/test_verdicts.py"], GATE),
    "locator": Area(["tests/test_locate.py", "tests/test_locate_fragments.py", "tests/test_best_candidate.py",
                     "tests/test_locate_llm.py"], LOCATOR),
    "reference": Area(["tests/test_metric_teds.py", "tests/test_metric_grits.py", "tests/test_metric_tlag.py"],
                      REFERENCE),
    "table": Area(["tests/test_table.py", "tests/test_reader_html.py", "tests/test_bounds_grid.py",
                   "tests/test_bounds_spans.py"], TABLE),
    # the text alignment's and the formula score's constants, one per row of their tables, against the
    # tests their rows name (node ids)
    "text": Area(sorted({row.test for row in TEXT_ROWS}), row_mutations(TEXT_ROWS)),
    "formula": Area(sorted({row.test for row in FORMULA_ROWS}), row_mutations(FORMULA_ROWS)),
}
MUTATIONS = [m for area in AREAS.values() for m in area.mutations]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--area", action="append", choices=list(AREAS), default=[],
                        help="an area (repeatable); all of them by default")
    parser.add_argument("--only", action="append", default=[], help="a mutation's name (repeatable)")
    args = parser.parse_args(argv)
    unknown = set(args.only) - {m.name for m in MUTATIONS}
    if unknown:
        parser.error(f"no mutation {', '.join(sorted(unknown))}")
    rates = []
    for name, area in AREAS.items():
        chosen = [m for m in area.mutations if not args.only or m.name in args.only]
        if (args.area and name not in args.area) or not chosen:
            continue
        print(f"== {name}: {len(chosen)} mutations, tests {' '.join(area.tests)}", flush=True)
        failed, why = run(None, area.tests, sys.executable)
        if failed:
            raise SystemExit(f"{name}: the tests fail on the unmutated code ({why}): fix them first")
        killed = report(chosen, area.tests, sys.executable)
        rates.append(f"{name:<10} {killed} of {len(chosen)} killed ({killed / len(chosen):.0%})")
        print(flush=True)
    print("\n".join(rates))
    return 0


if __name__ == "__main__":
    sys.exit(main())
