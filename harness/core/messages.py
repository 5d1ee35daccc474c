"""One-line messages: parsers, LLM servers and readers raise multi-line tracebacks and HTML
pages, while every outcome, report cell and CLI error here is one line, and none of them holds
a secret: a provider that echoes the API key in its 401 answer must not put it into
results.json, the report, junit XML or a cache (`redact`)."""

from __future__ import annotations

import os
import re

# environment variables whose values are secrets: litellm's provider keys (OPENAI_API_KEY,
# ANTHROPIC_API_KEY, AZURE_AD_TOKEN, AWS_SECRET_ACCESS_KEY, ...) and anything named alike
_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)S?(_|$)", re.IGNORECASE)
MIN_SECRET = 8  # shorter values (a "1" in SOME_KEY_ENABLED) are not secrets and would redact everywhere
REDACTED = "[redacted]"
# key-shaped strings a provider may echo even when no environment variable holds them
_KEY_SHAPES = re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{16,}|\bBearer\s+[A-Za-z0-9._\-]{16,}")


def secrets() -> list[str]:
    """The secret values in the environment, longest first (so a key containing another goes first)."""
    values = {v for k, v in os.environ.items() if _SECRET_NAME.search(k) and len(v.strip()) >= MIN_SECRET}
    return sorted(values, key=len, reverse=True)


def redact(text: str) -> str:
    """`text` with every secret of the environment and every key-shaped string replaced by `REDACTED`."""
    for value in secrets():
        if value in text:
            text = text.replace(value, REDACTED)
    return _KEY_SHAPES.sub(REDACTED, text)


def one_line(text: object, limit: int = 300) -> str:
    """`text` (anything str() takes, e.g. an exception) on one line, capped at `limit` chars, redacted."""
    flat = redact(" ".join(str(text).split()))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
