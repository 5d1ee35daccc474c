"""The LLM judge: a model rates an extracted table against its LaTeX ground truth on 0-10.

Why a judge: rule metrics (TEDS, GriTS) count characters and tree edits; a reader cares
whether every value still sits under the right headers. The study "Beyond String Matching:
Semantic Evaluation of PDF Table Extraction" found a strict judge that first lists errors
and then scores agrees with human ratings far better than rule metrics. Three prompt
variants are selectable, to measure that sensitivity:

- "tuned": strict evaluator; content accuracy, structure preservation, completeness; the
  test "could a reader who sees only the extraction reconstruct every cell-to-header
  mapping"; up to 5 errors, then the score. Answer `{"errors": [...], "score": n}`.
- "tuned_no_cot": the same instructions, score only (`{"score": n}`).
- "naive": a one-line request for a 0-10 similarity score (`{"score": n}`).

Formulas have their own prompt (`judge_formula`: correctness, completeness, semantic
equivalence; the formula's kind, inline or display, is said; its own prompt version), and so
does a page's prose (`judge_text`: fidelity of the words and reading order, one rating of
both), with the same answer schema, variants, re-asking and cache.

The ground truth goes in as its LaTeX, the extraction as the literal text the locator
matched. An empty extraction scores 0 without a call; an answer without a usable score is
re-asked, then reported as an error with `score=None` — never a silent 0.

Every question is bounded: `budget` wall-clock seconds, its re-sends and re-asks included
(default `DEFAULT_JUDGE_TIMEOUT`; past it: "judge timeout: ..."), and answers of at most
`max_answer_mb` (past it the rest is not read: "judge error: answer over N MB ...").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from tablebench.cases.formulas import FORMULA_KINDS
from tablebench.core.llm import LLMAnswerTooLarge, LLMError, LLMTimeout, complete, concurrency
from tablebench.core.messages import one_line
from tablebench.core.options import DEFAULT_JUDGE_TIMEOUT

PROMPT_VERSION = "judge-2026.11-1"  # bump on any prompt or schema change: it is part of the cache key
VARIANTS = ("tuned", "tuned_no_cot", "naive")
MAX_ERRORS = 5
# what is kept of an answer's errors: the prompt asks for MAX_ERRORS, a judge may list 20,000 (a 20 MB
# result for one table); a few more than asked are kept, each as one line of a bounded length
MAX_KEPT_ERRORS = 10
MAX_ERROR_CHARS = 300
EMPTY_ERROR = "The extraction is empty: no table content was produced."

_CRITERIA = """\
You are a strict evaluator of table extraction from PDF documents. You receive a ground-truth
table written in LaTeX and a table that a PDF parser extracted from the rendered page (as HTML,
Markdown, LaTeX or plain text). Decide how faithfully the extraction represents the ground truth.

Judge on these criteria:
1. Content accuracy: every cell value (numbers, signs, units, symbols, words) is present and
   correct. Rendering differences that do not change meaning are not errors: LaTeX math written
   as Unicode (\\pm as ±, $\\alpha$ as α), removed bold/italic, different escaping or whitespace.
2. Structure preservation: rows and columns are kept; merged cells (multirow, multicolumn) and
   multi-level headers stay unambiguous; no values are shifted into a neighbouring cell, merged
   into one cell, or split across cells.
3. Completeness: no rows, columns or cells are missing, and nothing is added that is not in
   the ground truth.

The decisive test: could a reader who sees only the extraction reconstruct every
cell-to-header mapping of the ground truth, that is, tell for each value which row and which
column headers it belongs to? Loss of that mapping is a severe error even when all the text
is present. Formatting-only differences are minor.

Scale: 10 = equivalent in content and structure; 7-9 = minor issues that do not change any
mapping; 4-6 = some values wrong, missing or mis-assigned, most of the table still usable;
1-3 = severe loss of structure or content; 0 = unrelated, unusable or empty."""

_TUNED = _CRITERIA + f"""

First list the concrete errors you find, most severe first, at most {MAX_ERRORS}, each one
sentence that names the affected cells, rows or columns (an empty list if there are none).
Then give the score as a number from 0 to 10.
Answer with only a JSON object: {{"errors": ["...", ...], "score": <0-10>}}"""

_TUNED_NO_COT = _CRITERIA + """

Give the score as a number from 0 to 10 without any explanation.
Answer with only a JSON object: {"score": <0-10>}"""

_NAIVE = """\
Rate how similar the extracted table is to the ground-truth table, from 0 (completely
different) to 10 (identical). Answer with only a JSON object: {"score": <0-10>}"""

SYSTEM_PROMPTS = {"tuned": _TUNED, "tuned_no_cot": _TUNED_NO_COT, "naive": _NAIVE}

_SCORE = {"type": "number", "description": "0 to 10"}  # no minimum/maximum: not every strict mode takes them
SCHEMAS: dict[str, dict[str, Any]] = {
    "tuned": {"type": "object", "additionalProperties": False, "required": ["errors", "score"],
              "properties": {"errors": {"type": "array", "items": {"type": "string"}}, "score": _SCORE}},
    "tuned_no_cot": {"type": "object", "additionalProperties": False, "required": ["score"],
                     "properties": {"score": _SCORE}},
}
SCHEMAS["naive"] = SCHEMAS["tuned_no_cot"]


@dataclass
class JudgeResult:
    """One judgment. `score` is on 0-10, None when the judge failed (then `error` says why).

    `cost` is what this call spent in USD (0.0 on a cache hit or without a call).
    """

    score: float | None
    errors: list[str] = field(default_factory=list)
    error: str | None = None
    cost: float = 0.0
    cached: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def judge_messages(gt_latex: str, extraction: str, variant: str = "tuned") -> list[dict[str, str]]:
    """The chat messages the judge model sees for one (ground truth, extraction) pair."""
    if variant not in SYSTEM_PROMPTS:
        raise ValueError(f"unknown judge variant {variant!r}; choose one of {', '.join(VARIANTS)}")
    user = (f"Ground-truth table (LaTeX):\n<ground_truth>\n{gt_latex.strip()}\n</ground_truth>\n\n"
            f"Extracted table:\n<extraction>\n{extraction.strip()}\n</extraction>")
    return [{"role": "system", "content": SYSTEM_PROMPTS[variant]}, {"role": "user", "content": user}]


def read_verdict(data: Any, variant: str = "tuned") -> tuple[float, list[str]]:
    """(score, errors) from a parsed answer; ValueError (the reason is shown to the model) otherwise."""
    if not isinstance(data, dict):
        raise ValueError("the answer must be a JSON object with a 'score'")  # noqa: TRY004 - re-asks the model
    score = _number(data.get("score"))
    errors: list[str] = []
    if variant == "tuned":
        raw = data.get("errors", [])
        if isinstance(raw, str):
            raw = [raw]
        if not isinstance(raw, list):
            raise ValueError("'errors' must be a list of strings")
        kept = (text for e in raw if (text := str(e)[:10 * MAX_ERROR_CHARS].strip()))
        errors = [one_line(text, MAX_ERROR_CHARS) for text in islice(kept, MAX_KEPT_ERRORS)]
    return score, errors


def _number(value: Any) -> float:
    if isinstance(value, bool) or value is None:
        raise ValueError(f"'score' must be a number from 0 to 10, got {value!r}")
    if isinstance(value, str):
        text = value.strip().removesuffix("/10").strip()
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"'score' must be a number from 0 to 10, got {value!r}") from None
    if not isinstance(value, (int, float)) or math.isnan(value) or not 0 <= value <= 10:
        raise ValueError(f"'score' must be a number from 0 to 10, got {value!r}")
    return float(value)


def judge_table(gt_latex: str, extraction: str | None, model: str, *, variant: str = "tuned",
                cache_dir: Path | None = None, **llm_options: Any) -> JudgeResult:
    """Rate `extraction` against `gt_latex` with `model` (any litellm model string).

    `llm_options` go to `tablebench.core.llm.complete` (api_base, api_key_env, timeout, retries,
    format_retries, backoff, json_mode, max_tokens, extra, budget, max_answer_mb). Failures come
    back as a result with `score=None` and `error` set; only bad arguments raise.
    """
    if variant not in VARIANTS:
        raise ValueError(f"unknown judge variant {variant!r}; choose one of {', '.join(VARIANTS)}")
    if not isinstance(gt_latex, str) or not gt_latex.strip():
        raise ValueError("judge_table needs the ground-truth table's LaTeX")
    if extraction is None or not str(extraction).strip():
        return JudgeResult(score=0.0, errors=[EMPTY_ERROR])
    return _asked(model, judge_messages(gt_latex, str(extraction), variant), f"{PROMPT_VERSION}/{variant}", variant,
                  cache_dir, llm_options)


def _asked(model: str, messages: list[dict[str, str]], prompt_version: str, variant: str,
           cache_dir: Path | None, llm_options: dict[str, Any]) -> JudgeResult:
    """One judge request of any kind (the verdict schema of `variant`, re-asked until it reads),
    its failure a result with `score=None` and the error, never an exception; within
    `DEFAULT_JUDGE_TIMEOUT` seconds unless `llm_options` give another `budget`."""
    options = {"budget": DEFAULT_JUDGE_TIMEOUT, **llm_options}
    try:
        response = complete(model, messages, prompt_version=prompt_version, schema=SCHEMAS[variant],
                            check=lambda data: read_verdict(data, variant), cache_dir=cache_dir, **options)
    except LLMTimeout as exc:
        return JudgeResult(score=None, error=f"judge timeout: {exc}", cost=exc.cost)
    except LLMAnswerTooLarge as exc:
        return JudgeResult(score=None, error=f"judge error: {exc}", cost=exc.cost)
    except LLMError as exc:
        return JudgeResult(score=None, error=str(exc), cost=exc.cost)
    score, errors = response.data
    return JudgeResult(score=score, errors=errors, cost=response.cost, cached=response.cached)


def judge_many(pairs: Sequence[tuple[str, str | None]], model: str, *, workers: int | None = None,
               variant: str = "tuned", cache_dir: Path | None = None, **llm_options: Any) -> list[JudgeResult]:
    """`judge_table` over (gt_latex, extraction) pairs in threads, results in input order.

    `workers` defaults to the process-wide LLM concurrency limit, which caps requests anyway.
    """
    if variant not in VARIANTS:
        raise ValueError(f"unknown judge variant {variant!r}; choose one of {', '.join(VARIANTS)}")

    def one(pair: tuple[str, str | None]) -> JudgeResult:
        return judge_table(pair[0], pair[1], model, variant=variant, cache_dir=cache_dir, **llm_options)

    with ThreadPoolExecutor(max_workers=max(1, workers or concurrency())) as pool:
        return list(pool.map(one, pairs))


def judge_scorer(pairs: Sequence[tuple[str, str]], model: str, *, variant: str = "tuned",
                 cache_dir: Path | str | None = None, **llm_options: Any) -> tuple[str, Any]:
    """(name, scorer) for `tablebench.evaluate.metaeval.meta_evaluate`: every pair judged up front, in threads.

    The scorer returns the judge's score, or None where the judge failed (left out of the
    correlation); the failures and the spend go to stderr so they are never silent.
    """
    import sys

    results = judge_many(pairs, model, variant=variant, cache_dir=cache_dir, **llm_options)
    scores = {pair: r.score for pair, r in zip(pairs, results)}
    failed = [r.error for r in results if r.score is None]
    spent = sum(r.cost for r in results)
    cached = sum(r.cached for r in results)
    print(f"judge {model} ({variant}): {len(results) - len(failed)}/{len(results)} scored, {cached} from the cache, "
          f"${spent:.4f} spent", file=sys.stderr)
    if failed:
        print(f"judge failures ({len(failed)}), first: {failed[0]}", file=sys.stderr)
    name = f"judge:{model}" if variant == "tuned" else f"judge[{variant}]:{model}"
    return name, lambda gt_latex, extraction: scores.get((gt_latex, extraction))


# -- formulas ------------------------------------------------------------------------------------
FORMULA_PROMPT_VERSION = "judge-formula-2026.11-1"  # bump on any formula prompt change (cache key)

_FORMULA_CRITERIA = """\
You are a strict evaluator of mathematical formula extraction from PDF documents. You receive
a ground-truth formula written in LaTeX and the formula that a PDF parser extracted from the
rendered page (as LaTeX, MathML, or plain text with Unicode symbols). The formula was set
{where}. Decide how faithfully the extraction represents the ground truth.

Judge on these criteria:
1. Correctness: every symbol, variable, index, exponent, operator, sign, relation, delimiter
   and number is right and sits in the right place (a subscript is not an exponent; a fraction
   keeps its numerator and denominator).
2. Completeness: no term, factor, limit, condition, row or equation part is missing, and
   nothing is added that is not in the ground truth.
3. Semantic equivalence: notation that typesets to the same mathematics is not an error:
   \\frac vs \\dfrac, extra or missing braces, spacing commands, \\left/\\right, \\operatorname
   vs a named operator, equivalent symbol macros (\\le vs \\leq), Unicode symbols for LaTeX
   macros, different delimiters ($...$, \\(...\\), $$...$$, equation environments).

Scale: 10 = mathematically identical; 7-9 = minor notational issues that do not change the
meaning; 4-6 = some symbols, indices or terms wrong or missing, the formula still recognisable;
1-3 = meaning largely lost; 0 = unrelated, unusable or empty."""

_FORMULA_TUNED = _FORMULA_CRITERIA + f"""

First list the concrete errors you find, most severe first, at most {MAX_ERRORS}, each one
sentence that names the affected symbols or terms (an empty list if there are none).
Then give the score as a number from 0 to 10.
Answer with only a JSON object: {{{{"errors": ["...", ...], "score": <0-10>}}}}"""

_FORMULA_NO_COT = _FORMULA_CRITERIA + """

Give the score as a number from 0 to 10 without any explanation.
Answer with only a JSON object: {{"score": <0-10>}}"""

_FORMULA_NAIVE = """\
Rate how similar the extracted formula is to the ground-truth formula, from 0 (completely
different) to 10 (identical). Answer with only a JSON object: {"score": <0-10>}"""

FORMULA_SYSTEM_PROMPTS = {"tuned": _FORMULA_TUNED, "tuned_no_cot": _FORMULA_NO_COT, "naive": _FORMULA_NAIVE}
_WHERE = {"inline": "inline, inside a sentence", "display": "as a display (on its own lines)"}
EMPTY_FORMULA_ERROR = "The extraction is empty: no formula was produced."


def formula_messages(gt_latex: str, extraction: str, kind: str = "display",
                     variant: str = "tuned") -> list[dict[str, str]]:
    """The chat messages the judge model sees for one (ground-truth formula, extraction) pair."""
    if variant not in FORMULA_SYSTEM_PROMPTS:
        raise ValueError(f"unknown judge variant {variant!r}; choose one of {', '.join(VARIANTS)}")
    if kind not in FORMULA_KINDS:
        raise ValueError(f"unknown formula kind {kind!r}; choose one of {', '.join(FORMULA_KINDS)}")
    system = FORMULA_SYSTEM_PROMPTS[variant]
    system = system.format(where=_WHERE[kind]) if variant != "naive" else system
    user = (f"Ground-truth formula (LaTeX):\n<ground_truth>\n{gt_latex.strip()}\n</ground_truth>\n\n"
            f"Extracted formula:\n<extraction>\n{extraction.strip()}\n</extraction>")
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def judge_formula(gt_latex: str, extraction: str | None, model: str, *, kind: str = "display",
                  variant: str = "tuned", cache_dir: Path | None = None, **llm_options: Any) -> JudgeResult:
    """Rate an extracted formula against its LaTeX ground truth on 0-10, as `judge_table` does tables.

    Same answer schema, re-asking and caching as the table judge; the prompt (correctness,
    completeness, semantic equivalence) and its version are the formula ones, and `kind`
    (inline / display) tells the model how the formula was set.
    """
    if variant not in VARIANTS:
        raise ValueError(f"unknown judge variant {variant!r}; choose one of {', '.join(VARIANTS)}")
    if not isinstance(gt_latex, str) or not gt_latex.strip():
        raise ValueError("judge_formula needs the ground-truth formula's LaTeX")
    formula_messages(gt_latex, "-", kind, variant)  # checks kind before any early return
    if extraction is None or not str(extraction).strip():
        return JudgeResult(score=0.0, errors=[EMPTY_FORMULA_ERROR])
    return _asked(model, formula_messages(gt_latex, str(extraction), kind, variant),
                  f"{FORMULA_PROMPT_VERSION}/{variant}", variant, cache_dir, llm_options)


# -- a page's prose ------------------------------------------------------------------------------
TEXT_PROMPT_VERSION = "judge-text-2026.11-1"  # bump on any text prompt change (cache key)

_TEXT_CRITERIA = """\
You are a strict evaluator of text extraction from PDF documents. You receive the running text
(prose) of one page as the ground truth, its paragraphs and headings in reading order and
separated by blank lines, and the part of a PDF parser's output that holds it (Markdown, HTML,
LaTeX or plain text). Tables, formulas and images of the page may stand between the paragraphs
of the output; when the output marks them as such (a Markdown or HTML table, math delimiters, an
image), they are not prose and not judged. Decide how faithfully, and in which order, the
extraction holds the ground truth's prose.

Judge on these criteria:
1. Fidelity: every word of the ground truth is present and written as in the ground truth
   (letters, case, numbers, punctuation), and nothing is added to the prose that is not in the
   ground truth: running headers, footers, page numbers, repeated passages, or a table's
   content written as plain lines of text. Not errors: line breaks, a word hyphenated across a
   line end, whitespace, ligatures, typographic quotes and dashes, and markup around the text
   (headings, bold, italics).
2. Reading order: the paragraphs, and the lines within each paragraph, follow the ground
   truth's order. A two-column page read straight across both columns, line by line, or
   paragraphs moved elsewhere are severe errors even when every word is present.

Scale: 10 = the same prose in the same order; 7-9 = a few words changed, missing or added, the
order intact; 4-6 = sentences or a paragraph missing, added or out of order, most of the text
still readable in order; 1-3 = most of the text missing or its order scrambled; 0 = unrelated,
unusable or empty."""

_TEXT_TUNED = _TEXT_CRITERIA + f"""

First list the concrete errors you find, most severe first, at most {MAX_ERRORS}, each one
sentence that names the affected paragraph and words (an empty list if there are none).
Then give the score as a number from 0 to 10.
Answer with only a JSON object: {{"errors": ["...", ...], "score": <0-10>}}"""

_TEXT_NO_COT = _TEXT_CRITERIA + """

Give the score as a number from 0 to 10 without any explanation.
Answer with only a JSON object: {"score": <0-10>}"""

_TEXT_NAIVE = """\
Rate how similar the extracted text is to the ground-truth text, in content and order, from 0
(completely different) to 10 (identical). Answer with only a JSON object: {"score": <0-10>}"""

TEXT_SYSTEM_PROMPTS = {"tuned": _TEXT_TUNED, "tuned_no_cot": _TEXT_NO_COT, "naive": _TEXT_NAIVE}
EMPTY_TEXT_ERROR = "The extraction is empty: no text was produced."


def text_messages(blocks: Sequence[str], extraction: str, variant: str = "tuned") -> list[dict[str, str]]:
    """The chat messages the judge model sees for one page's prose (its blocks in reading order) and the
    output's stretch that holds it."""
    if variant not in TEXT_SYSTEM_PROMPTS:
        raise ValueError(f"unknown judge variant {variant!r}; choose one of {', '.join(VARIANTS)}")
    prose = "\n\n".join(b.strip() for b in blocks if b.strip())
    user = (f"Ground-truth text (paragraphs in reading order):\n<ground_truth>\n{prose}\n</ground_truth>\n\n"
            f"Extracted text:\n<extraction>\n{extraction.strip()}\n</extraction>")
    return [{"role": "system", "content": TEXT_SYSTEM_PROMPTS[variant]}, {"role": "user", "content": user}]


def judge_text(blocks: Sequence[str], extraction: str | None, model: str, *, variant: str = "tuned",
               cache_dir: Path | None = None, **llm_options: Any) -> JudgeResult:
    """Rate the prose an output holds against a page's text blocks on 0-10, fidelity and reading order
    in one rating, as `judge_table` does tables (same schema, re-asking and cache; its own prompt and
    prompt version)."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown judge variant {variant!r}; choose one of {', '.join(VARIANTS)}")
    if isinstance(blocks, str) or not any(isinstance(b, str) and b.strip() for b in blocks):
        raise ValueError("judge_text needs the page's text blocks (a sequence of strings, not all empty)")
    if extraction is None or not str(extraction).strip():
        return JudgeResult(score=0.0, errors=[EMPTY_TEXT_ERROR])
    return _asked(model, text_messages(blocks, str(extraction), variant), f"{TEXT_PROMPT_VERSION}/{variant}",
                  variant, cache_dir, llm_options)
