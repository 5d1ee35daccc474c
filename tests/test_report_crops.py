"""Page crops in report cards: which tables get one, rendered once per page from the case set's PDF."""

from __future__ import annotations

import base64
import io
import json
import shutil
from pathlib import Path

import pytest

from tablebench.cases import INSTALLED_CASES, load_case_set
from tablebench.cases.record_fields import bbox_of
from tablebench.core.results import ItemResult
from tablebench.report.crops import CROPS_FOLDER, DPI, WORST, chosen, page_crops
from tablebench.report.html_data import expanded_html
from tablebench.report.write import write_report

SYNTH = INSTALLED_CASES / "synth-v1"


def _result(parser: str, page: str, table: int, outcome: str = "ok", teds: float = 1.0,
            baseline: dict | None = None) -> ItemResult:
    return ItemResult(parser=parser, case_set="synth-v1", page=page, index=table, group="simple",
                      outcome=outcome, scores={"teds": teds} if outcome == "ok" else {}, baseline_change=baseline)


def test_failed_regressed_and_the_worst_per_parser_are_chosen_first() -> None:
    results = [_result("a", "p001", 0, "missing"), _result("a", "p002", 0, teds=0.9),
               _result("a", "p003", 0, teds=0.2), _result("b", "p004", 0, teds=0.95),
               _result("b", "p005", 0, teds=0.99, baseline={"verdict": "regressed"}),
               _result("b", "p006", 0, teds=0.1)]
    assert chosen(results, "teds", worst=1) == [("synth-v1", "p001", 0), ("synth-v1", "p005", 0),
                                                 ("synth-v1", "p003", 0), ("synth-v1", "p006", 0)]
    assert len(chosen(results, "teds", worst=1, limit=2)) == 2


@pytest.mark.parametrize("value", [None, [1, 2, 3], [1, 2, 3, "4"], [5, 5, 1, 9], [0, 0, float("nan"), 1],
                                   [True, 0, 1, 1]])
def test_a_bbox_that_is_not_one_is_none(value: object) -> None:
    assert bbox_of(value) is None


def test_synth_pages_carry_their_bboxes() -> None:
    page = load_case_set(SYNTH).pages[0]
    assert page.tables and all(t.bbox is not None and t.bbox[0] < t.bbox[2] for t in page.tables)


def test_crops_are_small_images_of_the_bbox_and_absent_without_the_case_set(tmp_path: Path) -> None:
    from PIL import Image

    if shutil.which("pdftoppm") is None:
        pytest.skip("no pdftoppm (apt-get install -y poppler-utils)")
    page = load_case_set(SYNTH).pages[0]
    results = [_result("a", page.page_id, t.index, "missing") for t in page.tables]
    results.append(_result("a", page.page_id, 99, "missing"))  # no such table: no crop
    crops = page_crops(results, {"case_set_path": str(SYNTH)}, "teds")
    assert set(crops) == {("synth-v1", page.page_id, t.index) for t in page.tables}
    for t in page.tables:
        ((number, webp),) = crops[("synth-v1", page.page_id, t.index)]  # one page: one crop
        assert number == 1 and webp[:4] == b"RIFF" and len(webp) < 40_000
        with Image.open(io.BytesIO(webp)) as image:  # the bbox at DPI, plus a small margin
            x0, top, x1, bottom = t.bbox
            assert abs(image.width - (x1 - x0) * DPI / 72) < 20 and abs(image.height - (bottom - top) * DPI / 72) < 20
    assert page_crops(results, {}, "teds") == {}
    assert page_crops(results, {"case_set_path": str(tmp_path / "gone")}, "teds") == {}


def test_the_report_inlines_chosen_crops_and_the_folder_holds_every_one(tmp_path: Path) -> None:
    if shutil.which("pdftoppm") is None:
        pytest.skip("no pdftoppm (apt-get install -y poppler-utils)")
    pages = load_case_set(SYNTH).pages[:2]
    results = [_result("a", p.page_id, t.index, teds=1.0) for p in pages for t in p.tables]
    results[0] = _result("a", pages[0].page_id, 0, "missing")  # only this one is "opened first" with worst=0
    meta = {"case_set_path": str(SYNTH)}
    out = write_report(results, tmp_path, meta, crop_folder=True)
    folder = sorted((tmp_path / CROPS_FOLDER / "synth-v1").glob("*.webp"))
    assert len(folder) == len(results)
    html = out["html"].read_text(encoding="utf-8")
    data = json.loads(html.split('id="tb-data">', 1)[1].split("</script>", 1)[0])
    n_inline = len(chosen(results, "teds", worst=WORST))
    assert len(data["crops"]) == n_inline and expanded_html(html).count('<figure class="crop"') == n_inline
    assert "img-src data:" in html


def test_a_text_card_shows_a_thumbnail_of_its_page_and_the_folder_holds_it(tmp_path: Path) -> None:
    """Text items (a page's prose) have no region to crop: their cards show the page, small, one
    image per page whatever the number of parsers; with the folder form it is a file too."""
    if shutil.which("pdftoppm") is None:
        pytest.skip("no pdftoppm (apt-get install -y poppler-utils)")
    from PIL import Image

    from tablebench.report.crops import THUMB_WIDTH
    from tablebench.report.html_data import decode_cards
    from tablebench.report.regressions import card_anchor

    page = load_case_set(SYNTH).pages[0]
    texts = [ItemResult(parser=p, case_set="synth-v1", page=page.page_id, index=0, group="prose", kind="text",
                        outcome="ok", scores={"text_fidelity": 0.5}) for p in ("a", "b")]
    table = _result("a", page.page_id, 0, teds=0.9)
    out = write_report([table, *texts], tmp_path, {"case_set_path": str(SYNTH)}, crop_folder=True)
    html = out["html"].read_text(encoding="utf-8")
    data = json.loads(html.split('id="tb-data">', 1)[1].split("</script>", 1)[0])
    cards = {card.split('id="', 1)[1].split('"', 1)[0]: card for card in decode_cards(html)}
    thumbs = []
    for r in texts:
        card = cards[card_anchor(r.test_id)]
        assert card.count('<figure class="crop thumb"') == 1, "the text card holds the thumbnail"
        thumbs.append(int(card.split('<figure class="crop thumb" data-crop="', 1)[1].split('"', 1)[0]))
    assert thumbs[0] == thumbs[1], "one image per page, shared by the parsers' cards"
    assert '<figure class="crop thumb"' not in cards[card_anchor(table.test_id)], "a table keeps its crop"
    webp = base64.b64decode(data["crops"][thumbs[0]].removeprefix("data:image/webp;base64,"))
    file = tmp_path / CROPS_FOLDER / "synth-v1" / f"{page.page_id}-page.webp"
    assert file.is_file() and file.read_bytes() == webp
    with Image.open(io.BytesIO(webp)) as image:
        assert image.format == "WEBP" and image.width == THUMB_WIDTH and image.height > image.width, "a page, small"
    assert len(webp) < 20_000, "bounded"
