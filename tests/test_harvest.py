"""Harvest: top-level tabulars from .tex folders and arXiv archives, cleaned, vetted, measured."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from pathlib import Path

import pytest

from tablebench.cli import main
from tablebench.generate.harvest import extract_tables, harvest
from tablebench.generate.harvest_core import MAX_MEMBER_BYTES, MAX_TOTAL_BYTES, iter_sources
from tablebench.generate.rendered import have_pdftotext
from tablebench.readers.latex import read_latex
from tablebench.tex.macros import MacroExpansionError, expand_macros, find_macros
from tablebench.tex.runner import have_pdflatex

needs_tex = pytest.mark.skipif(not (have_pdflatex() and have_pdftotext()),
                               reason="pdflatex or pdftotext is not installed (apt texlive-latex-base, poppler-utils)")

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
    extracted = extract_tables(PAPER)
    assert [refusal for _, refusal in extracted] == [None] * 6
    tables = [latex for latex, _ in extracted]
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
    with pytest.raises(MacroExpansionError, match=r"recursive macro \\a -> \\a"):
        expand_macros(r"\a", find_macros(r"\newcommand\a{\a\a}"))
    with pytest.raises(MacroExpansionError, match=r"recursive macro \\x -> \\y -> \\x"):
        expand_macros(r"\x", find_macros(r"\def\x{(\y)}\def\y{[\x]}"))
    nested = find_macros(r"\newcommand\b[1]{\textbf{#1}}")
    assert expand_macros(r"\b{\b{x}}", nested) == r"\textbf{\textbf{x}}"  # nesting in arguments is no loop


def _bomb_paper(uses: int = 2000, size: int = 100_000) -> str:
    """The issue's reproducer: one 100 KB macro used 2,000 times in a tabular (106 KB of .tex)."""
    row = r"\big & \big \\" + "\n"
    return (r"\documentclass{article}\newcommand{\big}{" + "x" * size + "}\n\\begin{document}\n"
            r"\begin{tabular}{cc}" + "\n" + row * (uses // 2) + r"\end{tabular}\end{document}")


def test_macro_bomb_is_refused_with_one_line(tmp_path) -> None:
    paper = _bomb_paper()
    assert 100_000 < len(paper) < 120_000
    [(latex, refusal)] = extract_tables(paper)
    assert refusal == "macro expansion makes more than 200000 characters"
    assert len(latex) < len(paper)  # the source table, unexpanded: nothing of 200 MB was built
    (tmp_path / "bomb.tex").write_text(paper, encoding="utf-8")
    report = harvest(tmp_path)  # refused before any compile: no pdflatex needed
    assert report.kept == [] and report.counts() == {"kept": 0, "macro expansion": 1}
    assert "\n" not in report.rejected[0].detail
    recursive = r"\renewcommand{\r}{x\r}\begin{document}\begin{tabular}{c} \r{a} \\ \end{tabular}"
    assert [refusal for _, refusal in extract_tables(recursive)] == [r"recursive macro \r -> \r"]


def test_expansion_counts_substitutions_and_nesting() -> None:
    many = find_macros(r"\newcommand\m{.}")
    with pytest.raises(MacroExpansionError, match="more than 20000 substitutions"):
        expand_macros(r"\m" * 20_001, many)
    assert expand_macros(r"\m" * 20_000, many) == "." * 20_000
    wrap = find_macros(r"\newcommand\w[1]{(#1)}")
    with pytest.raises(MacroExpansionError, match="nested deeper"):
        expand_macros(r"\w{" * 40 + "x" + "}" * 40, wrap)
    doubling = find_macros(r"\def\a{xx}\def\b{\a\a}\def\c{\b\b}\def\d{\c\c}")  # bodies grow 2^k
    with pytest.raises(MacroExpansionError, match="more than 100 characters"):
        expand_macros(r"\d\d\d\d\d\d\d", doubling, max_chars=100)


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


def test_an_archive_of_many_big_members_stops_at_the_total_bound(tmp_path) -> None:
    member = b"%" * MAX_MEMBER_BYTES  # each member within the per-member bound
    count = MAX_TOTAL_BYTES // MAX_MEMBER_BYTES + 2
    bomb = tmp_path / "2401.99999.tar.gz"
    with tarfile.open(bomb, "w:gz", compresslevel=1) as tar:
        for i in range(count):
            info = tarfile.TarInfo(f"part{i:03d}.tex")
            info.size = len(member)
            tar.addfile(info, io.BytesIO(member))
    assert bomb.stat().st_size < MAX_MEMBER_BYTES // 2, "a small archive"
    with pytest.raises(ValueError) as info:
        iter_sources(bomb)  # read every member whole before: 440 MB of text here
    message = str(info.value)
    assert "more than 200 MB of .tex to harvest" in message and "part010.tex" in message and "\n" not in message


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
