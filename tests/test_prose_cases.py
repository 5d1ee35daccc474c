"""The committed prose set (`cases/prose-v1`): running text with inline formulas, end to end with a
text-layer parser (issue 44). pypdf writes each inline formula as Unicode inside its sentence; the
formula items claim that text and the prose is charged only for what is left, so a page whose prose
words are all there keeps its precision, and a paragraph a parser damaged is still charged."""

from __future__ import annotations

from pathlib import Path

from tablebench.cases import load_case_set
from tablebench.evaluate.page import evaluate_page
from tablebench.parse.prefetch import ParsePool


def _scores(name: str, kinds: str, cache: Path, pool: ParsePool) -> tuple[dict, int]:
    page = load_case_set("prose-v1", only={name}, kinds=kinds).pages[0]
    results = evaluate_page(page, "pypdf", None, cache_dir=cache, pool=pool)
    [text] = [r for r in results if r.kind == "text"]
    return text.scores, sum(1 for r in results if r.kind == "formula" and r.outcome == "ok")


def test_prose_with_inline_formulas_keeps_its_precision_and_a_damaged_paragraph_is_charged(tmp_path: Path) -> None:
    pool = ParsePool()
    try:
        for name in ("p001", "p008"):  # every prose word there: what is left after the formulas is prose
            scores, found = _scores(name, "formula,text", tmp_path, pool)
            assert found >= 5, "pypdf's inline formulas are found in its sentences"
            assert scores["text_recall"] >= 0.98 and scores["text_precision"] >= 0.97, (name, scores)
            alone, _ = _scores(name, "text", tmp_path, pool)  # no formula item: their text is invented prose
            assert alone["text_precision"] < scores["text_precision"] - 0.01, (name, alone, scores)
        # p004: pypdf runs a paragraph's words together (`plötzlichtragenwirklich.Gleich…`): its words
        # are not there as words, and that costs recall and precision alike
        scores, _ = _scores("p004", "formula,text", tmp_path, pool)
        assert scores["text_recall"] < 0.95 and scores["text_precision"] < 0.95, scores
    finally:
        pool.close()
