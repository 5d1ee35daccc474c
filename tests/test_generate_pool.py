"""External table pools: JSONL validation, vetting before any compile, sizes, drawing, pages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablebench.cli import main
from tablebench.generate import measure
from tablebench.generate.layouts import PageLayout
from tablebench.generate.page import build_page
from tablebench.generate.pool import PoolTable, TablePool, read_jsonl, vet_tables
from tablebench.generate.rendered import have_pdftotext
from tablebench.generate.tables import generate_table
from tablebench.tex.runner import have_pdflatex

needs_tex = pytest.mark.skipif(not (have_pdflatex() and have_pdftotext()),
                               reason="pdflatex or pdftotext is not installed (apt texlive-latex-base, poppler-utils)")

GOOD = r"""\begin{tabular}{lcc}
\toprule
Model & BLEU & chrF \\
\midrule
Base & 27.1 & 55.0 \\
Ours & \textbf{29.4} & \textbf{57.2} \\
\bottomrule
\end{tabular}"""
SPANNED = r"""\begin{tabular}{lcc}
\hline
 & \multicolumn{2}{c}{Score} \\
\cline{2-3}
Model & dev & test \\
\hline
Base & 1.0 & 2.0 \\
\hline
\end{tabular}"""
BROKEN = r"\begin{tabular}{cc} a & \undefinedmacro \\ \end{tabular}"
WIDE = r"\begin{tabular}{c} \rule{900pt}{2pt} \\ \end{tabular}"
UNSAFE = r"\begin{tabular}{c} \immediate\write18{rm -rf /} \\ \end{tabular}"
DEFINES = r"\begin{tabular}{c} \gdef\tbmark{} x \\ \end{tabular}"


def _write(path: Path, entries: list[dict | str]) -> Path:
    path.write_text("".join((e if isinstance(e, str) else json.dumps(e)) + "\n" for e in entries), encoding="utf-8")
    return path


@pytest.mark.parametrize(("line", "message"), [
    ("{not json", r"pool.jsonl:2: invalid JSON"),
    ('{"complexity": "simple"}', r'pool.jsonl:2: expected an object with a non-empty "latex" string'),
    ('["a list"]', r'pool.jsonl:2: expected an object'),
    ('{"latex": "x", "complexity": "hard"}', r"pool.jsonl:2: complexity 'hard' is not one of simple, moderate, complex"),
])
def test_bad_pool_lines_give_one_line_errors(tmp_path, line, message) -> None:
    path = _write(tmp_path / "pool.jsonl", [{"latex": GOOD}, line])
    with pytest.raises(ValueError, match=message) as err:
        read_jsonl(path)
    assert "\n" not in str(err.value)


def test_missing_and_empty_pool_files(tmp_path) -> None:
    with pytest.raises(ValueError, match="not found"):
        read_jsonl(tmp_path / "nope.jsonl")
    with pytest.raises(ValueError, match="no tables"):
        read_jsonl(_write(tmp_path / "empty.jsonl", [""]))


def test_sources_default_to_file_and_line(tmp_path) -> None:
    path = _write(tmp_path / "p.jsonl", [{"latex": GOOD, "source": "arXiv:2401.1#0"}, "", {"latex": SPANNED}])
    assert [(c, s) for _, c, s in read_jsonl(path)] == [(None, "arXiv:2401.1#0"), (None, "p.jsonl:3")]


def test_unsafe_tables_never_reach_pdflatex(monkeypatch) -> None:
    def no_compile(*_a, **_k):
        raise AssertionError("pdflatex must not run")

    monkeypatch.setattr(measure, "run_pdflatex", no_compile)
    kept, rejected = vet_tables([(UNSAFE, None, "a"), (DEFINES, None, "b"), ("no table here", None, "c"),
                                 (r"\begin{tabular}{c", None, "d"), (r"\begin{tabular}{c}\end{tabular}", None, "e")])
    assert kept == []
    assert [(r.source, r.reason) for r in rejected] == [
        ("a", r"unsafe \immediate"), ("b", r"unsafe \gdef"), ("c", "no tabular"), ("d", "malformed"),
        ("e", "unreadable")]
    assert r"\write18: runs a command" in rejected[0].detail


def test_table_vetting_has_one_time_budget_for_all_its_compiles(monkeypatch) -> None:
    """A pool of tables that each compile to the 60 s timeout cost an hour per 64 lines: vetting
    now stops compiling when its budget is spent, and what it did not compile is refused saying so."""
    from tablebench.generate import pool

    def no_compile(*_a, **_k):
        raise AssertionError("pdflatex must not run past the budget")

    monkeypatch.setattr(measure, "run_pdflatex", no_compile)
    monkeypatch.setattr(pool, "VET_BUDGET", 0.0)
    kept, rejected = vet_tables([(GOOD.replace("Base", "Budget"), None, "a"), (SPANNED.replace("Base", "Budget"), None, "b")])
    assert kept == []
    assert [(r.source, r.reason, r.detail) for r in rejected] == [
        (s, "compile failure", "not compiled: the time budget of this vetting was spent") for s in "ab"]


# Tables that pass the lexical checks of safety.py but print something else than their ground
# truth, or never finish (issue 13, item 14): refused before any compile.
DIVERGING = {
    "romannumeral": (r"\begin{tabular}{c} \romannumeral 99999999 \\ \end{tabular}", r"unsafe \romannumeral"),
    "chardef": (r"\begin{tabular}{c} \chardef\x=65 \x \\ \end{tabular}", r"unsafe \chardef"),
    "xparse": (r"\begin{tabular}{c} \NewDocumentCommand\r{}{\r}\r \\ \end{tabular}", r"unsafe \NewDocumentCommand"),
    "xparse-env": (r"\begin{tabular}{c} \RenewDocumentEnvironment{center}{}{}{} x \\ \end{tabular}",
                   r"unsafe \RenewDocumentEnvironment"),
    "provide": (r"\begin{tabular}{c} \ProvideDocumentCommand\q{}{q} x \\ \end{tabular}", r"unsafe \ProvideDocumentCommand"),
    "declare": (r"\begin{tabular}{c} \DeclareDocumentCommand\q{}{q} x \\ \end{tabular}", r"unsafe \DeclareDocumentCommand"),
    "recursive": (r"\begin{tabular}{c} \newcommand\r{x\r}\r \\ \end{tabular}", r"unsafe \newcommand"),
    "expandafter": (r"\begin{tabular}{c} \expandafter\textbf x \\ \end{tabular}", r"unsafe \expandafter"),
}


def test_tables_whose_pdf_would_differ_are_refused_before_compiling(monkeypatch) -> None:
    def no_compile(*_a, **_k):
        raise AssertionError("pdflatex must not run")

    monkeypatch.setattr(measure, "run_pdflatex", no_compile)
    kept, rejected = vet_tables([(latex, None, name) for name, (latex, _) in DIVERGING.items()])
    assert kept == []
    assert {r.source: r.reason for r in rejected} == {name: reason for name, (_, reason) in DIVERGING.items()}


@needs_tex
def test_tables_printing_other_text_than_their_ground_truth_are_refused_after_compiling() -> None:
    hidden = r"\begin{tabular}{lc} Model & \iffalse Secret \fi Score \\ Base & 27.1 \\ \end{tabular}"
    kept, rejected = vet_tables([(hidden, None, "hidden"), (GOOD, None, "good"), (SPANNED, None, "spanned")])
    assert [t.source for t in kept] == ["good", "spanned"]
    assert [(r.source, r.reason) for r in rejected] == [("hidden", "renders differently")]
    assert rejected[0].detail == "1 of 6 ground-truth words not in the PDF: 'secret'"


@needs_tex
def test_vetting_measures_classifies_and_rejects_with_reasons() -> None:
    kept, rejected = vet_tables([(GOOD, None, "good"), (SPANNED, "complex", "labelled"), (SPANNED, None, "spanned"),
                                 (BROKEN, None, "broken"), (WIDE, None, "wide")])
    assert [(t.source, t.complexity) for t in kept] == [("good", "simple"), ("labelled", "complex"),
                                                       ("spanned", "moderate")]
    assert all(t.width > 50 and t.height > 20 for t in kept)
    assert {r.source: r.reason for r in rejected} == {"broken": "compile failure", "wide": "too wide"}
    assert "Undefined control sequence" in next(r.detail for r in rejected if r.source == "broken")


@needs_tex
def test_pool_is_vetted_once_then_read_from_the_cache(tmp_path, monkeypatch) -> None:
    path = _write(tmp_path / "pool.jsonl", [{"latex": GOOD}, {"latex": BROKEN}, {"latex": SPANNED, "complexity": "complex"}])
    first = TablePool.from_jsonl(path, cache_dir=tmp_path / "cache")
    assert len(list((tmp_path / "cache").glob("*.json"))) == 1

    def no_compile(*_a, **_k):
        raise AssertionError("pdflatex must not run")

    monkeypatch.setattr(measure, "run_pdflatex", no_compile)
    measure._CACHE.clear()  # only the on-disk cache may answer now
    again = TablePool.from_jsonl(path, cache_dir=tmp_path / "cache")
    assert again.tables == first.tables and again.rejected == first.rejected and again.sha256 == first.sha256
    assert [r.reason for r in again.rejected] == ["compile failure"]
    _write(path, [{"latex": BROKEN}])  # new content: a new key, vetted again (and here: must compile)
    with pytest.raises(AssertionError, match="must not run"):
        TablePool.from_jsonl(path, cache_dir=tmp_path / "cache")


def _pool(tables: list[tuple[str, str, float]]) -> TablePool:
    return TablePool([PoolTable(latex, c, f"t{i}", width, 50.0) for i, (latex, c, width) in enumerate(tables)], [])


def test_draw_is_seeded_fits_the_column_and_avoids_repeats() -> None:
    pool = _pool([(f"{GOOD}%{i}", "simple", 100.0 + i) for i in range(10)] + [("huge", "simple", 5000.0)])
    one_col = PageLayout()
    draws = [pool.draw(s, "simple", one_col, set()) for s in range(40)]
    assert draws == [pool.draw(s, "simple", one_col, set()) for s in range(40)]  # same seed, same table
    assert len({d.latex for d in draws}) > 3 and all(d.latex != "huge" for d in draws)
    assert all(d.kind == "pool" and d.source.startswith("t") for d in draws)
    taken = {t.latex for t in pool.tables[:9]}
    assert pool.draw(3, "simple", one_col, taken).latex == pool.tables[9].latex
    assert pool.draw(3, "complex", one_col, set()) is None  # no such class: the page falls back


@needs_tex
def test_page_takes_pool_tables_of_each_class_and_falls_back_to_builtin() -> None:
    pool = _pool([(GOOD, "simple", 120.0), (SPANNED, "moderate", 120.0)])
    page = build_page(11, pool=pool)
    sources = {(t["complexity"], t["source"]) for t in page.tables}
    assert ("simple", "t0") in sources and ("moderate", "t1") in sources
    assert {s for c, s in sources if c == "complex"} == {"builtin"}
    assert len([t for t in page.tables if t["source"] == "t0"]) == 1  # never twice on a page
    pooled = next(t for t in page.tables if t["source"] == "t0")
    assert pooled["data"] == GOOD and "<td>29.4</td>" in pooled["html"] and pooled["kind"] == "pool"
    assert build_page(11, pool=pool).blocks == page.blocks


@needs_tex
def test_generate_with_pool_cli(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # the pool cache goes to ./.tablebench-cache
    extra = [{"latex": generate_table(s, "complex", max_cols=5).latex, "source": f"gen{s}"} for s in range(4)]
    path = _write(tmp_path / "pool.jsonl", [{"latex": GOOD, "source": "good"}, {"latex": UNSAFE}, *extra])
    out = tmp_path / "set"
    assert main(["generate", "--pages", "2", "--seed", "3", "--out", str(out), "--pool", str(path)]) == 0
    assert "pool pool.jsonl: 5 tables" in capsys.readouterr().err  # the vetting summary
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["pool"]["file"] == "pool.jsonl" and manifest["pool"]["tables"] == 5
    assert manifest["pool"]["rejected"] == 1 and len(manifest["pool"]["sha256"]) == 64
    blocks = [b for p in sorted(out.glob("0*.json")) for b in json.loads(p.read_text())["blocks"]]
    assert {b["source"] for b in blocks if b["type"] == "table"} & {"good", "gen0", "gen1", "gen2", "gen3"}
    assert main(["generate", "--pages", "2", "--seed", "3", "--out", str(tmp_path / "par"), "--pool", str(path),
                 "--jobs", "2"]) == 0  # workers get the pool once, and draw the same tables
    for name in ("001.json", "002.json", "manifest.json"):
        assert (out / name).read_bytes() == (tmp_path / "par" / name).read_bytes()
    assert len(list((tmp_path / ".tablebench-cache" / "pool").glob("*.json"))) == 1
    bad = _write(tmp_path / "bad.jsonl", [{"latex": UNSAFE}])
    assert main(["generate", "--pages", "1", "--out", str(tmp_path / "x"), "--pool", str(bad)]) == 1
    assert "no usable table in the pool (rejected: unsafe \\immediate)" in capsys.readouterr().err
