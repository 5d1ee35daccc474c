"""The result of one benchmark case, as plain data that crosses processes and lands in files.

One `ItemResult` per (parser, page, ground-truth item), whatever the item's kind (`kind`: a
table, a formula, ... see `tablebench.core.kinds`), so its fields are named for any kind: `index`
is the item's index among the page's items of its kind, `group` what it is grouped by (a
table's complexity, a formula's inline / display: `ItemKind.groups`), `errors` the headline
metric's errors in words. `gt_latex` / `matched_text` are the two sides as written; `language`
and `variant` are the page's (what the leaderboard's per-language / per-variant columns group
by), `pages` the first and the last PDF page the item is on (a table broken across pages: two; what the
leaderboard's broken / single-page columns group by) and `pdf_pages` the case's (what time per
PDF page divides by). The plugin records it as a test property (JSON), so it survives xdist and
junit XML; the report aggregates lists of them.

Every fact the project records about a case has a field of its own (the parse cache flag, the
page's output, a traceback, the best candidate, scoring's evidence, the judge's notes, the
verdict, the change against the baseline); `extra` is left to users (a hook's annotations).

results.json says which layout its results have (`RESULTS_FORMAT`). Files written before it
did (format 1) named the fields for tables (`table`, `complexity`, `semantic_errors`); files
before format 3 kept the project's facts in `extra`. `from_dict` reads either under the current
names and fields, so every reader (`tablebench report`, `report merge`, `compare`, a run's
results.jsonl) takes all three; a best candidate that an earlier writer stored as its Python
repr (a string, `"{'span': [3, 9], ...}"`) reads as the dict it shows.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, fields, is_dataclass

from tablebench.core import kinds
from tablebench.core.metric_specs import all_specs, builtin_scale
from tablebench.core.schema import (
    Flag,
    Integer,
    Invalid,
    Items,
    Known,
    Maybe,
    Number,
    OneOf,
    Record,
    Shape,
    Table,
    Text,
    check,
    check_key,
    join,
    refuse,
    shown,
)

# ok = located and scored; missing = not found in the output; parse_error / timeout / empty =
# the parser failed on the page; error = the harness could not score the table (unreadable
# ground truth, a metric or locator that raised): still a case, counted 0 like the others.
PARSE_FAILURES = ("parse_error", "timeout", "empty")  # what a parser that failed on a page leaves its items
FAILURES = (*PARSE_FAILURES, "error")  # nothing scored, whoever failed (the terminal's "errors" column)
OUTCOMES = ("ok", "missing", *FAILURES)
PAGE_BREAKS = ("broken", "single-page")  # `ItemResult.page_break`'s values in display order ("unknown" last)
# the names of `ItemResult.evidence`'s entries, for the scorers that write them and the cards that read them
CELL_DIFF = "cell_diff"  # a table's cells equal / changed / missing / extra (`tablebench.metrics.tables.semantic_diff`)
TEXT_DIFF = "text_diff"  # a page's prose, block by block (`tablebench.metrics.text.details`)
SCORED_LATEX = "scored_latex"  # the LaTeX a formula was scored as, where it differs from the text matched


@dataclass
class ItemResult:
    parser: str  # the parser's label: `name=` of `--parser name=spec`, else derived from the spec
    case_set: str
    page: str  # "p012"
    index: int  # 0-based index of the item among its page's items of its kind
    group: str  # what it is grouped by: a table's complexity, a formula's inline / display (`ItemKind.groups`)
    outcome: str  # one of OUTCOMES: ok = located and scored
    message: str = ""  # one line: why it is not ok, or what the locator noticed
    scores: dict[str, float] = field(default_factory=dict)
    gt_latex: str = ""
    gt_html: str = ""
    pred_html: str | None = None  # canonical HTML of the matched table
    matched_text: str | None = None  # the literal span of the parser output
    matched_span: list[int] | None = None  # [start, end) in the parser output
    # [[start, end), ...]: the fragments the item was found as, in output order (a table the parser
    # split in two has two; `matched_span` covers them all); older results.json files have none
    matched_spans: list[list[int]] = field(default_factory=list)
    locate_score: float | None = None
    parse_seconds: float = 0.0  # of the whole case: its PDF's `pdf_pages` pages
    cost: float = 0.0  # of the whole case, in USD
    # what the project records about the case beyond its scores, each fact in a field of its own
    # (results.json files before format 3 held them in `extra`: `from_dict` moves them here)
    parse_cached: bool = False  # the page's parse was read from the parse cache, not run
    page_output: str | None = None  # the parser's whole output (bounded), on the first result of a page only
    parser_traceback: str | None = None  # the last frames of the traceback of a parser that raised (bounded)
    # a missing item's best-scoring candidate: {"span": [start, end), "score", "text" (bounded),
    # "cut" (characters left out), "html" (a table of bounded size)}: what "best candidate 0.16" was
    best_candidate: dict | None = None
    # what scoring left for the item's card, by name: "cell_diff" (the semantic score's, a table),
    # "text_diff" (the text kind's), "scored_latex" (the LaTeX a formula was scored as)
    evidence: dict = field(default_factory=dict)
    not_computed: dict[str, str] = field(default_factory=dict)  # metric group -> why (too large to score)
    metric_errors: dict[str, str] = field(default_factory=dict)  # metric asked for -> why it has no value
    judge_cost: float = 0.0  # USD of this item's judge call, as the judge reported it (0 when not asked)
    judge_cached: bool | None = None  # the judge's answer came from its cache; None: the judge was not asked
    judge_errors: list[str] = field(default_factory=list)  # the errors the judge listed, in its words
    repeat: dict | None = None  # --repeat's spread: {"k", "outcomes", "scores", "sd"} (`tablebench.evaluate.repeat`)
    verdict: dict | None = None  # the case's pass / fail verdict (`tablebench.gating.rules.Verdict.to_dict`)
    baseline_change: dict | None = None  # the change against the run's baseline (`tablebench.gating.regressions`)
    extra: dict = field(default_factory=dict)  # the users': annotations of a hook (the project writes none)
    spec: str = ""  # the parser spec as given (`pdfplumber`, `dir:/x/`, `command:...`)
    errors: list[str] = field(default_factory=list)  # the headline metric's errors in words, worst first
    # an item kind's name (`tablebench.core.kinds`); results.json files from before formulas read as tables
    kind: str = kinds.ORIGINAL_KIND
    language: str = "unknown"  # the page's language (`Page.language`); older results.json files read as unknown
    variant: str = "digital"  # the page's variant (`Page.variant`); older files had born-digital pages only
    # [first, last]: the PDF pages the item is on (`Page.page_span_of`), as a case set's record writes a
    # long table's: [1, 1] on a one-page case, [1, 2] for a table broken across two pages of a document;
    # [] where the ground truth does not say (a formula of a document) and in results.json files
    # written before documents were visible
    pages: list[int] = field(default_factory=list)
    pdf_pages: int = 1  # pages of the case's PDF (`Page.pdf_pages`): `parse_seconds` and `cost` are of them all

    @property
    def broken(self) -> bool:
        """Whether the item continues across a page break (its last PDF page is after its first)."""
        return len(self.pages) > 1 and self.pages[-1] > self.pages[0]

    @property
    def page_break(self) -> str:
        """What the leaderboards' page-break breakdown groups it under (`PAGE_BREAKS`): "broken",
        "single-page", or "unknown" where the result does not say (a formula of a document, a
        results.json written before the pages were recorded)."""
        return "broken" if self.broken else "single-page" if self.pages else "unknown"

    @property
    def fragments(self) -> list[list[int]]:
        """The matched fragments' [start, end) spans: `matched_spans`, else the one `matched_span`."""
        if self.matched_spans:
            return self.matched_spans
        return [self.matched_span] if self.matched_span else []

    def uncomputed_scores(self) -> dict[str, str]:
        """score -> why, for every score of a metric group this result says was not computed.

        Such a score is absent from `scores` but is no "not scored": the gates count it 0 against
        a baseline that scored it (a table grown too large to score must not hide a regression)."""
        groups = self.not_computed
        if not groups:
            return {}
        return {score: str(groups[s.name]) for s in all_specs() if s.name in groups for score in s.scores}

    @property
    def test_id(self) -> str:
        """The case's id across runs and files (baselines key on it): `set/page::tN[label]`, its pytest node id."""
        return case_id(self.case_set, self.page, self.index, self.parser, self.kind)

    def to_dict(self) -> dict:
        """Every field, its containers copied: what `dataclasses.asdict` gives, about 8x faster
        (the fields hold JSON data; results.json writes one dict per result)."""
        return {name: _copied(getattr(self, name)) for name in _FIELD_NAMES}

    def to_row(self) -> dict:
        """`to_dict` led by the case's `id` (`test_id`): what results.json and results.jsonl hold per
        result, so a reader finds a case by the id every report shows. The id is derived, never
        read back (`from_dict` keeps the fields only): rows written before they had one read the same."""
        return {"id": self.test_id, **self.to_dict()}

    @classmethod
    def from_dict(cls, data: dict, *, checked: bool = True) -> ItemResult:
        """A result from its JSON form, checked against `ROW` first: `Invalid` (a ValueError) naming
        the first field that is not what a run writes there (`tablebench.core.schema`). `checked`
        False: a result this run made (a worker's, its own results.jsonl), taken as it is: a hook's
        `extra` may hold a NaN the writer turns into null, which a file read back may not."""
        if not isinstance(data, dict):
            raise Invalid("", f"{shown(data)}, expected an object (a result)")
        written = {}  # current name -> the name the file used, for messages
        if "index" not in data and "table" in data:  # format 1's names (see the module docstring)
            written = {_RENAMED[k]: k for k in data if k in _RENAMED and _RENAMED[k] not in data}
            data = {_RENAMED.get(k, k) if _RENAMED.get(k) in written else k: v for k, v in data.items()}
        if "evidence" not in data and isinstance(data.get("extra"), dict):  # before format 3
            data = _facts_out_of_extra(data)
        if isinstance(data.get("best_candidate"), str) and len(data["best_candidate"]) <= MAX_REPR:
            data = {**data, "best_candidate": _from_repr(data["best_candidate"])}  # an earlier writer's repr
        if checked:
            try:
                check(ROW, data)
            except Invalid as exc:  # named as the file names it
                head = _FIELD_HEAD.match(exc.field).group()
                raise Invalid(written.get(head, head) + exc.field[len(head):], exc.problem) from None
        return cls(**{k: v for k, v in data.items() if k in _FIELD_NAMES})


# before format 3, `extra` held the project's facts: old key -> the field it is now
_FROM_EXTRA = {"parse_cached": "parse_cached", "page_output": "page_output", "parser_traceback": "parser_traceback",
               "best_candidate": "best_candidate", "not_computed": "not_computed", "judge_cost": "judge_cost",
               "judge_cached": "judge_cached", "judge_errors": "judge_errors", "repeat": "repeat",
               "verdict": "verdict", "baseline": "baseline_change", "language": "language"}
_EVIDENCE_IN_EXTRA = ("cell_diff", "text_diff", "scored_latex")  # old `extra` keys that are `evidence` now
_METRIC_ERRORS_IN_EXTRA = {"judge_error": "judge"}  # old `extra` keys that are `metric_errors` now


def _facts_out_of_extra(data: dict) -> dict:
    """A result written before format 3 with the project's facts moved out of `extra` into their
    fields (a field the row already holds wins: files from before `language` was a field had it
    in `extra` only); what is left in `extra` is a hook's."""
    extra, data = dict(data["extra"]), dict(data)
    for old, name in _FROM_EXTRA.items():
        if old in extra:
            value = extra.pop(old)
            data.setdefault(name, value)
    evidence = {k: extra.pop(k) for k in _EVIDENCE_IN_EXTRA if k in extra}
    errors = {metric: extra.pop(old) for old, metric in _METRIC_ERRORS_IN_EXTRA.items() if old in extra}
    data.update(extra=extra, evidence=evidence)
    data.setdefault("metric_errors", errors)
    return data


# characters of a best candidate's Python repr read back (its text is cut at 4,000 characters, its
# HTML is of at most 400 cells); a longer string is no repr an earlier writer wrote, and parsing
# literals costs memory: 1 MB of them took 0.5 GB
MAX_REPR = 100_000


def _from_repr(text: str) -> dict | None:
    """A dict written as its Python repr (`{'span': [3, 9], 'score': 0.16, ...}`), read back as
    the dict it shows (`ast.literal_eval`: literals only, nothing runs); None when it is not one.
    What it holds is checked as the rest of the result is (a set or a tuple in it is refused)."""
    import ast

    try:
        value = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):  # TypeError: `{[1]: 2}`
        return None
    return value if isinstance(value, dict) else None


def _copied(value: object) -> object:
    """`value` as `dataclasses.asdict` copies a field: containers anew, all the way down."""
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    if kind is dict:
        return {k: _copied(v) for k, v in value.items()}  # type: ignore[attr-defined]
    if kind is list:
        return [_copied(v) for v in value]  # type: ignore[attr-defined]
    if kind is tuple:
        return tuple(_copied(v) for v in value)  # type: ignore[attr-defined]
    return asdict(value) if is_dataclass(value) and not isinstance(value, type) else copy.deepcopy(value)


@dataclass(frozen=True)
class Scores(Shape):
    """Scores by name, each a finite number: a built-in score within its scale (`builtin_scale`, a
    float's rounding aside), any other within `schema.MAX_NUMBER`; null too when `nullable` (a score
    asked for and not got)."""

    nullable: bool = True
    expected = "an object"

    def check(self, value: object) -> None:
        if type(value) is not dict:
            raise refuse(value, self.expected)
        for name, score in value.items():
            check_key(name, "")
            if score is None and self.nullable:
                continue
            scale = builtin_scale(name)
            shape = Number(-scale, scale * (1 + _ROUNDING), f"a number from -{scale:g} to {scale:g}") \
                if scale is not None else Number()
            try:
                shape.check(score)
            except Invalid as exc:
                raise exc.under(join("", name)) from None


_ROUNDING = 1e-9
SPAN = Items(Integer())  # [start, end) in the page's output
# what a results.json result holds, as `to_row` writes it (every field optional but the case's
# identity: files of earlier formats lack the later fields, read with their defaults)
ROW = Record({
    "id": Text(), "parser": Text(), "case_set": Text(), "page": Text(), "index": Integer(), "group": Text(),
    "outcome": OneOf(OUTCOMES), "message": Text(), "scores": Scores(), "gt_latex": Text(), "gt_html": Text(),
    "pred_html": Maybe(Text()), "matched_text": Maybe(Text()), "matched_span": Maybe(SPAN),
    "matched_spans": Items(SPAN), "locate_score": Maybe(Number()), "parse_seconds": Number(0), "cost": Number(0),
    "parse_cached": Flag(), "page_output": Maybe(Text()), "parser_traceback": Maybe(Text()),
    "best_candidate": Maybe(Record({"span": SPAN, "score": Maybe(Number()), "text": Text(), "cut": Integer(),
                                    "html": Text()})),
    "evidence": Record({SCORED_LATEX: Text()}), "not_computed": Table(Text()), "metric_errors": Table(Text()),
    "judge_cost": Number(0), "judge_cached": Maybe(Flag()), "judge_errors": Items(Text()),
    "repeat": Maybe(Record({"k": Integer(1), "outcomes": Items(OneOf(OUTCOMES)), "scores": Table(Items(Number())),
                            "sd": Table(Number())})),
    "verdict": Maybe(Record({"passed": Flag(), "status": Text(), "reasons": Items(Text())})),
    "baseline_change": Maybe(Record({"status": Text(), "reasons": Items(Text()), "metric": Maybe(Text()),
                                     "baseline": Maybe(Number()), "now": Maybe(Number()), "delta": Maybe(Number()),
                                     "verdict": Text(), "baseline_outcome": OneOf(OUTCOMES)})),
    "extra": Record({}), "spec": Text(), "errors": Items(Text()), "kind": Known(kinds.names), "language": Text(),
    "variant": Text(), "pages": Items(Integer(1)), "pdf_pages": Integer(1),
}, required=("parser", "case_set", "page", "index", "group", "outcome"))
_FIELD_NAMES = tuple(f.name for f in fields(ItemResult))
_FIELD_HEAD = re.compile(r"[^.\[]*")  # a result's own field, at the start of a refusal's field path
# format 1's names of fields that have another now (a result holding `table`, not `index`, is format 1's)
_RENAMED = {"table": "index", "complexity": "group", "semantic_errors": "errors"}

RESULTS_FORMAT = "tablebench-results/3"  # what results.json says it holds; bump when a result's layout changes
_READABLE = ("tablebench-results/1", "tablebench-results/2", RESULTS_FORMAT)


def sd_of(result: ItemResult) -> dict[str, float]:
    """{metric: per-item standard deviation over repeats} of a result ({} without --repeat): read by
    the gate and the CI summary, written by `tablebench.evaluate.repeat`."""
    sd = result.repeat.get("sd") if isinstance(result.repeat, dict) else None
    return {k: float(v) for k, v in sd.items() if isinstance(v, (int, float))} if isinstance(sd, dict) else {}


def results_format(data: dict) -> str:
    """The format a results.json's top-level object says it is in (a file without one is format 1,
    written before files said so); a one-line ValueError for a format this version cannot read."""
    found = data.get("format", _READABLE[0])
    if found not in _READABLE:
        raise ValueError(f"results in format {found!r}, which this tablebench does not read "
                         f"(it reads {', '.join(_READABLE)}): upgrade tablebench")
    return found



def case_unit(pdf_pages: Iterable[int]) -> str:
    """'documents' when a case has several PDF pages (`pdf_pages`, one count per case), else
    'pages': what counts of a run's cases call them (a document is one case of many pages)."""
    return "documents" if any(n > 1 for n in pdf_pages) else "pages"


def item_name(kind: str, index: int) -> str:
    """'t3' / 'f3': an item's name on its page (what node ids and case ids show)."""
    return f"{kinds.prefix_of(kind)}{index}"


def case_id(case_set: str, page: str, index: int, label: str, kind: str = kinds.ORIGINAL_KIND) -> str:
    """'synth-v1/p012::t3[pdfplumber]' (a table) or '...::f3[...]' (a formula), as one parser's case.

    One form everywhere (terminal, junit, report.html, baselines): the pytest node id of the
    case, so an id copied from any of them runs that case (`pytest 'synth-v1/p012::t3[pdfplumber]'`)."""
    return f"{case_set}/{page}::{item_name(kind, index)}[{label}]"


_OLD_ID = re.compile(r"^(?P<page>[^[:]*)/(?P<item>[A-Za-z]+\d+)(?P<label>\[.*\])$", re.S)


def current_id(text: str) -> str:
    """A case id in the current form: the older `set/page/tN[label]` (baselines and reports
    written before ids were node ids) becomes `set/page::tN[label]`; anything else is kept."""
    m = _OLD_ID.match(text)
    return f"{m['page']}::{m['item']}{m['label']}" if m else text


def run_order(results: Iterable[ItemResult], parsers: Sequence[str]) -> list[ItemResult]:
    """The order a run reports in, sharded or not, whatever order workers finished in: case set,
    page, parser (as given), item kind (registry order), item index."""
    order = {p: i for i, p in enumerate(parsers)}
    kind_order = {kind: i for i, kind in enumerate(kinds.names())}
    return sorted(results, key=lambda r: (r.case_set, r.page, order.get(r.parser, len(order)), r.parser,
                                          kind_order.get(r.kind, len(kind_order)), r.index))
