"""Case sets: the loader (both layouts, names, bad folders), the importer, the committed default set."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tablebench.cases import DEFAULT_SET, INSTALLED_CASES, load_case_set, resolve_case_set
from tablebench.cli import main
from tablebench.generate.caseset import dump_json, make_page, page_record, verify_caseset
from tablebench.generate.importer import import_bench
from tablebench.tex.runner import have_pdflatex

TABLE = r"\begin{tabular}{cc} a & b \\ 1 & 2 \\ \end{tabular}"
SPANNED = r"\begin{tabular}{cc} \multicolumn{2}{c}{h} \\ 1 & 2 \\ \end{tabular}"


def _bench_folder(root: Path) -> Path:
    """A two-page pdf-parse-bench folder (list-of-blocks JSON, PDFs need not be real here)."""
    (root / "pdfs").mkdir(parents=True)
    (root / "ground_truth").mkdir()
    pages = {"003": [{"type": "text", "data": "x"}, {"type": "table", "data": TABLE, "complexity": "simple"}],
             "010": [{"type": "table", "data": SPANNED}, {"type": "table", "data": TABLE, "complexity": "simple"}]}
    for stem, blocks in pages.items():
        (root / "ground_truth" / f"{stem}.json").write_text(json.dumps(blocks))
        (root / "pdfs" / f"{stem}.pdf").write_bytes(b"%PDF-1.5 stub")
    return root


def _tablebench_folder(root: Path) -> Path:
    root.mkdir(parents=True)
    record = {"layout": {"columns": 2}, "blocks": [
        {"type": "table", "data": TABLE, "html": "<table><tr><td>stored</td></tr></table>",
         "complexity": "simple", "source": "builtin"}, {"type": "text", "data": "y"}]}
    (root / "001.json").write_text(json.dumps(record))
    (root / "001.pdf").write_bytes(b"%PDF-1.5 stub")
    (root / "manifest.json").write_text("{}")
    return root


def test_loads_both_layouts(tmp_path) -> None:
    bench = load_case_set(_bench_folder(tmp_path / "bench"))
    assert bench.kind == "pdf-parse-bench" and bench.name == "bench" and bench.n_tables == 3
    assert [p.page_id for p in bench.pages] == ["p003", "p010"]
    t = bench.pages[1].tables[0]
    assert (t.index, t.complexity, t.source, t.stored_html) == (0, "unknown", "", None)
    assert t.html == t.table.to_html() and 'colspan="2"' in t.html
    ours = load_case_set(_tablebench_folder(tmp_path / "ours"))
    assert ours.kind == "tablebench" and ours.pages[0].layout == {"columns": 2}
    assert ours.pages[0].tables[0].html == "<table><tr><td>stored</td></tr></table>"
    assert ours.pages[0].pdf == (tmp_path / "ours" / "001.pdf").resolve()


def test_set_names_resolve_in_the_cases_folder(tmp_path, monkeypatch) -> None:
    _tablebench_folder(tmp_path / "cases" / "mini")
    assert load_case_set("mini", cases_dir=tmp_path / "cases").root == (tmp_path / "cases" / "mini").resolve()
    monkeypatch.chdir(tmp_path)
    assert resolve_case_set("cases/mini", cases_dir=tmp_path / "nowhere") == (tmp_path / "cases" / "mini").resolve()
    with pytest.raises(ValueError, match=r"case set 'nope' not found \(a folder, or one of the installed sets: mini\)"):
        load_case_set("nope", cases_dir=tmp_path / "cases")
    assert resolve_case_set(None) == (INSTALLED_CASES / DEFAULT_SET).resolve()


@pytest.mark.parametrize(("breakage", "message"), [
    ("neither", "neither a tablebench case set"),
    ("empty", "no pages found"),
    ("no-pdf", "its PDF 010.pdf is missing"),
    ("bad-json", r"010.json: invalid JSON \(Expecting value at line 1\)"),
    ("not-blocks", r"010.json: expected a list of blocks"),
    ("no-data", r"010.json: table block 0 has no LaTeX in 'data'"),
])
def test_bad_folders_give_one_line_errors(tmp_path, breakage, message) -> None:
    root = _bench_folder(tmp_path / "b")
    gt = root / "ground_truth" / "010.json"
    if breakage == "neither":
        shutil.rmtree(root / "pdfs")
    elif breakage == "empty":
        for p in (root / "ground_truth").iterdir():
            p.unlink()
    elif breakage == "no-pdf":
        (root / "pdfs" / "010.pdf").unlink()
    elif breakage == "bad-json":
        gt.write_text("nope")
    elif breakage == "not-blocks":
        gt.write_text('{"blocks": 3}')
    elif breakage == "no-data":
        gt.write_text('[{"type": "table"}]')
    with pytest.raises(ValueError, match=message) as err:
        load_case_set(root)
    assert "\n" not in str(err.value)


def test_importer_keeps_blocks_adds_html_and_refuses_bad_input(tmp_path) -> None:
    src = _bench_folder(tmp_path / "bench")
    manifest = import_bench(src, tmp_path / "out")
    assert manifest["pages"] == 2 and manifest["tables"] == 3
    assert manifest["complexity"] == {"moderate": 1, "simple": 2}  # the unlabelled one classified by spans
    record = json.loads((tmp_path / "out" / "010.json").read_text())
    assert record["blocks"][0]["source"] == "bench/010#0" and record["blocks"][0]["html"].startswith("<table>")
    with pytest.raises(ValueError, match="already holds a case set"):
        import_bench(src, tmp_path / "out")
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="busy is not empty"):
        import_bench(src, tmp_path / "busy")
    with pytest.raises(ValueError, match="not a pdf-parse-bench folder: expected pdfs/ and ground_truth/"):
        import_bench(tmp_path / "out", tmp_path / "out2")
    (src / "ground_truth" / "010.json").write_text(json.dumps([{"type": "table", "data": "a table in prose"}]))
    with pytest.raises(ValueError, match=r"bench/010#0: our LaTeX reader cannot read this table"):
        import_bench(src, tmp_path / "out3")
    assert not (tmp_path / "out3").exists()  # nothing half-written


@pytest.mark.shared
def test_import_of_the_shared_sample(bench_sample_dir, tmp_path, capsys) -> None:
    out = tmp_path / "imported"
    assert main(["cases", "import", str(bench_sample_dir), "--out", str(out)]) == 0
    assert "imported 20 pages, 91 tables" in capsys.readouterr().out
    assert verify_caseset(out) == []
    assert {p.name for p in out.glob("*.pdf")} == {p.name for p in (bench_sample_dir / "pdfs").glob("*.pdf")}
    source, imported = load_case_set(bench_sample_dir), load_case_set(out)
    assert (source.kind, imported.kind) == ("pdf-parse-bench", "tablebench")
    assert len(imported.pages) == 20 and imported.n_tables == 91
    for a, b in zip(source.pages, imported.pages, strict=True):
        assert a.page_id == b.page_id and a.pdf.read_bytes() == b.pdf.read_bytes()
        assert [(t.latex, t.complexity) for t in a.tables] == [(t.latex, t.complexity) for t in b.tables]
        assert all(t.stored_html for t in b.tables)
        assert [t.html for t in a.tables] == [t.html for t in b.tables]


# -- the committed default set -----------------------------------------------------------------

SET = INSTALLED_CASES / DEFAULT_SET
README = INSTALLED_CASES / "README.md"


@pytest.fixture(scope="module")
def manifest() -> dict:
    if not (SET / "manifest.json").is_file():
        pytest.fail(f"the committed default set {SET} is missing")
    return json.loads((SET / "manifest.json").read_text(encoding="utf-8"))


def _readme_tables() -> dict[str, dict[str, int]]:
    """`#### name` sections of cases/README.md -> {row key: count} of the table under each (a
    `## ` heading, the next set's, ends the last one)."""
    sections: dict[str, dict[str, int]] = {}
    name = None
    for line in README.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            name = None
        elif line.startswith("#### "):
            name = line[5:].strip()
            sections[name] = {}
        elif name and (m := re.fullmatch(r"\| (\S+) \| (\d+) \|", line)):
            sections[name][m.group(1)] = int(m.group(2))
    return sections


def test_committed_set_loads_and_verifies(manifest) -> None:
    cases = load_case_set(DEFAULT_SET)
    assert cases.kind == "tablebench" and cases.root == SET.resolve()
    assert verify_caseset(SET) == []
    assert len(cases.pages) == manifest["pages"] and cases.n_tables == manifest["tables"]
    counted: dict[str, int] = {}
    for page in cases.pages:
        for t in page.tables:
            counted[t.complexity] = counted.get(t.complexity, 0) + 1
            assert t.stored_html and t.stored_html.startswith("<table")
    assert counted == manifest["complexity"]
    assert manifest["pages"] >= 100 and manifest["tables"] >= 400
    assert min(counted.values()) >= 0.8 * max(counted.values())  # balanced over the three classes
    assert {"1", "2"} == set(manifest["columns"]) and min(manifest["columns"].values()) >= manifest["pages"] // 4


def test_readme_states_the_manifest(manifest) -> None:
    text = README.read_text(encoding="utf-8")
    command = f"tablebench generate --pages {manifest['pages']} --seed {manifest['seed']} --out cases/{DEFAULT_SET}"
    assert command in text
    size = sum(p.stat().st_size for p in SET.iterdir() if p.is_file())
    assert f"**{manifest['pages']} pages, {manifest['tables']} tables, {size / 1e6:.2f} MB on disk**" in text
    expected = {"complexity": manifest["complexity"], "columns": manifest["columns"],
                "languages": manifest["languages"], **manifest["layouts"]}
    assert _readme_tables() == expected


@pytest.mark.skipif(not have_pdflatex(), reason="pdflatex is not installed (apt texlive-latex-base)")
@pytest.mark.parametrize("index", [1, 57])
def test_regenerating_a_page_reproduces_its_json(manifest, index) -> None:
    page = make_page(manifest["seed"], index)
    assert dump_json(page_record(page, manifest["seed"], index)) == (SET / f"{index:03d}.json").read_text(encoding="utf-8")


def _signed_folder(root: Path) -> Path:
    """A tablebench set whose manifest pins its files, as `generate` writes it."""
    from tablebench.cases.manifest import FORMAT, sha256_file

    _tablebench_folder(root)
    files = {p.name: sha256_file(p) for p in sorted(root.iterdir()) if p.name != "manifest.json"}
    (root / "manifest.json").write_text(json.dumps({"format": FORMAT, "files": files}))
    return root


@pytest.mark.parametrize(("breakage", "message"), [
    ("edited", r"001\.json: sha256 mismatch"),
    ("extra", r"002\.json: not in the manifest"),
    ("removed", r"001\.pdf: missing"),
    ("not-json", r"manifest\.json: invalid JSON"),
    ("not-a-manifest", r"manifest\.json: unknown format"),
])
def test_a_case_set_that_does_not_match_its_manifest_is_refused(tmp_path, breakage, message) -> None:
    from tablebench.cases.manifest import check_case_set

    root = _signed_folder(tmp_path / "set")
    check_case_set(root)  # intact: no error
    if breakage == "edited":
        (root / "001.json").write_text((root / "001.json").read_text().replace("builtin", "edited"))
    elif breakage == "extra":
        shutil.copy(root / "001.json", root / "002.json")
    elif breakage == "removed":
        (root / "001.pdf").unlink()
    elif breakage == "not-json":
        (root / "manifest.json").write_text("{oops")
    else:
        (root / "manifest.json").write_text("[]")
    with pytest.raises(ValueError, match=message) as err:
        check_case_set(root)
    assert "\n" not in str(err.value)
    if breakage in ("edited", "extra", "removed"):
        assert "--no-verify" in str(err.value) and verify_caseset(root) != []


def test_cases_info_takes_a_set_name_like_cases_does(capsys) -> None:
    assert main(["cases", "info", DEFAULT_SET]) == 0
    assert "ok (sha256 match)" in capsys.readouterr().out
    assert main(["cases", "info", "no-such-set"]) == 1
    assert "case set 'no-such-set' not found" in capsys.readouterr().err


def test_a_bare_name_of_both_an_installed_set_and_a_local_folder_is_refused(tmp_path, monkeypatch) -> None:
    _tablebench_folder(tmp_path / "installed" / "mini")
    _tablebench_folder(tmp_path / "here" / "mini")
    monkeypatch.chdir(tmp_path / "here")
    with pytest.raises(ValueError, match=r"names both an installed set and the folder ./mini: give --cases=./mini"):
        resolve_case_set("mini", cases_dir=tmp_path / "installed")
    assert resolve_case_set("./mini", cases_dir=tmp_path / "installed") == (tmp_path / "here" / "mini").resolve()
