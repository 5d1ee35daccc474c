"""Reject LaTeX that could touch files, run commands or re-tokenise itself, before compiling.

Used on every table that does not come from our own generator (JSONL pools, harvest). The
check is lexical and deliberately conservative: with `\\catcode`, `\\csname`, `\\scantokens`
and `^^` escapes forbidden, a dangerous primitive can only be reached by writing its name,
so scanning control-sequence names is enough. Comments are scanned too (a false rejection
is cheap, a missed one is not).
"""

from __future__ import annotations

import re

# name -> why it is refused
FORBIDDEN: dict[str, str] = {
    **{n: "reads a file" for n in (
        "input", "include", "includeonly", "InputIfFileExists", "IfFileExists", "@input",
        "@@input", "openin", "read", "readline", "closein", "newread", "verbatiminput",
        "lstinputlisting", "includegraphics", "includepdf", "pdfximage", "pdfrefximage",
        "pdffilesize", "pdffilemoddate", "pdffiledump", "pdfmdfivesum", "usepackage",
        "RequirePackage", "documentclass", "LoadClass", "bibliography", "import", "subimport",
        "inputminted", "endinput",
    )},
    **{n: "writes a file" for n in (
        "openout", "write", "closeout", "newwrite", "immediate", "special", "pdfliteral",
        "pdfobj", "pdfsavepos", "shipout", "output", "protected@write", "addtocontents",
    )},
    **{n: "runs a command" for n in ("write18", "ShellEscape", "directlua", "latelua", "pdfprimitive")},
    **{n: "changes how TeX reads input" for n in (
        "catcode", "lccode", "uccode", "csname", "endcsname", "scantokens", "makeatletter",
        "makeatother", "endlinechar", "newlinechar", "everyeof", "everyjob", "everypar",
        "everyhbox", "everyvbox", "everymath", "everydisplay", "everycr",
    )},
    **{n: "ends or restructures the document" for n in (
        "end{document}", "begin{document}", "dump", "batchmode", "nonstopmode", "scrollmode",
        "errorstopmode", "jobname",
    )},
}

_CS = re.compile(r"\\([A-Za-z@]+)(\{document\})?(\s*18)?|\\.", re.S)


class UnsafeLatexError(ValueError):
    """The LaTeX uses a command that reads or writes files, runs programs or re-tokenises."""


def find_unsafe(latex: str) -> list[str]:
    """Every refusal reason, e.g. `\\input: reads a file`, in order of first appearance."""
    reasons: list[str] = []
    if "^^" in latex:
        reasons.append("^^: character-code escape can spell forbidden commands")
    for m in _CS.finditer(latex):
        name = m.group(1)
        if name is None:
            continue
        key = f"{name}{{document}}" if m.group(2) and name in ("begin", "end") else name
        why = FORBIDDEN.get(key)
        if name == "write" and m.group(3):  # \write18 is scanned as \write + 18
            key, why = "write18", FORBIDDEN["write18"]
        if why:
            reason = f"\\{key}: {why}"
            if reason not in reasons:
                reasons.append(reason)
    return reasons


def check_latex(latex: str) -> None:
    """Raise `UnsafeLatexError` naming the first forbidden command; return None when safe."""
    reasons = find_unsafe(latex)
    if reasons:
        more = f" (+{len(reasons) - 1} more)" if len(reasons) > 1 else ""
        raise UnsafeLatexError(f"unsafe LaTeX refused before compiling: {reasons[0]}{more}")
