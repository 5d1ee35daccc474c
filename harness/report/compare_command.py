"""`tablebench compare`: the terminal view, and the Markdown / HTML files when asked (`tablebench.cli` parses)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tablebench.core.files import check_writable, write_atomic
from tablebench.report.compare import compare_runs
from tablebench.report.compare_html import compare_html
from tablebench.report.compare_render import SHOWN, compare_markdown, compare_rich
from tablebench.report.whole import print_whole


def run_compare(runs: Sequence[str], *, metrics: str | None = None, markdown: str | None = None,
                html: str | None = None, alpha: float, min_effect: float, top: int = SHOWN,
                cards: int | None = None) -> int:
    """The command: the terminal view, and the Markdown / HTML files when asked. Exit 0 (a view, not a gate)."""
    if top < 0 or (cards is not None and cards < 0):
        raise ValueError("--top and --cards take a count (0 or more)")
    for path, what in ((html, "--html"), (markdown, "--markdown")):
        if path:
            check_writable(path, what)
    reports = compare_runs(runs, metrics=metrics, alpha=alpha, min_effect=min_effect)
    print_whole(compare_rich(reports, n=top))  # at any width, in a pipe too: no number cut
    if html:
        write_atomic(Path(html), compare_html(reports) if cards is None else compare_html(reports, cards))
        print(f"tablebench compare: {html}")
    if markdown:
        link = None
        if html:
            try:
                link = Path(html).resolve().relative_to(Path(markdown).resolve().parent).as_posix()
            except ValueError:
                link = Path(html).resolve().as_uri()
        write_atomic(Path(markdown), compare_markdown(reports, html_file=link, n=top))
        print(f"tablebench compare: {markdown}")
    return 0
