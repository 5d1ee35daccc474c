"""One-line messages: parsers, LLM servers and readers raise multi-line tracebacks and HTML
pages, while every outcome, report cell and CLI error here is one line."""

from __future__ import annotations


def one_line(text: object, limit: int = 300) -> str:
    """`text` (anything str() takes, e.g. an exception) on one line, capped at `limit` chars."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
