"""Run pdflatex safely on a LaTeX string and read what its log says.

Every compile goes through `run_pdflatex`: a private temp dir, no shell escape, files
opened only in that dir (`openin_any=p`, `openout_any=p`), a timeout that kills the whole
process group, and a fixed `SOURCE_DATE_EPOCH` so the same source gives the same PDF bytes.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

PDFLATEX = "pdflatex"
ENGINES = ("pdflatex", "xelatex")  # xelatex: `generate --languages` pages in CJK, Arabic, Devanagari
FLAGS = ("-no-shell-escape", "-interaction=nonstopmode", "-halt-on-error", "-file-line-error")


class LatexError(ValueError):
    """pdflatex failed: the message is the first error of the log, on one line."""


@dataclass(slots=True)
class LatexLog:
    """The parts of a pdflatex log the generator acts on."""

    errors: list[str] = field(default_factory=list)
    overfull: list[float] = field(default_factory=list)  # pt too wide/high, per box
    underfull: int = 0
    pages: int = 0
    messages: list[str] = field(default_factory=list)  # lines we asked for with \typeout


@dataclass(slots=True)
class LatexResult:
    """A finished compile: the PDF bytes (None on error), the parsed log and the wall time."""

    pdf: bytes | None
    log: LatexLog
    seconds: float
    log_text: str = ""

    @property
    def pages(self) -> int:
        return self.log.pages


def have_pdflatex(engine: str = PDFLATEX) -> bool:
    return shutil.which(engine) is not None


_ERROR = re.compile(r"^(?:! (.+)|\S+?:(\d+): (.+))$", re.M)
_CONTEXT = re.compile(r"^l\.\d+ (.*)$", re.M)
_OVERFULL = re.compile(r"^Overfull \\[hv]box \(([\d.]+)pt too (?:wide|high)\)", re.M)
_UNDERFULL = re.compile(r"^Underfull \\[hv]box", re.M)
_PAGES = re.compile(r"^Output written on .*?\((\d+) pages?[,)]", re.M | re.S)  # xelatex: "(4 pages)."
# a glyph the font lacks (\tracinglostchars) or a character inputenc cannot map (pdflatex)
_MISSING = re.compile(r"^(?:! )?(Missing character: There is no .+?|(?:LaTeX|Package inputenc) Error: Unicode character .+?)"
                      r"(?: not set up for use with LaTeX)?\.?$", re.M)


def missing_glyphs(log_text: str) -> list[str]:
    """The log's missing-character reports: a page with any shows boxes or gaps, not text."""
    return [m.group(1).strip() for m in _MISSING.finditer(log_text)]


def is_missing_glyph(message: str) -> bool:
    """Whether an error message (a `LatexError`'s one line) is a missing-character report."""
    return "Missing character: There is no" in message or re.search(r"Unicode character .+? \(U\+[0-9A-F]+\)", message) is not None


def parse_log(text: str, tag: str = "TB") -> LatexLog:
    """Errors, overfull amounts, underfull count, page count and `tag:` messages of a log."""
    # TeX wraps log lines at 79 chars; our own messages are short and start at column 0.
    log = LatexLog()
    for m in _ERROR.finditer(text):
        msg = (m.group(1) or f"line {m.group(2)}: {m.group(3)}").strip()
        if msg and "==> Fatal error occurred" not in msg:
            where = _CONTEXT.search(text, m.end(), m.end() + 2000)  # TeX's "l.18 ...\bad" line
            if where and where.group(1).strip():
                msg += f" (at: {where.group(1).strip()[-40:]})"
            log.errors.append(msg)
    log.overfull = [float(x) for x in _OVERFULL.findall(text)]
    log.underfull = len(_UNDERFULL.findall(text))
    pages = _PAGES.search(text)
    log.pages = int(pages.group(1)) if pages else 0
    prefix = tag + ":"
    log.messages = [line for line in text.splitlines() if line.startswith(prefix)]
    return log


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        openin_any="p",
        openout_any="p",
        shell_escape="f",
        SOURCE_DATE_EPOCH="1767225600",  # 2026-01-01: reproducible PDF dates and IDs
        FORCE_SOURCE_DATE="1",
        max_print_line="10000",  # keep log lines (and our messages) unwrapped
        error_line="254",
        half_error_line="238",
    )
    return env


MAX_FILE_BYTES = 64 * 1024 * 1024  # no page, PDF or log of ours comes near this
MAX_LOG_READ = 8 * 1024 * 1024


def _limit_file_size() -> None:
    """In the child: a file written past MAX_FILE_BYTES kills pdflatex (log bombs, runaway output)."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_FILE_BYTES, MAX_FILE_BYTES))


def _read_log(path: Path) -> str:
    """The log, or its last MAX_LOG_READ bytes (errors and the page count are at the end)."""
    if not path.exists():
        return ""
    with open(path, "rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        handle.seek(max(0, size - MAX_LOG_READ))
        return handle.read().decode("utf-8", errors="replace")


def run_pdflatex(source: str, *, timeout: float = 60.0, check: bool = True, engine: str = PDFLATEX) -> LatexResult:
    """Compile `source` once with `engine` (pdflatex or xelatex, same sandbox for both);
    with `check`, raise `LatexError` (one line) when it fails."""
    if engine not in ENGINES:
        raise ValueError(f"unknown TeX engine {engine!r}: expected one of {', '.join(ENGINES)}")
    if not have_pdflatex(engine):
        raise OSError(f"{engine} not found: install TeX Live (see README)")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="tb-tex-") as tmp:
        tex = Path(tmp, "page.tex")
        tex.write_text(source, encoding="utf-8")
        proc = subprocess.Popen(
            [engine, *FLAGS, "page.tex"],
            cwd=tmp,
            env=_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # own process group: a timeout kills everything it spawned
            preexec_fn=_limit_file_size,
        )
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise LatexError(f"{engine} timed out after {timeout:g} s") from None
        except BaseException:  # a caller's budget (SIGALRM) or ^C: the compile must not run on alone
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise
        log_text = _read_log(Path(tmp, "page.log"))
        pdf_path = Path(tmp, "page.pdf")
        pdf = pdf_path.read_bytes() if pdf_path.exists() else None
    log = parse_log(log_text)
    result = LatexResult(pdf if proc.returncode == 0 else None, log, time.perf_counter() - start, log_text)
    if check and (proc.returncode != 0 or log.errors or pdf is None):
        if log.errors:
            first = log.errors[0]
        elif proc.returncode == 0:
            first = "no PDF produced (no pages of output)"
        else:
            first = f"exited with status {proc.returncode}"
        raise LatexError(f"{engine} failed: {first}")
    return result
