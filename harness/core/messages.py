"""One-line messages: parsers, LLM servers and readers raise multi-line tracebacks and HTML
pages, while every outcome, report cell and CLI error here is one line, and none of them holds
a secret: a provider that echoes the API key in its 401 answer must not put it into
results.json, the report, junit XML or a cache (`redact`).

A secret is the value of a variable named like one (OPENAI_API_KEY, ..._TOKEN) and of every
variable a parser or a judge is told to read a key from (`api_key_env=ACME_CREDS`, whatever
its name: `declare_secret`). The declared names live in the environment (`SECRET_VARS`), so
every process started after the declaration (xdist workers, parse workers) redacts them too.

A secret is found in every form an encoding gives it (`tablebench.core.secret_forms`: escaped as
JSON or Python writes it, percent-encoded, as HTML entities, in base64), not only raw: a judge
that echoes the key `\\u`-escaped in its JSON answer put the decoded key into the cache once the
answer was parsed. Decoded data is redacted again after decoding (`redact_data`)."""

from __future__ import annotations

import json
import os
import re
from typing import Any

from tablebench.core.secret_forms import ESCAPE_MARKS, base64_forms, pattern

# environment variables whose values are secrets: litellm's provider keys (OPENAI_API_KEY,
# ANTHROPIC_API_KEY, AZURE_AD_TOKEN, AWS_SECRET_ACCESS_KEY, ...) and anything named alike
_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)S?(_|$)", re.IGNORECASE)
MIN_SECRET = 8  # shorter values (a "1" in SOME_KEY_ENABLED) are not secrets and would redact everywhere
REDACTED = "[redacted]"
SECRET_VARS = "TABLEBENCH_SECRET_VARS"  # comma-separated names of variables declared secret
# key-shaped strings a provider may echo even when no environment variable holds them
_KEY_SHAPES = re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{16,}|\bBearer\s+[A-Za-z0-9._\-]{16,}")


def declare_secret(name: str) -> None:
    """Count the value of environment variable `name` as a secret from now on, in this process
    and in every process it starts later (a key variable named like nothing secret)."""
    declared = os.environ.get(SECRET_VARS, "").split(",")
    if name and name not in declared:
        os.environ[SECRET_VARS] = ",".join([n for n in declared if n] + [name])


def secrets() -> list[str]:
    """The secret values in the environment, longest first (so a key containing another goes first)."""
    declared = set(os.environ.get(SECRET_VARS, "").split(","))
    values = {v for k, v in os.environ.items()
              if (k in declared or _SECRET_NAME.search(k)) and len(v.strip()) >= MIN_SECRET}
    return sorted(values, key=len, reverse=True)


def redact(text: str) -> str:
    """`text` with every secret of the environment, in any of its encoded forms, and every
    key-shaped string replaced by `REDACTED`."""
    values = secrets()
    if values and any(mark in text for mark in ESCAPE_MARKS):
        text = pattern(tuple(values)).sub(REDACTED, text)  # type: ignore[union-attr]
    else:
        for value in values:
            if value in text:
                text = text.replace(value, REDACTED)
    for value in values:
        for stretch in base64_forms(value):
            if stretch in text:
                text = text.replace(stretch, REDACTED)
    return _KEY_SHAPES.sub(REDACTED, text)


def holds_secret(text: str) -> bool:
    """Does `text` hold a secret in any form `redact` finds?"""
    return redact(text) != text


def redact_data(value: Any) -> tuple[Any, bool]:
    """(value, held): decoded JSON-like data (a parsed answer, a parser's meta) with every
    string in it, keys included, redacted; `held` when one held a secret. Data that holds none
    comes back as it is; data that does comes back through JSON (tuples as lists, other odd
    values as their `str`)."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        return redact(str(value)), True
    clean = redact(text)
    if clean == text:
        return value, False
    try:
        return json.loads(clean), True
    except (ValueError, RecursionError):  # a secret that spanned JSON syntax: nothing of it is kept
        return REDACTED, True


# characters of an error or note line on the terminal: it may quote what a results file from
# anywhere holds (a parser label, a version), which is cut here rather than flood the terminal
MAX_ERROR_LINE = 2_000


def one_line(text: object, limit: int = 300) -> str:
    """`text` (anything str() takes, e.g. an exception) on one line, capped at `limit` chars, redacted."""
    flat = redact(" ".join(str(text).split()))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


MAX_TRACEBACK = 4_000  # characters of a parser's traceback (or a command's stderr) kept: its end


def tail(text: str, limit: int = MAX_TRACEBACK) -> str:
    """The end of `text` (where a traceback or a command's stderr says what failed), at most
    `limit` characters, redacted before it is cut (so no part of a secret is left at the cut)."""
    text = redact(text.rstrip())
    return text if len(text) <= limit else "…" + text[-(limit - 1):]


def traceback_tail(exc: BaseException, limit: int = MAX_TRACEBACK) -> str:
    """The end of `exc`'s traceback (the innermost frames and the error, which say where the
    parser failed), at most `limit` characters, redacted: what a one-line message drops."""
    import traceback

    return tail("".join(traceback.format_exception(exc)), limit)
