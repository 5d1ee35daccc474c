"""Synthetic benchmark pages: seeded layouts, built-in tables, Faker text, pdflatex, case sets.

Flow: `layouts.sample_layout(seed)` -> `tables.generate_table(...)` + `text.TextSource` ->
`page.build_page(seed)` (plan, compile, cut to one page, verify) -> `caseset.write_caseset(...)`.
pdflatex only ever runs through `latex_runner.run_pdflatex`; LaTeX from outside the built-in
generator passes `safety.check_latex` first (`measure.measure_tables` does this for pools);
`stats` gives span-based complexity classes and size statistics of a tabular.
Formula pages (`--track formulas|mixed`) run through the same `build_page` with the planner
of `formula_page` (inline formulas in sentences, display formulas between them), formulas from
`formula_pool` (vetted external JSONL, `formula_harvest`) or `formula_builtin` (seeded).
"""

GENERATOR_VERSION = "1"
