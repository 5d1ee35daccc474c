"""The unsafe-LaTeX checker: what it refuses, why, and what it lets through."""

from __future__ import annotations

import pytest

from tablebench.tex.safety import UnsafeLatexError, check_latex, find_unsafe

SAFE = r"""\begin{tabular}{lcc}\toprule Method & Acc. ($\uparrow$) & F1 \\ \midrule
\multirow{2}{*}{CNN} & \textbf{71.2} $\pm$ 0.3 & 64.0\% \\ & -- & $\alpha_{1}$ \\ \bottomrule\end{tabular}"""


@pytest.mark.parametrize(
    ("latex", "reason"),
    [
        (r"a & \input{/etc/passwd} \\", r"\input: reads a file"),
        (r"\include{chapter}", r"\include: reads a file"),
        (r"\openin5=secret", r"\openin: reads a file"),
        (r"\immediate\openout3=x.tex", r"\immediate: writes a file"),
        (r"\openout3=x.tex", r"\openout: writes a file"),
        (r"\write18{rm -rf /}", r"\write18: runs a command"),
        (r"\write 18{ls}", r"\write18: runs a command"),
        (r"\catcode`\@=11", r"\catcode: changes how TeX reads input"),
        (r"\csname input\endcsname{x}", r"\csname: changes how TeX reads input"),
        (r"\scantokens{\input x}", r"\scantokens: changes how TeX reads input"),
        (r"\includegraphics{fig.pdf}", r"\includegraphics: reads a file"),
        (r"x \end{document}", r"\end{document}: ends or restructures the document"),
        (r"\directlua{os.execute('ls')}", r"\directlua: runs a command"),
        (r'\XeTeXpdffile "/abs/file.pdf" ', r"\XeTeXpdffile: XeTeX primitive (file access, font loading)"),
        (r'\XeTeXpicfile "/abs/a.png"', r"\XeTeXpicfile: XeTeX primitive (file access, font loading)"),
    ],
)
def test_dangerous_commands_are_refused_with_their_reason(latex: str, reason: str) -> None:
    assert find_unsafe(latex)[0] == reason
    with pytest.raises(UnsafeLatexError, match="refused before compiling"):
        check_latex(latex)


def test_caret_escapes_are_refused_because_they_can_spell_commands() -> None:
    assert find_unsafe(r"\inp^^75t{x}")[0].startswith("^^")


def test_a_real_results_table_passes() -> None:
    assert find_unsafe(SAFE) == []
    assert check_latex(SAFE) is None


def test_names_that_merely_start_like_forbidden_ones_pass() -> None:
    # \writer and \textit are fine: names are matched whole ...
    assert find_unsafe(r"\writer \textit{read} \end{tabular}") == []
    # ... but any name mentioning input/include is refused (a false rejection is cheap)
    assert find_unsafe(r"\inputlineno") == [r"\inputlineno: reads a file"]


@pytest.mark.parametrize("latex", [
    r"\begin{input}{f}",                    # \begin{X} calls \X
    r"\begin{\x\y}",                        # an environment name built from macros
    r"\begin{{input}}",
    r"\UseName{input}{f}",                  # \csname under another name
    r"\ExplSyntaxOn\use:c{input}{f}",       # expl3's \use:c
    r"\pdfcatalog{/OpenAction<</S/JavaScript/JS(app.alert(1))>>}",  # an action in the PDF
    r"\pdfannot{/Subtype/Link/A<</S/Launch/F(x)>>}",
    r"\pdfmapfile{+evil.map}",
    r"\adjincludegraphics{secret}",
    r"\end {document}",
    r"\loop\typeout{flood}\iftrue\repeat",  # a log bomb
])
def test_known_bypasses_are_refused(latex: str) -> None:
    assert find_unsafe(latex), latex


def test_tables_own_environments_pass() -> None:
    table = r"\begin{tabular*}{\linewidth}{@{}lc@{}} \begin{tabular}{c} a \end{tabular} & $x$ \\ \end{tabular*}"
    assert find_unsafe(table) == []


def test_escaped_backslash_does_not_hide_a_command() -> None:
    assert find_unsafe(r"a \\\input x") == [r"\input: reads a file"]
    assert find_unsafe(r"a \\ input x") == []


def test_every_reason_is_listed_once_in_order() -> None:
    got = find_unsafe(r"\input a \input b \openout1 \catcode 1")
    assert got == [r"\input: reads a file", r"\openout: writes a file", r"\catcode: changes how TeX reads input"]
    with pytest.raises(UnsafeLatexError, match=r"\(\+2 more\)"):
        check_latex(r"\input a \input b \openout1 \catcode 1")


def test_nesting_is_bounded_for_the_arguments_of_any_command() -> None:
    from tablebench.tex.safety import MAX_NESTING, unsafe_reasons

    def nested(command: str, depth: int) -> str:
        return command + "{" + (nested(command, depth - 1) if depth > 1 else "x") + "}"

    for command in ("\\sqrt[3]", "\\boldsymbol", "\\overrightarrow", "\\frac{1}", "\\mycommand"):
        assert unsafe_reasons(nested(command, MAX_NESTING)) == [], command
        assert unsafe_reasons(nested(command, MAX_NESTING + 1)) == [
            f"nesting: arguments of commands nested {MAX_NESTING + 1} deep (at most {MAX_NESTING})"], command
