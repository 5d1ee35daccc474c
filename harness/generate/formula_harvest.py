"""Harvest formulas from LaTeX sources into a formula pool (`tablebench harvest SRC --formulas --out F.jsonl`).

Sources are read as for tables (`harvest.iter_sources`: .tex files, arXiv archives, folders;
archives never extracted). Per file: comments dropped, the file's own simple macros expanded
(`readers/latex_macros.py`, bounded), then one left-to-right scan of the document body takes
every inline formula (`$..$`, `\\(..\\)`) and display formula (`$$..$$`, `\\[..\\]`, and the
`equation`, `align`, `gather`, `multline` environments, starred or not; `eqnarray` is left
out, its `&=&` columns do not survive as an `aligned` body). Math nested in a formula
(`\\text{..$x$..}`) belongs to that formula. Labels, tags and `\\nonumber` are dropped;
formulas shorter than 3 characters (`$n$`, `$i$`), which would crowd out everything else,
and duplicates are refused with the reason. Then `formula_pool.vet_formulas` refuses unsafe
LaTeX before compiling and compiles the rest in batches.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from harness.generate.formula_pool import Formula, split_delimiters, vet_formulas
from harness.generate.harvest import iter_sources
from harness.generate.pool import Rejected
from harness.tex.macros import Expander, MacroExpansionError, find_macros

MAX_FORMULA_CHARS = 20_000  # after macro expansion
MIN_CHARS = 3
DISPLAY_ENVS = ("equation", "align", "gather", "multline")
_COMMENT = re.compile(r"(?<!\\)%[^\n]*")
_BEGIN = re.compile(r"\\begin\{(" + "|".join(DISPLAY_ENVS) + r"|displaymath)(\*?)\}")


@dataclass
class FormulaHarvest:
    kept: list[Formula]
    rejected: list[Rejected]
    files: int

    def counts(self) -> dict[str, int]:
        c = Counter(r.reason for r in self.rejected)
        kinds = Counter(f.kind for f in self.kept)
        return {"kept inline": kinds["inline"], "kept display": kinds["display"],
                **dict(sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))}


def _closing_dollar(text: str, i: int) -> int:
    """Index of the unescaped `$` closing an inline formula that opened before `i`, or -1."""
    while True:
        j = text.find("$", i)
        if j < 0:
            return -1
        k = j - 1
        backslashes = 0
        while k >= 0 and text[k] == "\\":
            backslashes += 1
            k -= 1
        if backslashes % 2 == 0:
            return j
        i = j + 1


def find_formulas(body: str) -> list[tuple[str, str]]:
    """(formula with its delimiters, kind) of every top-level formula of `body`, in order."""
    out: list[tuple[str, str]] = []
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c == "\\":
            m = _BEGIN.match(body, i)
            if m:
                env = m.group(1) + m.group(2)
                end = body.find(f"\\end{{{env}}}", m.end())
                if end < 0:
                    break
                stop = end + len(f"\\end{{{env}}}")
                inner = body[m.end() : end]
                out.append((f"\\[{inner}\\]" if m.group(1) == "displaymath" else body[i:stop], "display"))
                i = stop
                continue
            pair = {"[": ("\\]", "display"), "(": ("\\)", "inline")}.get(body[i + 1 : i + 2])
            if pair:
                end = body.find(pair[0], i + 2)
                if end < 0:
                    break
                out.append((body[i : end + 2], pair[1]))
                i = end + 2
                continue
            i += 2  # an escaped character or a command: never a delimiter
            continue
        if c == "$":
            if body.startswith("$$", i):
                end = body.find("$$", i + 2)
                if end < 0:
                    break
                out.append((body[i : end + 2], "display"))
                i = end + 2
                continue
            end = _closing_dollar(body, i + 1)
            if end < 0:
                break
            out.append((body[i : end + 1], "inline"))
            i = end + 1
            continue
        i += 1
    return out


def extract_formulas(text: str) -> list[tuple[str, str, str | None]]:
    """(formula, kind, refusal or None) per formula of one .tex file, own macros expanded."""
    text = _COMMENT.sub("", text)
    macros = find_macros(text)
    at = text.find("\\begin{document}")
    body = text[at + len("\\begin{document}") :] if at >= 0 else text
    out: list[tuple[str, str, str | None]] = []
    for latex, kind in find_formulas(body):
        try:
            out.append((Expander(macros, MAX_FORMULA_CHARS).expand(latex), kind, None))
        except MacroExpansionError as exc:
            out.append((latex, kind, str(exc)))
    return out


def harvest_formulas(src: Path | str) -> FormulaHarvest:
    """Formulas of every .tex under `src`: found, deduplicated, vetted and compiled."""
    src = Path(src)
    sources = iter_sources(src)
    if not sources:
        raise ValueError(f"{src}: no .tex, .tar.gz or .gz sources found")
    candidates: list[tuple[str, str | None, str]] = []
    rejected: list[Rejected] = []
    seen: set[tuple[str, str]] = set()
    for name, text in sources:
        for i, (latex, kind, refusal) in enumerate(extract_formulas(text)):
            where = f"{name}#{i}"
            if refusal:
                rejected.append(Rejected(where, "macro expansion", refusal))
                continue
            body, _ = split_delimiters(latex)
            if len(re.sub(r"\s", "", body)) < MIN_CHARS:
                rejected.append(Rejected(where, "trivial", f"shorter than {MIN_CHARS} characters"))
                continue
            if (body, kind) in seen:
                rejected.append(Rejected(where, "duplicate", "the same formula was harvested before"))
                continue
            seen.add((body, kind))
            candidates.append((latex, kind, where))
    kept, refused = vet_formulas(candidates)
    return FormulaHarvest(kept, rejected + refused, len(sources))


def write_formula_pool(formulas: list[Formula], out: Path | str) -> None:
    """The pool JSONL: the math body, its kind and where it came from."""
    lines = [json.dumps({"latex": f.body, "kind": f.kind, "source": f.source}, ensure_ascii=False) for f in formulas]
    Path(out).write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def run_formula_harvest(args) -> int:
    """`tablebench harvest SRC --formulas --out pool.jsonl`: harvest, write, print counts by reason."""
    from harness.generate.harvest import print_harvest

    report = harvest_formulas(Path(args.src))
    write_formula_pool(report.kept, args.out)
    print_harvest(report, f"harvest --formulas {args.src}: {report.files} .tex files -> {args.out}", "formulas",
                  verbose=getattr(args, "verbose", False))
    return 0
