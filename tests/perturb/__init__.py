"""The perturbation suite of the `semantic` table score.

Ground-truth tables are rewritten in ways a reader does not mind (another format, header
marks, a title moved out of the table, look-alike glyphs, white space, a split at a section
row) and in ways that damage them (numbers changed, columns swapped, rows dropped, a header
level lost, every column label fused into one cell). Invariances must keep the score >= 9.5;
damage must lower it, and more damage must lower it more. No rating covers these shapes: the
suite guards against cascades and misreadings, it is not a target to fit.

- `writers`: a `Table` written as HTML, Markdown, LaTeX or aligned plain text;
- `transforms`: the transformations, each a small pure function of a table (and a seeded rng);
- `corpus`: the distinct ground-truth tables of the committed case sets and of ../shared;
- `suite`: scores every (table, transformation), summarises, writes the report;
- `python -m tests.perturb report OUT`: the full run's report (JSON + Markdown).
"""
