"""Reject LaTeX that could touch files, run commands or re-tokenise itself, before compiling.

Used on every table that does not come from our own generator (JSONL pools, harvest). The
check is lexical and deliberately conservative. Names can be built at run time only through
`\\csname` and its wrappers (`\\UseName`, expl3's `\\use:c`, and `\\begin{NAME}`, which
calls `\\NAME`), so those are refused: `\\csname`, `\\UseName`, `\\ExplSyntaxOn`, `^^`
escapes, and any environment not on a short allowlist of the ones tables use. What is left
is scanning control-sequence names: the forbidden list, every pdfTeX `\\pdf...` primitive
(PDF actions, file access), and any name that mentions input or include. Comments are
scanned too (a false rejection is cheap, a missed one is not). pdflatex itself runs with
`openin_any=p`, `openout_any=p`, no shell escape and a file-size limit as a second layer.
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
    **{n: "builds command names at run time" for n in (
        "UseName", "ExplSyntaxOn", "ExplSyntaxOff", "ExpandArgs", "cs", "lowercase", "uppercase",
    )},
    **{n: "floods the log" for n in ("typeout", "message", "wlog", "loop")},
    **{n: "ends or restructures the document" for n in (
        "end{document}", "begin{document}", "dump", "batchmode", "nonstopmode", "scrollmode",
        "errorstopmode", "jobname",
    )},
}

_CS = re.compile(r"\\([A-Za-z@]+)(\s*18)?|\\.", re.S)
_ENV = re.compile(r"\\(begin|end)(?![A-Za-z@])(\s*\{([A-Za-z*]+)\})?")
# Environments a table may open; any other \begin{X} calls \X, which could be anything.
ENVIRONMENTS = frozenset({
    "tabular", "tabular*", "tabularx", "tabulary", "array", "longtable", "longtable*", "NiceTabular",
    "tblr", "threeparttable", "tablenotes", "minipage", "center", "flushleft", "flushright",
    "small", "footnotesize", "scriptsize", "tiny", "normalsize", "large", "itemize", "enumerate",
    "math", "displaymath", "equation", "equation*", "align", "align*", "gathered", "aligned",
    "cases", "matrix", "pmatrix", "bmatrix", "vmatrix", "smallmatrix", "adjustbox", "makecell",
    "sideways", "spacing", "singlespace",
})


class UnsafeLatexError(ValueError):
    """The LaTeX uses a command that reads or writes files, runs programs or re-tokenises."""


def find_unsafe(latex: str) -> list[str]:
    """Every refusal reason, e.g. `\\input: reads a file`, in order of first appearance."""
    reasons: list[str] = []
    if "^^" in latex:
        reasons.append("^^: character-code escape can spell forbidden commands")
    found: list[tuple[int, str]] = []
    for m in _CS.finditer(latex):
        name = m.group(1)
        if name is None:
            continue
        key, why = name, _why(name)
        if name == "write" and m.group(2):  # \write18 is scanned as \write + 18
            key, why = "write18", FORBIDDEN["write18"]
        if why:
            found.append((m.start(), f"\\{key}: {why}"))
    for m in _ENV.finditer(latex):
        env = m.group(3)
        if env is None:
            found.append((m.start(), f"\\{m.group(1)}: environment name not plain letters (it is built at run time)"))
        elif env == "document":
            found.append((m.start(), f"\\{m.group(1)}{{document}}: {FORBIDDEN['end{document}']}"))
        elif env not in ENVIRONMENTS:
            found.append((m.start(), f"\\begin{{{env}}}: environment not allowed in a table (it calls \\{env})"))
    for _, reason in sorted(found):
        if reason not in reasons:
            reasons.append(reason)
    return reasons


def _why(name: str) -> str | None:
    """Why the control sequence `name` is refused, or None."""
    if name in FORBIDDEN:
        return FORBIDDEN[name]
    if name.startswith("pdf"):
        return "pdfTeX primitive (PDF actions, file access)"
    lowered = name.lower()
    if "input" in lowered or "include" in lowered:
        return "reads a file"
    return None


def check_latex(latex: str) -> None:
    """Raise `UnsafeLatexError` naming the first forbidden command; return None when safe."""
    reasons = find_unsafe(latex)
    if reasons:
        more = f" (+{len(reasons) - 1} more)" if len(reasons) > 1 else ""
        raise UnsafeLatexError(f"unsafe LaTeX refused before compiling: {reasons[0]}{more}")


# Definitions of any kind: a table that defines or assigns globally changes what follows it.
_DEFINES = re.compile(
    r"\\(def|edef|gdef|xdef|let|futurelet|newcommand|renewcommand|providecommand|"
    r"DeclareRobustCommand|newenvironment|renewenvironment|provideenvironment|DeclareMathOperator|"
    r"newcount|newdimen|newskip|newmuskip|newbox|newtoks|newlength|newsavebox|newif|newcounter|"
    r"global|afterassignment|aftergroup|protected|long|outer|font|"
    r"chardef|mathchardef|countdef|dimendef|skipdef|muskipdef|toksdef|"
    r"(?:New|Renew|Provide|Declare)(?:Expandable)?Document(?:Command|Environment)|"
    r"(?:New|Renew|Declare)CommandCopy|(?:new|renew|provide)robustcmd|robustify|"
    r"cs[gex]?def|csletcs|cslet|letcs|AtBeginDocument|AtEndDocument)(?![A-Za-z@])"
)
# Commands whose printed text our reader cannot know: the PDF would differ from the ground truth.
_UNKNOWABLE = re.compile(
    r"\\(romannumeral|number|the|string|meaning|detokenize|unexpanded|expandafter|noexpand|"
    r"fontname|show|showthe|showbox|showlists|showtokens)(?![A-Za-z@])"
)


def unsafe_reasons(latex: str) -> list[str]:
    """Why `latex` must not be compiled: `safety.find_unsafe` plus macro definitions."""
    reasons = find_unsafe(latex)
    for m in _DEFINES.finditer(latex):
        why = f"\\{m.group(1)}: defines or assigns globally inside the table"
        if why not in reasons:
            reasons.append(why)
    for m in _UNKNOWABLE.finditer(latex):
        why = f"\\{m.group(1)}: prints text the ground truth cannot know"
        if why not in reasons:
            reasons.append(why)
    return reasons
