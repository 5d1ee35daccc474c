"""pdflatex runner: log parsing on a canned log, and real runs (skipped without pdflatex)."""

from __future__ import annotations

import time

import pytest

from tablebench.tex.runner import LatexError, have_pdflatex, parse_log, run_pdflatex

needs_tex = pytest.mark.skipif(not have_pdflatex(), reason="pdflatex is not installed (apt texlive-latex-base)")

LOG = r"""This is pdfTeX, Version 3.141592653-2.6-1.40.24 (TeX Live 2022/Debian) (preloaded format=pdflatex)
TB:T:b2:120.5pt:100.0pt:30.0pt:20.0pt
Overfull \hbox (12.34pt too wide) in paragraph at lines 10--12
Underfull \hbox (badness 10000) in paragraph at lines 14--15
Underfull \vbox (badness 10000) has occurred while \output is active []
Overfull \vbox (3.0pt too high) has occurred while \output is active
Output written on page.pdf (2 pages, 34567 bytes).
"""


def test_parse_log_counts_boxes_pages_and_messages() -> None:
    log = parse_log(LOG)
    assert log.errors == []
    assert log.overfull == [12.34, 3.0]
    assert log.underfull == 2
    assert log.pages == 2
    assert log.messages == ["TB:T:b2:120.5pt:100.0pt:30.0pt:20.0pt"]


def test_parse_log_reads_both_error_styles() -> None:
    log = parse_log("./page.tex:7: Undefined control sequence.\nl.7 a \\foo\n\n! Emergency stop.\n")
    assert log.errors == [r"line 7: Undefined control sequence. (at: a \foo)", "Emergency stop."]


MINI = "\\documentclass{article}\\begin{document}%s\\end{document}\n"


@needs_tex
def test_a_good_document_compiles_to_pdf_with_its_page_count() -> None:
    res = run_pdflatex(MINI % r"\typeout{TB:hi}a\newpage b")
    assert res.pdf is not None and res.pdf.startswith(b"%PDF")
    assert res.pages == 2
    assert res.log.messages == ["TB:hi"]


@needs_tex
def test_overfull_boxes_are_reported() -> None:
    res = run_pdflatex(MINI % r"\hbox to 10pt{\vrule width 40pt}")
    assert res.log.overfull == [30.0]


@needs_tex
def test_errors_raise_one_line() -> None:
    with pytest.raises(LatexError, match=r"^pdflatex failed: line 2: Undefined control sequence\. \(at: x \\nosuchmacro\)$"):
        run_pdflatex(MINI % "\nx \\nosuchmacro y\n")


@needs_tex
def test_files_outside_the_temp_dir_cannot_be_read() -> None:
    with pytest.raises(LatexError, match="not found"):  # openin_any=p refuses absolute paths
        run_pdflatex(MINI % r"\input{/etc/hostname}")


@needs_tex
def test_a_runaway_document_is_killed_at_the_timeout() -> None:
    start = time.perf_counter()
    with pytest.raises(LatexError, match="timed out after 1 s"):
        run_pdflatex(MINI % r"\loop\iftrue\repeat", timeout=1)
    assert time.perf_counter() - start < 5


@needs_tex
def test_same_source_gives_identical_pdf_bytes() -> None:
    assert run_pdflatex(MINI % "same").pdf == run_pdflatex(MINI % "same").pdf


@needs_tex
def test_a_log_bomb_is_stopped_by_the_file_size_limit() -> None:
    """The runner's second layer: a loop flooding the log dies at the size limit, not the disk."""
    flood = r"\documentclass{article}\begin{document}\loop\typeout{" + "x" * 200 + r"}\iftrue\repeat\end{document}"
    started = time.perf_counter()
    with pytest.raises(LatexError, match="status|failed"):
        run_pdflatex(flood, timeout=60)
    assert time.perf_counter() - started < 30
