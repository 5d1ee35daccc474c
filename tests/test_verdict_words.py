"""One "failed": a verdict in words is written once (`tablebench.report.verdicts`), and the link from
a parser's failed count shows the cards whose verdict reads so."""

from __future__ import annotations

import re
from pathlib import Path

from tablebench.core.results import ItemResult
from tablebench.gating.rules import Verdict, keep_verdict
from tablebench.report.html_boards import _counts_html
from tablebench.report.verdict_counts import verdict_counts
from tablebench.report.verdicts import verdict_label

HARNESS = Path(__file__).resolve().parents[1] / "harness"


def test_the_verdict_word_is_written_in_one_module():
    """Compared with, or written as, a verdict anywhere else: two words could drift apart."""
    used = re.compile(r'[=!]= "(failed|passed)"|verdict="(failed|passed)"|"(failed|passed)" if ')
    paths = [path for folder in ("gating", "report") for path in (HARNESS / folder).glob("*.py")]
    found = [f"{path.relative_to(HARNESS)}:{n}" for path in paths
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if used.search(line)]
    assert not found, found


def test_a_parser_s_failed_count_links_to_the_cards_whose_verdict_is_failed():
    result = ItemResult(parser="p", case_set="s", page="p001", index=0, group="simple", outcome="ok", scores={})
    keep_verdict(result, Verdict("fail", ["teds 0.1 < min 0.5"]))
    counts = verdict_counts(["p"], [result])
    assert counts[0].failed == 1 and not counts[0].gate_fails
    assert f'data-verdict="{verdict_label(result)}"' in _counts_html(counts, "tables")
