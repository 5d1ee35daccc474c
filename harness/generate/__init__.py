"""Synthetic benchmark pages: seeded layouts, built-in tables, Faker text, pdflatex, case sets.

Flow: `layouts.sample_layout(seed)` -> `tables.generate_table(...)` + `text.TextSource` ->
`page.build_page(seed)` (plan, compile, cut to one page, verify) -> `caseset.write_caseset(...)`.
pdflatex only ever runs through `tex.runner.run_pdflatex`; LaTeX from outside the built-in
generator passes `tex.safety.check_latex` first (`measure.measure_tables` does this for pools);
`stats` gives span-based complexity classes and size statistics of a tabular.
Formula pages (`--track formulas|mixed|prose`) run through the same `build_page` with the planner
of `formula_page` (inline formulas in sentences, display formulas between them), formulas
(`formula_item`) from `formula_pool` (vetted external JSONL) or `formula_builtin` (seeded).
Pools of either kind are read and written through `pool_file`; `harvest` (tables) and
`formula_harvest` fill them from LaTeX sources through the one `harvest_core`.
Documents of several pages (`--doc-pages`) run through the same `build_page` too, with the
planner of `document` (one column, `longtables` that break across pages, their breaks read
from row markers) and a cut after their last page.
"""

GENERATOR_VERSION = "1"
