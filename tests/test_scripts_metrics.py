"""Readers, locator and every offline metric on real non-Latin scripts (no transliterations).

Cyrillic, Greek, Chinese, Japanese, Arabic (right-to-left, harakat, Arabic-Indic digits) and
Devanagari (vowel signs and virama are combining marks): identical tables score perfectly,
one changed cell lowers every metric, and the locator finds a table among distractors in
the same script.
"""

from __future__ import annotations

import unicodedata

import pytest

from tablebench.core.metric_specs import defaults_of
from tablebench.core.table import Table
from tablebench.locate.tables import locate_tables, profile, similarity, text_profile
from tablebench.metrics import score
from tablebench.readers.html import read_html
from tablebench.readers.latex import read_latex
from tablebench.readers.markdown import read_markdown
from tablebench.readers.text import read_text

TABLES = {
    "ru": [["Субъект РФ", "Население, тыс. чел.", "Безработица, %"],
           ["Москва", "13 010,1", "2,4"], ["Тверская область", "1 220,3", "3,9"], ["Пермский край", "2 532,4", "4,1"]],
    "el": [["Περιφέρεια", "Πληθυσμός (χιλ.)", "Ανεργία (%)"],
           ["Αττική", "3.814,1", "10,4"], ["Κεντρική Μακεδονία", "1.795,7", "13,2"], ["Ήπειρος", "319,9", "15,0"]],
    "zh": [["地区", "常住人口（万人）", "城镇化率（%）"],
           ["北京市", "2,185.8", "87.6"], ["广东省", "12,656.8", "74.8"], ["新疆维吾尔自治区", "2,587.0", "57.9"]],
    "ja": [["都道府県", "人口（千人）", "完全失業率（％）"],
           ["東京都", "14,047", "2.9"], ["大阪府", "8,838", "3.1"], ["鹿児島県", "1,588", "2.4"]],
    "ar": [["المنطقة", "عدد السكان (ألف نسمة)", "معدل البطالة (٪)"],
           ["الرياض", "٨٬٥٩١٫٧", "٥٫٦"], ["مكة المكرمة", "٨٬٠٢١٫٤", "٦٫١"], ["المَدِينَة المُنَوَّرَة", "٢٬١٣٢٫٧", "٥٫٩"]],
    "hi": [["राज्य", "जनसंख्या (हज़ार)", "साक्षरता दर (%)"],
           ["उत्तर प्रदेश", "1,99,812", "67.7"], ["महाराष्ट्र", "1,12,374", "82.3"], ["पश्चिम बंगाल", "91,276", "76.3"]],
}
# a one-cell change that only a combining mark or a single glyph makes
CHANGED = {"ru": (2, 0, "Тверскaя область"), "el": (3, 0, "Ηπειρος"), "zh": (1, 0, "北京"),
           "ja": (2, 0, "大坂府"), "ar": (3, 0, "المدينة المنورة"), "hi": (1, 0, "उत्तर परदेश")}
LANGS = sorted(TABLES)


def _table(rows: list[list[str]]) -> Table:
    return Table.from_rows(rows, header_rows=1)


def _markdown(rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join([lines[0], "|" + "---|" * len(rows[0]), *lines[1:]])


def _latex(rows: list[list[str]]) -> str:
    body = "\n".join(" & ".join(c.replace("%", r"\%") for c in r) + r" \\" for r in rows)
    return "\\begin{tabular}{lrr}\n\\toprule\n" + body + "\n\\bottomrule\n\\end{tabular}"


def _aligned(rows: list[list[str]]) -> str:
    """Columns padded to equal character counts, as pdftotext -layout writes them."""
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    return "\n".join("   ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("reader", ["html", "markdown", "latex", "text"])
def test_readers_keep_every_character(lang: str, reader: str) -> None:
    rows = TABLES[lang]
    if reader == "html":
        table = read_html(_table(rows).to_html())[0]
    elif reader == "markdown":
        table = read_markdown(_markdown(rows))[0]
    elif reader == "latex":
        table = read_latex(_latex(rows))[0]
    else:
        table = read_text(_aligned(rows))[0]
    assert table.text_grid() == rows


@pytest.mark.parametrize("lang", ["hi", "ar", "el", "ru"])
def test_decomposed_input_reads_as_the_composed_ground_truth(lang: str) -> None:
    """A parser writing NFD (Greek tonos, Cyrillic й, nukta) still matches: metrics see NFC."""
    rows = TABLES[lang]
    nfd = [[unicodedata.normalize("NFD", c) for c in r] for r in rows]
    pred = read_html(_table(nfd).to_html())[0]
    gt = _table(rows)
    assert score(gt, pred, ["teds"])["teds"] == 1.0
    assert score(gt, pred, ["semantic"])["semantic"] == 10.0


@pytest.mark.parametrize("lang", LANGS)
def test_identical_tables_score_perfectly_and_one_changed_cell_lowers_every_metric(lang: str) -> None:
    rows = TABLES[lang]
    gt = _table(rows)
    same = read_html(gt.to_html())[0]
    r, c, text = CHANGED[lang]
    changed_rows = [list(row) for row in rows]
    changed_rows[r][c] = text
    changed = _table(changed_rows)
    perfect = {"teds": 1.0, "teds_struct": 1.0, "grits_con": 1.0, "grits_top": 1.0, "tlag": 1.0, "semantic": 10.0}
    scores = score(gt, same, defaults_of("table"))
    lower = score(gt, changed, defaults_of("table"))
    for key, best in perfect.items():
        assert scores[key] == pytest.approx(best), key
    for key in ("teds", "grits_con", "tlag", "semantic"):
        assert lower[key] < scores[key], (key, lower[key])


def test_devanagari_words_keep_their_vowel_signs_in_the_locator() -> None:
    """`re`'s \\w leaves out combining marks: without them "किसान" and "कसन" (and every word
    with the same consonants) would be one token and the locator could not tell them apart."""
    assert text_profile(["किसान"], (1, 1)).tokens == {"किसान": 1}
    assert similarity(text_profile(["किसान कमी"], (1, 1)), text_profile(["कसन कम"], (1, 1))) < 0.5
    assert text_profile(["٨٬٥٩١٫٧"], (1, 1)).tokens == {"٨٬٥٩١٫٧": 1}  # an Arabic decimal stays one token


@pytest.mark.parametrize("lang", LANGS)
def test_locate_finds_the_table_among_same_script_distractors(lang: str) -> None:
    """The page holds the other tables of the same script around the wanted one (Markdown)."""
    rows = TABLES[lang]
    others = [TABLES[x] for x in LANGS if x != lang]
    distractor = [rows[0]] + [[r[0] + "ـ" if lang == "ar" else r[0], "1", "2"] for r in rows[1:]]  # same header, other numbers
    page = "\n\n".join(["Text before.", _markdown(distractor), _markdown(others[0]), _markdown(rows), "Text after."])
    found = locate_tables([_table(rows)], page)[0]
    assert found.table is not None and found.table.text_grid() == rows
    assert found.score > similarity(profile(_table(rows)), profile(_table(distractor)))


def test_arabic_presentation_forms_read_as_letters() -> None:
    """pdftotext writes shaped Arabic as presentation forms (U+FE70-FEFF): same text as the GT."""
    isolated = {}
    for cp in range(0xFE80, 0xFEFD):
        name = unicodedata.name(chr(cp), "")
        if name.endswith("ISOLATED FORM") and len(unicodedata.normalize("NFKC", chr(cp))) == 1:
            isolated.setdefault(unicodedata.normalize("NFKC", chr(cp)), chr(cp))
    rows = TABLES["ar"]
    shaped = [[unicodedata.normalize("NFC", c).translate(str.maketrans(isolated)) for c in r] for r in rows]
    assert shaped != rows
    for text in (_table(shaped).to_html(), _markdown(shaped)):
        pred = read_html(text)[0] if text.startswith("<") else read_markdown(text)[0]
        assert pred.text_grid() == [[unicodedata.normalize("NFC", c) for c in r] for r in rows]
        assert score(_table(rows), pred, ["teds"])["teds"] == 1.0


def test_only_mark_clusters_are_composed() -> None:
    """и + combining breve is й; the OHM SIGN stays itself (reference metrics tell it from Ω)."""
    from tablebench.readers.textnorm import cell_text_form

    assert cell_text_form("Тверска\u0438\u0306") == "Тверскай"
    assert cell_text_form("\u03b1\u0301") == "\u03ac"
    assert cell_text_form("10 \u2126") == "10 \u2126"
