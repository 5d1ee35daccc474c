"""`vlm:MODEL` — a vision-language model through litellm: page image in, Markdown out.

Each page is rendered to PNG with pdftoppm and sent with a prompt asking for Markdown
with tables as HTML (HTML keeps row/column spans that pipe tables cannot). The call goes
through `tablebench.core.llm.complete`, the one LLM call site: transient failures (rate limits,
timeouts, 5xx, dropped connections) are retried a bounded number of times with backoff,
the process-wide concurrency limit applies, and `concurrency` tells the runner how many
pages may be in flight at once. The parse cache keeps the answers, so no LLM cache here. Options: `vlm:MODEL?dpi=150&concurrency=4&retries=3&timeout=120&
max_tokens=4096&api_base=URL&api_key_env=VAR`. Keys come from the environment, never
from the spec (specs end up in reports).
"""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from tablebench.core.messages import declare_secret
from tablebench.core.raster import RasterError, check_rendered
from tablebench.parse.protocol import ParseOutput, ParserError, output

PROMPT_REVISION = "1"
PROMPT = (
    "Transcribe this document page into Markdown, in reading order. "
    "Write every table as an HTML <table> (use <th> for header cells and rowspan/colspan for "
    "merged cells), exactly where it stands on the page. Keep numbers, symbols and units as "
    "printed. Output only the transcription, with no commentary and no code fences."
)
_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*\n(.*?)\n?```\s*$", re.S)


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
        images = [p.read_bytes() for p in pages]
    for number, png in enumerate(images, start=1):
        try:
            check_rendered(_png_size(png), number, pdf_path, proc.stderr)
        except RasterError as exc:
            raise ParserError(str(exc)) from None
    return images


def _png_size(png: bytes) -> tuple[int, int]:
    """Width and height from the PNG header (IHDR comes first); (0, 0) when it is no PNG."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or len(png) < 24:
        return 0, 0
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


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
        if api_key_env:  # its value is a secret whatever its name, here and in the processes started later
            declare_secret(api_key_env)
        self.name = f"vlm:{model}"
        self.version = f"p{PROMPT_REVISION}"
        self.config = {"model": model, "dpi": self.dpi, "max_tokens": self.max_tokens, "api_base": api_base}

    def prepare(self) -> None:
        from tablebench.core.llm import litellm_module

        litellm_module()  # the ~5 s import happens once per worker, before the first page

    def parse(self, pdf_path: Path) -> ParseOutput:
        from tablebench.core.llm import LLMError, complete

        started = time.perf_counter()
        texts, cost, attempts, tokens = [], 0.0, 0, [0, 0]
        for png in render_pages(Path(pdf_path), self.dpi):
            try:
                answer = complete(self.model, _messages(png), temperature=0.0, max_tokens=self.max_tokens,
                                  timeout=self.request_timeout, retries=self.retries, backoff=0.5,
                                  api_base=self.api_base, api_key_env=self.api_key_env or None)
            except LLMError as exc:
                raise ParserError(str(exc)) from None
            attempts += answer.attempts
            texts.append(strip_fences(answer.text or "").strip())
            cost += answer.cost
            tokens[0] += answer.prompt_tokens
            tokens[1] += answer.completion_tokens
        return output("\n\n".join(texts), started, format="markdown", cost=cost, attempts=attempts,
                      prompt_tokens=tokens[0], completion_tokens=tokens[1], message="model answered nothing")


def _messages(png: bytes) -> list[dict]:
    image = "data:image/png;base64," + base64.b64encode(png).decode()
    return [{"role": "user", "content": [
        {"type": "text", "text": PROMPT},
        {"type": "image_url", "image_url": {"url": image}},
    ]}]
