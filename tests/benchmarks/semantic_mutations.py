"""Mutations of the semantic score (weights, rules, constants, thresholds, readings) and whether the tests kill them.

Each mutation changes one line of the score in a copy of the repository, runs the semantic score's
tests there and counts it killed when a test fails. One mutant per row of the score's tables in code
(`metrics.tables.semantic_table`), generated from the rows: a feature's weights set to 0 in a grid
and in lines, a rule taken out of `semantic.RULES` (as `tablebench meta-eval --ablation` takes it
out), a constant set to its row's `mutant`; and, listed here, the thresholds and readings no row
names (`MUTATIONS`). A mutation that survives names a part of the score no test pins.

    python -m tests.benchmarks.semantic_mutations            # from the repo root; 10-30 minutes
    python -m tests.benchmarks.semantic_mutations --only values_weight --only no_glue
    python -m tests.benchmarks.semantic_mutations --own     # each row's mutant against its row's test alone

`--own` checks what the docs' tables claim: that the test a row names fails without the row (a
row whose mutant only another test kills names the wrong test).
"""

from __future__ import annotations

import argparse
import re
import sys

from tablebench.core.score_table import PartRow
from tablebench.metrics.tables.semantic_align import FEATURES
from tablebench.metrics.tables.semantic_table import (
    COMPARISON_RULE_ROWS,
    CONSTANT_ROWS,
    FEATURE_ROWS,
    READING_RULE_ROWS,
)
from tests.benchmarks.mutants import ROOT, Mutation, report, row_mutations

TESTS = ["tests/test_metric_semantic.py", "tests/test_semantic_lines.py", "tests/test_semantic_rows.py",
         "tests/test_semantic_formats.py", "tests/test_semantic_size.py", "tests/test_semantic_blind.py",
         "tests/test_semantic_features_doc.py", "tests/test_perturb.py", "tests/test_locate_fragments.py",
         "tests/test_reader_text.py", "tests/test_semantic_reader_of_lines.py", "tests/test_semantic_emphasis.py",
         "tests/test_semantic_spacing.py", "tests/test_semantic_spans.py", "tests/test_semantic_parts_scored.py"]
ROWS = (*FEATURE_ROWS, *READING_RULE_ROWS, *COMPARISON_RULE_ROWS, *CONSTANT_ROWS)
# the rows' mutants run against the tests of the score without the docs' tables (which read every value
# and every rule, and would kill each mutant by reading it) and with the tests their rows name
ROW_TESTS = sorted({*TESTS, *(row.test.split("::")[0] for row in ROWS)} - {"tests/test_semantic_features_doc.py"})

# kind: "weight", "rule", "constant" (the rows'), "threshold" or "reading"
M = "harness/metrics/tables/"
VECTOR = "return np.asarray(self.weights + self.lines_weights + self.lines_presence, dtype=float)"


def _without(k: int, grid: bool = True, lines: bool = True) -> str:
    """`Params.vector` with feature `k` costing nothing in a grid and/or in lines (per amount and for
    being there)."""
    def part(name: str, drop: bool) -> str:
        return f"tuple(0.0 if i == {k} else w for i, w in enumerate(self.{name}))" if drop else f"self.{name}"
    return (f"return np.asarray({part('weights', grid)} + {part('lines_weights', lines)} + "
            f"{part('lines_presence', lines)}, dtype=float)")


def feature_mutations(rows: tuple[PartRow, ...]) -> list[Mutation]:
    """One mutation per feature row: the feature costs nothing, in a grid and in lines (`_without`)."""
    return [Mutation(f"{row.name}_weight", "weight", M + "semantic.py", VECTOR, _without(FEATURES.index(row.name)))
            for row in rows]


def rule_mutations(rows: tuple[PartRow, ...]) -> list[Mutation]:
    """One mutation per rule row: the rule taken out of `semantic.RULES` where it is set, so the score
    reads and counts without it (as `tablebench meta-eval --ablation` does)."""
    source = (ROOT / M / "semantic.py").read_text(encoding="utf-8")
    found = re.search(r"^RULES = (.+)$", source, re.M)
    if found is None:
        raise SystemExit(f"no line 'RULES = ...' in {M}semantic.py: update rule_mutations")
    return [Mutation(f"no_{row.name}", "rule", M + "semantic.py", "\n" + found.group(0),
                     f"\nRULES = ({found.group(1)}) - {{{row.name!r}}}") for row in rows]


# the weights, thresholds and readings no row names (a feature's, a rule's and a constant's are the rows')
MUTATIONS = [
    Mutation("lines_weights_as_grid", "weight", M + "semantic.py", VECTOR,
             "return np.asarray(self.weights + self.weights + self.lines_presence, dtype=float)"),
    Mutation("no_lines_presence", "weight", M + "semantic.py", VECTOR,
             "return np.asarray(self.weights + self.lines_weights + tuple(0.0 for _ in self.lines_presence), "
             "dtype=float)"),
    Mutation("counts_linear", "threshold", M + "semantic_size.py", "np.log1p(features[list(CHARGED)])",
             "features[list(CHARGED)]"),
    Mutation("value_shortfall", "threshold", M + "semantic_causes.py", 'out.append(Cause("values", 1.0, _cell_error(',
             'out.append(Cause("values", float(shortfall[y]), _cell_error('),
    Mutation("stub_tie_values", "threshold", M + "semantic_struct.py", "sum(map(is_value, vals)) * 2 > len(vals)",
             "sum(map(is_value, vals)) * 2 >= len(vals)"),
    Mutation("header_words_from_the_right", "reading", M + "semantic_header_words.py",
             "    if len(words) <= width or width < 2 or len(words) > MAX_WORDS:\n"
             "        return right_aligned(words, width)\n",
             "    return right_aligned(words, width)\n"),
    Mutation("no_header_by_shape", "reading", M + "semantic_lines.py", "    head = _header_end(rows)\n",
             "    head = 0\n"),
    Mutation("no_widening", "reading", M + "semantic_lines.py", "        width = max(wider, default=width)\n", ""),
    Mutation("no_first_row_forms", "reading", "harness/readers/row_roles.py",
             "if r == titles and _unlike_the_values_below(", "if False and _unlike_the_values_below("),
    Mutation("no_span_down", "reading", "harness/readers/row_roles.py",
             "if r > titles and (_spans_down(rows, ids, r, blank)", "if r > titles and (False"),
    Mutation("no_nested_sections", "reading", M + "semantic_struct.py", "outer, inner = [label], []",
             "inner = [label]"),
]
# one per row of the score's tables: its features, its reading and comparison rules, its constants
ROW_MUTATIONS = [*feature_mutations(FEATURE_ROWS), *rule_mutations(READING_RULE_ROWS + COMPARISON_RULE_ROWS),
                 *row_mutations(CONSTANT_ROWS)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", default=[], help="a mutation's name (repeatable)")
    parser.add_argument("--own", action="store_true", help="each row's mutant against its row's own test alone")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTATIONS if not args.only or m.name in args.only]
    rows = [(row, m) for row, m in zip(ROWS, ROW_MUTATIONS, strict=True) if not args.only or m.name in args.only]
    if args.own:
        killed = sum(report([m], [row.test], sys.executable) for row, m in rows)
        print(f"\n{killed} of {len(rows)} rows' mutants killed by the row's own test")
        return 0
    killed = report(chosen, TESTS, sys.executable) + report([m for _, m in rows], ROW_TESTS, sys.executable)
    print(f"\n{killed} of {len(chosen) + len(rows)} mutations killed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
