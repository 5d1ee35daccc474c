"""The result of one benchmark case, as plain data that crosses processes and lands in files.

One `TableResult` per (parser, page, ground-truth table). The plugin records it as a test
property (JSON), so it survives xdist and junit XML; the report aggregates lists of them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

OUTCOMES = ("ok", "missing", "parse_error", "timeout", "empty")


@dataclass
class TableResult:
    parser: str  # the parser spec as given (`pdfplumber`, `dir:/x`, ...)
    case_set: str
    page: str  # "p012"
    table: int  # 0-based index of the table on its page
    complexity: str
    outcome: str  # one of OUTCOMES: ok = located and scored
    message: str = ""  # one line: why it is not ok, or what the locator noticed
    scores: dict[str, float] = field(default_factory=dict)
    gt_latex: str = ""
    gt_html: str = ""
    pred_html: str | None = None  # canonical HTML of the matched table
    matched_text: str | None = None  # the literal span of the parser output
    matched_span: list[int] | None = None  # [start, end) in the parser output
    locate_score: float | None = None
    parse_seconds: float = 0.0  # of the whole page
    cost: float = 0.0  # of the whole page, in USD
    extra: dict = field(default_factory=dict)  # e.g. judge errors

    @property
    def test_id(self) -> str:
        return f"{self.case_set}/{self.page}/t{self.table}[{self.parser}]"

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> TableResult:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})
