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

from tablebench.tex.regions import MATH_ENVS, TABULAR_ENVS

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
ENVIRONMENTS = TABULAR_ENVS | MATH_ENVS | frozenset({
    "threeparttable", "tablenotes", "minipage", "center", "flushleft", "flushright",
    "small", "footnotesize", "scriptsize", "tiny", "normalsize", "large", "itemize", "enumerate",
    "adjustbox", "makecell", "sideways", "spacing", "singlespace",
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
    if name.startswith("XeTeX"):  # \XeTeXpdffile "/abs/file.pdf" embeds any file xelatex can read
        return "XeTeX primitive (file access, font loading)"
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
    r"cs[gex]?def|csletcs|cslet|letcs|AtBeginDocument|AtEndDocument|"
    r"DeclarePairedDelimiter(?:X|XPP)?|(?:new|renew|use)tagform|newtheorem|newcolumntype|"
    r"Declare(?:Math|Symbol|Font|Text|Option)[A-Za-z]*|"
    r"setcounter|addtocounter|stepcounter|refstepcounter)(?![A-Za-z@])"
)
# Sizes no table or formula needs: a box or kern this big leaves no page to print on.
MAX_DIMENSION_PT = 1000.0  # an A4 page is 845 pt tall
_PT_PER = {"pt": 1.0, "pc": 12.0, "in": 72.27, "bp": 72.27 / 72, "cm": 72.27 / 2.54, "mm": 72.27 / 25.4,
           "dd": 1238 / 1157, "cc": 12 * 1238 / 1157, "sp": 1 / 65536, "em": 10.0, "ex": 4.3, "mu": 10 / 18}
_DIMENSION = re.compile(r"(?<![\w.])(\d+(?:\.\d*)?|\.\d+)(pt|pc|in|bp|cm|mm|dd|cc|sp|em|ex|mu)(?![A-Za-z])")
_SIZED = re.compile(r"\\(?:(kern|mkern|hskip|vskip|mskip|raise|lower|moveleft|moveright|hbox|vbox)(?![A-Za-z@])"
                    r"(\s*(?:to)?\s*=?\s*[-+]?\s*(?:[\d.]+\s*[a-z]{2}|[\d.]*\s*\\[A-Za-z]+))|"
                    r"(hspace\*?|vspace\*?|rule|raisebox|makebox|framebox|parbox|resizebox)(?![A-Za-z@])"
                    r"((?:\s*(?:\[[^\[\]{}]*\]|\{[^{}]*\}))*))")
_FACTOR = re.compile(r"(\d+(?:\.\d*)?)\s*\\(?:text|line|column|paper)(?:width|height)|(\d+(?:\.\d*)?)\s*\\[hv]size")
# Nested arguments. Many commands typeset their argument once per math style (`\text`, `\sqrt[3]`,
# `\boldsymbol`, `\overrightarrow`, anything built on \mathchoice or \mathpalette): nested, the work is
# about 4^depth (`\sqrt[3]{` 10 deep: 19 s a compile; 12 deep: past the 60 s timeout). Which commands
# do so depends on packages, so the bound holds for the arguments of any command: 6 levels (4^6 = 4096
# copies, about 2 s at worst), and 40 levels of braces of any kind.
MAX_NESTING = 6
MAX_BRACES = 40
_WORD = re.compile(r"\\([A-Za-z@]+)\s*")
# after these a bracket is a delimiter, not an optional argument
_DELIMITER_SIZERS = frozenset(
    "left right middle big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr bigm Bigm biggm Biggm".split())


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
    return reasons + _oversized(latex) + _nesting(latex)


def _oversized(latex: str) -> list[str]:
    """A `\\maxdimen`, or a dimension over MAX_DIMENSION_PT given to a command that sizes things."""
    if re.search(r"\\maxdimen(?![A-Za-z@])", latex):
        return ["\\maxdimen: a dimension larger than a page"]
    for m in _SIZED.finditer(latex):  # the command's own arguments only
        name, window = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        sizes = [float(d.group(1)) * _PT_PER[d.group(2)] for d in _DIMENSION.finditer(window)]
        sizes += [float(f.group(1) or f.group(2)) * 500 for f in _FACTOR.finditer(window)]  # a page is ~500 pt wide
        if sizes and max(sizes) > MAX_DIMENSION_PT:
            return [f"\\{name}: a dimension larger than a page ({max(sizes):.0f} pt)"]
    return []


def _nesting(latex: str) -> list[str]:
    """Too deep: arguments of commands (`{..}` or `[..]` right after a command name or after
    another of its arguments) nested > MAX_NESTING, or braces of any kind > MAX_BRACES."""
    stack: list[tuple[str, bool]] = []  # per open group: its closing character, is it a command's argument
    after_command = False  # the last thing read was a command name or a command's argument
    deepest = braces = 0
    i, n = 0, len(latex)
    while i < n:
        c = latex[i]
        if c == "\\":
            m = _WORD.match(latex, i)
            if m:
                after_command = m.group(1) not in _DELIMITER_SIZERS
                i = m.end()
            else:
                after_command, i = False, i + 2
            continue
        if c == "{" or (c == "[" and after_command):
            stack.append(("}" if c == "{" else "]", after_command))
            braces = max(braces, sum(1 for close, _ in stack if close == "}"))
            deepest = max(deepest, sum(1 for _, arg in stack if arg))
            after_command = False
        elif c in "}]" and stack and c in (close for close, _ in stack):
            while stack:  # a brace closes any bracket left open inside it
                close, arg = stack.pop()
                if close == c:
                    break
            after_command = arg
        elif not c.isspace():
            after_command = False
        i += 1
    if deepest > MAX_NESTING:
        return [f"nesting: arguments of commands nested {deepest} deep (at most {MAX_NESTING})"]
    if braces > MAX_BRACES:
        return [f"nesting: {braces} levels of braces (at most {MAX_BRACES})"]
    return []
