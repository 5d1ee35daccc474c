"""Every built-in parser over the shared pdf-parse-bench table pages: no table ends as outcome "error".

An "error" result means the harness itself could not read, locate or score a table (a reader,
the locator or a metric raised); such a table silently leaves every leaderboard mean. Real
authors' LaTeX and real parser output are where those faults show, so this runs the whole
pipeline (worker process, parse, locate, every default metric) on pages nobody here wrote.

Opt-in (`-m slow`): about 3 min with a cold parse cache on 2 cores, ~25 s with a warm one. Point
`TABLEBENCH_BENCH_CACHE` at a parse cache (e.g. `.tablebench-cache`, the one the benchmarks
use) to reuse parser outputs between runs; a cached parser error is always parsed again.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tablebench.cases import load_case_set
from tablebench.evaluate.evaluator import Evaluator
from tablebench.parse import resolve
from tablebench.parse.protocol import ParserError
from tablebench.parse.registry import builtin_parsers

# each built-in's default, plus the modes that give a different kind of output for the same page
MODES = ["pymupdf4llm?layout=off", "pdfplumber?strategy=text", "pdfplumber?tables=markdown", "camelot?flavor=stream"]
SPECS = sorted(builtin_parsers()) + MODES


@pytest.fixture(scope="module")
def parse_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("TABLEBENCH_BENCH_CACHE")
    return Path(given) if given else tmp_path_factory.mktemp("parse-cache")


def test_the_modes_name_built_in_parsers() -> None:
    assert len(builtin_parsers()) >= 5
    assert {spec.partition("?")[0] for spec in MODES} <= set(builtin_parsers())


@pytest.mark.shared
@pytest.mark.slow
@pytest.mark.parametrize("spec", SPECS)
def test_no_table_of_the_sample_ends_as_error(spec: str, bench_sample_dir: Path, parse_cache: Path) -> None:
    prepare = getattr(resolve(spec), "prepare", None)
    try:
        if prepare is not None:
            prepare()
    except ParserError as exc:  # a dependency this machine lacks, not a fault of the harness
        pytest.skip(f"{spec} cannot run here: {exc}")
    cases = load_case_set(bench_sample_dir)
    with Evaluator(spec, cache_dir=parse_cache, timeout=600) as evaluator:
        results = evaluator.run(cases)
    assert len(results) == cases.n_tables == 91
    broken = [f"{r.page}/t{r.index}: {r.message}" for r in results if r.outcome in ("error", "parse_error")]
    assert not broken, "\n".join(broken)
    assert sum(r.outcome == "ok" for r in results) > 0  # the pipeline scored something, not only misses
