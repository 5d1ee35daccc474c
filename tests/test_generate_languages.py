"""`generate --languages`: pages in Cyrillic, Greek, CJK, Arabic and Devanagari, engines, glyph checks.

Compiles real pages (pdflatex for Greek, xelatex for Hindi and Arabic: ~2 s a page here);
the all-languages round is opt-in (`-m slow`). Default generation must stay byte-identical:
the first test regenerates committed synth-v1 pages and compares bytes.
"""

from __future__ import annotations

import json
import re
import subprocess
import unicodedata
from pathlib import Path

import pytest

from tablebench.cli import main
from tablebench.generate.caseset import caseset_info, dump_json, make_page, page_record
from tablebench.generate.languages import LANGUAGES, missing_setup, parse_languages
from tablebench.generate.layouts import localize, sample_layout
from tablebench.generate.page import Block, PageError, build_page
from tablebench.generate.tables_i18n import format_number, generate_i18n_table
from tablebench.generate.vocab_i18n import VOCAB
from tablebench.readers.latex import read_latex
from tablebench.tex.runner import have_pdflatex, is_missing_glyph, missing_glyphs

REPO = Path(__file__).resolve().parents[1]
SYNTH = REPO / "cases" / "synth-v1"
NEEDS = missing_setup(("el", "ar", "hi", "zh", "ja", "ru"))
needs_tex = pytest.mark.skipif(not have_pdflatex(), reason="pdflatex is not installed (apt texlive-latex-base)")
needs_scripts = pytest.mark.skipif(bool(NEEDS), reason=f"multilingual TeX setup missing: {'; '.join(NEEDS)} (./dev.sh setup)")


@needs_tex
@pytest.mark.parametrize("index", [1, 3])
def test_default_pages_reproduce_the_committed_set_byte_for_byte(index: int) -> None:
    """Without --languages nothing changed: same JSON, same PDF bytes as cases/synth-v1.
    (Fails too if a package such as cm-super swaps the bitmap fallback fonts of default pages.)"""
    seed = json.loads((SYNTH / "manifest.json").read_text())["seed"]
    page = make_page(seed, index)
    assert dump_json(page_record(page, seed, index)) == (SYNTH / f"{index:03d}.json").read_text(encoding="utf-8")
    assert page.pdf == (SYNTH / f"{index:03d}.pdf").read_bytes()
    assert "engine" not in page_record(page, seed, index)["layout"]


def test_language_list_is_checked() -> None:
    assert parse_languages("ru, el,zh") == ("ru", "el", "zh")
    with pytest.raises(ValueError, match=r"unknown xx; choose from en, de"):
        parse_languages("ru,xx")
    with pytest.raises(ValueError, match="empty"):
        parse_languages(" , ")


def test_cli_refuses_unknown_language_in_one_line(tmp_path, capsys) -> None:
    assert main(["generate", "--pages", "1", "--languages", "ru,tlh", "--out", str(tmp_path / "x")]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "tlh" in err[0] and "Traceback" not in err[0]
    assert not (tmp_path / "x").exists()
    assert main(["generate", "--pages", "1", "--languages", "ru", "--track", "formulas", "--out", str(tmp_path / "y")]) != 0
    assert "without --pool and --track" in capsys.readouterr().err


@pytest.mark.parametrize(("value", "decimals", "lang", "expected"), [
    (13010.52, 1, "ru", r"13\,010,5"), (2561.5, 1, "ru", "2561,5"), (664046.0, 0, "el", "664.046"),
    (3171.83, 2, "de", "3.171,83"), (12345.6, 1, "fr", r"12\,345,6"), (12345.6, 1, "zh", "12,345.6"),
    (19981234.0, 0, "hi", "1,99,81,234"), (12345.6, 1, "ar", "١٢٬٣٤٥٫٦"), (-4.25, 2, "es", "-4,25"),
])
def test_numbers_are_written_the_language_s_way(value, decimals, lang, expected) -> None:
    assert format_number(value, decimals, VOCAB[lang]["number"]) == expected


SCRIPT = {"ru": "CYRILLIC", "el": "GREEK", "zh": "CJK", "ja": "CJK|HIRAGANA|KATAKANA", "ar": "ARABIC", "hi": "DEVANAGARI"}


@pytest.mark.parametrize("lang", sorted(SCRIPT))
@pytest.mark.parametrize("complexity", ["simple", "moderate", "complex"])
def test_ground_truth_reads_back_as_the_intended_cells(lang: str, complexity: str) -> None:
    """The LaTeX reader gives back exactly the vocabulary's strings (combining marks, virama,
    harakat and CJK intact, NFC), and headers and row labels are in the page's script."""
    v = VOCAB[lang]
    words = {v["row_head"], v["group_head"], v["total"], *v["split"], *v["years"], *v["regions"],
             *(r for rs in v["regions"].values() for r in rs), *(p for p, _ in v["products"]),
             *(u for _, u in v["products"]), *v["product_heads"]}
    heads = {f"{m} ({u})" for m, u, *_ in v["measures"]}
    dec, thou, digits, _ = v["number"]
    digit = f"[{digits or '0-9'}]"
    number = re.compile(rf"^-?{digit}+(?:(?:{re.escape(thou.replace(chr(92) + ',', ' '))}){digit}+)*(?:{re.escape(dec)}{digit}+)?$")
    for seed in range(4):
        table = generate_i18n_table(seed, complexity, lang, max_cols=9)
        grid = read_latex(table.latex)[0].text_grid()
        cells = {c for row in grid for c in row if c}
        for cell in cells:
            assert unicodedata.is_normalized("NFC", cell)
            assert cell in words or cell in heads or number.match(cell), (lang, cell)
        assert v["row_head"] in cells or v["product_heads"][0] in cells
        assert any(re.search(SCRIPT[lang], unicodedata.name(ch, "")) for c in cells for ch in c)


def test_missing_glyph_reports_are_found_in_logs() -> None:
    log = ("Missing character: There is no क (U+0915) in font [AR PL UMing CN]:mapping=tex-text;!\n"
           "! LaTeX Error: Unicode character 東 (U+6771)\n"
           "! Package inputenc Error: Unicode character 東 (U+6771) not set up for use with LaTeX.\n"
           "Overfull \\hbox (1.0pt too wide)\n")
    found = missing_glyphs(log)
    assert len(found) == 3 and "क" in found[0] and all("U+6771" in f for f in found[1:])
    assert missing_glyphs("Output written on page.pdf (1 page).\n") == []
    assert is_missing_glyph("pdflatex failed: line 43: LaTeX Error: Unicode character 東 (U+6771) (at: Text 東)")
    assert not is_missing_glyph("pdflatex failed: line 2: Undefined control sequence. (at: x \\nosuchmacro)")


def _planner_with(text: str):
    def plan(seed, layout, source):
        return [Block("text", [text]), *[Block("text", source.paragraph(6, 9)) for _ in range(12)]]
    return plan


@needs_scripts
@pytest.mark.parametrize(("lang", "foreign"), [("zh", "क्षेत्र"), ("el", "東京")])
def test_a_page_with_a_glyph_its_font_lacks_is_refused(lang: str, foreign: str) -> None:
    """xelatex (\\tracinglostchars=3) and pdflatex (inputenc) both refuse; never boxes on a page."""
    layout = localize(sample_layout(11), lang, 11)
    with pytest.raises(PageError, match="missing glyph"):
        build_page(11, layout=layout, planner=_planner_with(f"Text {foreign} here."))
    page = build_page(11, layout=layout, planner=_planner_with("Text here."))  # the same page without it is fine
    assert page.pdf.startswith(b"%PDF")


@pytest.fixture(scope="module")
def three_languages(tmp_path_factory) -> tuple[Path, Path]:
    """3 pages el (pdflatex), hi and ar (xelatex), generated twice: serial and --jobs 2."""
    if NEEDS:
        pytest.skip(f"multilingual TeX setup missing: {'; '.join(NEEDS)}")
    root = tmp_path_factory.mktemp("langs")
    for name, jobs in (("a", "1"), ("b", "2")):
        assert main(["generate", "--pages", "3", "--languages", "el,hi,ar", "--seed", "4",
                     "--out", str(root / name), "--jobs", jobs]) == 0
    return root / "a", root / "b"


def test_language_pages_record_language_and_engine(three_languages) -> None:
    a, _ = three_languages
    manifest = json.loads((a / "manifest.json").read_text())
    assert manifest["languages"] == {"ar": 1, "el": 1, "hi": 1}
    assert manifest["engines"] == {"pdflatex": 1, "xelatex": 2}
    assert caseset_info(a)["engines"] == {"pdflatex": 1, "xelatex": 2} and not caseset_info(a)["problems"]
    for i, lang in enumerate(("el", "hi", "ar"), start=1):
        record = json.loads((a / f"{i:03d}.json").read_text(encoding="utf-8"))
        assert record["layout"]["language"] == lang and record["layout"]["engine"] == LANGUAGES[lang].engine
        tables = [b for b in record["blocks"] if b["type"] == "table"]
        assert tables and all(t["source"] == f"builtin-{lang}" for t in tables)
        text = " ".join(b["data"] for b in record["blocks"] if b["type"] == "text")
        assert sum(re.search(SCRIPT[lang], unicodedata.name(ch, "")) is not None for ch in text) > len(text) / 2
        page_w = 612 if record["layout"]["paper"] == "letter" else 595.3
        for t in tables:
            x0, y0, x1, y1 = t["bbox"]
            assert 0 < x0 < x1 < page_w and 0 < y0 < y1


def test_xelatex_pages_are_byte_identical_for_the_same_seed(three_languages) -> None:
    a, b = three_languages
    for name in ("001.pdf", "002.pdf", "003.pdf", "002.json", "003.json", "manifest.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    info = subprocess.run(["pdfinfo", str(a / "002.pdf")], capture_output=True, text=True).stdout
    assert "XeTeX output 2026.01.01" in info  # really a xelatex page, its dates pinned


@pytest.mark.skipif(subprocess.run(["which", "pdftotext"], capture_output=True).returncode != 0, reason="no pdftotext")
def test_greek_text_layer_carries_the_table_cells(three_languages) -> None:
    """LGR pages have a real Unicode text layer: the region names are extractable as written."""
    a, _ = three_languages
    text = subprocess.run(["pdftotext", str(a / "001.pdf"), "-"], capture_output=True, text=True).stdout
    record = json.loads((a / "001.json").read_text(encoding="utf-8"))
    labels = [c for t in record["blocks"] if t["type"] == "table" for row in read_latex(t["data"])[0].text_grid()
              for c in row[:2] if c and re.search("GREEK", unicodedata.name(c[0], ""))]
    assert labels and sum(label in text for label in labels) >= 0.8 * len(labels)


@pytest.mark.slow
def test_every_language_makes_a_page(tmp_path) -> None:
    """All ten languages, one page each (~7 s with 2 jobs here): the acceptance command at small scale."""
    if NEEDS:
        pytest.skip(f"multilingual TeX setup missing: {'; '.join(NEEDS)}")
    codes = ",".join(LANGUAGES)
    assert main(["generate", "--pages", str(len(LANGUAGES)), "--languages", codes, "--seed", "9",
                 "--out", str(tmp_path / "all"), "--jobs", "2"]) == 0
    manifest = json.loads((tmp_path / "all" / "manifest.json").read_text())
    assert set(manifest["languages"]) == set(LANGUAGES)
