"""One LLM-locate engine for every kind of item: a model points at each ground truth in a
parser's output, and each pointer is checked against the output.

Why: the offline engine recognises items by content and markup; a model also copes with output
where an item is hard to recognise (prose-like text, odd markup, fused captions). But a model
may misquote or invent, so its answer is only a pointer:

1. The model gets the ground truths and the whole output and returns, per item, the verbatim
   span of the output that represents it (or ""); for a kind that allows fragments
   (`SpanStrategy.fragments` > 1), up to that many consecutive spans (a table the parser split).
2. Each span is re-found in the output as a literal substring (`refind.refind`); a span that
   is not in the output is rejected: no match can be fabricated.
3. The kind reads its item in the re-found regions (a table widened to the reader tables it
   covers, fragments joined in output order; the formula candidate most like the ground truth).
4. Items still unmatched may get more requests (`SpanStrategy.rounds`), on the output with the
   found regions cut out.
When the model cannot be reached or answers garbage, the offline locator answers instead (each
note says so). What locating cost is counted in a `usage` dict.

A `SpanStrategy` supplies what differs per kind: its prompt, the answer's list key, how an item
is read from a region and what a missing one looks like.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from tablebench.core.llm import LLMError, complete
from tablebench.core.messages import one_line
from tablebench.locate.engine import Located, Span, describe_spans
from tablebench.locate.refind import MIN_ALIGNMENT, Found, refind


class SpanStrategy(Protocol):
    """What the LLM-locate engine needs from a kind of item, for one page's ground truths."""

    noun: str  # "table": in the notes and the entry point's name
    key: str  # the answer's list: {"tables": [{"index": 0, "spans": ["..."]}, ...]}
    fragments: int  # spans one item may be found as (1: {"index", "span"} entries)
    system_prompt: str
    prompt_version: str
    rounds: int  # requests at most: a later one asks again for the unmatched, on what is left
    count: int  # how many ground truths

    def prepare(self) -> None:
        """Check or read the ground truths (after the arguments are checked, before any request)."""

    def ground_truths(self, pending: list[int]) -> str:
        """These ground truths as the prompt lists them."""

    def reader(self, output: str) -> Callable[[int, list[Found]], tuple[Located, list[Span]]]:
        """(index, re-found spans in output order) -> (the item read there, the spans it claims)."""

    def describe(self, hit: Found) -> str:
        """How the model quoted a found item, for its note."""

    def missing(self, index: int, note: str) -> Located:
        """Ground truth `index` not located."""

    def offline(self, output: str) -> list[Located]:
        """The offline locator's answer, the fallback."""


def spans_schema(key: str, fragments: int = 1) -> dict[str, Any]:
    """The answer's JSON schema: `{key: [{"index": int, "span": str}, ...]}` (one span per item), or
    with `fragments` > 1 `{key: [{"index": int, "spans": [str, ...]}, ...]}` (the bound on the
    spans is checked by `read_spans`: strict structured output does not take `maxItems` everywhere)."""
    field, value = ("span", {"type": "string"}) if fragments == 1 else \
        ("spans", {"type": "array", "items": {"type": "string"}})
    return {
        "type": "object", "additionalProperties": False, "required": [key],
        "properties": {key: {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["index", field],
            "properties": {"index": {"type": "integer"}, field: value}}}},
    }


def read_spans(data: Any, wanted: set[int], key: str, fragments: int = 1) -> dict[int, list[str]]:
    """index -> its spans from a parsed answer (unknown indices and empty spans dropped; the first
    entry of an index wins); ValueError when malformed or an item has more than `fragments`
    spans (the model is asked again with the reason). An entry may give one "span" or a "spans"
    list."""
    items = data.get(key) if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise ValueError(f"the answer must be an object with a '{key}' list")  # noqa: TRY004 - re-asks the model
    field = "span" if fragments == 1 else "spans"
    spans: dict[int, list[str]] = {}
    for item in items:
        if not isinstance(item, dict) or "index" not in item:
            raise ValueError(f"each entry of '{key}' must be an object with 'index' and '{field}'")
        try:
            index = int(item["index"])
        except (TypeError, ValueError):
            raise ValueError(f"'index' must be an integer, got {item['index']!r}") from None
        given = item.get("spans", item.get("span"))
        texts = [given] if isinstance(given, str) else given if isinstance(given, list) else []
        texts = [t for t in texts if isinstance(t, str) and t.strip()]
        if len(texts) > fragments:
            raise ValueError(f"entry {index} of '{key}' has {len(texts)} spans; at most {fragments} "
                             f"consecutive fragments per {key.rstrip('s')}")
        if index in wanted and texts and index not in spans:
            spans[index] = texts
    return spans


def messages(strategy: SpanStrategy, pending: list[int], text: str) -> list[dict[str, str]]:
    """The chat messages asking for the `pending` ground truths in `text`."""
    user = (f"Ground-truth {strategy.key}:\n{strategy.ground_truths(pending)}\n\n"
            f"Parser output:\n<output>\n{text}\n</output>")
    return [{"role": "system", "content": strategy.system_prompt}, {"role": "user", "content": user}]


def quoted(hit: Found) -> str:
    """How closely the model quoted a span, in words."""
    if hit.how == "exact":
        return "span quoted exactly"
    if hit.how == "whitespace":
        return "span quoted up to whitespace"
    return f"span re-found at {hit.alignment:.0%} alignment"


def locate_llm(strategy: SpanStrategy, output: str, model: str, *, min_alignment: float = MIN_ALIGNMENT,
               cache_dir: Path | None = None, fallback: bool = True, usage: dict[str, Any] | None = None,
               **llm_options: Any) -> list[Located]:
    """One `Located` per ground truth of `strategy`, in order, located by `model` in `output`.

    `llm_options` go to `tablebench.core.llm.complete`. When the model cannot be reached or answers
    garbage twice, `fallback` uses the offline locator (each note says so); without it the
    `LLMError` propagates. A `usage` dict, when given, is filled with what locating cost: `cost`
    (USD, 0.0 from the cache), `requests` (HTTP requests made) and `cached` (answers from the cache).
    """
    spend = usage if usage is not None else {}
    spend.update(cost=0.0, requests=0, cached=0)
    if not isinstance(output, str):
        raise TypeError(f"locate_{strategy.noun}s_llm expects the output as str, got {type(output).__name__}")
    if not 0.0 < min_alignment <= 1.0:
        raise ValueError(f"min_alignment must be in (0, 1], got {min_alignment}")
    if not strategy.count:
        return []
    strategy.prepare()
    if not output.strip():
        return [strategy.missing(i, "the output is empty") for i in range(strategy.count)]
    try:
        return _ask(strategy, output, model, min_alignment, cache_dir, llm_options, spend)
    except LLMError as exc:
        spend["cost"] += exc.cost
        spend["requests"] += exc.attempts
        if not fallback:
            raise
        reason = one_line(exc, 200)
        out = strategy.offline(output)
        for loc in out:
            loc.note = "; ".join(filter(None, [f"LLM locator failed ({reason}): offline locator used", loc.note]))
        return out


def _ask(strategy: SpanStrategy, output: str, model: str, min_alignment: float, cache_dir: Path | None,
         llm_options: dict[str, Any], spend: dict[str, Any]) -> list[Located]:
    read = strategy.reader(output)
    schema = spans_schema(strategy.key, strategy.fragments)
    found: dict[int, tuple[Located, list[Found], str]] = {}
    rejected: dict[int, str] = {}
    taken: list[Span] = []
    for round_ in range(strategy.rounds):  # a later round asks again for the unmatched, on what is left
        pending = [i for i in range(strategy.count) if i not in found]
        if not pending:
            break
        text = output if round_ == 0 else _remaining(output, taken)
        if not text.strip():
            break
        wanted = set(pending)
        response = complete(model, messages(strategy, pending, text), prompt_version=strategy.prompt_version,
                            schema=schema, check=lambda data, w=wanted: read_spans(data, w, strategy.key,
                                                                                    strategy.fragments),
                            cache_dir=cache_dir, **llm_options)
        spend["cost"] += response.cost
        spend["requests"] += response.attempts
        spend["cached"] += int(response.cached)
        for index, spans in sorted(response.data.items()):
            hits, lost = _refind_all(spans, output, taken, min_alignment)
            if not hits:
                rejected[index] = f"the model's span is not in the output (below {min_alignment:.0%} alignment)"
                continue
            loc, claims = read(index, hits)
            taken.extend(claims)
            notes = ["" if round_ == 0 else "found on the second request", _fragments_note(strategy, loc, lost)]
            found[index] = (loc, hits, "; ".join(filter(None, notes)))
            rejected.pop(index, None)
    out = []
    for i in range(strategy.count):
        if i not in found:
            out.append(strategy.missing(i, rejected.get(i, f"the model found no span for this {strategy.noun}")))
            continue
        loc, hits, extra = found[i]
        worst = min(hits, key=lambda h: (h.alignment, _CLOSENESS.get(h.how, 0)))  # the note tells the loosest quote
        loc.note = "; ".join(filter(None, [f"LLM locator: {strategy.describe(worst)}", extra]))
        out.append(loc)
    return out


_CLOSENESS = {"exact": 2, "whitespace": 1}  # "aligned": 0


def _refind_all(spans: list[str], output: str, taken: list[Span], min_alignment: float) -> tuple[list[Found], int]:
    """Each quoted fragment re-found (each preferring text no earlier one took), in output order;
    and how many were not in the output."""
    hits: list[Found] = []
    for span in spans:
        hit = refind(span, output, taken + [(h.start, h.end) for h in hits], min_alignment=min_alignment)
        if hit is not None:
            hits.append(hit)
    return sorted(hits, key=lambda h: (h.start, h.end)), len(spans) - len(hits)


def _fragments_note(strategy: SpanStrategy, loc: Located, lost: int) -> str:
    """What the notes say of an item found as several fragments, or with fragments not in the output."""
    parts = []
    if len(loc.spans) > 1:
        parts.append(f"split {strategy.noun} joined from {len(loc.spans)} fragments at {describe_spans(loc.spans)}")
    if lost:
        parts.append(f"{lost} quoted fragment(s) not in the output, left out")
    return "; ".join(parts)


def _remaining(output: str, taken: list[Span]) -> str:
    """The output with the located regions cut out (a blank line each), for the next request."""
    parts, pos = [], 0
    for a, b in sorted(taken):
        if a > pos:
            parts.append(output[pos:a])
        pos = max(pos, b)
    parts.append(output[pos:])
    return "\n\n".join(p for p in parts if p.strip())
