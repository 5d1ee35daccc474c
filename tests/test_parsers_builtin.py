"""The four offline built-ins, run for real on a pdflatex page and on the shared sample."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tablebench.parse import resolve
from tablebench.parse.runner import ParseRunner
from tablebench.readers.html import read_html

PAGE = r"""\documentclass{article}
\usepackage{booktabs}
\pagestyle{empty}
\begin{document}
Intro paragraph before the tables.

\begin{center}
\begin{tabular}{lrr}
\toprule
Model & Acc & F1 \\
\midrule
Alpha & 91.2 & 88.0 \\
Beta & 85.4 & 80.1 \\
\bottomrule
\end{tabular}
\end{center}

Text between the two tables.

\begin{center}
\begin{tabular}{|l|c|c|}
\hline
City & Year & Count \\
\hline
Oslo & 2019 & 42 \\
\hline
Lima & 2020 & 17 \\
\hline
\end{tabular}
\end{center}

Closing words after the tables.
\end{document}
"""
BOOKTABS = [["Model", "Acc", "F1"], ["Alpha", "91.2", "88.0"], ["Beta", "85.4", "80.1"]]
RULED = [["City", "Year", "Count"], ["Oslo", "2019", "42"], ["Lima", "2020", "17"]]


@pytest.fixture(scope="module")
def page_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-page PDF with a booktabs table and an \\hline-ruled one, made by pdflatex."""
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is missing: install texlive-latex-recommended (./dev.sh setup)")
    folder = tmp_path_factory.mktemp("latex")
    (folder / "page.tex").write_text(PAGE)
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "page.tex"],
                          cwd=folder, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:]
    return folder / "page.pdf"


def html_tables(text: str) -> list[list[list[str]]]:
    return [[[c.text for c in row] for row in t.rows] for t in read_html(text)]


def pipe_rows(text: str) -> list[list[str]]:
    """Cells of every Markdown pipe row, separator rows left out."""
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("|") and not set(line) <= set("|-: "):
            rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


def test_pypdf_gives_text_without_structure(page_pdf: Path) -> None:
    out = resolve("pypdf").parse(page_pdf)
    assert "Alpha 91.2 88.0" in out.text and "Oslo 2019 42" in out.text
    assert "|" not in out.text and "<table" not in out.text
    assert out.meta["format"] == "text" and out.meta["cost"] == 0.0 and out.meta["seconds"] > 0


def test_pdfplumber_puts_the_ruled_table_as_html_where_it_stands(page_pdf: Path) -> None:
    text = resolve("pdfplumber").parse(page_pdf).text
    assert html_tables(text) == [RULED]  # the booktabs table has no vertical rules: lines only
    assert "Alpha 91.2 88.0" in text
    order = [text.index(s) for s in ("Intro paragraph", "Alpha", "Text between", "<table>", "Closing words")]
    assert order == sorted(order)


def test_pdfplumber_markdown_option(page_pdf: Path) -> None:
    out = resolve("pdfplumber?tables=markdown").parse(page_pdf)
    assert "| City | Year | Count |\n|---|---|---|\n| Oslo | 2019 | 42 |\n| Lima | 2020 | 17 |" in out.text
    assert out.meta["format"] == "markdown"


def test_pymupdf4llm_gives_both_tables_as_pipe_tables(page_pdf: Path) -> None:
    out = resolve("pymupdf4llm").parse(page_pdf)
    rows = pipe_rows(out.text)
    assert rows == BOOKTABS + RULED
    assert out.text.index("Intro paragraph") < out.text.index("Model") < out.text.index("Closing words")


def test_pymupdf4llm_classic_mode_is_its_own_config(page_pdf: Path) -> None:
    parser = resolve("pymupdf4llm?layout=off")
    assert parser.config == {"layout": "off"} and "layout" not in parser.version
    out = parser.parse(page_pdf)
    assert out.meta["layout"] == "off" and "Alpha" in out.text and "Oslo" in out.text


def test_camelot_lattice_finds_the_ruled_table(page_pdf: Path) -> None:
    out = resolve("camelot").parse(page_pdf)
    assert out.meta["flavor"] == "lattice"
    assert html_tables(out.text) == [RULED]
    assert out.text.index("Text between") < out.text.index("<table>") < out.text.index("Closing words")


def test_camelot_stream_reads_whitespace_tables(page_pdf: Path) -> None:
    out = resolve("camelot?flavor=stream&tables=markdown").parse(page_pdf)
    rows = pipe_rows(out.text)
    assert out.meta["flavor"] == "stream"
    assert BOOKTABS[1] in rows and RULED[1] in rows


@pytest.mark.parametrize("spec", ["pypdf", "pdfplumber", "pymupdf4llm", "pymupdf4llm?layout=off", "camelot"])
def test_builtin_isolated_on_a_shared_sample_page(spec: str, bench_sample_dir: Path, tmp_path: Path) -> None:
    """The real path: worker process, timeout, cache — on a page nobody here wrote."""
    with ParseRunner(spec, tmp_path / "cache", timeout=120) as runner:
        result = runner.run(bench_sample_dir / "pdfs" / "001.pdf")
    assert (result.outcome, result.message, result.parser) == ("ok", "", spec.partition("?")[0])
    assert "CC12M-NegCap" in result.text and result.meta["cost"] == 0.0
