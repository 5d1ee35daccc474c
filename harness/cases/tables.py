"""Tables as ground truth: a page record's `table` blocks, each a LaTeX table with its complexity
(the group results are marked and ranked by), and where it is on its PDF pages.

The table kind (`tablebench.kinds.tables`) reads a page with `read_tables_of`; a table records
the page it starts on and, when it continues on later pages, the rows of its canonical HTML that
open each new page (`breaks`). The pages a table is on follow from these (`GroundTruthTable.pages`),
and where on each it is from its bbox and the page's layout (`tablebench.cases.regions`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from tablebench.cases.record_fields import bbox_of, whole_number
from tablebench.cases.regions import Region, table_regions

if TYPE_CHECKING:  # kept out of import time: the pytest plugin imports the case sets at start-up
    from tablebench.core.table import Table

COMPLEXITIES = ("simple", "moderate", "complex")


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

    def regions(self, layout: object) -> tuple[Region, ...]:
        """Where the table is on each PDF page it is on (`tablebench.cases.regions`): what a report crops."""
        return table_regions(self, layout)

    def forget_parsed(self) -> None:
        """Drop the table parsed from the LaTeX (`table` parses again when asked)."""
        self.__dict__.pop("table", None)


def read_tables_of(blocks: list[dict], gt_path: Path) -> list[GroundTruthTable]:
    """The page's `table` blocks as ground-truth tables, in order."""
    tables = []
    for block in blocks:
        if block.get("type") != "table":
            continue
        if not isinstance(block.get("data"), str):
            raise ValueError(f"{gt_path}: table block {len(tables)} has no LaTeX in 'data'")
        page, breaks = whole_number(block.get("page", 1), "page", gt_path), _breaks(block.get("breaks", []), gt_path)
        tables.append(GroundTruthTable(index=len(tables), latex=block["data"],
                                       complexity=block.get("complexity") or "unknown",
                                       source=block.get("source", ""), stored_html=block.get("html"),
                                       bbox=bbox_of(block.get("bbox")), page=page, breaks=breaks,
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


def _breaks(value: object, gt_path: Path) -> tuple[int, ...]:
    """A table's `breaks`: increasing row indices >= 1 (a break before the first row is no break)."""
    ok = isinstance(value, list) and all(type(v) is int and v >= 1 for v in value) and value == sorted(set(value))
    if not ok:
        raise ValueError(f"{gt_path}: 'breaks' must be a list of increasing row indices >= 1, got {value!r:.60}")
    return tuple(value)
