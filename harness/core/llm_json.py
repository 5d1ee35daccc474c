"""Reading a model's answer as JSON: the tolerant parser, the response formats, schema checks.

Why apart from the call: models wrap JSON in fences, <think> blocks and prose, write Python
literals and trailing commas; what counts as an answer is the same for every caller
(`tablebench.core.llm.complete`, the judge, the LLM locators), and none of it needs litellm.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from tablebench.core.messages import one_line

_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def parse_json(text: str) -> Any:
    """The first JSON object or array in a model's answer.

    Tolerates what models wrap around JSON: code fences, <think> blocks, prose before or
    after, single quotes, Python literals (True/None), trailing commas. Raises ValueError
    with the reason when nothing parses.
    """
    if not isinstance(text, str):
        raise TypeError(f"expected text, got {type(text).__name__}")
    body = _THINK.sub("", text).strip()
    fenced = [m.group(1) for m in _FENCE.finditer(body)]
    for candidate in [*fenced, body]:
        value = _first_json(candidate)
        if value is not None:
            return value
    raise ValueError(f"no JSON object in the answer: {one_line(text, 120)!r}")


def _first_json(text: str) -> Any:
    """The first balanced {...} or [...] in `text` that parses, else None."""
    starts = [i for i, ch in enumerate(text) if ch in "{["][:32]
    for start in starts:
        chunk = _balanced(text, start)
        if chunk is None:
            continue
        for attempt in (chunk, _TRAILING_COMMA.sub(r"\1", chunk)):
            try:
                return json.loads(attempt)
            except ValueError:
                pass
            try:  # single quotes, True/False/None
                value = ast.literal_eval(attempt)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                continue
            if isinstance(value, (dict, list)):
                return value
    return None


def _balanced(text: str, start: int) -> str | None:
    """The bracketed chunk opening at `start`, honouring quoted strings; None when unclosed."""
    closing = {"{": "}", "[": "]"}
    stack: list[str] = []
    quote: str | None = None
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in closing:
            stack.append(closing[ch])
        elif ch in "}]":
            if not stack or stack.pop() != ch:
                return None
            if not stack:
                return text[start:i + 1]
    return None


def response_format(schema: dict | None, json_mode: str) -> dict | None:
    """The OpenAI-style `response_format` for litellm: a JSON schema, JSON mode, or none.

    `json_mode="prompt"` sends nothing and relies on the prompt and the tolerant parser,
    for servers that reject `response_format`.
    """
    if json_mode not in ("schema", "object", "prompt"):
        raise ValueError(f"json_mode must be 'schema', 'object' or 'prompt', got {json_mode!r}")
    if schema is None or json_mode == "prompt":
        return None
    if json_mode == "object":
        return {"type": "json_object"}
    return {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema, "strict": True}}


def validate_answer(answer: Any, schema: dict[str, Any]) -> Any:
    """`answer` when it matches the JSON `schema` (the one sent as `response_format`), else a
    one-line ValueError saying where and why, which `complete` shows the model when it re-asks.

    Strict: a score given as "8/10" or an index as "3" does not match a number / integer
    schema, though the judge's and locators' own readers accept both.
    """
    try:
        from jsonschema import exceptions, validators  # ~0.1 s: only when an answer is checked
    except ImportError:
        raise ImportError("validating answers needs jsonschema: pip install 'tablebench[llm]'") from None
    kind = validators.validator_for(schema)
    try:
        kind.check_schema(schema)
    except exceptions.SchemaError as exc:
        raise ValueError(f"not a valid JSON schema: {one_line(exc.message, 200)}") from None
    error = exceptions.best_match(kind(schema).iter_errors(answer))
    if error is None:
        return answer
    where = "/".join(map(str, error.absolute_path))
    raise ValueError(f"{'at ' + where + ': ' if where else ''}{one_line(error.message, 200)}")
