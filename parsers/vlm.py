"""`vlm:MODEL` — a vision-language model through litellm: page image in, Markdown out.

Each page is rendered to PNG with pdftoppm and sent with a prompt asking for Markdown
with tables as HTML (HTML keeps row/column spans that pipe tables cannot). Transient
failures (rate limits, timeouts, 5xx, dropped connections) are retried a bounded number
of times with exponential backoff; `concurrency` tells the runner how many pages may be
in flight at once. Options: `vlm:MODEL?dpi=150&concurrency=4&retries=3&timeout=120&
max_tokens=4096&api_base=URL&api_key_env=VAR`. Keys come from the environment, never
from the spec (specs end up in reports).
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from parsers.base import ParseOutput, ParserError, output, require

PROMPT_REVISION = "1"
PROMPT = (
    "Transcribe this document page into Markdown, in reading order. "
    "Write every table as an HTML <table> (use <th> for header cells and rowspan/colspan for "
    "merged cells), exactly where it stands on the page. Keep numbers, symbols and units as "
    "printed. Output only the transcription, with no commentary and no code fences."
)
_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*\n(.*?)\n?```\s*$", re.S)
_TRANSIENT = ("RateLimitError", "Timeout", "APIConnectionError", "InternalServerError",
              "ServiceUnavailableError", "BadGatewayError")


def _positive_int(option: str, value: str | int) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < (0 if option == "retries" else 1):
        raise ValueError(f"vlm option {option}={value!r} must be a {'non-negative' if option == 'retries' else 'positive'} integer")
    return number


def render_pages(pdf_path: Path, dpi: int) -> list[bytes]:
    """Every page of the PDF as PNG bytes (pdftoppm from poppler-utils)."""
    if shutil.which("pdftoppm") is None:
        raise ParserError("pdftoppm is missing: install poppler-utils to render pages for a VLM")
    with tempfile.TemporaryDirectory(prefix="tablebench-vlm-") as tmp:
        proc = subprocess.run(["pdftoppm", "-png", "-r", str(dpi), str(pdf_path), f"{tmp}/page"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise ParserError(f"pdftoppm failed on {Path(pdf_path).name}: {proc.stderr.strip()[:200]}")
        pages = sorted(Path(tmp).glob("page*.png"), key=lambda p: int(re.sub(r"\D", "", p.stem) or 0))
        return [p.read_bytes() for p in pages]


def strip_fences(text: str) -> str:
    """Models wrap answers in ```markdown fences despite the prompt; unwrap them."""
    match = _FENCE.match(text)
    return match.group(1) if match else text


class VlmParser:
    """One litellm completion per page; cost from litellm's price map (0.0 when unknown)."""

    def __init__(self, model: str, dpi: str = "150", concurrency: str = "4", retries: str = "3",
                 timeout: str = "120", max_tokens: str = "4096", api_base: str = "",
                 api_key_env: str = "") -> None:
        if not model:
            raise ValueError("vlm: needs a litellm model, e.g. vlm:openai/gpt-4o-mini")
        self.model = model
        self.dpi = _positive_int("dpi", dpi)
        self.concurrency = _positive_int("concurrency", concurrency)
        self.retries = _positive_int("retries", retries)
        self.request_timeout = _positive_int("timeout", timeout)
        self.max_tokens = _positive_int("max_tokens", max_tokens)
        self.api_base = api_base or None
        self.api_key_env = api_key_env
        self.name = f"vlm:{model}"
        self.version = f"p{PROMPT_REVISION}"
        self.config = {"model": model, "dpi": self.dpi, "max_tokens": self.max_tokens, "api_base": api_base}

    def prepare(self) -> None:
        self._litellm()

    @staticmethod
    def _litellm() -> Any:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no price-list fetch at import
        litellm = require("litellm", "llm")
        litellm.suppress_debug_info = True  # no "Give Feedback" banner on every retried error
        return litellm

    def _api_key(self) -> str | None:
        if self.api_key_env:
            key = os.environ.get(self.api_key_env)
            if not key:
                raise ParserError(f"environment variable {self.api_key_env} (api_key_env) is not set")
            return key
        return "unused" if self.api_base else None  # a local server still wants some key

    def parse(self, pdf_path: Path) -> ParseOutput:
        litellm = self._litellm()
        started = time.perf_counter()
        texts, cost, attempts, tokens = [], 0.0, 0, [0, 0]
        for png in render_pages(Path(pdf_path), self.dpi):
            response, tries = self._complete(litellm, png)
            attempts += tries
            texts.append(strip_fences(response.choices[0].message.content or "").strip())
            usage = getattr(response, "usage", None)
            tokens[0] += getattr(usage, "prompt_tokens", 0) or 0
            tokens[1] += getattr(usage, "completion_tokens", 0) or 0
            try:
                cost += float(litellm.completion_cost(completion_response=response) or 0.0)
            except Exception:  # model missing from the price map: cost unknown, not an error
                pass
        return output("\n\n".join(texts), started, format="markdown", cost=cost, attempts=attempts,
                      prompt_tokens=tokens[0], completion_tokens=tokens[1], message="model answered nothing")

    def _complete(self, litellm: Any, png: bytes) -> tuple[Any, int]:
        """One page's completion with bounded retries on transient errors only."""
        image = "data:image/png;base64," + base64.b64encode(png).decode()
        messages = [{"role": "user", "content": [
            {"type": "text", "text": PROMPT},
            {"type": "image_url", "image_url": {"url": image}},
        ]}]
        transient = tuple(getattr(litellm, n) for n in _TRANSIENT if hasattr(litellm, n))
        for attempt in range(self.retries + 1):
            try:
                response = litellm.completion(
                    model=self.model, messages=messages, temperature=0, max_tokens=self.max_tokens,
                    timeout=self.request_timeout, api_base=self.api_base, api_key=self._api_key(),
                    max_retries=0, num_retries=0,
                )
                return response, attempt + 1
            except transient as exc:
                if attempt == self.retries:
                    raise ParserError(f"{type(exc).__name__} after {attempt + 1} attempts: {exc}") from None
                time.sleep(min(30.0, 0.5 * 2**attempt))
        raise AssertionError("unreachable")
