"""`--locator llm` for formulas: a model quotes each ground-truth formula's span, re-found literally.

The table LLM locator (`harness.locate.llm`) with a formula prompt: the model gets the page's
ground-truth formulas (LaTeX, each marked inline or display) and the parser output, and
returns per formula the verbatim span that represents it (LaTeX in any delimiters, MathML or
Unicode plain text), or "". A span is only a pointer: it is re-found in the output with
`locate_llm.refind` (exactly, up to whitespace, or by content alignment at `min_alignment`),
so no match can be invented. Inside the re-found span the formula itself is read like the
offline locator reads it: the math candidate most similar to the ground truth (MathML
converted), or the span as plain text made LaTeX. The model cannot be reached: the offline
locator, with a note saying so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.locate.formulas import LocatedFormula, locate_formulas, math_candidates, plain_to_latex, similarity
from harness.core.llm import LLMError, complete
from harness.locate.llm import MIN_ALIGNMENT, refind, spans_schema
from harness.core.messages import one_line

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


def locate_messages(formulas: list[tuple[str, str]], text: str) -> list[dict[str, str]]:
    """The chat messages for (latex, kind) formulas in `text`."""
    items = "\n".join(f'<formula index="{i}" kind="{kind}">{latex.strip()}</formula>'
                      for i, (latex, kind) in enumerate(formulas))
    user = f"Ground-truth formulas:\n{items}\n\nParser output:\n<output>\n{text}\n</output>"
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def read_spans(data: Any, n: int) -> dict[int, str]:
    """index -> span from a parsed answer (unknown indices, empty spans dropped); ValueError when malformed."""
    items = data.get("formulas") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise ValueError("the answer must be an object with a 'formulas' list")  # noqa: TRY004 - re-asks the model
    spans: dict[int, str] = {}
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("index"), int):
            raise ValueError("each entry of 'formulas' must be an object with an integer 'index' and a 'span'")
        span = item.get("span")
        if 0 <= item["index"] < n and isinstance(span, str) and span.strip():
            spans.setdefault(item["index"], span)
    return spans


def locate_formulas_llm(formulas: list[tuple[str, str]], output: str, model: str, *,
                        min_alignment: float = MIN_ALIGNMENT, cache_dir: Path | None = None,
                        **llm_options: Any) -> tuple[list[LocatedFormula], list[str]]:
    """(one `LocatedFormula` per (latex, kind) formula, in order; a note per formula)."""
    gts = [latex for latex, _ in formulas]
    if not formulas:
        return [], []
    if not output.strip():
        return [LocatedFormula(i, None, None, "", 0.0) for i in range(len(gts))], ["the output is empty"] * len(gts)
    try:
        response = complete(model, locate_messages(formulas, output), prompt_version=PROMPT_VERSION, schema=SCHEMA,
                            check=lambda data: read_spans(data, len(formulas)), cache_dir=cache_dir, **llm_options)
    except LLMError as exc:
        note = f"LLM locator failed ({one_line(exc, 200)}): offline locator used"
        return locate_formulas(gts, output), [note] * len(gts)
    located, notes = [], []
    taken: list[tuple[int, int]] = []
    for i, gt in enumerate(gts):
        span = response.data.get(i)
        hit = refind(span, output, taken, min_alignment=min_alignment) if span else None
        if hit is None:
            located.append(LocatedFormula(i, None, None, "", 0.0))
            notes.append("the model found no span for this formula" if not span else
                         f"the model's span is not in the output (below {min_alignment:.0%} alignment)")
            continue
        taken.append((hit.start, hit.end))
        located.append(_read_span(i, gt, output, hit.start, hit.end))
        notes.append(f"LLM locator: span {'quoted exactly' if hit.how == 'exact' else hit.how}")
    return located, notes


def _read_span(index: int, gt: str, output: str, start: int, end: int) -> LocatedFormula:
    """The formula inside output[start:end]: its most similar math candidate, else the span as plain text."""
    cands = math_candidates(output[start:end])
    if cands:
        best = max(cands, key=lambda c: similarity(gt, c.latex))
        return LocatedFormula(index, best.latex, (start + best.span[0], start + best.span[1]), best.source,
                              similarity(gt, best.latex))
    latex = plain_to_latex(output[start:end])
    return LocatedFormula(index, latex, (start, end), "text", similarity(gt, latex))
