"""Case sets: pages (a PDF each) with their ground-truth tables and formulas, loaded from disk.

Two layouts are read the same way:
- tablebench case sets (`manifest.json`, `NNN.pdf` + `NNN.json`), written by `tablebench generate`;
- pdf-parse-bench folders (`pdfs/NNN.pdf` + `ground_truth/NNN.json`), so the paper's own pages
  run unchanged.
Both keep ground truth as ordered blocks `{"type": "text"|"table"|"inline-formula"|
"display-formula", "data": ...}`; table and formula blocks become cases (items of kind "table" /
"formula"). A page record may instead list its formulas as `"formulas": [{"latex", "kind"}]`.

A case's PDF may be a document of several pages (`"pages": N` in its record, `tablebench generate
--doc-pages`): it is one case all the same, parsed whole, its items in reading order across the
pages; a table records the page it starts on and, when it continues on later pages, the rows of
its canonical HTML that open each new page (`breaks`). The pages a table is on follow from these
(`GroundTruthTable.pages`), and where on each it is from its bbox and the page's layout
(`Page.regions_of`, `tablebench.cases.regions`).
"""

from __future__ import annotations

import importlib.util
import math
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from tablebench.cases.manifest import MANIFEST, check_case_file, check_case_set, unlisted_files
from tablebench.cases.pdfbench import formulas_of
from tablebench.cases.regions import Region, table_regions
from tablebench.core import kinds as item_kinds
from tablebench.core.files import read_json

if TYPE_CHECKING:  # kept out of import time: the pytest plugin imports this module at start-up
    from tablebench.core.table import Table



def _installed_cases() -> Path:
    """The folder of the case sets installed with the package (`tablebench.casesets`: in the wheel,
    or the repository's cases/ folder for an editable install), found without importing it."""
    spec = importlib.util.find_spec("tablebench.casesets")
    locations = list(spec.submodule_search_locations or []) if spec else []
    return Path(locations[0]).resolve() if locations else Path(__file__).resolve().parent / "_no_case_sets"


INSTALLED_CASES = _installed_cases()
DEFAULT_SET = "synth-v1"
COMPLEXITIES = ("simple", "moderate", "complex")
FORMULA_KINDS = ("inline", "display")  # what a formula item is marked and grouped by
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


@dataclass(frozen=True)
class GroundTruthTable:
    """One ground-truth table: its LaTeX as written, canonical HTML when the set stores it."""

    index: int  # 0-based position among the page's tables
    latex: str
    complexity: str = "unknown"
    source: str = ""
    stored_html: str | None = None
    bbox: tuple[float, float, float, float] | None = None  # PDF points, origin top-left, when the set records it
    page: int = 1  # the PDF page (1-based) the table starts on, which `bbox` is on
    breaks: tuple[int, ...] = ()  # rows of `html` (0-based) that open a new PDF page: the table continues there
    long: bool = False  # written as a long table (its record lists the pages it spans): see `tablebench.cases.regions`

    @property
    def page_span(self) -> tuple[int, int]:
        """(first, last): the PDF pages the table is on, one more after its first for each break."""
        return (self.page, self.page + len(self.breaks))

    @property
    def pages(self) -> tuple[int, ...]:
        """Every PDF page the table is on, first to last."""
        return tuple(range(self.page, self.page + len(self.breaks) + 1))

    @cached_property
    def table(self) -> Table:
        """The table as our LaTeX reader sees it (the form every metric scores against)."""
        from tablebench.readers.latex import read_latex

        return read_latex(self.latex)[0]

    @property
    def html(self) -> str:
        return self.stored_html or self.table.to_html()

    @property
    def group(self) -> str:
        """What results group and mark a table by: its complexity."""
        return self.complexity


@dataclass(frozen=True)
class GroundTruthFormula:
    """One ground-truth formula: its LaTeX as the ground truth writes it, and inline / display."""

    index: int  # 0-based position among the page's formulas
    latex: str
    kind: str  # "inline" | "display"
    source: str = ""

    @property
    def group(self) -> str:
        """What results group and mark a formula by (the leaderboard's inline / display columns)."""
        return self.kind


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

    def regions_of(self, table: GroundTruthTable) -> tuple[Region, ...]:
        """Where `table` is on each PDF page it is on (`tablebench.cases.regions`): what a report crops."""
        return table_regions(table, self.layout)

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

    @property
    def tables(self) -> list[GroundTruthTable]:
        return self.items_of("table")

    @property
    def formulas(self) -> list[GroundTruthFormula]:
        return self.items_of("formula")

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
        """Drop the tables parsed from the ground truth (`GroundTruthTable.table` parses again when
        asked): a run keeps every page until it ends, and a parsed table is many times its LaTeX."""
        for gt in self.tables:
            gt.__dict__.pop("table", None)


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

    @property
    def n_tables(self) -> int:
        return self.count("table")

    @property
    def n_formulas(self) -> int:
        return self.count("formula")


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
                pdf_pages=_count(record.get("pages", 1) if isinstance(record, dict) else 1, "pages", gt_path))


def read_tables_of(blocks: list[dict], gt_path: Path) -> list[GroundTruthTable]:
    """The page's `table` blocks as ground-truth tables, in order."""
    tables = []
    for block in blocks:
        if block.get("type") != "table":
            continue
        if not isinstance(block.get("data"), str):
            raise ValueError(f"{gt_path}: table block {len(tables)} has no LaTeX in 'data'")
        page, breaks = _count(block.get("page", 1), "page", gt_path), _breaks(block.get("breaks", []), gt_path)
        tables.append(GroundTruthTable(index=len(tables), latex=block["data"],
                                       complexity=block.get("complexity") or "unknown",
                                       source=block.get("source", ""), stored_html=block.get("html"),
                                       bbox=_bbox(block.get("bbox")), page=page, breaks=breaks,
                                       long=_spanned(block.get("pages"), page, breaks, gt_path)))
    return tables


def _spanned(value: object, page: int, breaks: tuple[int, ...], gt_path: Path) -> bool:
    """Whether a table block lists the pages it spans (a long table's `pages`: [first, last]),
    checked against its `page` and `breaks`: the table ends one page after its start per break."""
    if value is None:
        return False
    if value != [page, page + len(breaks)] or type(value[0]) is not int or type(value[1]) is not int:
        raise ValueError(f"{gt_path}: a table's 'pages' must be [its page, that page + one per break], "
                         f"here [{page}, {page + len(breaks)}]; got {value!r:.60}")
    return True


def _count(value: object, what: str, gt_path: Path) -> int:
    """A page number or count of a record: an int >= 1, else a one-line error naming it."""
    if type(value) is not int or value < 1:
        raise ValueError(f"{gt_path}: '{what}' must be a whole number >= 1, got {value!r:.40}")
    return value


def _breaks(value: object, gt_path: Path) -> tuple[int, ...]:
    """A table's `breaks`: increasing row indices >= 1 (a break before the first row is no break)."""
    ok = isinstance(value, list) and all(type(v) is int and v >= 1 for v in value) and value == sorted(set(value))
    if not ok:
        raise ValueError(f"{gt_path}: 'breaks' must be a list of increasing row indices >= 1, got {value!r:.60}")
    return tuple(value)


def _bbox(value: object) -> tuple[float, float, float, float] | None:
    """[x0, top, x1, bottom] in points when it is one (a report crops the page to it), else None."""
    if not isinstance(value, list) or len(value) != 4 or not all(type(v) in (int, float) for v in value):
        return None
    x0, top, x1, bottom = (float(v) for v in value)
    ok = all(math.isfinite(v) for v in value) and 0 <= x0 < x1 and 0 <= top < bottom
    return (x0, top, x1, bottom) if ok else None


def _variant(record: object, gt_path: Path) -> str:
    """'digital' for a page without a `variant` record, else the variant's `name` (`scan`, `photo`)."""
    variant = record.get("variant") if isinstance(record, dict) else None
    if variant is None:
        return DIGITAL
    name = variant.get("name") if isinstance(variant, dict) else None
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"{gt_path}: 'variant' must be an object with a 'name' (scan, photo, ...)")  # noqa: TRY004
    return name.strip()


def read_formulas_of(record: object, blocks: list[dict], gt_path: Path) -> list[GroundTruthFormula]:
    """The page's formulas: its `formulas` list when the record has one, else its formula blocks
    (pdf-parse-bench `inline-formula` / `display-formula`, read by `tablebench.cases.pdfbench`)."""
    listed = record.get("formulas") if isinstance(record, dict) else None
    if listed is None:
        pairs = formulas_of(blocks, gt_path)
    else:
        if not isinstance(listed, list):
            raise ValueError(f"{gt_path}: 'formulas' must be a list of {{\"latex\": ..., \"kind\": ...}}")
        pairs = []
        for n, entry in enumerate(listed):
            latex = entry.get("latex") if isinstance(entry, dict) else None
            kind = entry.get("kind") if isinstance(entry, dict) else None
            if not isinstance(latex, str) or not latex.strip() or kind not in FORMULA_KINDS:
                raise ValueError(f"{gt_path}: formula {n} needs a non-empty 'latex' and a 'kind' of "
                                 f"{' / '.join(FORMULA_KINDS)}")
            pairs.append((latex, kind))
    return [GroundTruthFormula(index=i, latex=latex, kind=kind, source=f"{gt_path.stem}#f{i}")
            for i, (latex, kind) in enumerate(pairs)]
