"""Page crops for report cards: the region of each page a ground-truth item is on (a table, or any
kind whose `ItemKind.picture` is "region"; the examples below are tables).

Why only some: a crop is what a reader checks a doubtful score against, and the report must
stay small and quick to open at any run size. So crops are made for the cards a user opens
first (failed, regressed, the worst `WORST` per parser by the primary score), at most `MAX_CROPS`
items of each kind, each page rendered once (pdftoppm at `DPI`) and each table's crop stored once however
many parsers it has (cards refer to it by index). `write_crops` can also put every crop in a
folder beside the report. Pages come from the run's case set (`meta["case_set_path"]`); a
results file read without its case set, a page without bboxes (pdf-parse-bench), a kind without
a picture (a formula) or a missing pdftoppm give no crops, never an error. A table broken across
the pages of a document has a crop of each page it is on, in page order, each as wide as the
table (`tablebench.cases.Page.regions_of`: where it is on every page is the case set's to say).

A text item (the prose of a whole page; a kind whose picture is "page") has no region to crop:
its card gets a thumbnail of its page instead (`page_thumbnails`: the first PDF page, rendered
as a crop's page is, scaled to `THUMB_WIDTH` px wide), chosen as crops are (`chosen` of the
text items, at most `MAX_THUMBS` pages) and stored once per page. What it shows is the layout
the parser read (columns, headings, where the prose runs); a click enlarges it as it does a crop.
"""

from __future__ import annotations

import base64
import io
import math
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from tablebench.core import kinds as item_kinds
from tablebench.core.results import ItemResult
from tablebench.gating.rules import verdict_of

if TYPE_CHECKING:  # the case set is loaded when crops are made, not when a report module is imported
    from tablebench.cases import Page
    from tablebench.cases.regions import Region
    from tablebench.report.aggregate import Leaderboard

DPI = 60  # enough to read a table's digits beside the extraction, ~10-30 KB per crop as WebP
MARGIN = 6.0  # points around the bbox
WORST = 10  # lowest-scoring found cards per parser that get a crop
MAX_CROPS = 400  # items of one kind with an inline crop in one report
QUALITY = 55  # WebP quality
TIMEOUT = 60  # seconds for one page's rendering
PREFIX = "data:image/webp;base64,"
CROPS_FOLDER = "crops"  # beside report.html: every table's crop (`write_crops`)
THUMB_WIDTH = 160  # px: a text card's page thumbnail (the page at DPI is ~510 px wide): columns, tables, headings
THUMB_QUALITY = 40  # WebP quality of a thumbnail: ~4 KB, its layout as legible as at QUALITY (~7 KB at 200 px)
MAX_THUMBS = 100  # pages with a thumbnail in one report

TableKey = tuple[str, str, int]  # (case set, page, item index): one kind's item
PictureKey = tuple[str, str, str, int]  # (kind, case set, page, item index): any kind's item


class Crop(NamedTuple):
    """One page's crop of a table."""

    page: int  # the PDF page (1-based) it is of
    webp: bytes


def key_of(r: ItemResult) -> TableKey:
    return (r.case_set, r.page, r.index)


def chosen(results: Sequence[ItemResult], primary: str | None, worst: int = WORST,
           limit: int = MAX_CROPS, kind: str = item_kinds.ORIGINAL_KIND) -> list[TableKey]:
    """The items of `kind` whose cards get a crop (a text item: a thumbnail), most wanted first:
    not found, failed (a floor, the baseline: the verdict it carries), regressed, then the worst
    per parser by `primary`, the kind's ranking metric."""
    out: dict[TableKey, None] = {}
    tables = [r for r in results if r.kind == kind]
    out.update((key_of(r), None) for r in tables if r.outcome != "ok")
    out.update((key_of(r), None) for r in tables if (v := verdict_of(r)) is not None and not v.passed)
    out.update((key_of(r), None) for r in tables
               if isinstance(r.baseline_change, dict) and r.baseline_change.get("verdict") == "regressed")
    by_parser: dict[str, list[tuple[float, ItemResult]]] = {}
    for r in tables:
        value = r.scores.get(primary) if primary and r.outcome == "ok" else None
        if isinstance(value, (int, float)) and math.isfinite(value):
            by_parser.setdefault(r.parser, []).append((float(value), r))
    for scored in by_parser.values():
        out.update((key_of(r), None) for _, r in sorted(scored, key=lambda x: x[0])[:worst])
    return list(out)[:limit]


def pictures(results: Sequence[ItemResult], meta: Mapping[str, object], tracks: Sequence[Leaderboard],
             folder: Path | None = None) -> tuple[dict[PictureKey, tuple[Crop, ...]], dict[PictureKey, Crop]]:
    """(crops, thumbnails) of the cards opened first, for every kind of the run (`tracks`, its
    leaderboards: each kind's `chosen` items by its ranking metric), by its `ItemKind.picture`.
    With `folder`, every item's crop (not only the chosen ones') and every thumbnail is also
    written there (`write_crops`, `write_thumbnails`)."""
    crops: dict[PictureKey, tuple[Crop, ...]] = {}
    thumbs: dict[PictureKey, Crop] = {}
    for track in tracks:
        kind, primary = track.kind, track.primary
        picture = item_kinds.get(kind).picture
        if picture == "region":
            wanted = chosen(results, primary, kind=kind)
            if folder is not None:
                every = page_crops(results, meta, primary, dict.fromkeys(key_of(r) for r in results if r.kind == kind),
                                   kind=kind)
                write_crops(every, folder, kind=kind)
                found = {k: every[k] for k in wanted if k in every}
            else:
                found = page_crops(results, meta, primary, keys=wanted, kind=kind)
            crops.update(((kind, *key), item_crops) for key, item_crops in found.items())
        elif picture == "page":
            found_thumbs = page_thumbnails(meta, chosen(results, primary, limit=MAX_THUMBS, kind=kind))
            if folder is not None:
                write_thumbnails(found_thumbs, folder)
            thumbs.update(((kind, *key), thumb) for key, thumb in found_thumbs.items())
    return crops, thumbs


def page_crops(results: Sequence[ItemResult], meta: Mapping[str, object], primary: str | None,
               keys: Iterable[TableKey] | None = None,
               kind: str = item_kinds.ORIGINAL_KIND) -> dict[TableKey, tuple[Crop, ...]]:
    """{item of `kind`: its crops, one per PDF page it is on} for the chosen items (`chosen` when
    `keys` is None); {} without the case set. A page that does not render leaves its crop out."""
    root = _case_set_root(meta)
    if root is None or shutil.which("pdftoppm") is None:
        return {}
    wanted = list(chosen(results, primary, kind=kind) if keys is None else keys)
    try:
        from tablebench.cases import load_case_set

        cases = load_case_set(root, only={page_id for _, page_id, _ in wanted})  # a few of many pages
    except Exception:  # noqa: BLE001 -- a moved or edited case set: the report goes on without crops
        return {}
    pages = {(p.set_name, p.page_id): p for p in cases.pages}
    by_page: dict[tuple[str, str, int], list[tuple[int, tuple[float, float, float, float]]]] = {}
    for case_set, page_id, index in wanted:
        page = pages.get((case_set, page_id))
        gt = next((t for t in page.items_of(kind) if t.index == index), None) if page else None
        for region in _regions(page, gt) if page is not None and gt is not None else ():
            by_page.setdefault((case_set, page_id, region.page), []).append((index, region.box))

    def one(item: tuple[tuple[str, str, int], list]) -> list[tuple[TableKey, Crop]]:
        (case_set, page_id, number), boxes = item
        image = _render(pages[(case_set, page_id)].pdf, number)
        return [] if image is None else [((case_set, page_id, i), Crop(number, _crop(image, box))) for i, box in boxes]

    found: dict[TableKey, list[Crop]] = {}
    with ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1))) as pool:  # pdftoppm runs outside the GIL
        for crops in pool.map(one, by_page.items()):
            for key, crop in crops:
                found.setdefault(key, []).append(crop)
    return {key: tuple(sorted(found[key])) for key in wanted if key in found}


def page_thumbnails(meta: Mapping[str, object], keys: Iterable[TableKey]) -> dict[TableKey, Crop]:
    """{text item: a thumbnail of its case's first PDF page}, one render per page; {} without the
    case set or pdftoppm, and a page that does not render has none, as with `page_crops`."""
    root = _case_set_root(meta)
    wanted = list(keys)
    if root is None or shutil.which("pdftoppm") is None or not wanted:
        return {}
    try:
        from tablebench.cases import load_case_set

        cases = load_case_set(root, only={page_id for _, page_id, _ in wanted})
    except Exception:  # noqa: BLE001 -- a moved or edited case set: the report goes on without thumbnails
        return {}
    pdfs = {(p.set_name, p.page_id): p.pdf for p in cases.pages}

    def one(key: TableKey) -> Crop | None:
        pdf = pdfs.get(key[:2])
        image = _render(pdf) if pdf is not None else None
        return None if image is None else Crop(1, _thumbnail(image))

    with ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1))) as pool:
        return {key: crop for key, crop in zip(wanted, pool.map(one, wanted), strict=True) if crop is not None}


def write_thumbnails(thumbs: Mapping[TableKey, Crop], folder: Path) -> list[Path]:
    """Every thumbnail as `<folder>/<set>/<page>-page.webp` (beside the tables' crops)."""
    written = []
    for (case_set, page_id, _), crop in thumbs.items():
        path = folder / _safe(case_set) / f"{_safe(page_id)}-page.webp"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(crop.webp)
        written.append(path)
    return written


def _thumbnail(image) -> bytes:
    """The whole page, `THUMB_WIDTH` px wide (never enlarged), as WebP."""
    from PIL import Image

    if image.width > THUMB_WIDTH:
        image = image.resize((THUMB_WIDTH, max(1, round(image.height * THUMB_WIDTH / image.width))), Image.LANCZOS)
    buffer = io.BytesIO()
    image.save(buffer, format="WEBP", quality=THUMB_QUALITY, method=4)
    return buffer.getvalue()


def _regions(page: Page, gt: object) -> tuple[Region, ...]:
    """Where the item is on each page (`Page.regions_of`); none for a table whose LaTeX does not
    read (a long table's last page is measured in its rows): no crop, never an error."""
    try:
        return page.regions_of(gt)
    except Exception:  # noqa: BLE001 -- an edited case set: the report goes on without this crop
        return ()


def _case_set_root(meta: Mapping[str, object] | None) -> Path | None:
    """The run's case set folder, when `meta` names one that is there. A results.json comes from
    anywhere: a path no folder can have (too long, holding a NUL) gives no crops, as a moved one does."""
    root = meta.get("case_set_path") if meta else None
    try:
        return Path(root) if isinstance(root, str) and Path(root).is_dir() else None
    except (OSError, ValueError):
        return None


def data_uri(webp: bytes) -> str:
    return PREFIX + base64.b64encode(webp).decode("ascii")


def write_crops(crops: Mapping[TableKey, Sequence[Crop]], folder: Path,
                kind: str = item_kinds.ORIGINAL_KIND) -> list[Path]:
    """Every crop of items of `kind` as `<folder>/<set>/<page>-t<N>.webp` (its item name: the folder
    form beside report.html); a table on several PDF pages as `<page>-t<N>-page<P>.webp`, one per page."""
    written = []
    prefix = item_kinds.prefix_of(kind)
    for (case_set, page_id, index), table_crops in crops.items():
        for crop in table_crops:
            part = f"-page{crop.page}" if len(table_crops) > 1 else ""
            path = folder / _safe(case_set) / f"{_safe(page_id)}-{_safe(prefix)}{index}{part}.webp"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(crop.webp)
            written.append(path)
    return written


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name).strip(".") or "_"


def _render(pdf: Path, number: int = 1):  # -> PIL.Image.Image | None
    """Page `number` (1-based) of the PDF at `DPI`, or None when pdftoppm fails."""
    from PIL import Image

    with tempfile.TemporaryDirectory(prefix="tb-crop-") as tmp:
        stem = Path(tmp) / "page"
        try:
            proc = subprocess.run(["pdftoppm", "-r", str(DPI), "-f", str(number), "-l", str(number),
                                   "-singlefile", "-png",
                                   str(pdf), str(stem)], capture_output=True, timeout=TIMEOUT, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None
        png = stem.with_suffix(".png")
        if proc.returncode != 0 or not png.is_file():
            return None
        with Image.open(png) as image:
            return image.convert("RGB")


def _crop(image, bbox: tuple[float, float, float, float]) -> bytes:
    scale = DPI / 72.0
    x0, top, x1, bottom = bbox
    box = (max(0, int((x0 - MARGIN) * scale)), max(0, int((top - MARGIN) * scale)),
           min(image.width, math.ceil((x1 + MARGIN) * scale)), min(image.height, math.ceil((bottom + MARGIN) * scale)))
    if box[2] <= box[0] or box[3] <= box[1]:  # a bbox off the page: show the whole page, small
        box = (0, 0, image.width, image.height)
    buffer = io.BytesIO()
    image.crop(box).save(buffer, format="WEBP", quality=QUALITY, method=4)
    return buffer.getvalue()
