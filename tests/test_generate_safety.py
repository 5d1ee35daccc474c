"""The unsafe-LaTeX checker: what it refuses, why, and what it lets through."""

from __future__ import annotations

import pytest

from harness.generate.safety import UnsafeLatexError, check_latex, find_unsafe

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
    # \inputenc-like prefixes and \textit are fine: names are matched whole
    assert find_unsafe(r"\inputlineno \writer \textit{read} \end{tabular}") == []


def test_escaped_backslash_does_not_hide_a_command() -> None:
    assert find_unsafe(r"a \\\input x") == [r"\input: reads a file"]
    assert find_unsafe(r"a \\ input x") == []


def test_every_reason_is_listed_once_in_order() -> None:
    got = find_unsafe(r"\input a \input b \openout1 \catcode 1")
    assert got == [r"\input: reads a file", r"\openout: writes a file", r"\catcode: changes how TeX reads input"]
    with pytest.raises(UnsafeLatexError, match=r"\(\+2 more\)"):
        check_latex(r"\input a \input b \openout1 \catcode 1")
