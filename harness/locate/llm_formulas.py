"""`--locator llm` for formulas: a model quotes each ground-truth formula's span, re-found literally.

Formulas through the one LLM-locate engine (`tablebench.locate.llm_engine`): the model gets the
page's ground-truth formulas (LaTeX, each marked inline or display) and the parser output, and
returns per formula the verbatim span that represents it (LaTeX in any delimiters, MathML or
Unicode plain text), or "". A span is only a pointer: it is re-found in the output
(`tablebench.locate.refind`: exactly, up to whitespace, or by content alignment at
`min_alignment`), so no match can be invented. Inside the re-found span the formula itself is
read like the offline locator reads it: the math candidate most similar to the ground truth
(MathML converted), or the span as plain text made LaTeX. One request per page; when the model
cannot be reached: the offline locator, with a note saying so.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tablebench.locate.engine import Located, Span
from tablebench.locate.formulas import locate_formulas, math_candidates, plain_to_latex, similarity
from tablebench.locate.llm_engine import locate_llm, spans_schema
from tablebench.locate.refind import MIN_ALIGNMENT, Found

PROMPT_VERSION = "locate-formula-2026.11-1"

SYSTEM_PROMPT = """\
You locate mathematical formulas in the text output of a PDF parser. You receive numbered
ground-truth formulas written in LaTeX, each marked inline (set inside a sentence) or display
(set on its own lines), and the parser's output for the whole page. In the output a formula
may appear as LaTeX with any delimiters ($...$, $$...$$, \\(...\\), \\[...\\], an equation or
align environment), as MathML, or as plain text with Unicode symbols, possibly damaged.

For every ground-truth formula, find the part of the output that is that formula and copy it
verbatim into "span": character for character, including its delimiters or markup. Do not
repair, reformat or translate it. Leave out the surrounding words. If the formula is not in the
output, give an empty string. Never write text that is not in the output.

Answer with only a JSON object: {"formulas": [{"index": <number>, "span": "<verbatim text>"}, ...]}
with one entry per ground-truth formula."""

SCHEMA: dict[str, Any] = spans_schema("formulas")


class FormulaSpans:
    """Formulas for the LLM-locate engine: (LaTeX, inline/display) in the prompt, one request."""

    noun = "formula"
    key = "formulas"
    system_prompt = SYSTEM_PROMPT
    prompt_version = PROMPT_VERSION
    rounds = 1
    fragments = 1  # a formula is one span

    def __init__(self, formulas: list[tuple[str, str]]) -> None:
        self.formulas, self.count = formulas, len(formulas)

    def prepare(self) -> None:
        pass

    def ground_truths(self, pending: list[int]) -> str:
        return "\n".join(f'<formula index="{i}" kind="{self.formulas[i][1]}">{self.formulas[i][0].strip()}</formula>'
                         for i in pending)

    def reader(self, output: str) -> Callable[[int, list[Found]], tuple[Located, list[Span]]]:
        def read(index: int, hits: list[Found]) -> tuple[Located, list[Span]]:
            hit = hits[0]
            return _read_span(index, self.formulas[index][0], output, hit.start, hit.end), [(hit.start, hit.end)]

        return read

    @staticmethod
    def describe(hit: Found) -> str:
        return f"span {'quoted exactly' if hit.how == 'exact' else hit.how}"

    def missing(self, index: int, note: str) -> Located:
        return Located(index, None, None, None, 0.0, note)

    def offline(self, output: str) -> list[Located]:
        return locate_formulas([latex for latex, _ in self.formulas], output)


def locate_formulas_llm(formulas: list[tuple[str, str]], output: str, model: str, *,
                        min_alignment: float = MIN_ALIGNMENT, cache_dir: Path | None = None,
                        **llm_options: Any) -> tuple[list[Located], list[str]]:
    """(one `Located` per (latex, kind) formula, in order; a note per formula, also in `Located.note`)."""
    located = locate_llm(FormulaSpans(formulas), output, model, min_alignment=min_alignment, cache_dir=cache_dir,
                         **llm_options)
    return located, [loc.note for loc in located]


def _read_span(index: int, gt: str, output: str, start: int, end: int) -> Located:
    """The formula inside output[start:end]: its most similar math candidate, else the span as plain text."""
    cands = math_candidates(output[start:end])
    if cands:
        best = max(cands, key=lambda c: similarity(gt, c.latex))
        span = (start + best.span[0], start + best.span[1])
        return Located(index, best.latex, span, best.latex, similarity(gt, best.latex), "", best.source)
    latex = plain_to_latex(output[start:end])
    return Located(index, latex, (start, end), latex, similarity(gt, latex), "", "text")
