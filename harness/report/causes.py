"""Failed cases grouped by cause: one line per distinct reason, with its count, its pages and one
way to reproduce it.

Why: one fault fails many cases alike. A parser whose `prepare()` cannot import its model fails
all 441 tables of synth-v1 with one reason, and a list of cases says it 441 times, the answer
buried under it. Every artefact (the terminal, leaderboard.md, report.html, `tablebench report`
and `report merge`) groups a run's failed cases here, so each tells the same story; each case is
still listed where there is room for it (report.html, inside its cause; leaderboard.md; junit,
results.json and `pytest --lf` as before). Nothing is decided here: a case failed when its
verdict says so (`tablebench.gating.rules.verdict_of`), or when the caller says so (the early
stop groups the pages a parser failed on, whatever their verdicts: `page_failures`).

Two failed cases have the same cause (`cause_key`) when they are of the same parser and their
reasons are the same once what belongs to one case only is taken out:

- the notes a failure adds about its item (what the locator noticed, the semantic score's errors
  in words: `LOCATOR_NOTE`, the kind's `notes_title`) say what is wrong with that table, not why
  the case failed: they are left out;
- numbers: a page's file (`no 006{.md|...} in DIR`), a line or item number, a score under its
  floor (`semantic 3.21 < min 7.00`) differ between the cases of one cause. Each number (digits,
  with their decimals) counts as one number, whatever its value;
- the case's own page id, for pages named without digits (a pdf-parse-bench folder's);
- the random part of a temporary name (`tmpab12_x9z`, as `tempfile` names them) and memory
  addresses (`0x7f3a...`, in the repr of an object).

Words are never taken out: `No module named 'cv2'` and `No module named 'torch'` are two causes,
as are a floor on teds and one on semantic, so no grouping hides a second fault behind the first.
The text shown for a cause keeps what its cases share, a number included when every case has
the same one (a floor, `min 0.80`, though one case may print it `0.8000`), and shows "…" where
they differ.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tablebench.core import kinds as item_kinds
from tablebench.core.results import PARSE_FAILURES, ItemResult, case_unit
from tablebench.gating.rules import LOCATOR_NOTE, verdict_of

VARIES = "…"  # where the cases of one cause differ (a number, a page's own name)
REPRODUCE = "reproduce: tablebench parse "  # a parser failure rerun alone (`tablebench.parse.debug`), as pytest's failure says
_NUMBER = re.compile(r"(\d+(?:\.\d+)?)")
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]+\b")
# tempfile's names: a prefix ("tmp", or the worker's and a command's temp folders: tablebench-worker-,
# tablebench-command-) and 8 characters of [a-z0-9_]; a command's input is a copy in such a folder
_TEMP_NAME = re.compile(r"\b(tmp|tablebench-[a-z]+-)[a-z0-9_]{8}\b")


@dataclass
class Cause:
    """The failed cases of one parser that failed for one reason."""

    parser: str
    outcome: str  # the outcome of its cases (parse_error, missing, ok with a score under its floor, ...)
    cases: list[ItemResult] = field(default_factory=list)  # in the order of the results given
    pages: set[tuple[str, str]] = field(default_factory=set)  # (case set, page) of its cases
    parser_pages: int = 0  # pages of this parser in the run
    parser_cases: int = 0  # cases of this parser in the run
    unit: str = "pages"  # what the run's cases are called: "documents" when one has several PDF pages
    _text: list[str] = field(default_factory=list)  # the first case's reason, cut at each number
    _varies: list[bool] = field(default_factory=list)  # which of its numbers differ between the cases

    @property
    def reason(self) -> str:
        """The reason its cases share ("…" where they differ)."""
        return "".join(VARIES if i % 2 and self._varies[i // 2] else part for i, part in enumerate(self._text))

    @property
    def every_page(self) -> bool:
        """Every case of the parser, on every page it ran on, failed for this reason."""
        return len(self.cases) == self.parser_cases and len(self.pages) == self.parser_pages

    @property
    def parser_failed(self) -> bool:
        """Its cases are the parser's own failure on their pages (it raised, hung or wrote nothing)."""
        return self.outcome in PARSE_FAILURES

    @property
    def first(self) -> ItemResult:
        return self.cases[0]

    @property
    def alike(self) -> str:
        """What a cause that took every case of its parser says of it ("" for any other cause)."""
        if not self.every_page or self.parser_pages < 2:
            return ""
        each = f"every {self.unit[:-1]}"
        return f"the parser failed on {each}, alike" if self.parser_failed else f"every case on {each} failed alike"

    def line(self) -> str:
        """'tb-broken: parse_error: ModuleNotFoundError: … on 100/100 pages (441 cases): the parser
        failed on every page, alike' (the last part only when it did)."""
        n = len(self.cases)
        text = (f"{self.parser}: {self.reason} on {len(self.pages)}/{self.parser_pages} "
                f"{self.unit if self.parser_pages != 1 else self.unit[:-1]} ({n} case{'s' if n != 1 else ''})")
        return f"{text}: {self.alike}" if self.alike else text

    def _add(self, result: ItemResult, numbers: list[str]) -> None:
        self.cases.append(result)
        self.pages.add((result.case_set, result.page))
        shown = self._text[1::2]
        self._varies = [v or float(a) != float(b) for v, a, b in zip(self._varies, shown, numbers, strict=True)]


def failure_reasons(result: ItemResult) -> list[str]:
    """Why a case failed, without the notes about its item (see the module docstring)."""
    verdict = verdict_of(result)
    reasons = list(verdict.reasons) if verdict is not None else []
    notes = (LOCATOR_NOTE, f"{_notes_title(result.kind)}: ")
    kept = [x for x in reasons if not x.startswith(notes)]
    return kept or [result.message or result.outcome]


def cause_key(result: ItemResult) -> tuple[str, str, str]:
    """(parser, outcome, reasons with what belongs to this case alone taken out)."""
    return _key(result, _cut(result))


def _key(result: ItemResult, parts: list[str]) -> tuple[str, str, str]:
    return result.parser, result.outcome, "\0".join(parts[0::2])


def verdict_failed(result: ItemResult) -> bool:
    """The case failed: its verdict says so."""
    verdict = verdict_of(result)
    return verdict is not None and verdict.status == "fail"


def causes(results: Sequence[ItemResult], failed: Callable[[ItemResult], bool] = verdict_failed) -> list[Cause]:
    """The failed cases of `results` (`failed` says which) by cause, the cause of most cases
    first (then in the results' order). `results` need no texts (slim results do)."""
    pages: dict[str, set[tuple[str, str]]] = {}
    counts: dict[str, int] = {}
    found: dict[tuple[str, str, str], Cause] = {}
    for r in results:
        pages.setdefault(r.parser, set()).add((r.case_set, r.page))
        counts[r.parser] = counts.get(r.parser, 0) + 1
        if not failed(r):
            continue
        parts = _cut(r)
        key = _key(r, parts)
        cause = found.get(key)
        if cause is None:
            cause = found[key] = Cause(r.parser, r.outcome, _text=parts, _varies=[False] * (len(parts) // 2))
        cause._add(r, parts[1::2])
    unit = case_unit({r.pdf_pages for r in results})
    for cause in found.values():
        cause.parser_pages, cause.parser_cases, cause.unit = len(pages[cause.parser]), counts[cause.parser], unit
    return sorted(found.values(), key=lambda c: -len(c.cases))  # stable: equal counts in the results' order


def failed_count(found: Sequence[Cause]) -> int:
    return sum(len(c.cases) for c in found)


def title(found: Sequence[Cause], total: int) -> str:
    """'Failures by cause: 441 of 441 cases, 1 cause'."""
    return (f"Failures by cause: {failed_count(found)} of {total} cases, "
            f"{len(found)} cause{'s' if len(found) != 1 else ''}")


def pdf_finder(meta: Mapping[str, object] | None) -> Callable[[str, str], Path | None]:
    """(case set, page id) -> the page's PDF, from the run's case set (`meta["case_set_path"]`);
    None when the case set is not where the run read it (a results file moved to another machine)."""
    root = (meta or {}).get("case_set_path")
    seen: dict[tuple[str, str], Path | None] = {}

    def find(case_set: str, page: str) -> Path | None:
        if (case_set, page) not in seen:
            seen[(case_set, page)] = _pdf(root, case_set, page)
        return seen[(case_set, page)]

    return find


def _pdf(root: object, case_set: str, page: str) -> Path | None:
    if not isinstance(root, str) or not Path(root).is_dir():
        return None
    try:
        from tablebench.cases import load_case_set

        loaded = load_case_set(Path(root), only={page})
    except Exception:  # noqa: BLE001 -- a moved or edited case set: no command, never an error
        return None
    return next((p.pdf for p in loaded.pages if p.set_name == case_set), None)


def reproduce(cause: Cause, find_pdf: Callable[[str, str], Path | None]) -> str | None:
    """The command that reruns a parser's error on its first page in one process (`tablebench
    parse SPEC PAGE.pdf`, which shows the whole traceback), for a parser that raised; else None."""
    r = cause.first
    if cause.outcome != "parse_error" or not r.spec:
        return None
    pdf = find_pdf(r.case_set, r.page)
    return f"{REPRODUCE}{shlex.quote(r.spec)} {shlex.quote(str(pdf))}" if pdf is not None else None


def example(cause: Cause) -> str:
    """The first case's id, shell-quoted: pasted after `pytest` it runs that case."""
    return shlex.quote(cause.first.test_id)


def _cut(result: ItemResult) -> list[str]:
    """The case's reasons, one text, cut at each number: [text, number, text, ..., text]."""
    text = "; ".join(failure_reasons(result))
    text = _TEMP_NAME.sub(r"\1" + VARIES, _ADDRESS.sub("0x" + VARIES, text))
    page = result.page
    if page and not any(ch.isdigit() for ch in page):
        text = re.sub(rf"(?<!\w){re.escape(page)}(?!\w)", VARIES, text)
    return _NUMBER.split(text)


def _notes_title(kind: str) -> str:
    try:
        return item_kinds.get(kind).notes_title
    except (KeyError, ValueError):
        return "errors"
