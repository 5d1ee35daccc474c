"""Case sets: pages (a PDF each) with their ground-truth items of every kind, loaded from disk.

Two layouts are read the same way:
- tablebench case sets (`manifest.json`, `NNN.pdf` + `NNN.json`), written by `tablebench generate`;
- pdf-parse-bench folders (`pdfs/NNN.pdf` + `ground_truth/NNN.json`), so the paper's own pages
  run unchanged.
Both keep ground truth as ordered blocks `{"type": "text"|"table"|"inline-formula"|
"display-formula", "data": ...}`; each item kind reads its own items from a page's record
(`tablebench.core.kinds.ItemKind.read`), its ground-truth type in a module of its own here
(`tables`, `formulas`, `text`; a plug-in kind's wherever it lives).

A case's PDF may be a document of several pages (`"pages": N` in its record, `tablebench generate
--doc-pages`): it is one case all the same, parsed whole, its items in reading order across the
pages; where an item is on them is its own to say (`Page.regions_of`: a table's
`tablebench.cases.tables.GroundTruthTable.regions`, any item's `bbox` on its `page`).
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# each kind's ground-truth type has its home in a module of its own, named here for its readers
from tablebench.cases.formulas import FORMULA_KINDS, GroundTruthFormula  # noqa: F401
from tablebench.cases.manifest import MANIFEST, check_case_file, check_case_set, unlisted_files
from tablebench.cases.record_fields import bbox_of, whole_number
from tablebench.cases.regions import Region
from tablebench.cases.tables import COMPLEXITIES, GroundTruthTable  # noqa: F401
from tablebench.core import kinds as item_kinds
from tablebench.core.files import read_json


def _installed_cases() -> Path:
    """The folder of the case sets installed with the package (`tablebench.casesets`: in the wheel,
    or the repository's cases/ folder for an editable install), found without importing it."""
    spec = importlib.util.find_spec("tablebench.casesets")
    locations = list(spec.submodule_search_locations or []) if spec else []
    return Path(locations[0]).resolve() if locations else Path(__file__).resolve().parent / "_no_case_sets"


INSTALLED_CASES = _installed_cases()
DEFAULT_SET = "synth-v1"
DIGITAL = "digital"  # the variant of a born-digital page (one with a text layer)
VARIANTS = (DIGITAL, "scan", "photo")  # page variants: born-digital and `tablebench.generate.variants.VARIANTS`
UNKNOWN_LANGUAGE = "unknown"  # a page whose ground truth names no language (pdf-parse-bench folders)


def language_marker(code: str) -> str:
    """'ru' -> 'lang_ru': the `-m` marker of a page's language (a prefix, so `el` or `hi` can
    never clash with another marker; characters other than letters, digits and _ become _)."""
    return "lang_" + re.sub(r"\W", "_", code.strip().lower())


def variant_marker(name: str) -> str:
    """'scan' -> 'scan': the `-m` marker of a page's variant (`digital` for born-digital pages)."""
    return re.sub(r"\W", "_", name.strip().lower())


@dataclass
class Page:
    """One case: a PDF (one page, or a document of `pdf_pages` pages) and its ground-truth items of
    every kind, each kind's in reading order."""

    set_name: str
    page_id: str  # "p012"
    pdf: Path
    items: dict[str, list]  # item kind name -> its ground-truth items on the page
    layout: dict = field(default_factory=dict)
    variant: str = DIGITAL  # "digital", or the name of the degradation (`scan`, `photo`) it was made with
    pdf_pages: int = 1  # pages of the PDF as its record states them (a document: several)

    def regions_of(self, item: Any) -> tuple[Region, ...]:
        """Where a ground-truth item is on each PDF page it is on: what a report crops. Its own
        `regions(layout)` where its kind has one (a table: `tablebench.cases.regions`), else its
        `bbox` on its `page` (1 when it says none), else nowhere ()."""
        own = getattr(item, "regions", None)
        if callable(own):
            return own(self.layout)
        box = bbox_of(list(item.bbox)) if isinstance(getattr(item, "bbox", None), (list, tuple)) else None
        return () if box is None else (Region(getattr(item, "page", 1), box),)

    def page_span_of(self, item: object) -> tuple[int, int] | None:
        """(first, last): the PDF pages a ground-truth item is on. Its own `page_span` where its
        kind records one (a table: `GroundTruthTable.page_span`; a page's prose), else page 1 of
        a one-page case, else None (an item of a document that does not say where it is)."""
        own = getattr(item, "page_span", None)
        if own is not None:
            return own
        return (1, 1) if self.pdf_pages == 1 else None

    def items_of(self, kind: str) -> list:
        """The page's ground-truth items of `kind` (none: an empty list)."""
        return self.items.get(kind, [])

    def __getattr__(self, name: str) -> list:
        """`page.tables`, `page.formulas`, `page.keywords`: the items of the kind whose title is `name`."""
        items = self.__dict__.get("items")
        kind = item_kinds.titled(name) if items is not None and not name.startswith("_") else None
        if kind is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return items.get(kind, [])

    @property
    def language(self) -> str:
        """The page's language code as the generator recorded it (`layout.language`: "en" for
        synth-v1, "ru", "zh", ...); "unknown" when the ground truth does not say."""
        value = self.layout.get("language") if isinstance(self.layout, dict) else None
        return value if isinstance(value, str) and value else UNKNOWN_LANGUAGE

    @property
    def n_items(self) -> int:
        """Benchmark items on the page, of every kind (a page without any is not collected)."""
        return sum(len(items) for items in self.items.values())

    def forget_parsed(self) -> None:
        """Drop what items parsed from their ground truth (`GroundTruthTable.table` parses again when
        asked): a run keeps every page until it ends, and a parsed table is many times its LaTeX."""
        for gt in (gt for items in self.items.values() for gt in items):
            if callable(forget := getattr(gt, "forget_parsed", None)):
                forget()


@dataclass
class CaseSet:
    name: str
    root: Path
    kind: str  # "tablebench" | "pdf-parse-bench"
    pages: list[Page]
    unlisted: tuple[str, ...] = ()  # verified sets: what the folder holds that the manifest does not list

    def count(self, kind: str) -> int:
        """How many ground-truth items of `kind` the set holds."""
        return sum(len(p.items_of(kind)) for p in self.pages)

    @property
    def kinds(self) -> list[str]:
        """The item kinds the set has items of, in registry order."""
        return [kind for kind in item_kinds.names() if self.count(kind)]

    def __getattr__(self, name: str) -> int:
        """`cases.n_tables`, `cases.n_formulas`, `cases.n_keywords`: how many items the kind titled so has."""
        kind = item_kinds.titled(name[2:]) if name.startswith("n_") and "pages" in self.__dict__ else None
        if kind is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return self.count(kind)


def resolve_case_set(spec: str | Path | None, cases_dir: Path = INSTALLED_CASES) -> Path:
    """A case set by name (one installed with the package, `tablebench cases list`) or a folder path;
    None is the default set. A bare name is an installed set or a folder of the current directory
    (both at once is refused: which was meant is not said); a path (absolute, or with a separator)
    is a folder only."""
    spec = DEFAULT_SET if spec is None else spec
    text = str(spec)
    is_path = Path(text).is_absolute() or "/" in text or "\\" in text or text in (".", "..")
    candidates = [Path(text)] if is_path else [cases_dir / text, Path(text)]
    found = {path.resolve() for path in candidates if path.is_dir()}
    if len(found) > 1:  # never pick one of two silently: a local copy of a set may be what was meant
        raise ValueError(f"case set {text!r} names both an installed set and the folder ./{text}: "
                         f"give --cases=./{text} for the folder, or run from another folder for the installed set")
    for path in candidates:
        if path.is_dir():
            return path.resolve()
    known = ", ".join(installed_case_sets(cases_dir)) or "none"
    raise ValueError(f"case set {text!r} not found (a folder, or one of the installed sets: {known})")


def installed_case_sets(cases_dir: Path = INSTALLED_CASES) -> list[str]:
    """The names of the case sets installed with the package (folders holding a manifest)."""
    if not cases_dir.is_dir():
        return []
    return sorted(p.name for p in cases_dir.iterdir() if p.is_dir() and (p / MANIFEST).is_file())


def load_case_set(spec: str | Path | None = None, cases_dir: Path = INSTALLED_CASES,
                  only: Collection[str] | None = None, verify: bool = False,
                  kinds: str | Collection[str] | None = None) -> CaseSet:
    """Load a case set by name or path, in either layout; a clear error for anything else.
    `only` (page ids, "p012"): just those pages, for a reader that needs a few of many. `verify`:
    a tablebench set's files are checked against its manifest first, before any page is read
    (`tablebench.cases.manifest.check_case_set`); every file is checked before it is read either way.
    `kinds` names the item kinds read ("table,text"; None: the default kinds, `tablebench.core.kinds.chosen`):
    a kind not chosen has no items, so no stage ever sees it. A verified set also names what its
    folder holds that no reader opens (`CaseSet.unlisted`, `tablebench.cases.manifest.unlisted_files`)."""
    chosen = [item_kinds.get(name) for name in item_kinds.chosen(kinds)]
    root = resolve_case_set(spec, cases_dir)
    name = root.name
    unlisted: tuple[str, ...] = ()
    if (root / "ground_truth").is_dir() and (root / "pdfs").is_dir():
        pairs = [(root / "pdfs" / f"{gt.stem}.pdf", gt) for gt in sorted((root / "ground_truth").glob("*.json"))]
        kind = "pdf-parse-bench"
    elif (root / MANIFEST).exists() or (root / MANIFEST).is_symlink():
        check_case_file(root / MANIFEST)
        if verify:
            check_case_set(root)
            unlisted = tuple(unlisted_files(root))
        pairs = [(gt.with_suffix(".pdf"), gt) for gt in sorted(root.glob("[0-9]*.json"))]
        kind = "tablebench"
    else:
        raise ValueError(f"{root}: neither a tablebench case set (manifest.json) nor a pdf-parse-bench "
                         "folder (pdfs/ + ground_truth/)")
    if only is not None:
        pairs = [(pdf, gt) for pdf, gt in pairs if f"p{gt.stem}" in only]
    pages = [_load_page(name, pdf, gt, chosen) for pdf, gt in pairs]
    if not pages and only is None:
        raise ValueError(f"{root}: no pages found")
    return CaseSet(name=name, root=root, kind=kind, pages=pages, unlisted=unlisted)


def _load_page(set_name: str, pdf: Path, gt_path: Path, kinds: list[item_kinds.ItemKind]) -> Page:
    if not pdf.exists():
        raise ValueError(f"{gt_path}: its PDF {pdf.name} is missing")
    check_case_file(pdf)
    record = read_json(check_case_file(gt_path))
    blocks = record.get("blocks") if isinstance(record, dict) else record
    if not isinstance(blocks, list) or not all(isinstance(b, dict) for b in blocks):
        raise ValueError(f"{gt_path}: expected a list of blocks ({{\"type\": ..., \"data\": ...}})")
    items = {kind.name: kind.read(record, blocks, gt_path) for kind in kinds}
    layout = record.get("layout", {}) if isinstance(record, dict) else {}
    return Page(set_name=set_name, page_id=f"p{gt_path.stem}", pdf=pdf, items=items,
                layout=layout if isinstance(layout, dict) else {}, variant=_variant(record, gt_path),
                pdf_pages=whole_number(record.get("pages", 1) if isinstance(record, dict) else 1, "pages", gt_path))


def _variant(record: object, gt_path: Path) -> str:
    """'digital' for a page without a `variant` record, else the variant's `name` (`scan`, `photo`)."""
    variant = record.get("variant") if isinstance(record, dict) else None
    if variant is None:
        return DIGITAL
    name = variant.get("name") if isinstance(variant, dict) else None
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"{gt_path}: 'variant' must be an object with a 'name' (scan, photo, ...)")  # noqa: TRY004
    return name.strip()


