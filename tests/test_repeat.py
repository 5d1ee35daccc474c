"""`--repeat=K`: K parses per page, each cached under its own key, combined into per-table means and spread."""

from __future__ import annotations

import shlex
import sys
import textwrap
from pathlib import Path

import pytest

from tablebench.cases import load_case_set
from tablebench.core.results import ItemResult, sd_of
from tablebench.evaluate.repeat import combine, evaluate_repeated
from tablebench.parse.prefetch import ParsePool, repeated
from tablebench.parse.registry import resolve
from tablebench.parse.runner import ParseRunner, cache_key
from tests.ci_cases import case_set, write_pages

# A parser whose repetitions differ, as a stochastic one's do: its n-th call on a page prints the
# page's exact output with n cells garbled (picked at random, no seed), so repeats always spread.
RANDOM_PARSER = textwrap.dedent("""\
    import pathlib, random, re, sys, fcntl
    pdf, pages, logs = map(pathlib.Path, sys.argv[1:4])
    with open(logs / "calls.log", "a+") as handle:  # a folder: a named file would be part of the cache key
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        calls = handle.read().split().count(pdf.stem)
        handle.write(pdf.stem + "\\n")
    text = (pages / (pdf.stem + ".md")).read_text(encoding="utf-8")
    cells = list(re.finditer(r"(<td[^>]*>)([^<]+)(</td>)", text))
    for m in sorted(random.sample(cells, min(calls, len(cells))), key=lambda m: -m.start()):
        text = text[:m.start(2)] + "###" + text[m.end(2):]
    print(text)
""")


def result(outcome: str = "ok", **scores: float) -> ItemResult:
    return ItemResult(parser="p", case_set="s", page="p001", index=0, group="simple", outcome=outcome,
                       scores=scores, message="" if outcome == "ok" else "not found")


def test_combine_takes_means_with_lost_repeats_as_zero_and_keeps_the_spread():
    (one,) = combine([[result(teds=0.9)], [result("missing")], [result(teds=0.6)]])
    assert one.outcome == "ok" and one.scores["teds"] == pytest.approx(0.5)
    rep = one.repeat
    assert rep["k"] == 3 and rep["outcomes"] == ["ok", "missing", "ok"] and rep["scores"]["teds"] == [0.9, 0.0, 0.6]
    assert rep["sd"]["teds"] == pytest.approx(0.45826, abs=1e-4) and sd_of(one) == rep["sd"]
    assert "found in 2 of 3 repeats" in one.message
    (lost,) = combine([[result("missing")], [result("missing")]])
    assert lost.outcome == "missing" and lost.scores == {}
    single = [result(teds=0.9)]
    assert combine([single]) == single and sd_of(single[0]) == {}


def test_each_repetition_has_its_own_cache_key_and_repetition_zero_is_the_plain_parser():
    parser = resolve("pypdf")
    assert repeated(parser, 0) is parser
    keys = {cache_key(repeated(parser, r), "0" * 64) for r in range(3)}
    assert len(keys) == 3 and cache_key(parser, "0" * 64) in keys
    assert repeated(parser, 2).config["repetition"] == 2 and "repetition" not in (getattr(parser, "config", {}) or {})


def test_repeats_parse_k_times_once_and_a_rerun_reads_them_all_from_the_cache(tmp_path: Path):
    cases = case_set(tmp_path / "cases", 2)
    pages = write_pages(tmp_path / "exact", cases)
    script, logs = tmp_path / "random_parser.py", tmp_path / "logs"
    script.write_text(RANDOM_PARSER)
    logs.mkdir()
    log = logs / "calls.log"
    spec = f"command:{shlex.quote(sys.executable)} {script} {{pdf}} {pages} {logs}"
    page = load_case_set(cases).pages[0]
    pool = ParsePool(2)
    try:
        results = evaluate_repeated(page, spec, ["teds"], repeat=4, pool=pool, cache_dir=tmp_path / "cache")
    finally:
        pool.close()
    assert log.read_text().split() == ["001"] * 4, "four parses of the page"
    assert [r.repeat["k"] for r in results] == [4] * len(page.tables)
    spread = [sd_of(r)["teds"] for r in results if "teds" in sd_of(r)]
    assert any(s > 0 for s in spread), "a random parser's repeats differ"
    for r in results:
        values = r.repeat["scores"]["teds"]
        assert r.scores["teds"] == pytest.approx(sum(values) / 4)
    again = evaluate_repeated(page, spec, ["teds"], repeat=4, cache_dir=tmp_path / "cache")
    assert log.read_text().split() == ["001"] * 4, "the rerun parsed nothing"
    assert [r.scores for r in again] == [r.scores for r in results]
    with ParseRunner(resolve(spec), tmp_path / "cache") as plain:  # repetition 0 is the plain run's entry
        assert plain.run(page.pdf).cached


def test_bad_repeat_counts_are_refused():
    with pytest.raises(ValueError, match="--repeat must be a positive integer"):
        evaluate_repeated(None, "pypdf", None, repeat=0)
    with pytest.raises(ValueError, match="--repeat must be <= 1000"):
        evaluate_repeated(None, "pypdf", None, repeat=10**20)
