"""Mutations of the semantic score's weights, thresholds and readings, and whether the tests kill them.

Each mutation changes one line of the score (a weight to nothing, a threshold moved, a reading rule
switched off) in a copy of the repository, runs the semantic score's tests there and counts it
killed when a test fails. A mutation that survives names a part of the score no test pins: the
feature table (docs/semantic-score.md) must point at a test for every row.

    python -m tests.benchmarks.semantic_mutations            # from the repo root; about 10 minutes
    python -m tests.benchmarks.semantic_mutations --only values_weight
"""

from __future__ import annotations

import argparse
import sys

from tablebench.metrics.tables.semantic_table import ROWS as CONSTANTS
from tests.benchmarks.mutants import Mutation, report, row_mutations

TESTS = ["tests/test_metric_semantic.py", "tests/test_semantic_lines.py", "tests/test_semantic_rows.py",
         "tests/test_semantic_formats.py", "tests/test_semantic_size.py", "tests/test_semantic_blind.py",
         "tests/test_semantic_features_doc.py", "tests/test_perturb.py", "tests/test_locate_fragments.py",
         "tests/test_reader_text.py", "tests/test_semantic_reader_of_lines.py", "tests/test_semantic_emphasis.py",
         "tests/test_semantic_spacing.py", "tests/test_semantic_spans.py"]
# the constants' rows run against the tests of the score without the docs' table (which reads every value
# and would kill each mutant by reading the number) and with the tests their rows name
ROW_TESTS = sorted({*TESTS, *(row.test.split("::")[0] for row in CONSTANTS)} - {"tests/test_semantic_features_doc.py"})

# kind: "weight", "threshold" or "reading"
M = "harness/metrics/tables/"
VECTOR = "return np.asarray(self.weights + self.lines_weights, dtype=float)"
RULES = "RULES = READ_RULES | frozenset(ALIGN_RULES) | {EMPHASIS, SPACING, SPANS}"  # semantic.RULES as written


def _without(k: int, grid: bool = True, lines: bool = True) -> str:
    """`Params.vector` with feature `k` costing nothing in a grid and/or in lines."""
    def part(name: str, drop: bool) -> str:
        return f"tuple(0.0 if i == {k} else w for i, w in enumerate(self.{name}))" if drop else f"self.{name}"
    return f"return np.asarray({part('weights', grid)} + {part('lines_weights', lines)}, dtype=float)"


MUTATIONS = [
    Mutation("share_weight", "weight", M + "semantic.py", VECTOR, _without(0, lines=False)),
    Mutation("values_weight", "weight", M + "semantic.py", VECTOR, _without(1, lines=False)),
    Mutation("headers_weight", "weight", M + "semantic.py", VECTOR, _without(3, lines=False)),
    Mutation("unattributed_weight", "weight", M + "semantic.py", VECTOR, _without(5, lines=False)),
    Mutation("unlabelled_weight", "weight", M + "semantic.py", VECTOR, _without(6, grid=False)),
    Mutation("emphasis_weight", "weight", M + "semantic.py", VECTOR, _without(7)),
    Mutation("spacing_weight", "weight", M + "semantic.py", VECTOR, _without(10)),
    Mutation("spans_weight", "weight", M + "semantic.py", VECTOR, _without(11, grid=False)),
    Mutation("lines_weights_as_grid", "weight", M + "semantic.py", VECTOR,
             "return np.asarray(self.weights + self.weights, dtype=float)"),
    Mutation("counts_linear", "threshold", M + "semantic_size.py", "np.log1p(features[list(CHARGED)])",
             "features[list(CHARGED)]"),
    Mutation("value_shortfall", "threshold", M + "semantic_causes.py", 'out.append(Cause("values", 1.0, _cell_error(',
             'out.append(Cause("values", float(shortfall[y]), _cell_error('),
    Mutation("stub_tie_values", "threshold", M + "semantic_struct.py", "sum(map(is_value, vals)) * 2 > len(vals)",
             "sum(map(is_value, vals)) * 2 >= len(vals)"),
    Mutation("no_lines_reading", "reading", M + "semantic_read.py", 'GRID_RULES = ("lines",)', "GRID_RULES = ()"),
    Mutation("no_glue", "reading", M + "semantic_lines.py", 'LINE_RULES = ("glue", ', "LINE_RULES = ("),
    Mutation("no_regular_runs", "reading", M + "semantic_lines.py", '"regular_runs", ', ""),
    Mutation("no_regular_words", "reading", M + "semantic_lines.py", '"regular_words", ', ""),
    Mutation("no_enumerated", "reading", M + "semantic_lines.py", ', "enumerated")', ")"),
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
    Mutation("no_foreign_text", "reading", M + "semantic_align.py", 'ALIGN_RULES = ("foreign_text",)',
             "ALIGN_RULES = ()"),
    Mutation("no_emphasis_rule", "reading", M + "semantic.py", RULES,
             "RULES = READ_RULES | frozenset(ALIGN_RULES) | {SPACING, SPANS}"),
    Mutation("no_spacing_rule", "reading", M + "semantic.py", RULES,
             "RULES = READ_RULES | frozenset(ALIGN_RULES) | {EMPHASIS, SPANS}"),
    Mutation("no_spans_rule", "reading", M + "semantic.py", RULES,
             "RULES = READ_RULES | frozenset(ALIGN_RULES) | {EMPHASIS, SPACING}"),
    Mutation("no_nested_sections", "reading", M + "semantic_struct.py", "outer, inner = [label], []",
             "inner = [label]"),
]
ROW_MUTATIONS = row_mutations(CONSTANTS)  # one per row of the constants' table (rated_facts, midpoint, ...)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", default=[], help="a mutation's name (repeatable)")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTATIONS if not args.only or m.name in args.only]
    rows = [m for m in ROW_MUTATIONS if not args.only or m.name in args.only]
    killed = report(chosen, TESTS, sys.executable) + report(rows, ROW_TESTS, sys.executable)
    print(f"\n{killed} of {len(chosen) + len(rows)} mutations killed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
