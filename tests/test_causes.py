"""Failed cases grouped by cause: what counts as one cause, what its line says, and how long the
terminal's section can get."""

from __future__ import annotations

from tablebench.core.results import ItemResult
from tablebench.gating.rules import Gate, Verdict, keep_verdict
from tablebench.report.causes import VARIES, causes
from tablebench.report.verdicts import MAX_CAUSES, causes_lines


def _failed(parser: str, page: str, index: int, outcome: str, *reasons: str, spec: str = "") -> ItemResult:
    r = ItemResult(parser, "s", page, index, "simple", outcome, message=reasons[0] if reasons else "", spec=spec)
    keep_verdict(r, Verdict("fail", list(reasons)))
    return r


def _passed(parser: str, page: str, index: int = 0) -> ItemResult:
    r = ItemResult(parser, "s", page, index, "simple", "ok", scores={"teds": 1.0})
    keep_verdict(r, Verdict("pass"))
    return r


def test_a_page_s_numbers_and_names_do_not_split_a_cause_but_words_do() -> None:
    results = [_failed("a", f"p{i:03d}", 0, "parse_error", f"parse_error: RuntimeError: cannot read {i:03d}.pdf "
                       f"at 0x7f{i:04x} in /tmp/tmpab{i:02d}x_yz/out")
               for i in range(1, 5)]
    results += [_failed("a", "p005", 0, "parse_error", "parse_error: ModuleNotFoundError: No module named 'cv2'"),
                _failed("a", "p006", 0, "parse_error", "parse_error: ModuleNotFoundError: No module named 'torch'")]
    found = causes(results)
    assert [len(c.cases) for c in found] == [4, 1, 1]
    assert found[0].reason == (f"parse_error: RuntimeError: cannot read {VARIES}.pdf at 0x{VARIES} in "
                               f"/tmp/tmp{VARIES}/out")
    assert [c.reason for c in found[1:]] == ["parse_error: ModuleNotFoundError: No module named 'cv2'",
                                             "parse_error: ModuleNotFoundError: No module named 'torch'"]
    assert found[0].line() == f"a: {found[0].reason} on 4/6 pages (4 cases)"


def test_the_temp_folders_of_workers_and_commands_do_not_split_a_cause() -> None:
    """A command's input is a copy in its page's temp folder, inside its worker's: the names differ
    from page to page and from worker to worker, the cause is one."""
    names = [("k2j_h4g5", "ab12cd34"), ("zz9yx8w_", "qq0pp1oo")]
    results = [_failed("a", f"p00{i}", 0, "parse_error", f"parse_error: ParserError: python exited with code 1: "
                       f"ValueError: no grid in /tmp/tablebench-worker-{w}/tablebench-command-{c}/00{i}.pdf")
               for i, (w, c) in enumerate(names, 1)]
    (cause,) = causes(results)
    assert cause.reason.endswith(f"/tmp/tablebench-worker-{VARIES}/tablebench-command-{VARIES}/{VARIES}.pdf")


def test_a_floor_all_cases_share_is_shown_and_the_notes_on_one_table_are_no_cause() -> None:
    gate = Gate({"teds": 0.8})
    results = []
    for i, (teds, note, errors) in enumerate([(0.5, "found as 2 fragments", ["a value read as 9"]),
                                              (0.7999, "", []), (0.1, "found as text", ["a row lost"])]):
        r = ItemResult("a", "s", f"p{i:03d}", 0, "simple", "ok", message=note, scores={"teds": teds}, errors=errors)
        keep_verdict(r, gate.check(r))
        results.append(r)
    assert results[1].verdict["reasons"] == ["teds 0.7999 < min 0.8000"], "the floor printed with more digits"
    (cause,) = causes(results)
    assert cause.reason == f"teds {VARIES} < min 0.80" and len(cause.cases) == 3
    assert cause.line().endswith("on 3/3 pages (3 cases): every case on every page failed alike")


def test_a_cause_is_one_parser_s_and_passing_or_known_cases_are_none() -> None:
    same = "parse_error: OSError: disk full"
    results = [_failed("a", "p001", 0, "parse_error", same), _failed("b", "p001", 0, "parse_error", same),
               _passed("a", "p002"), _passed("b", "p002")]
    known = ItemResult("a", "s", "p003", 0, "simple", "missing")
    keep_verdict(known, Verdict("known", ["known failure (missing in the baseline): missing"]))
    found = causes([*results, known])
    assert [(c.parser, len(c.cases), c.parser_pages, c.every_page) for c in found] == [
        ("a", 1, 3, False), ("b", 1, 2, False)]


def test_a_parser_that_failed_alike_on_every_page_says_so() -> None:
    results = [_failed("tb-broken", f"p{p:03d}", t, "parse_error",
                       "parse_error: ModuleNotFoundError: No module named 'model'", spec="m:Broken")
               for p in range(1, 101) for t in range(4 + p % 3)]
    (cause,) = causes(results)
    assert cause.line() == (f"tb-broken: parse_error: ModuleNotFoundError: No module named 'model' on 100/100 pages "
                            f"({len(results)} cases): the parser failed on every page, alike")


def test_the_terminal_section_is_bounded_however_many_causes() -> None:
    results = [_failed("a", f"p{p:03d}", 0, "parse_error", f"parse_error: ValueError: bad token {word}")
               for p, word in enumerate(f"w{chr(97 + i % 26)}{chr(97 + i // 26)}" for i in range(300))]
    head, lines = causes_lines(results)
    assert "300 of 300 cases, 300 causes" in head
    assert len(lines) <= 3 * MAX_CAUSES + 1 and lines[-1].startswith("... and 292 more causes (292 cases)")
