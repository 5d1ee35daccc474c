"""Every scorer that forgives what a reader forgives forgives the same characters, and the
reference metrics forgive none of them (`tablebench.readers.textnorm`).

The same written forms go through each forgiving scorer's reading (the semantic score's cells,
the table locator's profile, the text kind's prose words and its alignment) and must read as
their plain spelling there; through TEDS, GriTS and T-LAG, which compare code points as their
references do, they must not. Six normalisers once gave six answers: ½ became 1⁄2, 1/2 or stayed
½; the ohm sign became ω in the locator alone; ﬁ was fi for prose and the locator and ﬁ for the
semantic score.
The semantic score alone sets runs of super- and subscripts apart first, since it reads numbers.
"""

from __future__ import annotations

import pytest

from tablebench.core.table import Table
from tablebench.locate.table_profile import normalize as locator_form
from tablebench.metrics.tables.grits import grits
from tablebench.metrics.tables.semantic import semantic_details
from tablebench.metrics.tables.semantic_spacing import boundaries
from tablebench.metrics.tables.semantic_text import cell_similarity
from tablebench.metrics.tables.semantic_text import normalize as semantic_form
from tablebench.metrics.tables.teds import teds
from tablebench.metrics.tables.tlag import normalize_text, tlag
from tablebench.metrics.text.alignment import MATCHED, align_text
from tablebench.readers.prose import words_of
from tablebench.readers.textnorm import as_written, fold_case, forgiven, scripts_apart

# (as a parser may write it, as a reader reads it)
FORGIVEN = [
    ("\ufb01nal \ufb02ow", "final flow"),  # ligatures
    ("\u201cquoted\u201d \u201eauf\u201c \u00abdit\u00bb", '"quoted" "auf" "dit"'),  # typographic quotes
    ("don\u2019t", "don't"),
    ("co\u00adoperate zero\u200bwidth", "cooperate zerowidth"),  # soft hyphen, zero width space
    ("R&amp;D", "R&D"),  # an entity
    ("10 \u2126", "10 \u03a9"),  # the ohm sign is the Greek capital omega
    ("\u00bd cup", "1/2 cup"),  # a vulgar fraction, as a typist writes it
    ("1\u20442 cup", "1/2 cup"),  # the fraction slash
    ("2010\u20132020 \u22125", "2010-2020 -5"),  # en dash, minus sign
    ("\uff21\uff22\uff23", "ABC"),  # full-width letters
    ("\u03bcm \u00b5m", "\u03bcm \u03bcm"),  # the micro sign is mu
    ("a\u00a0b", "a b"),  # a no-break space
]
IDS = [plain for _, plain in FORGIVEN]


@pytest.mark.parametrize(("written", "plain"), FORGIVEN, ids=IDS)
def test_the_one_reading_forgives_it(written: str, plain: str) -> None:
    assert forgiven(written) == forgiven(plain) == plain


@pytest.mark.parametrize(("written", "plain"), FORGIVEN, ids=IDS)
def test_every_forgiving_scorer_forgives_it(written: str, plain: str) -> None:
    assert semantic_form(written) == semantic_form(plain)
    assert cell_similarity(semantic_form(written), semantic_form(plain)) == 1.0
    assert locator_form(written) == locator_form(plain)
    assert [w.norm for w in words_of(written)] == [w.norm for w in words_of(plain)]
    alignment = align_text([plain], written)
    assert alignment.status == [MATCHED] * len(words_of(plain))


@pytest.mark.parametrize(("written", "plain"), FORGIVEN, ids=IDS)
def test_the_reference_metrics_read_it_as_written(written: str, plain: str) -> None:
    """TEDS, GriTS and T-LAG keep their references' definitions: a changed code point costs (but for
    what T-LAG's reference folds itself: dashes and no-break spaces, `tlag.normalize_text`)."""
    gt = Table.from_rows([[plain, "x"], ["y", "z"]])
    pred = Table.from_rows([[written, "x"], ["y", "z"]])
    assert as_written(written) == written
    assert teds(gt, pred) < 1.0 and grits(gt, pred) < 1.0
    assert tlag(gt, pred) < 1.0 or normalize_text(written) == normalize_text(plain)
    assert teds(gt, pred, processor=forgiven) == grits(gt, pred, processor=forgiven) == 1.0  # the processor decides


def test_case_is_folded_for_finding_but_greek_keeps_it():
    assert fold_case("Table ÄB") == "table äb"
    assert fold_case("\u03a9 \u03c9 \u0394") == "\u03a9 \u03c9 \u0394"
    assert locator_form("10 \u2126") == locator_form("10 \u03a9") != locator_form("10 \u03c9")
    assert words_of("\u2126")[0].key != words_of("\u03c9")[0].key


def test_the_semantic_scores_finders_keep_greek_case_as_its_cells_do():
    """The semantic score compares Ω and ω as two symbols in its cells; where it looks for the
    table's text anywhere (`absent`, `invented`) and for words run together, it folds case as the
    one reading does, so it does not find there the Ω its cells miss."""
    gt = Table.from_rows([["Symbol", "Value"], ["\u03a9", "3.1"], ["\u0394", "4.2"], ["\u0393", "5.3"]], header_rows=1)
    pred = Table.from_rows([["Symbol", "Value"], ["\u03c9", "3.1"], ["\u03b4", "4.2"], ["\u03b3", "5.3"]], header_rows=1)
    features = semantic_details(gt, pred).features
    assert features["values"] > 0 and features["absent"] > 0 and features["invented"] > 0
    assert boundaries(Table.from_rows([["\u0394 Energy", "x"]])) == [("\u0394", "energy")]


def test_a_script_is_its_plain_character_and_set_apart_where_numbers_are_read():
    assert forgiven("Al\u2082O\u2083") == "Al2O3" and forgiven("10\u207b\u2074") == "10-4"
    assert locator_form("Al\u2082O\u2083") == locator_form("Al2O3")
    assert scripts_apart("91.2\u00b9") == "91.2 1" and semantic_form("91.2\u00b9") != semantic_form("91.21")
    assert semantic_form("\u03b2\u2082") == "\u03b2 2" and cell_similarity("\u03b2 2", semantic_form("\u03b22")) == 1.0
    assert forgiven("\u00b9\u2044\u2088") == scripts_apart("\u00b9\u2044\u2088") == "1/8"  # a fraction of scripts
