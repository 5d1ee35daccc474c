"""Harvest: top-level tabulars from .tex folders and arXiv archives, cleaned, vetted, measured."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from pathlib import Path

import pytest

from harness.cli import main
from harness.generate.harvest import (
    expand_macros,
    extract_tables,
    find_macros,
    harvest,
    iter_sources,
)
from harness.generate.latex_runner import have_pdflatex
from harness.readers.latex import read_latex

needs_tex = pytest.mark.skipif(not have_pdflatex(), reason="pdflatex is not installed (apt texlive-latex-base)")

PAPER = r"""\documentclass{article}
\usepackage{booktabs}
\newcommand{\best}[1]{\textbf{#1}}
\newcommand\ours{OurNet}
\DeclareMathOperator{\Acc}{Acc}
\def\na{--}
\begin{document}
Some text \cite{x}, see Table~\ref{tab:r}.
\begin{table}
\centering
\caption{Results.\label{tab:r}}
\begin{tabular}{lcc}
\toprule
Method & $\Acc$ & F1 \\
\midrule
ResNet~\cite{he2016} & 71.2\tnote{a} & 65.0\footnote{Approximate.} \\
\ours & \best{75.3} & \na \\
\bottomrule
\end{tabular}
\end{table}
% \begin{tabular}{c} commented out \end{tabular}
\begin{tabular}{cc}
\multicolumn{2}{c}{Head} \\ a & b \\
\end{tabular}
\begin{tabular}{c}
\begin{tabular}{c} inner \\ nested \end{tabular} \\ outer \\
\end{tabular}
\begin{tabular}{c} \input{/etc/passwd} \\ \end{tabular}
\begin{tabular}{c} \def\x{1}\x \\ \end{tabular}
\begin{tabular}{cc} a & \nosuchmacro \\ \end{tabular}
\end{document}
"""

SECTION = r"""\begin{tabular}{ll}
\hline
\multirow{2}{*}{Group} & \makecell{x \\ x'} \\
 & y \\
\hline
\end{tabular}
"""


def _tex_folder(root: Path) -> Path:
    (root / "sec").mkdir(parents=True)
    (root / "paper.tex").write_text(PAPER, encoding="utf-8")
    (root / "sec" / "more.tex").write_text(SECTION, encoding="utf-8")
    (root / "notes.txt").write_text(r"\begin{tabular}{c} not tex \end{tabular}", encoding="utf-8")
    return root


def _archive(path: Path) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, text in (("paper.tex", PAPER), ("sec/more.tex", SECTION), ("fig.png", "x")):
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_tables_are_cleaned_and_macros_expanded() -> None:
    tables = extract_tables(PAPER)
    assert len(tables) == 6  # the commented one is gone; the nested one counts once
    good = tables[0]
    for gone in (r"\cite", r"\caption", r"\label", r"\footnote", r"\tnote", r"\ours", r"\best", r"\Acc", r"\na", "~"):
        assert gone not in good, gone
    assert r"\textbf{75.3}" in good and "OurNet" in good and r"\operatorname{Acc}" in good
    cells = read_latex(good)[0].to_html()
    assert "ResNet" in cells and "[?]" not in cells and "Approximate" not in cells
    assert tables[2].count(r"\begin{tabular}") == 2 and "outer" in tables[2]


def test_macro_expansion_details() -> None:
    macros = find_macros(r"\newcommand{\pct}[2][\%]{#2#1}\newcommand\g{\gamma}\newcommand\gg{\g\g}")
    assert expand_macros(r"\pct{5} \pct[pt]{3} \gg x", macros) == r"5\% 3pt \gamma \gamma x"
    runaway = find_macros(r"\newcommand\a{\a\a}")
    assert len(expand_macros(r"\a", runaway)) < 1000  # bounded: pdflatex or the checks refuse it


def test_sources_from_folder_archive_and_gzipped_tex(tmp_path) -> None:
    folder = _tex_folder(tmp_path / "src")
    _archive(folder / "2401.00001.tar.gz")
    (folder / "2401.00002.gz").write_bytes(gzip.compress(SECTION.encode()))
    (folder / "2401.00003").write_bytes(gzip.compress(PAPER.encode()))  # as arXiv names downloads
    names = [name for name, _ in iter_sources(folder)]
    assert names == ["2401.00001.tar.gz:paper.tex", "2401.00001.tar.gz:sec/more.tex", "2401.00002.gz",
                     "2401.00003", "paper.tex", "sec/more.tex"]
    with pytest.raises(ValueError, match="not found"):
        iter_sources(tmp_path / "missing")
    (tmp_path / "bad.tar.gz").write_bytes(b"not an archive")
    with pytest.raises(ValueError, match="bad.tar.gz"):
        iter_sources(tmp_path / "bad.tar.gz")


@needs_tex
@pytest.mark.parametrize("kind", ["folder", "archive"])
def test_harvest_keeps_good_tables_and_rejects_with_reasons(tmp_path, kind) -> None:
    folder = _tex_folder(tmp_path / "src")
    src = folder if kind == "folder" else _archive(tmp_path / "2401.00001.tar.gz")
    report = harvest(src)
    assert report.files == 2
    assert report.counts() == {"kept": 4, "compile failure": 1, "unsafe \\def": 1, "unsafe \\input": 1}
    prefix = "" if kind == "folder" else "2401.00001.tar.gz:"
    by_source = {t.source: t for t in report.kept}
    assert set(by_source) == {f"{prefix}paper.tex#0", f"{prefix}paper.tex#1", f"{prefix}paper.tex#2",
                              f"{prefix}sec/more.tex#0"}
    assert by_source[f"{prefix}paper.tex#0"].complexity == "simple"
    assert by_source[f"{prefix}paper.tex#1"].complexity == "moderate"
    assert by_source[f"{prefix}sec/more.tex#0"].complexity == "moderate"
    assert all(t.width > 20 and t.height > 10 for t in report.kept)
    reasons = {r.source: r.detail for r in report.rejected}
    assert "Undefined control sequence" in reasons[f"{prefix}paper.tex#5"]
    assert reasons[f"{prefix}paper.tex#3"] == r"\input: reads a file"


@needs_tex
def test_cli_writes_a_pool_that_generate_accepts(tmp_path, capsys) -> None:
    folder = _tex_folder(tmp_path / "src")
    (folder / "copy.tex").write_text(SECTION, encoding="utf-8")  # the same table twice
    out = tmp_path / "pool.jsonl"
    assert main(["harvest", str(folder), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "kept" in printed and "rejected: duplicate" in printed and "rejected: unsafe \\input" in printed
    entries = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(entries) == 4
    assert all(set(e) == {"latex", "complexity", "source", "width", "height"} for e in entries)
    assert main(["harvest", str(tmp_path / "nothing-here"), "--out", str(out)]) == 1
    assert "not found" in capsys.readouterr().err
